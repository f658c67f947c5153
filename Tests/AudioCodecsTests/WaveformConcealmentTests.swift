// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import Testing

/// Concealment by pitch repetition: a voiced signal is continued, a long loss fades to
/// silence, and speech returns without a jump.
@Suite struct WaveformConcealmentTests {
    /// A voiced-like signal: 125 Hz and its harmonics (period 8 ms = 64 samples at 8 kHz).
    static func voiced(_ range: Range<Int>, sampleRate: Int = 8_000) -> [Int16] {
        range.map { n in
            let phase: Double = 2 * Double.pi * 125 * Double(n) / Double(sampleRate)
            let value: Double = 4_000 * sin(phase) + 2_000 * sin(2 * phase + 1) + 1_000 * sin(3 * phase + 2)
            return Int16(value)
        }
    }

    @Test(arguments: [8_000, 16_000, 48_000])
    func continuesAVoicedSignalAndFadesOut(sampleRate: Int) {
        let concealment = WaveformConcealment(sampleRate: sampleRate)
        let frame = sampleRate / 50
        var history = Self.voiced(0..<(5 * frame), sampleRate: sampleRate)
        history.withUnsafeMutableBufferPointer { concealment.received($0) }
        var concealed = [Int16](repeating: 0, count: frame / 2)  // the first 10 ms lost
        concealed.withUnsafeMutableBufferPointer { concealment.conceal(into: $0) }
        let truth = Self.voiced((5 * frame)..<(5 * frame + frame / 2), sampleRate: sampleRate)
        var error = 0.0, energy = 0.0
        for (made, real) in zip(concealed, truth) {
            let difference = Double(made) - Double(real)
            error += difference * difference
            energy += Double(real) * Double(real)
        }
        // A periodic signal is continued almost exactly (silence would leave error = energy).
        #expect(error < 0.05 * energy, "error \(error / energy) of the signal's energy at \(sampleRate) Hz")
        // Fading 20 % per 10 ms after the first 10 ms: silent from 60 ms (70 ms concealed here).
        var rest = [Int16](repeating: 0, count: frame * 3)
        rest.withUnsafeMutableBufferPointer { concealment.conceal(into: $0) }
        #expect(rest.suffix(frame / 2).allSatisfy { $0 == 0 })
        #expect(rest[frame * 2] != 0, "not silent before 50 ms")
        #expect(rest.prefix(frame / 10).contains { abs($0) > 1_000 }, "still audible just after 10 ms")
        #expect(concealment.isConcealing)
    }

    /// The first frame after a loss starts where the concealment would have gone on, and ends
    /// as the real signal: no click at the join.
    @Test func aRealFrameAfterALossIsCrossfadedIn() {
        let concealment = WaveformConcealment(sampleRate: 8_000)
        var history = Self.voiced(0..<800)
        history.withUnsafeMutableBufferPointer { concealment.received($0) }
        var concealed = [Int16](repeating: 0, count: 160)
        concealed.withUnsafeMutableBufferPointer { concealment.conceal(into: $0) }
        // The real signal resumes with a sign flip: without a crossfade its first sample jumps.
        var resumed = Self.voiced(960..<1_120).map { -$0 }
        let original = resumed
        resumed.withUnsafeMutableBufferPointer { concealment.received($0) }
        #expect(!concealment.isConcealing)
        #expect(abs(Int(resumed[0]) - Int(concealed[159])) < abs(Int(original[0]) - Int(concealed[159])))
        #expect(resumed[0] != original[0])
        #expect(Array(resumed.suffix(100)) == Array(original.suffix(100)), "only the crossfade's span changes")
    }

    @Test func silenceStaysSilent() {
        let concealment = WaveformConcealment(sampleRate: 8_000)
        var frame = [Int16](repeating: 0, count: 160)
        frame.withUnsafeMutableBufferPointer { concealment.conceal(into: $0) }
        #expect(frame.allSatisfy { $0 == 0 })
    }
}
