// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Opus

/// What the fixed-delay oracle sounds like: every packet plays exactly `delayMs` after it was
/// sent, decoded if it had arrived by then, otherwise rebuilt from the next packet's in-band
/// FEC if that one had, otherwise concealed by libopus. No time-stretching, no waiting: the
/// score a playout delay buys on a trace, known in advance, which an adaptive buffer playing
/// at the same mean delay should reach.
public struct FixedDelayPlayout: Sendable {
    /// What the listener hears, 48 kHz mono, from the first packet's send time on (the
    /// first `delayMs` are silence).
    public var pcm: [Int16]
    /// Packets decoded from their own payload.
    public var decodedPackets = 0
    /// Packets rebuilt from the next packet's FEC.
    public var fecRecoveredPackets = 0
    /// Packets concealed (lost, or late with no FEC in time).
    public var concealedPackets = 0
    /// The playout delay, in ms.
    public let delayMs: Double

    /// Plays `trace` (its packets numbered 0…n−1 in send order) at `delayMs`.
    public init(_ trace: NetworkTrace, stream: OpusPacketStream, delayMs: Double) throws {
        self.delayMs = delayMs
        let frame = stream.samplesPerPacket
        var arrivals = [Double?](repeating: nil, count: trace.packets.count)
        var sends = [Double](repeating: 0, count: trace.packets.count)
        for packet in trace.packets where packet.sequence >= 0 && packet.sequence < arrivals.count {
            arrivals[packet.sequence] = packet.arrivalMs
            sends[packet.sequence] = packet.sendMs
        }
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        let leadSamples = max(0, Int((delayMs * 48).rounded()))
        pcm = [Int16](repeating: 0, count: leadSamples + arrivals.count * frame)
        var scratch = [Int16](repeating: 0, count: 120 * 48)
        for sequence in arrivals.indices {
            let playMs = sends[sequence] + delayMs
            let onTime = arrivals[sequence].map { $0 <= playMs } ?? false
            let nextOnTime = sequence + 1 < arrivals.count && (arrivals[sequence + 1].map { $0 <= playMs } ?? false)
            let produced: Int = try scratch.withUnsafeMutableBufferPointer { output in
                let span = UnsafeMutableBufferPointer(rebasing: output[0..<frame])
                if onTime {
                    return try stream.payload(sequence).withUnsafeBytes { payload in try decoder.decode(payload, into: output) }
                }
                if nextOnTime, Self.hasFEC(stream.payload(sequence + 1)) {
                    return try stream.payload(sequence + 1).withUnsafeBytes { next in try decoder.decodeFEC(from: next, into: span) }
                }
                return try decoder.conceal(into: span)
            }
            if onTime {
                decodedPackets += 1
            } else if produced > 0 && nextOnTime && Self.hasFEC(stream.payload(sequence + 1)) {
                fecRecoveredPackets += 1
            } else {
                concealedPackets += 1
            }
            let start = leadSamples + sequence * frame
            for index in 0..<min(produced, frame) { pcm[start + index] = scratch[index] }
        }
    }

    /// Whether an Opus payload carries in-band FEC, read from its TOC (an unreadable one has none).
    private static func hasFEC(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBytes { (try? OpusPacketInfo(packet: $0, sampleRate: 48_000))?.hasFEC ?? false }
    }
}
