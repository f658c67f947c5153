// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import MediaEngine
import Testing
import TestSupport
@testable import voicecall

/// The demo call over real sockets and SRTP on loopback: each side hears the other, not
/// itself, through the jitter buffer and voiceChat processing.
@Suite struct DemoCallTests {
    @Test func bothSidesHearTheOtherOverRealSocketsAndSRTP() throws {
        let alice = try WAVAudio(contentsOf: VectorFiles.url("speech/alice-en-us-48k.wav"))
        let bob = try WAVAudio(contentsOf: VectorFiles.url("speech/bob-en-gb-48k.wav"))
        let call = DemoCall(aliceInput: alice, bobInput: bob, durationSeconds: 4, pacing: .asFastAsPossible)
        let result = try call.run()

        for (direction, sent, heard) in [(result.aliceToBob, alice, result.receivedByBob), (result.bobToAlice, bob, result.receivedByAlice)] {
            #expect(direction.sender.outbound.packetsSent == 200)
            #expect(direction.sender.transport.datagramsSent == 200)
            // The last frame's packet is still on its way when the call ends; SRTCP reports
            // are unprotected by the same stage.
            let transport = direction.receiver.transport
            #expect(direction.receiver.inbound.packetsReceived >= 199)
            #expect(direction.receiver.inbound.packetsReceived + transport.rtcpDatagramsReceived == transport.srtp.packetsUnprotected)
            #expect(transport.rtcpDatagramsReceived >= 1, "RTCP reports arrived")
            #expect(direction.receiver.inbound.packetsLost == 0)
            #expect(direction.receiver.transport.srtp.authFailures == 0)
            #expect(direction.receiver.transport.srtp.replays == 0)
            #expect(heard.samples.count == 192_000)
            let quality = SignalComparison.segmentalCorrelation(reference: Array(sent.samples[0..<192_000]), signal: heard.samples,
                                                                segmentLength: 2_880, maxLag: 9_600)
            // Both talk from t = 0 through voiceChat processing with no echo path: the
            // canceller's echo-path gate can open for a moment in the first second (its delay
            // estimator's confidence on two independent talkers), which costs a little of it.
            // Measured 0.70–0.80 over these 4 s; garbled or missing speech stays under 0.3.
            #expect(quality > 0.65, "\(direction.from) → \(direction.to): \(quality)")
            #expect(direction.bitrateKbps > 20 && direction.bitrateKbps < 40)
        }
        // Each side heard the other, not itself.
        let crossed = SignalComparison.segmentalCorrelation(reference: Array(alice.samples[0..<192_000]), signal: result.receivedByAlice.samples,
                                                            segmentLength: 2_880, maxLag: 9_600)
        #expect(crossed < 0.5, "Alice does not hear herself: \(crossed)")
        #expect(result.offer.hasPrefix("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"))
        #expect(result.offer != result.answer)
    }

    /// Paced in real time, the call takes at least its 0.2 s (10 frames of 20 ms) and the
    /// media flows: Alice sends a packet each frame, and Bob takes in each at a later tick.
    /// How many are in by the end is the machine's: the last is still on the wire, and a loaded
    /// machine can defer loopback delivery past the next tick (and run late ticks back to
    /// back), so Bob holds between 1 and 9 of them, in order, none missing among them.
    @Test func realTimePacingTakesTheCallsDuration() throws {
        let tone = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: (0..<9_600).map { Int16(8_000 * sin(Double($0) * 0.06)) })
        let result = try DemoCall(aliceInput: tone, bobInput: tone, durationSeconds: 0.2, pacing: .realTime).run()
        #expect(result.elapsedSeconds >= 0.2)
        #expect(result.aliceToBob.sender.outbound.packetsSent == 10)
        let inbound = result.aliceToBob.receiver.inbound
        #expect((1...9).contains(inbound.packetsReceived), "Bob received \(inbound.packetsReceived) of 10")
        #expect(inbound.packetsLost == 0)
        #expect(result.aliceToBob.receiver.transport.srtp.authFailures == 0)
    }

    @Test func refusesInputItCannotSend() {
        let stereo = WAVAudio(sampleRate: 48_000, channelCount: 2, samples: [0, 0])
        let mono = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [0])
        #expect(throws: DemoCallError.self) { try DemoCall(aliceInput: stereo, bobInput: mono).run() }
        #expect(throws: DemoCallError.self) { try DemoCall(aliceInput: mono, bobInput: mono, durationSeconds: 1e12).run() }
    }
}
