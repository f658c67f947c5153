// SPDX-License-Identifier: Apache-2.0
import Testing
import JitterBufferEvaluation
import NetworkSimulation

@Suite struct FixedDelayOracleTests {
    /// Ten packets sent 20 ms apart with one-way delays 10, 20, … 100 ms, and one lost.
    static let trace = NetworkTrace(packets: (0..<11).map { index in
        TracePacket(sequence: index, sendMs: Double(index) * 20, arrivalMs: index == 10 ? nil : Double(index) * 20 + Double(index + 1) * 10)
    })

    @Test func theDelayIsTheQuantileThatKeepsLateLossWithinTheBudget() {
        let none = FixedDelayOracle(trace: Self.trace, lateLoss: 0)
        #expect(none.delayMs == 100 && none.lateLoss == 0)
        let tenth = FixedDelayOracle(trace: Self.trace, lateLoss: 0.1)  // one of ten received may be late
        #expect(tenth.delayMs == 90 && tenth.lateLoss == 0.1)
        let justUnder = FixedDelayOracle(trace: Self.trace, lateLoss: 0.19)  // still one
        #expect(justUnder.delayMs == 90)
        // Concealed: the lost packet and the late one, of eleven sent.
        #expect(abs(tenth.concealed - 2.0 / 11) < 1e-12)
    }

    /// Packets as late as D itself play on time: ties do not count as late.
    @Test func tiesAtTheDelayAreOnTime() {
        let trace = NetworkTrace(packets: [10.0, 30, 30, 30].enumerated().map { index, delay in
            TracePacket(sequence: index, sendMs: Double(index) * 20, arrivalMs: Double(index) * 20 + delay)
        })
        let oracle = FixedDelayOracle(trace: trace, lateLoss: 0.25)
        #expect(oracle.delayMs == 30 && oracle.lateLoss == 0)
    }
}
