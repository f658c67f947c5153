// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The fate of every packet of one media stream across a network: sequence, send time, and
/// arrival time or loss. Produced by ``NetworkSimulator`` or read from a CSV file, and replayed
/// into jitter buffers by tests and benchmarks.
///
/// The CSV form has the header `sequence,send_ms,arrival_ms` and one line per packet in
/// sequence order; an empty arrival field means the packet was lost:
///
/// ```
/// sequence,send_ms,arrival_ms
/// 0,0.000,41.250
/// 1,20.000,
/// ```
public struct NetworkTrace: Sendable, Hashable {
    /// The CSV header line.
    public static let csvHeader = "sequence,send_ms,arrival_ms"

    /// The largest send or arrival time a CSV trace may hold, in milliseconds either side of
    /// zero (10^12 ms, about 31.7 years): its microseconds fit an `Int` with room to spare.
    public static let maximumTimeMagnitudeMs = 1e12

    /// Every packet, in sequence order.
    public var packets: [TracePacket]

    /// A trace of the given packets (sorted into sequence order).
    public init(packets: [TracePacket]) {
        self.packets = packets.sorted { $0.sequence < $1.sequence }
    }

    /// The packets that arrived, in arrival order (ties keep sequence order).
    public var arrivals: [TracePacket] {
        packets.filter { $0.arrivalMs != nil }.enumerated()
            .sorted { ($0.element.arrivalMs!, $0.offset) < ($1.element.arrivalMs!, $1.offset) }
            .map(\.element)
    }

    /// Number of packets that arrived.
    public var receivedCount: Int { packets.reduce(0) { $0 + ($1.arrivalMs == nil ? 0 : 1) } }

    /// Fraction of packets lost in the network (0 for an empty trace).
    public var lossRate: Double {
        packets.isEmpty ? 0 : Double(packets.count - receivedCount) / Double(packets.count)
    }

    /// One-way delays of the packets that arrived, in sequence order.
    public var delaysMs: [Double] { packets.compactMap(\.delayMs) }

    /// Fraction of arrived packets that arrived after a packet with a higher sequence number.
    public var reorderedRate: Double {
        var latestSequence = Int.min
        var reordered = 0
        let arrived = arrivals
        for packet in arrived {
            if packet.sequence < latestSequence { reordered += 1 } else { latestSequence = packet.sequence }
        }
        return arrived.isEmpty ? 0 : Double(reordered) / Double(arrived.count)
    }

    // MARK: CSV

    /// The trace as CSV text (times with microsecond precision), ending in a newline.
    ///
    /// A time beyond ±`maximumTimeMagnitudeMs` (or not finite), which only a trace built in
    /// code can hold, is written as Swift prints it (`1e+16`, `nan`); reading it back
    /// reports it.
    public var csv: String {
        var text = Self.csvHeader + "\n"
        text.reserveCapacity(packets.count * 24)
        for packet in packets {
            text += "\(packet.sequence),\(Self.format(packet.sendMs)),"
            if let arrival = packet.arrivalMs { text += Self.format(arrival) }
            text += "\n"
        }
        return text
    }

    /// Parses CSV text. Blank lines and `\r\n` line ends are accepted; anything else malformed
    /// is reported with its line number. Numbers are plain decimals (`-12`, `41.25`, `2e3`);
    /// times must lie within ±`maximumTimeMagnitudeMs`.
    public init(csv: String) throws(NetworkTraceError) {
        // "\r\n" is one Character in Swift, so it is matched as a whole.
        var lines = csv.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        let header = lines.first.map(String.init) ?? ""
        guard header.trimmingCharacters(in: .whitespaces) == Self.csvHeader else { throw .badHeader(found: header) }
        var packets: [TracePacket] = []
        var seen: Set<Int> = []
        for (index, line) in lines.enumerated().dropFirst() {
            let number = index + 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 3 else { throw .wrongFieldCount(line: number, count: fields.count) }
            guard let sequence = Int(fields[0]) else { throw .invalidNumber(line: number, column: "sequence", text: fields[0]) }
            let send = try Self.time(fields[1], line: number, column: "send_ms")
            let arrival = fields[2].isEmpty ? nil : try Self.time(fields[2], line: number, column: "arrival_ms")
            guard seen.insert(sequence).inserted else { throw .duplicateSequence(line: number, sequence: sequence) }
            packets.append(TracePacket(sequence: sequence, sendMs: send, arrivalMs: arrival))
        }
        self.init(packets: packets)
    }

    /// Reads a CSV trace file.
    public init(contentsOf url: URL) throws(NetworkTraceError) {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw .fileAccess(path: url.path, reason: "\(error.localizedDescription)")
        }
        try self.init(csv: text)
    }

    /// Writes the trace as a CSV file, replacing any file there.
    public func write(to url: URL) throws(NetworkTraceError) {
        do { try Data(csv.utf8).write(to: url) } catch {
            throw .fileAccess(path: url.path, reason: "\(error.localizedDescription)")
        }
    }

    /// A time field: a plain decimal within ±`maximumTimeMagnitudeMs`.
    private static func time(_ text: String, line: Int, column: String) throws(NetworkTraceError) -> Double {
        guard let value = decimal(text) else { throw .invalidNumber(line: line, column: column, text: text) }
        guard value.magnitude <= maximumTimeMagnitudeMs else { throw .timeOutOfRange(line: line, column: column, text: text) }
        return value
    }

    /// `text` as a number if it is a plain decimal: an optional sign, digits with an optional
    /// fraction, an optional exponent. `Double(_:)` alone is not enough: it reads C's `strtod`
    /// grammar (`nan`, `inf`, hex floats) and stops at an embedded NUL, so "5\0xyz" was 5.
    static func decimal(_ text: String) -> Double? {
        var bytes = text.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix(while: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        func sign() { if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() } }
        sign()
        var mantissaDigits = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return nil }
        if let first = bytes.first, first == UInt8(ascii: "e") || first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            sign()
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    private static func format(_ value: Double) -> String {
        // Out of range (only from a trace built in code): no integer holds its microseconds.
        guard value.magnitude <= maximumTimeMagnitudeMs else { return "\(value)" }
        // Microseconds as an integer, printed with a decimal point: exact and locale-free.
        let micros = Int((value * 1_000).rounded())
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let fraction = String(magnitude % 1_000)
        return sign + String(magnitude / 1_000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
