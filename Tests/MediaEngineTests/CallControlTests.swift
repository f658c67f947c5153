// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Foundation
import MediaEngine
import MediaEngineTesting
import RTP
import SRTP
import Testing
import TestSupport

/// Mute, hold, translation, SSRC change, SRTP failures, remote silence, DTMF, and the
/// mixer's gains and bridge: a call's controls and events on the virtual clock.
@Suite struct CallControlTests {
    static let alice = CallOverNetworkTests.alice
    static let bob = CallOverNetworkTests.bob
    static func speech(_ samples: [Int16]) -> (Int, CallLoop.Side) -> [Int16] {
        { index, _ in CallLoop.frame(index, of: samples, length: 960) }
    }
    static func silence(_: Int, _: CallLoop.Side) -> [Int16] { [Int16](repeating: 0, count: 960) }

    /// A window of what a side played, in frames (the jitter buffer starts at 100 ms and comes
    /// down on a clean link in the talk's pauses, so windows start up to 10 frames after the
    /// change they look at).
    static func played(_ side: CallLoop.Side, frames: Range<Int>) -> ArraySlice<Int16> {
        side.played[(frames.lowerBound * 960)..<(frames.upperBound * 960)]
    }

    @Test func mutedMicrophoneNeverReachesTheFarEndButRTPKeepsFlowing() throws {
        let loop = try CallLoop()
        loop.run(frames: 100, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.silence)
        let sentBefore = loop.alice.call.statistics.outbound.packetsSent
        loop.alice.call.isMuted = true
        loop.run(frames: 150, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.silence)
        let sentWhileMuted = loop.alice.call.statistics.outbound.packetsSent - sentBefore
        loop.alice.call.isMuted = false
        loop.run(frames: 150, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.silence)

        #expect(sentWhileMuted == 150, "one packet per frame while muted (no DTX negotiated)")
        let mutedLevel = SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 110..<250))
        #expect(mutedLevel < -70, "Bob hears \(mutedLevel) dBFS while Alice is muted")
        let unmutedLevel = SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 255..<400))
        #expect(unmutedLevel > -40, "Alice is heard again after unmuting: \(unmutedLevel) dBFS")
        #expect(loop.bob.call.statistics.inbound.concealedSamples == 0, "muting is not loss")
    }

    @Test func mutedWithDTXSendsOnlyTheSilenceMarkers() throws {
        var configuration = MediaConfiguration()
        configuration.discontinuousTransmission = true
        let loop = try CallLoop(configuration: configuration)
        loop.alice.call.isMuted = true
        loop.run(frames: 200, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.silence)
        let outbound = loop.alice.call.statistics.outbound
        #expect(outbound.framesSuppressedByDTX > 150)
        #expect(outbound.packetsSent > 0, "DTX keeps the stream alive")
    }

    @Test func heldCallSendsAndPlaysNothingButCountsAndResumes() throws {
        let loop = try CallLoop()
        loop.run(frames: 100, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        let before = loop.alice.call.statistics
        loop.alice.call.isHeld = true
        loop.run(frames: 100, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        let during = loop.alice.call.statistics
        loop.alice.call.isHeld = false
        loop.run(frames: 150, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        let after = loop.alice.call.statistics

        #expect(during.outbound.packetsSent == before.outbound.packetsSent, "nothing sent while held")
        #expect(during.outbound.framesSkipped == 100)
        #expect(Self.played(loop.alice, frames: 101..<200).allSatisfy { $0 == 0 }, "nothing played while held")
        #expect(during.inbound.packetsReceivedWhileHeld >= 95, "Bob's packets are still counted")
        #expect(during.inbound.packetsReceived > before.inbound.packetsReceived)
        #expect(after.outbound.packetsSent > during.outbound.packetsSent)
        #expect(SignalComparison.rmsDecibels(Self.played(loop.alice, frames: 210..<350)) > -40, "Alice hears Bob after resuming")
        #expect(SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 210..<350)) > -40, "Bob hears Alice after resuming")
        #expect(loop.bob.call.statistics.inbound.packetsLost == 0, "a hold is not loss: media time advanced")
    }

    /// Both sides on hold (SIP `inactive`): nothing arrives for 3 s, and no frame is played.
    /// On resume the jitter buffer starts afresh at the first packet instead of concealing
    /// the 3 s that passed unplayed (it did: 2.98 s of concealment, Alice heard nothing of Bob
    /// for as long as the hold had lasted).
    @Test func aHoldWithNothingArrivingResumesAtOnce() throws {
        let loop = try CallLoop()
        loop.run(frames: 50, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        loop.alice.call.isHeld = true
        loop.bob.call.isHeld = true
        loop.run(frames: 150, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        let concealedBefore = loop.alice.call.statistics.inbound.concealedSamples
        loop.alice.call.isHeld = false
        loop.bob.call.isHeld = false
        loop.run(frames: 150, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.speech(Self.bob))
        let concealed = loop.alice.call.statistics.inbound.concealedSamples - concealedBefore
        #expect(concealed < 10 * 960, "\(concealed) samples concealed after the resume")
        #expect(SignalComparison.rmsDecibels(Self.played(loop.alice, frames: 205..<300)) > -40, "Alice hears Bob at once")
        #expect(loop.alice.call.statistics.inbound.packetsLost == 0, "a hold is not loss")
    }

    @Test func translatingWhileMutedSendsTheTranslationNotTheMicrophone() throws {
        let loop = try CallLoop()
        let translator = ToneTranslationEngine(frequencyHz: 1_000)
        try loop.alice.call.translate(with: translator)
        loop.alice.call.isMuted = true
        loop.run(frames: 400, aliceMicrophone: Self.speech(Self.alice), bobMicrophone: Self.silence)
        let heard = Array(loop.bob.played)
        #expect(translator.wordsHeard >= 3, "the translator heard Alice's words: \(translator.wordsHeard)")
        #expect(loop.alice.call.statistics.outbound.packetsSent == 400, "the uplink keeps running while muted")
        let tone = SignalComparison.toneAmplitude(heard, frequencyHz: 1_000, sampleRate: 48_000)
        #expect(tone > 500, "Bob hears the translator's tones: amplitude \(tone)")
        let raw = SignalComparison.segmentalCorrelation(reference: Self.alice, signal: heard, segmentLength: 2_880, maxLag: 4_800)
        #expect(raw < 0.3, "Bob does not hear Alice's raw voice: \(raw)")
    }

    @Test func newSenderSSRCMidCallRestartsPlayoutAndIsReported() throws {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let configuration = MediaConfiguration()
        let first = try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 1)
        let restarted = try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 2)
        let receiver = try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 3)
        var heard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        for index in 0..<200 {
            let sender = index < 100 ? first : restarted
            CallLoop.frame(index, of: Self.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: Double(index) * 20) { datagram in
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: Double(index) * 20) }
            }
            // A restarting sender says goodbye for its old SSRC (RFC 3550 §6.6): the new one
            // replaces it at once. Without the BYE it would wait for the old one's 500 ms of
            // silence (`ParallelStreamTests`).
            if index == 99 {
                first.sendBye { datagram in
                    var copy = Array(datagram)
                    copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: Double(index) * 20) }
                }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: Double(index) * 20) }
            heard += frame
        }
        var events: [CallMediaEvent] = []
        receiver.drainEvents { events.append($0) }
        #expect(events.contains(.ssrcChanged(from: 1, to: 2)))
        let inbound = receiver.statistics.inbound
        #expect(inbound.ssrcChanges == 1)
        #expect(inbound.ssrc == 2)
        #expect(inbound.packetsLost == 0)
        let after = SignalComparison.segmentalCorrelation(reference: Array(Self.alice[(105 * 960)..<(190 * 960)]), signal: Array(heard[(105 * 960)...]),
                                                          segmentLength: 2_880, maxLag: 9_600)
        #expect(after > 0.8, "the new stream plays: \(after)")
    }

    @Test func wrongSRTPKeyIsCountedReportedOnceAndTheCallSurvives() throws {
        var configuration = MediaConfiguration()
        configuration.remoteSilenceTimeoutMs = 1_000
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let wrong = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let alice = try CallMedia(configuration: configuration, sendingKey: aliceKey, receivingKey: bobKey)
        let bob = try CallMedia(configuration: configuration, sendingKey: bobKey, receivingKey: wrong)
        var aliceHeard: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        for index in 0..<150 {
            let now = Double(index) * 20
            CallLoop.frame(index, of: Self.alice, length: 960).withUnsafeBufferPointer { alice.send(microphone: $0) }
            CallLoop.frame(index, of: Self.bob, length: 960).withUnsafeBufferPointer { bob.send(microphone: $0) }
            alice.sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: now) } }
            bob.sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { alice.receiveDatagram($0, arrivalTimeMs: now) } }
            frame.withUnsafeMutableBufferPointer { _ = bob.render(into: $0, nowMs: now) }
            frame.withUnsafeMutableBufferPointer { _ = alice.render(into: $0, nowMs: now) }
            aliceHeard += frame
        }
        var events: [CallMediaEvent] = []
        bob.drainEvents { events.append($0) }
        #expect(events.filter { if case .srtpAuthenticationFailing = $0 { true } else { false } } == [.srtpAuthenticationFailing(consecutiveFailures: 10)])
        #expect(events.contains(.remoteSilenceBegan(silentForMs: 1_000)))
        let transport = bob.statistics.transport
        #expect(transport.srtp.authFailures == 150 + transport.rtcpDatagramsReceived, "every RTP and SRTCP datagram fails")
        #expect(bob.statistics.inbound.packetsReceived == 0)
        #expect(SignalComparison.rmsDecibels(aliceHeard[(20 * 960)...]) > -40, "the other direction is unaffected")
    }

    @Test func oversizedMalformedAndForeignDatagramsAreCountedAndDropped() throws {
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        var big = [UInt8](repeating: 0x80, count: 3_000)
        big.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: 0) }
        var rtcp: [UInt8] = [0x80, 200, 0, 6] + [UInt8](repeating: 0, count: 24)
        rtcp.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: 0) }
        for bytes in [[UInt8](), [0x80, 0x6F, 0], [0x40, 0x6F] + [UInt8](repeating: 0, count: 20), [0x80, 96] + [UInt8](repeating: 1, count: 30)] {
            var copy = bytes
            copy.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: 0) }
        }
        var frame = [Int16](repeating: 0, count: 960)
        frame.withUnsafeMutableBufferPointer { _ = call.render(into: $0, nowMs: 20) }
        let statistics = call.statistics
        #expect(statistics.transport.datagramsReceived == 6)
        #expect(statistics.transport.datagramsTooLarge == 1)
        #expect(statistics.transport.rtcpDatagramsReceived == 1)
        // RFC 7983 first: the empty datagram is no protocol's, and 0x40 (RTP version 1) is a
        // TURN channel's first byte, handed back; only the truncated RTP header is malformed RTP.
        #expect(statistics.inbound.malformedPackets == 1)
        #expect(statistics.transport.unknownProtocolDatagrams == 1)
        #expect(statistics.transport.multiplexedDatagrams == 1)
        #expect(statistics.inbound.unknownPayloadTypePackets == 1)
        #expect(statistics.inbound.packetsReceived == 0)
    }

    @Test func dtmfKeyPressesAreReportedOnceEach() throws {
        var configuration = MediaConfiguration()
        configuration.telephoneEventPayloadType = 101
        let call = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil)
        var sequence: UInt16 = 500
        var packets: [[UInt8]] = []
        for (index, key) in [DTMFEvent.digit5, .star, .digit0].enumerated() {
            let press = try TelephoneEventKeyPress(event: key, durationMs: 100 + 20 * index, packetTimeMs: 20, volume: 10, clockRate: 48_000,
                                                   timestamp: UInt32(index) * 48_000, firstSequenceNumber: sequence)
            for packet in press {
                let header = RTPHeader(marker: packet.marker, payloadType: 101, sequenceNumber: packet.sequenceNumber,
                                       timestamp: packet.timestamp, ssrc: 77)
                var bytes = [UInt8](repeating: 0, count: 16)
                _ = try bytes.withUnsafeMutableBytes { try header.write(into: $0) }
                bytes.replaceSubrange(12..<16, with: packet.payload.encoded)
                packets.append(bytes)
            }
            sequence &+= UInt16(press.count)
        }
        for var packet in packets { packet.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: 0) } }
        var frame = [Int16](repeating: 0, count: 960)
        frame.withUnsafeMutableBufferPointer { _ = call.render(into: $0, nowMs: 20) }
        var events: [CallMediaEvent] = []
        call.drainEvents { events.append($0) }
        #expect(events == [.dtmfReceived(.digit5, durationMs: 100), .dtmfReceived(.star, durationMs: 120), .dtmfReceived(.digit0, durationMs: 140)])
        #expect(call.statistics.inbound.telephoneEventsReceived == 3)
    }

    /// Also played a 10 ms device period at a time: the bridge then takes each call's last
    /// whole frame while the next is rendered in pieces.
    @Test(arguments: [PlayoutTick.frame, .devicePeriod])
    func mixerPlaysEachCallAtItsGainAndBridgesTheOthers(tick: PlayoutTick) throws {
        var mixing = MixerConfiguration()
        mixing.processing = ProcessingConfiguration()
        mixing.playoutTick = tick
        let mixer = try CallMixer(configuration: mixing)
        let frequencies = [400.0, 900.0, 1_700.0], gains: [Float] = [1, 0.5, 0.25]
        var remotes: [CallMedia] = [], locals: [CallMedia] = []
        for index in 0..<3 {
            let local = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
            local.playbackGain = gains[index]
            try mixer.add(local)
            locals.append(local)
            remotes.append(try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil))
        }
        var played: [Int16] = []
        var heardByRemote = [[Int16]](repeating: [], count: 3)
        var frame = [Int16](repeating: 0, count: 960)
        let silence = [Int16](repeating: 0, count: 960)
        for tick in 0..<150 {
            let now = Double(tick) * 20
            for index in 0..<3 {
                let tone = (0..<960).map { Int16(8_000 * sin(2 * .pi * frequencies[index] * Double(tick * 960 + $0) / 48_000)) }
                tone.withUnsafeBufferPointer { remotes[index].send(microphone: $0) }
                remotes[index].sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { locals[index].receiveDatagram($0, arrivalTimeMs: now) } }
            }
            for start in stride(from: 0, to: 960, by: 480) {  // two 10 ms device periods
                frame.withUnsafeMutableBufferPointer { mixer.render(into: UnsafeMutableBufferPointer(rebasing: $0[start..<(start + 480)]), nowMs: now + Double(start / 48)) }
                played += frame[start..<(start + 480)]
                silence.withUnsafeBufferPointer { mixer.capture(UnsafeBufferPointer(rebasing: $0[start..<(start + 480)])) }
            }
            for index in 0..<3 {
                locals[index].sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { remotes[index].receiveDatagram($0, arrivalTimeMs: now) } }
                frame.withUnsafeMutableBufferPointer { _ = remotes[index].render(into: $0, nowMs: now) }
                heardByRemote[index] += frame
            }
        }
        let settled = Array(played[(50 * 960)...])
        let amplitudes = frequencies.map { SignalComparison.toneAmplitude(settled, frequencyHz: $0, sampleRate: 48_000) }
        for index in 1..<3 {
            let ratioDb = 20 * log10(amplitudes[index] / amplitudes[0])
            let expectedDb = 20 * log10(Double(gains[index]))
            #expect(abs(ratioDb - expectedDb) < 1.5, "call \(index) mixed at \(ratioDb) dB against call 0, gain says \(expectedDb) dB")
        }
        for index in 0..<3 {
            let heard = Array(heardByRemote[index][(50 * 960)...])
            let own = SignalComparison.toneAmplitude(heard, frequencyHz: frequencies[index], sampleRate: 48_000)
            for other in 0..<3 where other != index {
                let bridged = SignalComparison.toneAmplitude(heard, frequencyHz: frequencies[other], sampleRate: 48_000)
                #expect(bridged > 10 * own, "remote \(index) hears call \(other) (\(bridged)) far above its own voice (\(own))")
            }
        }
        locals[1].isHeld = true
        #expect(throws: CallMixerError.callAlreadyAdded) { try mixer.add(locals[0]) }
        mixing.maximumCalls = 3
        let full = try CallMixer(configuration: mixing)
        for local in locals { try full.add(local) }
        #expect(throws: CallMixerError.tooManyCalls(maximum: 3)) { try full.add(remotes[0]) }
        var sixteen = MediaConfiguration()
        sixteen.sampleRate = 16_000
        #expect(throws: CallMixerError.self) { try mixer.add(try CallMedia(configuration: sixteen, sendingKey: nil, receivingKey: nil)) }
    }

    @Test func refusesBadConfigurationWhereItIsGiven() throws {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        #expect(throws: CallMediaError.self) { try CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: nil) }
        var bad = MediaConfiguration()
        bad.telephoneEventPayloadType = bad.payloadType
        #expect(throws: CallMediaError.self) { try CallMedia(configuration: bad, sendingKey: nil, receivingKey: nil) }
        bad = MediaConfiguration()
        bad.maximumDatagramBytes = 5
        #expect(throws: CallMediaError.self) { try CallMedia(configuration: bad, sendingKey: nil, receivingKey: nil) }
        bad = MediaConfiguration()
        bad.jitterBuffer.maximumDelayMs = -1
        #expect(throws: CallMediaError.self) { try CallMedia(configuration: bad, sendingKey: nil, receivingKey: nil) }
        var mixing = MixerConfiguration()
        mixing.processingFrameDurationMs = 30
        #expect(throws: CallMixerError.self) { try CallMixer(configuration: mixing) }
        mixing = MixerConfiguration()
        mixing.deviceSampleRate = 1_000_000
        #expect(throws: CallMixerError.self) { try CallMixer(configuration: mixing) }
    }

    /// The residual echo suppressor's crossfade follows the call frame when left unset: 5 ms
    /// at 10 ms frames (its synthesis 5 ms late), a hop (10 ms) at 20 ms frames; a crossfade
    /// that was set is kept.
    @Test func theSuppressorsCrossfadeFollowsTheCallFrame() throws {
        var mixing = MixerConfiguration()
        #expect(try CallMixer(configuration: mixing).processor.latencySamples == 480)
        mixing.frameDurationMs = 10
        #expect(try CallMixer(configuration: mixing).processor.latencySamples == 240)
        mixing.echoCanceller.residualCrossfadeMs = 10
        #expect(try CallMixer(configuration: mixing).processor.latencySamples == 480)
        mixing.frameDurationMs = 20
        mixing.echoCanceller.residualCrossfadeMs = 2.5
        #expect(try CallMixer(configuration: mixing).processor.latencySamples == 120)
    }

    @Test func deviceDelaySeedsTheEchoAlignmentAndXrunsAreReported() throws {
        let mixer = try CallMixer()
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        try mixer.add(call)
        mixer.setDeviceDelay(ms: 120)
        // The canceller places its reference one margin (20 ms) before the reported delay.
        #expect(mixer.mediaSourceStatistics.echoDelayMs == 100)
        mixer.setDeviceDelay(ms: 1_000_000)  // out of range: clamped, never a trap
        #expect(mixer.mediaSourceStatistics.echoDelayMs <= 500)
        mixer.reportXrun(.playback)
        mixer.reportXrun(.capture)
        var events: [CallMediaEvent] = []
        call.drainEvents { events.append($0) }
        #expect(events == [.xrun(.playback), .xrun(.capture)])
        #expect(mixer.mediaSourceStatistics.playbackXruns == 1)
        #expect(mixer.mediaSourceStatistics.captureXruns == 1)
    }

    /// A 44.1 kHz device with 10 ms periods under 48 kHz, 20 ms calls: the mixer resamples both
    /// ways and turns periods into frames; speech arrives and one packet leaves per 20 ms.
    @Test func aDeviceAtAnotherRateAndPeriodIsAdapted() throws {
        var mixing = MixerConfiguration()
        mixing.deviceSampleRate = 44_100
        mixing.processing = ProcessingConfiguration()
        let mixer = try CallMixer(configuration: mixing)
        let local = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        let remote = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        try mixer.add(local)
        // The local talker at the device's rate: a 1 kHz tone.
        let periods = 400, period = 441
        var heardByRemote: [Int16] = []
        var playedLocally: [Int16] = []
        var playback = [Int16](repeating: 0, count: period)
        var frame = [Int16](repeating: 0, count: 960)
        for index in 0..<periods {
            let now = Double(index) * 10
            let microphone = (0..<period).map { Int16(8_000 * sin(2 * .pi * 1_000 * Double(index * period + $0) / 44_100)) }
            if index % 2 == 0 {
                let tone = (0..<960).map { Int16(8_000 * sin(2 * .pi * 440 * Double(index / 2 * 960 + $0) / 48_000)) }
                tone.withUnsafeBufferPointer { remote.send(microphone: $0) }
                remote.sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { local.receiveDatagram($0, arrivalTimeMs: now) } }
            }
            playback.withUnsafeMutableBufferPointer { mixer.render(into: $0, nowMs: now) }
            playedLocally += playback
            microphone.withUnsafeBufferPointer { mixer.capture($0) }
            local.sendDatagrams(nowMs: now) { datagram in var copy = Array(datagram); copy.withUnsafeMutableBytes { remote.receiveDatagram($0, arrivalTimeMs: now) } }
            if index % 2 == 1 {
                frame.withUnsafeMutableBufferPointer { _ = remote.render(into: $0, nowMs: now) }
                heardByRemote += frame
            }
        }
        #expect(abs(local.statistics.outbound.packetsSent - periods / 2) <= 1, "one packet per 20 ms: \(local.statistics.outbound.packetsSent)")
        let remoteTone = SignalComparison.toneAmplitude(heardByRemote[(50 * 960)...], frequencyHz: 1_000, sampleRate: 48_000)
        #expect(remoteTone > 5_000, "the far end hears the 1 kHz tone at 48 kHz: amplitude \(remoteTone)")
        let localTone = SignalComparison.toneAmplitude(playedLocally[(100 * period)...], frequencyHz: 440, sampleRate: 44_100)
        #expect(localTone > 5_000, "the device plays the far end's 440 Hz at 44.1 kHz: amplitude \(localTone)")
    }

    /// A block longer than the mixer's largest period (a stalled device catching up) is served
    /// in pieces: every frame is rendered and sent, nothing hangs or is dropped.
    @Test func blocksLongerThanTheLargestPeriodAreServedInPieces() throws {
        var mixing = MixerConfiguration()
        mixing.processing = ProcessingConfiguration()
        mixing.maximumDevicePeriodMs = 20
        mixing.compensatesDeviceDrift = false  // count whole frames: no resampler delay
        let mixer = try CallMixer(configuration: mixing)
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        try mixer.add(call)
        var block = [Int16](repeating: 0, count: 48_000)  // 1 s
        block.withUnsafeMutableBufferPointer { mixer.render(into: $0, nowMs: 0) }
        let tone = (0..<48_000).map { Int16(8_000 * sin(Double($0) * 0.1)) }
        tone.withUnsafeBufferPointer { mixer.capture($0) }
        #expect(call.statistics.outbound.packetsSent == 50)
        #expect(call.statistics.inbound.totalSamplesReceived == 48_000)
    }

    /// A peer (or an attacker on plain RTP) changing SSRC on every packet cannot restart
    /// playout each time: a new SSRC must send two packets in sequence first.
    @Test func anSSRCOnEveryPacketDoesNotRestartPlayout() throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 1)
        let receiver = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        var frame = [Int16](repeating: 0, count: 960)
        var stray: UInt32 = 1_000
        for index in 0..<100 {
            let now = Double(index) * 20
            CallLoop.frame(index, of: Self.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: now) { datagram in
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
                guard !CallMedia.isRTCP(datagram), index >= 10 else { return }
                // A copy under a new SSRC each time, as a hopping or forging peer sends.
                stray += 1
                copy[8] = UInt8(stray >> 24); copy[9] = UInt8((stray >> 16) & 0xFF); copy[10] = UInt8((stray >> 8) & 0xFF); copy[11] = UInt8(stray & 0xFF)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: now) }
        }
        let inbound = receiver.statistics.inbound
        #expect(inbound.ssrcChanges == 0)
        #expect(inbound.ssrc == 1)
        #expect(inbound.packetsFromUnconfirmedSource == 90)
        #expect(inbound.concealedSamples == 0, "playout went on undisturbed")
    }

    /// Times come from the application's clock: a broken one (infinite, NaN, absurd) is refused
    /// where it enters, and never traps rendering or the silence watch.
    @Test func brokenClockTimesAreRefusedAndNeverTrap() throws {
        var configuration = MediaConfiguration()
        configuration.remoteSilenceTimeoutMs = 100
        let sender = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil, ssrc: 1)
        let receiver = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil)
        var frame = [Int16](repeating: 0, count: 960)
        let bad: [Double] = [.infinity, -.infinity, .nan, 1e300, -1e13]
        // A sane first frame, so the silence watch has a finite start before the clock breaks.
        frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: 0) }
        for (index, time) in bad.enumerated() {
            CallLoop.frame(index, of: Self.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: time) { datagram in
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: time) }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: time) }
        }
        let statistics = receiver.statistics
        #expect(statistics.transport.invalidArrivalTimes == bad.count)
        #expect(statistics.inbound.packetsReceived == 0)
        #expect(statistics.inbound.jitter.isFinite)
        #expect(statistics.inbound.totalSamplesReceived == (bad.count + 1) * 960, "every render still played a frame")
    }
}
