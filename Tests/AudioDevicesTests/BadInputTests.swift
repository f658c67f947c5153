// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Testing

/// Issue 16, "Hardening": device-layer requests that used to trap. Each test names its row of
/// the "Bad input" table (docs/bad-input.md).
@Suite struct AudioDevicesBadInputTests {
    /// Row 6: `stall(milliseconds: 5_000_000)` made the I/O thread compute 5 × 10^9 µs as a
    /// `UInt32` and trap. The request is now clamped to `maximumStallMilliseconds` (and
    /// negative ones to 0), and a stall still stalls.
    @Test func stallRequestsAreClampedAndNeverTrapTheIOThread() throws {
        let stream = try ALSAStream(device: "mock", directions: .duplex,
                                    parameters: StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4),
                                    calls: ScriptedALSA())
        try stream.start(thread: .none)
        defer { stream.stop() }
        #expect(ALSAStream<ScriptedALSA>.maximumStallMilliseconds == 10_000)
        #expect(stream.stall(milliseconds: 5_000_000) == 10_000)
        #expect(stream.stall(milliseconds: Int.max) == 10_000)
        #expect(stream.stall(milliseconds: -5) == 0)  // also cancels the pending 10 s stall
        #expect(stream.runOnce())

        #expect(stream.stall(milliseconds: 30) == 30)
        let start = Date()
        #expect(stream.runOnce())
        #expect(Date().timeIntervalSince(start) >= 0.03)
    }
}
