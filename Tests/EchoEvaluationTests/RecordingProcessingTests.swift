// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import EchoEvaluation
import Testing
import TestSupport

/// `EchoCanceller.processRecording`: the one frame-by-frame run of a canceller over a recording.
@Suite struct RecordingProcessingTests {
    static func noise(count: Int, seed: UInt64) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int16.random(in: -8_000...8_000, using: &generator) }
    }

    /// It is the canceller's own `process`, frame after frame: the output equals feeding the
    /// frames by hand to an identical canceller. The output is as long as the microphone, its
    /// trailing partial frame zero.
    @Test func equalsProcessingFrameByFrame() throws {
        let far = Self.noise(count: 16_000 + 50, seed: 1)
        let microphone = far.map { $0 / 2 }
        let output = try EchoCanceller().processRecording(microphone: microphone, farEnd: far)
        let canceller = try EchoCanceller()
        var expected = [Int16](repeating: 0, count: microphone.count)
        for start in stride(from: 0, to: 16_000, by: 160) {
            let frame = [Int16](repeating: 0, count: 160)
            var out = frame
            Array(microphone[start..<(start + 160)]).withUnsafeBufferPointer { mic in
                Array(far[start..<(start + 160)]).withUnsafeBufferPointer { farEnd in
                    out.withUnsafeMutableBufferPointer { canceller.process(microphone: mic, farEnd: farEnd, output: $0) }
                }
            }
            expected.replaceSubrange(start..<(start + 160), with: out)
        }
        #expect(output.count == microphone.count)
        #expect(output == expected)
        #expect(output[16_000...].allSatisfy { $0 == 0 })
    }

    /// A far end shorter than the microphone is silence after its end.
    @Test func padsAShortFarEndWithSilence() throws {
        let far = Self.noise(count: 8_000, seed: 2)
        let microphone = Self.noise(count: 16_000, seed: 3)
        let padded = far + [Int16](repeating: 0, count: 8_000)
        #expect(try EchoCanceller().processRecording(microphone: microphone, farEnd: far)
                == EchoCanceller().processRecording(microphone: microphone, farEnd: padded))
    }
}
