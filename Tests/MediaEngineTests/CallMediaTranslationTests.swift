// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import Testing
import TestSupport

/// Translation switched while the call's audio runs (SetTranslating and SetMuted reach the
/// media this way), on two calls over the virtual clock: before a translator a call sounds
/// and mutes as always, while translating it sends the translator's speech even when muted,
/// and after it the microphone (or silence) again.
@Suite struct CallMediaTranslationTests {
    static let alice = try! SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)

    static func speech(_ index: Int, _: CallLoop.Side) -> [Int16] { CallLoop.frame(index, of: alice, length: 960) }
    static func silence(_: Int, _: CallLoop.Side) -> [Int16] { [Int16](repeating: 0, count: 960) }

    @Test func passesTheMicrophoneMutesAndTranslatesWhileMuted() throws {
        let loop = try CallLoop()
        // Not translating, not muted: Alice's voice.
        loop.run(frames: 150, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)
        // Up to 200 ms of lag: the call starts at the jitter buffer's initial delay and steps
        // down only in the talk's pauses.
        let raw = SignalComparison.segmentalCorrelation(reference: Array(Self.alice.prefix(150 * 960)), signal: Array(loop.bob.played.prefix(150 * 960)),
                                                        segmentLength: 2_880, maxLag: 9_600)
        #expect(raw > 0.6, "Bob hears Alice: \(raw)")

        // Muted, not translating: silence, packets still flow.
        loop.alice.call.isMuted = true
        let sent = loop.alice.call.statistics.outbound.packetsSent
        loop.run(frames: 100, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)
        let muted = SignalComparison.rmsDecibels(loop.bob.played[(160 * 960)..<(250 * 960)])
        #expect(muted < -70, "Bob hears \(muted) dBFS while Alice is muted")
        #expect(loop.alice.call.statistics.outbound.packetsSent - sent == 100)

        // Muted and translating: the translator's tones go out, the raw voice does not.
        let translator = ToneTranslationEngine(frequencyHz: 1_000)
        try loop.alice.call.translate(with: translator)
        #expect(loop.alice.call.translationEngine === translator)
        loop.run(frames: 150, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)
        let translated = Array(loop.bob.played[(255 * 960)..<(400 * 960)])
        #expect(translator.wordsHeard >= 2, "the translator heard Alice while she was muted: \(translator.wordsHeard)")
        let tone = SignalComparison.toneAmplitude(translated, frequencyHz: 1_000, sampleRate: 48_000)
        #expect(tone > 500, "Bob hears the translator: amplitude \(tone)")
        let leaked = SignalComparison.segmentalCorrelation(reference: Array(Self.alice[(250 * 960)..<(400 * 960)]), signal: translated,
                                                           segmentLength: 2_880, maxLag: 4_800)
        #expect(leaked < 0.3, "the raw voice stays back: \(leaked)")

        // Translation stops while muted: silence again.
        loop.alice.call.stopTranslating()
        #expect(loop.alice.call.translationEngine == nil)
        loop.run(frames: 60, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)
        let after = SignalComparison.rmsDecibels(loop.bob.played[(420 * 960)..<(460 * 960)])
        #expect(after < -60, "muted again without the translator: \(after) dBFS")
    }

    @Test func aCallUsesAtMostCapacityTranslators() throws {
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        for _ in 0..<CallMedia.maximumTranslators { try call.translate(with: ToneTranslationEngine()) }
        #expect(throws: CallMediaError.tooManyTranslators(capacity: CallMedia.maximumTranslators)) {
            try call.translate(with: ToneTranslationEngine())
        }
    }
}
