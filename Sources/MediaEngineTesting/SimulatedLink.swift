// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import TestSupport
import NetworkSimulation

/// One direction of a network between two `CallMedia`s on a virtual clock: each datagram
/// takes the fate a `NetworkTrace` gives the frame it was sent in (lost, or delivered at the
/// trace's arrival time), and a seeded share is delivered twice (1 ms apart), which the
/// simulator itself never does. Counts what it injected into the RTP stream (RTCP datagrams
/// travel the same way but are not counted), for checking the receiver's statistics.
public final class SimulatedLink {
    private let trace: NetworkTrace
    private let duplicateProbability: Double
    private var generator: SeededGenerator
    private var inFlight: [(arrivalMs: Double, order: Int, bytes: [UInt8])] = []
    /// RTCP datagrams in flight carry order 0: they take part in no count.
    private var order = 0
    /// Datagrams sent into the link.
    public private(set) var sent = 0
    /// Datagrams the trace lost.
    public private(set) var lost = 0
    /// Extra copies delivered.
    public private(set) var duplicated = 0
    /// Datagrams delivered after a datagram sent later than them (copies excluded).
    public private(set) var reordered = 0
    /// Datagrams delivered (copies excluded).
    public private(set) var delivered = 0
    private var latestDeliveredSend = -1

    /// A link following `trace` frame by frame (`frameIndex` of `send` indexes it); a clean
    /// link when `trace` is nil.
    public init(trace: NetworkTrace?, duplicateProbability: Double = 0, seed: UInt64 = 1) {
        self.trace = trace ?? NetworkTrace(packets: [])
        self.duplicateProbability = duplicateProbability
        generator = SeededGenerator(seed: seed)
    }

    /// Sees every datagram sent, with its send time (before the network's fate).
    public var observer: ((UnsafeRawBufferPointer, Double) -> Void)?
    /// A constant one-way delay added to every datagram, in ms (on top of the trace's).
    public var fixedDelayMs = 0.0
    /// Whether the trace's arrival times are read as times on the loop's clock (the
    /// receiver's), instead of as delays added to each send time. Set it to carry the trace's
    /// clock drift through: a sender that drifts fast delivers more than the receiver plays.
    /// A sender slower than the receiver needs `fixedDelayMs` of at least the drift the run
    /// accumulates, since nothing can arrive before it was sent.
    public var followsReceiverClock = false

    /// Sends `datagram` in frame `frameIndex` at `sendMs`.
    public func send(_ datagram: UnsafeRawBufferPointer, frameIndex: Int, sendMs: Double) {
        observer?(datagram, sendMs)
        let isRTCP = CallMedia.isRTCP(datagram)
        if !isRTCP { sent += 1 }
        var arrival = sendMs + fixedDelayMs
        if frameIndex < trace.packets.count {
            guard let traced = trace.packets[frameIndex].arrivalMs else {
                if !isRTCP { lost += 1 }
                return
            }
            arrival = followsReceiverClock
                ? max(traced + fixedDelayMs, sendMs)
                : traced - trace.packets[frameIndex].sendMs + sendMs + fixedDelayMs
        }
        let bytes = Array(datagram)
        guard !isRTCP else {
            inFlight.append((arrival, 0, bytes))
            return
        }
        order += 1
        inFlight.append((arrival, order, bytes))
        if Double.random(in: 0..<1, using: &generator) < duplicateProbability {
            duplicated += 1
            inFlight.append((arrival + 1, -order, bytes))
        }
    }

    /// Delivers every datagram due by `nowMs` to `call`, in arrival order.
    public func deliver(upTo nowMs: Double, to call: CallMedia) {
        inFlight.sort { $0.arrivalMs < $1.arrivalMs }
        var delivered = 0
        for datagram in inFlight {
            guard datagram.arrivalMs <= nowMs else { break }
            delivered += 1
            if datagram.order > 0 {
                self.delivered += 1
                if datagram.order < latestDeliveredSend { reordered += 1 }
                latestDeliveredSend = max(latestDeliveredSend, datagram.order)
            }
            var bytes = datagram.bytes
            bytes.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: datagram.arrivalMs) }
        }
        inFlight.removeFirst(delivered)
    }
}
