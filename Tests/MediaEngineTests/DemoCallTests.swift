import AudioDevices
import Foundation
import MediaEngine
import Testing
import TestSupport

@Suite struct DemoCallTests {
    /// Opus at 48 kHz delays by 6.5 ms (312 samples); allow for it and a little more.
    static let maximumLag = 600
    /// The stretch of speech compared (0.5–1.5 s: both fixtures speak there).
    static let window = 24_000..<72_000

    @Test func bothSidesHearTheOtherOverRealSocketsAndSRTP() throws {
        let alice = try WAVAudio(contentsOf: VectorFiles.url("speech/alice-en-us-48k.wav"))
        let bob = try WAVAudio(contentsOf: VectorFiles.url("speech/bob-en-gb-48k.wav"))
        let call = DemoCall(aliceInput: alice, bobInput: bob, durationSeconds: 2, pacing: .asFastAsPossible)
        let result = try call.run()

        for (direction, sent, heard) in [(result.aliceToBob, alice, result.receivedByBob), (result.bobToAlice, bob, result.receivedByAlice)] {
            #expect(direction.uplink.packetsSent == 100)
            #expect(direction.senderSRTP.packetsProtected == 100)
            #expect(direction.receiverSRTP.packetsUnprotected == 100)
            #expect(direction.downlink.packetsReceived == direction.uplink.packetsSent)
            #expect(direction.downlink.packetsLost == 0)
            #expect(direction.receiverSRTP.authFailures == 0)
            #expect(direction.receiverSRTP.replays == 0)
            #expect(heard.samples.count == 96_000)
            let match = SignalComparison.bestCorrelation(reference: Array(sent.samples[Self.window]), signal: Array(heard.samples[Self.window.lowerBound...]), maxLag: Self.maximumLag)
            #expect(match.correlation > 0.85, "\(direction.from) → \(direction.to) correlation \(match.correlation)")
            #expect(direction.bitrateKbps > 20 && direction.bitrateKbps < 40)
        }
        // Each side heard the other, not itself.
        let crossed = SignalComparison.bestCorrelation(reference: Array(alice.samples[Self.window]), signal: Array(result.receivedByAlice.samples[Self.window.lowerBound...]), maxLag: Self.maximumLag)
        #expect(crossed.correlation < 0.3)
        #expect(result.offer.hasPrefix("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:"))
        #expect(result.offer != result.answer)
    }

    @Test func realTimePacingTakesTheCallsDuration() throws {
        let tone = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: (0..<4_800).map { Int16(8_000 * sin(Double($0) * 0.06)) })
        let result = try DemoCall(aliceInput: tone, bobInput: tone, durationSeconds: 0.2, pacing: .realTime).run()
        #expect(result.elapsedSeconds >= 0.2)
        #expect(result.aliceToBob.downlink.packetsReceived == 10)
    }

    @Test func refusesInputItCannotSend() {
        let stereo = WAVAudio(sampleRate: 48_000, channelCount: 2, samples: [0, 0])
        let mono = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [0])
        #expect(throws: DemoCallError.self) { try DemoCall(aliceInput: stereo, bobInput: mono).run() }
    }
}
