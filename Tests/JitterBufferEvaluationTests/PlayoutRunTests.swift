// SPDX-License-Identifier: Apache-2.0
import Testing
import JitterBufferEvaluation
import NetworkSimulation

@Suite struct PlayoutRunTests {
    /// Five packets sent 20 ms apart, all received; packet 4 arrives too late to matter here.
    static let trace = NetworkTrace(packets: (0..<5).map { TracePacket(sequence: $0, sendMs: Double($0) * 20, arrivalMs: Double($0) * 20 + 5) })

    @Test func summarizesDelayLateLossAndConcealment() {
        var run = PlayoutRun()
        run.recordTick(0, nowMs: 0, played: nil, concealed: true)  // before the first packet: not counted
        run.recordTick(1, nowMs: 60, played: 0...0, concealed: false)
        run.recordTick(2, nowMs: 80, played: nil, concealed: true)  // packet 1 lost late, concealed
        run.recordTick(3, nowMs: 100, played: 2...3, concealed: false)  // accelerate: two start at once
        run.recordTick(4, nowMs: 120, played: nil, concealed: true)  // the drained tail: not counted
        run.fecRecoveredSequences = [1]
        run.ticks = 5
        let summary = run.summary(Self.trace)
        // Delays: packet 0 60 ms, 2 60 ms, 3 40 ms.
        #expect(abs(summary.meanDelayMs - 160.0 / 3) < 1e-9)
        #expect(summary.p95DelayMs == 60)
        #expect(summary.lateLoss == 2.0 / 5)  // 1 and 4 never played
        #expect(summary.lateLossCreditingFEC == 1.0 / 5)  // 1 was rebuilt from FEC
        #expect(summary.concealed == 1.0 / 3)  // ticks 1–3 active, tick 2 concealed
        #expect(run.delaysMs(Self.trace) == [60, 60, 40])
    }
}
