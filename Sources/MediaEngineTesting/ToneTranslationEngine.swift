// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import MediaEngine

/// A stand-in translator for tests and demos: it "speaks" one tone per word it hears. A word
/// is a run of microphone frames louder than `wordThresholdDbFS`; when a word ends, the engine
/// says a `toneMs` tone at `frequencyHz`. Deterministic, allocation-free, real-time safe, so
/// it runs on the audio thread as a real engine's audio exchange would.
///
/// It shows where a real translator plugs in (`CallMedia.translationEngine`) and lets a test
/// tell translated audio (tones) from the raw microphone (speech) at the far end.
public final class ToneTranslationEngine: TranslationEngine {
    /// Frequency of the spoken tone, Hz.
    public let frequencyHz: Double
    /// Length of the tone spoken per word, ms.
    public let toneMs: Int
    /// A frame at least this loud (RMS, dBFS) is part of a word.
    public let wordThresholdDbFS: Double
    /// Words heard so far.
    public private(set) var wordsHeard = 0
    /// Tones spoken so far (started).
    public private(set) var tonesSpoken = 0

    private let sampleRate: Int
    private var inWord = false
    private var pendingSamples = 0
    private var phase = 0.0

    /// An engine at `sampleRate` Hz.
    public init(sampleRate: Int = 48_000, frequencyHz: Double = 1_000, toneMs: Int = 200, wordThresholdDbFS: Double = -40) {
        self.sampleRate = sampleRate
        self.frequencyHz = frequencyHz
        self.toneMs = toneMs
        self.wordThresholdDbFS = wordThresholdDbFS
    }

    public func consume(microphone: UnsafeBufferPointer<Int16>) {
        var energy = 0.0
        for sample in microphone { energy += Double(sample) * Double(sample) }
        let level = 10 * log10(max(energy / Double(max(1, microphone.count)), 1e-9) / (32_768.0 * 32_768.0))
        let loud = level >= wordThresholdDbFS
        if inWord && !loud {
            wordsHeard += 1
            tonesSpoken += 1
            pendingSamples += sampleRate * toneMs / 1_000
        }
        inWord = loud
    }

    public func produce(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard pendingSamples > 0 else { return false }
        let step = 2 * Double.pi * frequencyHz / Double(sampleRate)
        for index in frame.indices {
            if pendingSamples > 0 {
                frame[index] = Int16(8_000 * sin(phase))
                phase += step
                if phase > 2 * Double.pi { phase -= 2 * Double.pi }
                pendingSamples -= 1
            } else {
                frame[index] = 0
            }
        }
        return true
    }
}
