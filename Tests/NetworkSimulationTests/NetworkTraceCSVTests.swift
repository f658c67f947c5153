// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetworkSimulation
import Testing
import TestSupport

@Suite struct NetworkTraceCSVTests {
    @Test func roundTripsThroughCSVText() throws {
        var generator = SeededGenerator(seed: 11)
        let trace = NetworkSimulator(profile: NetworkProfile.classE.withBurstyLoss())
            .trace(packetCount: 500, using: &generator)
        #expect(trace.receivedCount < 500)  // some losses are in the text as empty fields
        let parsed = try NetworkTrace(csv: trace.csv)
        #expect(parsed.packets.count == trace.packets.count)
        for (a, b) in zip(parsed.packets, trace.packets) {
            #expect(a.sequence == b.sequence)
            #expect(abs(a.sendMs - b.sendMs) <= 0.0005)
            #expect((a.arrivalMs == nil) == (b.arrivalMs == nil))
            if let x = a.arrivalMs, let y = b.arrivalMs { #expect(abs(x - y) <= 0.0005) }
        }
        #expect(try NetworkTrace(csv: parsed.csv) == parsed)  // the text form is a fixed point
    }

    @Test func roundTripsThroughAFile() throws {
        let trace = NetworkTrace(packets: [
            TracePacket(sequence: 1, sendMs: 20, arrivalMs: nil),
            TracePacket(sequence: 0, sendMs: 0, arrivalMs: 41.25),
            TracePacket(sequence: 2, sendMs: 40, arrivalMs: 60.001),
        ])
        #expect(trace.csv == "sequence,send_ms,arrival_ms\n0,0.000,41.250\n1,20.000,\n2,40.000,60.001\n")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(getpid()).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try trace.write(to: url)
        #expect(try NetworkTrace(contentsOf: url) == trace)
    }

    @Test func acceptsCRLFBlankLinesAndSpaces() throws {
        let trace = try NetworkTrace(csv: "sequence,send_ms,arrival_ms\r\n0, 0.5 ,\r\n\r\n1,20,31\r\n")
        #expect(trace.packets == [
            TracePacket(sequence: 0, sendMs: 0.5, arrivalMs: nil),
            TracePacket(sequence: 1, sendMs: 20, arrivalMs: 31),
        ])
    }

    @Test func reportsMalformedLinesWithTheirNumbers() {
        #expect(throws: NetworkTraceError.badHeader(found: "seq,send,arrival")) {
            try NetworkTrace(csv: "seq,send,arrival\n0,0,1\n")
        }
        #expect(throws: NetworkTraceError.badHeader(found: "")) { try NetworkTrace(csv: "") }
        #expect(throws: NetworkTraceError.wrongFieldCount(line: 3, count: 2)) {
            try NetworkTrace(csv: "sequence,send_ms,arrival_ms\n0,0,1\n1,20\n")
        }
        #expect(throws: NetworkTraceError.invalidNumber(line: 2, column: "sequence", text: "x")) {
            try NetworkTrace(csv: "sequence,send_ms,arrival_ms\nx,0,1\n")
        }
        #expect(throws: NetworkTraceError.invalidNumber(line: 2, column: "send_ms", text: "nan")) {
            try NetworkTrace(csv: "sequence,send_ms,arrival_ms\n0,nan,1\n")
        }
        #expect(throws: NetworkTraceError.invalidNumber(line: 3, column: "arrival_ms", text: "1e")) {
            try NetworkTrace(csv: "sequence,send_ms,arrival_ms\n0,0,1\n1,20,1e\n")
        }
        #expect(throws: NetworkTraceError.duplicateSequence(line: 3, sequence: 0)) {
            try NetworkTrace(csv: "sequence,send_ms,arrival_ms\n0,0,1\n0,20,21\n")
        }
        let missing = URL(fileURLWithPath: "/nonexistent/trace.csv")
        #expect(throws: NetworkTraceError.self) { try NetworkTrace(contentsOf: missing) }
        #expect("\(NetworkTraceError.wrongFieldCount(line: 3, count: 2))".contains("line 3"))
    }
}
