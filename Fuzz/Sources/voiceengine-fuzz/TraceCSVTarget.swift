// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation

/// `NetworkTrace(csv:)` over any text: what parses writes CSV that parses to the same
/// sequences and to times within the writer's microsecond precision.
enum TraceCSVTarget {
    static let target = FuzzTarget(name: "trace-csv", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let trace = try? NetworkTrace(csv: text) else { return }
        for packet in trace.packets {
            check(abs(packet.sendMs) <= NetworkTrace.maximumTimeMagnitudeMs, "send time \(packet.sendMs)")
            if let arrival = packet.arrivalMs { check(abs(arrival) <= NetworkTrace.maximumTimeMagnitudeMs, "arrival \(arrival)") }
        }
        blackHole((trace.lossRate, trace.reorderedRate, trace.delaysMs.count, trace.receivedCount))
        let again: NetworkTrace
        do {
            again = try NetworkTrace(csv: trace.csv)
        } catch {
            check(false, "written CSV does not parse: \(error)")
            return
        }
        check(again.packets.count == trace.packets.count, "\(again.packets.count) packets read back, \(trace.packets.count) written")
        for (a, b) in zip(trace.packets, again.packets) {
            check(a.sequence == b.sequence, "sequence \(a.sequence) read back as \(b.sequence)")
            check(close(a.sendMs, b.sendMs), "send \(a.sendMs) read back as \(b.sendMs)")
            check((a.arrivalMs == nil) == (b.arrivalMs == nil) && close(a.arrivalMs ?? 0, b.arrivalMs ?? 0),
                  "arrival \(String(describing: a.arrivalMs)) read back as \(String(describing: b.arrivalMs))")
        }
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 0.001 + abs(a) * 1e-12 }

    static func seeds() throws -> [[UInt8]] {
        [
            "sequence,send_ms,arrival_ms\n0,0,41.5\n1,20,\n2,40,61.25\n",
            "sequence,send_ms,arrival_ms\r\n5, 100 ,2e3\r\n\r\n4,80,130\r\n",
        ].map { Array($0.utf8) }
    }
}
