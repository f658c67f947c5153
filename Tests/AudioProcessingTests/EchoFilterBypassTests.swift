// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// `EchoFilterBypass`: the filter's output while the path is present, the microphone while it
/// is absent, and one frame of linear crossfade between them, never a step.
@Suite struct EchoFilterBypassTests {
    static let frameCount = 160

    /// One frame: microphone 1 000 throughout, the filter's output 0 (it removed everything).
    static func run(_ bypass: inout EchoFilterBypass, present: Bool) -> [Int16] {
        let microphone = [Int16](repeating: 1_000, count: frameCount)
        var output = [Int16](repeating: 0, count: frameCount)
        microphone.withUnsafeBufferPointer { microphone in
            output.withUnsafeMutableBufferPointer { bypass.apply(microphone: microphone.baseAddress!, output: $0.baseAddress!, present: present) }
        }
        return output
    }

    @Test func presentKeepsTheFilterAbsentPassesTheMicrophone() {
        var bypass = EchoFilterBypass(frameCount: Self.frameCount)
        #expect(Self.run(&bypass, present: false).allSatisfy { $0 == 1_000 }, "undecided from the start: the microphone")
        let arriving = Self.run(&bypass, present: true)
        #expect(zip(arriving.dropFirst(), arriving).allSatisfy { $0 <= $1 } && arriving.last == 0, "the first onset fades in")
        #expect(Self.run(&bypass, present: true).allSatisfy { $0 == 0 }, "present: the filter's output")
        let fading = Self.run(&bypass, present: false)
        #expect(Self.run(&bypass, present: false).allSatisfy { $0 == 1_000 }, "absent: the microphone exactly")
        // The frame of the switch climbs evenly from the filter to the microphone.
        let steps = zip(fading.dropFirst(), fading).map { Int($0) - Int($1) }
        #expect(steps.allSatisfy { (5...8).contains($0) }, "\(Set(steps))")
        #expect(fading.last == 1_000)
        // And back down when the path returns.
        let returning = Self.run(&bypass, present: true)
        #expect(zip(returning.dropFirst(), returning).allSatisfy { $0 <= $1 } && returning.last == 0)
        bypass.reset()
        #expect(bypass.weight == 0)
    }
}
