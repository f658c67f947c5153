// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Testing

/// Issue 16, "Hardening": trace files that used to be misread or to trap. Each test names its
/// row of the "Bad input" table (docs/bad-input.md).
@Suite struct NetworkTraceBadInputTests {
    static let header = NetworkTrace.csvHeader + "\n"

    /// Row 2: `0,1e16,` was accepted, then writing the trace back trapped converting 10^19 µs
    /// to `Int`. Now such a time is refused when read, and a trace built in code with it is
    /// written without trapping (and refused when read back).
    @Test func timesBeyondTheRangeAreRefusedAndNeverTrapTheWriter() throws {
        #expect(throws: NetworkTraceError.timeOutOfRange(line: 2, column: "send_ms", text: "1e16")) {
            try NetworkTrace(csv: Self.header + "0,1e16,\n")
        }
        #expect(throws: NetworkTraceError.timeOutOfRange(line: 2, column: "arrival_ms", text: "-2e12")) {
            try NetworkTrace(csv: Self.header + "0,0,-2e12\n")
        }
        // The limit itself is accepted and round-trips exactly.
        let edge = try NetworkTrace(csv: Self.header + "0,-1e12,1e12\n")
        #expect(edge.packets == [TracePacket(sequence: 0, sendMs: -1e12, arrivalMs: 1e12)])
        #expect(try NetworkTrace(csv: edge.csv) == edge)

        let built = NetworkTrace(packets: [
            TracePacket(sequence: 0, sendMs: 1e16, arrivalMs: .nan),
            TracePacket(sequence: 1, sendMs: -.infinity, arrivalMs: 1e300),
        ])
        let text = built.csv
        #expect(text == Self.header + "0,1e+16,nan\n1,-inf,1e+300\n")
        #expect(throws: NetworkTraceError.timeOutOfRange(line: 2, column: "send_ms", text: "1e+16")) { try NetworkTrace(csv: text) }
    }

    /// Row 3: `Double("5\0xyz")` is 5 (it stops at the NUL), so such a field was read as 5.
    /// Numbers are now plain decimals, checked character by character.
    @Test func numbersWithTrailingGarbageAreRefused() throws {
        for field in ["5\0xyz", "5\0", "0x10", "inf", "-nan", "1e", "1e+", ".", "+", "1.2.3", "1_000", "١٢"] {
            #expect(throws: NetworkTraceError.invalidNumber(line: 2, column: "send_ms", text: field)) {
                try NetworkTrace(csv: Self.header + "0,\(field),\n")
            }
            #expect(throws: NetworkTraceError.invalidNumber(line: 2, column: "arrival_ms", text: field)) {
                try NetworkTrace(csv: Self.header + "0,0,\(field)\n")
            }
        }
        #expect(throws: NetworkTraceError.invalidNumber(line: 2, column: "sequence", text: "5\0xyz")) {
            try NetworkTrace(csv: Self.header + "5\0xyz,0,\n")
        }
        let message = "\(NetworkTraceError.invalidNumber(line: 2, column: "send_ms", text: "5\0xyz"))"
        #expect(message == #"trace line 2: send_ms "5\0xyz" is not a number"#)
        // Plain decimals in every form still parse.
        let trace = try NetworkTrace(csv: Self.header + "0,-1.5,+2e3\n1,.5,3.\n2,1E2,4e-1\n")
        #expect(trace.packets.map(\.sendMs) == [-1.5, 0.5, 100])
        #expect(trace.packets.map(\.arrivalMs) == [2_000, 3, 0.4])
    }
}
