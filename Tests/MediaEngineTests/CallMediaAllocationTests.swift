// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import AudioProcessing
import MediaEngine
import Testing
import TestSupport

/// The real-time rule: in steady state the whole per-frame path — capture → voice processing
/// → mute gate → Opus → RTP into the send queue, and received RTP → jitter buffer → decode /
/// FEC / concealment → mix → playback — makes no heap allocation.
@Suite struct CallMediaAllocationTests {
    /// A wire between two calls that allocates nothing: fixed slots, reused.
    final class Wire {
        /// One buffer per slot. `repeating:` would share one buffer among all eight, and the
        /// first write to each slot would copy it: an allocation counted against the sending
        /// side the first time a frame sent a third datagram (a seed-dependent moment).
        private var slots = (0..<8).map { _ in [UInt8](repeating: 0, count: 1_500) }
        private var lengths = [Int](repeating: 0, count: 8)
        private var count = 0
        /// Packets sent so far; every tenth is lost (FEC and concealment run).
        private var sent = 0

        func send(_ datagram: UnsafeRawBufferPointer) {
            sent += 1
            guard sent % 10 != 0, count < slots.count else { return }
            slots[count].withUnsafeMutableBytes { $0.copyMemory(from: datagram) }
            lengths[count] = datagram.count
            count += 1
        }

        func deliver(to call: CallMedia, nowMs: Double) {
            for index in 0..<count {
                let length = lengths[index]
                slots[index].withUnsafeMutableBytes { call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), arrivalTimeMs: nowMs) }
            }
            count = 0
        }
    }

    @Test func tenThousandFramesOfAFullDuplexCallAllocateNothing() async throws {
        try await offCooperativePool {
            // Plain RTP: SRTP runs on the network thread (libsrtp's NSS backend allocates per packet).
            let speech = CallOverNetworkTests.alice
            var voiceChat = MixerConfiguration()
            voiceChat.processing = ProcessingConfiguration.voiceChat
            var plain = MixerConfiguration()
            plain.processing = ProcessingConfiguration()
            // Fixed sources and report timers: every run sends the same reports at the same ticks.
            let alice = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0x0A11CE, rtcpSeed: 5)
            let bob = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0x0B0B, rtcpSeed: 11)
            voiceChat.playoutTick = .devicePeriod
            let aliceMixer = try CallMixer(configuration: voiceChat)
            let bobMixer = try CallMixer(configuration: plain)
            try aliceMixer.add(alice)
            try bobMixer.add(bob)
            let toBob = Wire(), toAlice = Wire()
            let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
            defer { frame.deallocate() }
            let input = UnsafeMutableBufferPointer<Int16>.allocate(capacity: speech.count)
            defer { input.deallocate() }
            _ = input.initialize(from: speech)
            let inputFrames = speech.count / 960

            /// One frame; returns the allocations of the audio side and of the network side's
            /// sending (queued packets and RTCP reports out; without SRTP, whose NSS backend
            /// allocates). Taking datagrams in may allocate: parsing a received report builds
            /// its packets.
            func oneFrame(_ tick: Int) -> (audio: Int, sending: Int) {
                let now = Double(tick) * 20
                toBob.deliver(to: bob, nowMs: now)
                toAlice.deliver(to: alice, nowMs: now)
                let spoken = UnsafeBufferPointer(rebasing: input[((tick % inputFrames) * 960)..<((tick % inputFrames + 1) * 960)])
                let (_, audio) = AllocationCounter.measure {
                    // Alice plays two 10 ms device periods a period at a time (her jitter buffer
                    // decodes on that lattice), Bob a whole frame at a time (his waits a frame,
                    // so the next packet is there and FEC rebuilds every lost one).
                    for start in stride(from: 0, to: 960, by: 480) {
                        let half = start..<(start + 480)
                        aliceMixer.render(into: UnsafeMutableBufferPointer(rebasing: frame[half]), nowMs: now + Double(start / 48))
                        aliceMixer.capture(UnsafeBufferPointer(rebasing: spoken[half]))  // Alice's microphone: speech, through voiceChat
                    }
                    bobMixer.render(into: frame, nowMs: now)
                    bobMixer.capture(UnsafeBufferPointer(frame))  // Bob's microphone hears his loudspeaker
                }
                let (_, sending) = AllocationCounter.measure {
                    alice.sendDatagrams(nowMs: now) { toBob.send($0) }
                    bob.sendDatagrams(nowMs: now) { toAlice.send($0) }
                }
                return (audio, sending)
            }
            // Warm-up: first packets, codec and canceller state, and each side's first reports
            // (a sender report and a receiver report each: first uses of their code paths).
            var warmUp = 0
            while warmUp < 200 || alice.statistics.transport.rtcpPacketsSent < 2 || bob.statistics.transport.rtcpPacketsSent < 2 {
                _ = oneFrame(warmUp)
                warmUp += 1
            }
            let end = warmUp + 10_000
            var allocations = 0
            var sendingAllocations = 0
            for tick in warmUp..<end {
                // A new target bitrate now and then (as the far end's reports of congestion set
                // it): the audio side applies it to the encoder inside the measured frame.
                if tick % 500 == 0 {
                    try alice.setBitrate(tick % 1_000 == 0 ? 18_000 : 24_000)
                    try bob.setBitrate(tick % 1_000 == 0 ? 16_000 : 24_000)
                }
                let (audio, sending) = oneFrame(tick)
                allocations += audio
                sendingAllocations += sending
            }
            #expect(allocations == 0)
            #expect(sendingAllocations == 0, "RTCP reports are written in place")
            // The audio sides copied what their jitter buffers learnt once a second (200 times
            // in the measured frames), in place.
            #expect(alice.learntDelays != nil && bob.learntDelays != nil)
            #expect(alice.statistics.outbound.targetBitrate == 18_000, "the last bitrate set was applied")
            #expect(bob.statistics.outbound.targetBitrate == 16_000)
            #expect(alice.statistics.transport.rtcpPacketsSent > 30, "RTCP ran alongside")
            let inbound = bob.statistics.inbound
            #expect(inbound.fecPacketsRecovered > 500, "the lossy wire exercised FEC: \(inbound.fecPacketsRecovered)")
            #expect(alice.statistics.inbound.concealmentEvents > 100, "Alice's period-by-period playout concealed lost packets")
            #expect(inbound.totalSamplesReceived == end * 960)
            // The drift compensator's resampler (on, so its path is counted too) holds back its
            // filter delay: the last frame is still in it.
            #expect(abs(alice.statistics.outbound.packetsSent - end) <= 1)
            // Plain RTP in this test, so the wire's deliveries include RTCP reports too.
        }
    }

    /// The same rule on the fixed-rate codecs: G.711 and G.722 resampled to and from the call's
    /// 48 kHz, waveform concealment for every tenth packet lost, DTMF on the 8 kHz clock. (The
    /// first key press of the process once allocated: the tone's frequency tables were static
    /// arrays, built on first use on the audio thread.)
    @Test(arguments: [AudioCodec.pcmu, .g722])
    func fixedRateCodecCallsAllocateNothing(codec: AudioCodec) async throws {
        try await offCooperativePool {
            var configuration = MediaConfiguration()
            configuration.codec = codec
            configuration.payloadType = codec.staticPayloadType!
            configuration.telephoneEventClockRate = 8_000
            let pair = WiredPair(alice: try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil, ssrc: 0x0A11CE, rtcpSeed: 5),
                                 bob: try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil, ssrc: 0x0B0B, rtcpSeed: 11))
            let (alice, bob) = (pair.alice, pair.bob)
            let warmUp = pair.warmUp()
            var allocations = 0
            for tick in warmUp..<(warmUp + 3_000) {
                if tick % 500 == 250 { try alice.sendDTMF(.digit3, durationMs: 100) }
                allocations += pair.frame(tick)
            }
            #expect(allocations == 0)
            #expect(bob.statistics.inbound.concealmentEvents > 100, "the lossy wire exercised concealment")
            #expect(alice.statistics.outbound.telephoneEventsSent == 6)
        }
    }

    /// A codec switch (`CallMedia.switchCodec(to:)`, made on the control side) is taken by the
    /// audio side by exchange: nothing allocated or freed there, through PCMU → PCMA → G.722
    /// → Opus → PCMU on both sides of a lossy call with DTMF.
    @Test func codecSwitchesAllocateNothingOnTheAudioSide() async throws {
        try await offCooperativePool {
            let pair = WiredPair(alice: try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil,
                                                      ssrc: 0x0A11CE, rtcpSeed: 5),
                                 bob: try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil,
                                                    ssrc: 0x0B0B, rtcpSeed: 11))
            let (alice, bob) = (pair.alice, pair.bob)
            var warmUp = pair.warmUp()
            // Every codec once before counting: libopus's first frames and the resamplers' first
            // use are not what this measures.
            let cycle: [AudioCodec] = [.pcma, .g722, .opus, .pcmu]
            for (index, codec) in cycle.enumerated() {
                try bob.switchCodec(to: CodecSwitchTests.configuration(codec))
                try alice.switchCodec(to: CodecSwitchTests.configuration(codec))
                for tick in (warmUp + index * 50)..<(warmUp + index * 50 + 50) { _ = pair.frame(tick) }
            }
            warmUp += cycle.count * 50
            var allocations = 0
            for tick in warmUp..<(warmUp + 2_000) {
                if tick % 250 == 0 {
                    let codec = cycle[(tick / 250) % cycle.count]
                    try bob.switchCodec(to: CodecSwitchTests.configuration(codec))
                    try alice.switchCodec(to: CodecSwitchTests.configuration(codec))
                }
                if tick % 500 == 100 { try alice.sendDTMF(.digit5, durationMs: 100) }
                allocations += pair.frame(tick)
            }
            #expect(allocations == 0)
            #expect(bob.statistics.inbound.unknownPayloadTypePackets == 0)
            #expect(alice.statistics.outbound.telephoneEventsSent == 4)
        }
    }

    /// Alice talking the speech fixture to Bob, who sends back what he played, over two
    /// lossy `Wire`s; the audio sides' allocations counted per frame.
    final class WiredPair {
        let alice: CallMedia
        let bob: CallMedia
        private let toBob = Wire(), toAlice = Wire()
        private let frameBuffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
        private let input: UnsafeMutableBufferPointer<Int16>
        private let inputFrames: Int

        init(alice: CallMedia, bob: CallMedia) {
            self.alice = alice
            self.bob = bob
            let speech = CallOverNetworkTests.alice
            input = .allocate(capacity: speech.count)
            _ = input.initialize(from: speech)
            inputFrames = speech.count / 960
        }

        deinit {
            frameBuffer.deallocate()
            input.deallocate()
        }

        /// One 20 ms tick: deliveries, both audio sides (counted), both network sides; the
        /// audio sides' allocations.
        func frame(_ tick: Int) -> Int {
            let now = Double(tick) * 20
            toBob.deliver(to: bob, nowMs: now)
            toAlice.deliver(to: alice, nowMs: now)
            let spoken = UnsafeBufferPointer(rebasing: input[((tick % inputFrames) * 960)..<((tick % inputFrames + 1) * 960)])
            let (_, audio) = AllocationCounter.measure {
                _ = alice.render(into: frameBuffer, nowMs: now)
                alice.send(microphone: spoken)
                _ = bob.render(into: frameBuffer, nowMs: now)
                bob.send(microphone: UnsafeBufferPointer(frameBuffer))
            }
            alice.sendDatagrams(nowMs: now) { toBob.send($0) }
            bob.sendDatagrams(nowMs: now) { toAlice.send($0) }
            return audio
        }

        /// Runs at least 200 ticks and until each side sent two RTCP reports; the ticks run.
        func warmUp() -> Int {
            var tick = 0
            while tick < 200 || alice.statistics.transport.rtcpPacketsSent < 2 || bob.statistics.transport.rtcpPacketsSent < 2 {
                _ = frame(tick)
                tick += 1
            }
            return tick
        }
    }
}
