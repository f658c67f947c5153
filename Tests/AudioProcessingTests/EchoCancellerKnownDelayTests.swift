// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Testing

/// Issue 16, "Hardening", row 7: a known delay of 10^15 ms (`voicecall aec --known-delay-ms
/// 1e15`) overflowed `sampleRate × ms`. The configuration now refuses a known delay outside
/// `knownDelayRangeMs` with a typed error; `setKnownDelay(ms:)`, called while running, clamps.
@Suite struct EchoCancellerKnownDelayTests {
    @Test func outOfRangeKnownDelayIsRefusedOrClamped() throws {
        for delay in [1_000_000_000_000_000, Int.max, Int.min, -1, 2_001] {
            #expect(throws: SpeexDSPError.invalidConfiguration("knownDelayMs \(delay) not in 0…2000")) {
                try EchoCanceller(configuration: .init(sampleRate: 48_000, knownDelayMs: delay))
            }
        }
        let canceller = try EchoCanceller(configuration: .init(sampleRate: 48_000, maximumDelayMs: 500, knownDelayMs: 2_000))
        #expect(canceller.alignmentDelayMs == 500)  // at most the delay line
        canceller.setKnownDelay(ms: 1_000_000_000_000_000)
        #expect(canceller.alignmentDelayMs == 500)
        canceller.setKnownDelay(ms: Int.max)
        #expect(canceller.alignmentDelayMs == 500)
        canceller.setKnownDelay(ms: Int.min)
        #expect(canceller.alignmentDelayMs == 0)
        canceller.setKnownDelay(ms: 120)
        #expect(canceller.alignmentDelayMs == 100)  // 20 ms margin before the echo
    }
}
