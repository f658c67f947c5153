import MediaEngine
import TestSupport
import NetworkSimulation

/// One direction of a network between two `CallMedia`s on a virtual clock: each datagram
/// takes the fate a `NetworkTrace` gives the frame it was sent in (lost, or delivered at the
/// trace's arrival time), and a seeded share is delivered twice (1 ms apart), which the
/// simulator itself never does. Counts what it injected, for checking the receiver's
/// statistics against it.
final class SimulatedLink {
    private let trace: NetworkTrace
    private let duplicateProbability: Double
    private var generator: SeededGenerator
    private var inFlight: [(arrivalMs: Double, order: Int, bytes: [UInt8])] = []
    private var order = 0
    /// Datagrams sent into the link.
    private(set) var sent = 0
    /// Datagrams the trace lost.
    private(set) var lost = 0
    /// Extra copies delivered.
    private(set) var duplicated = 0
    /// Datagrams delivered after a datagram sent later than them (copies excluded).
    private(set) var reordered = 0
    /// Datagrams delivered (copies excluded).
    private(set) var delivered = 0
    private var latestDeliveredSend = -1

    /// A link following `trace` frame by frame (`frameIndex` of `send` indexes it); a clean
    /// link when `trace` is nil.
    init(trace: NetworkTrace?, duplicateProbability: Double = 0, seed: UInt64 = 1) {
        self.trace = trace ?? NetworkTrace(packets: [])
        self.duplicateProbability = duplicateProbability
        generator = SeededGenerator(seed: seed)
    }

    /// Sends `datagram` in frame `frameIndex` at `sendMs`.
    func send(_ datagram: UnsafeRawBufferPointer, frameIndex: Int, sendMs: Double) {
        sent += 1
        var arrival = sendMs
        if frameIndex < trace.packets.count {
            guard let traced = trace.packets[frameIndex].arrivalMs else {
                lost += 1
                return
            }
            arrival = traced - trace.packets[frameIndex].sendMs + sendMs
        }
        let bytes = Array(datagram)
        order += 1
        inFlight.append((arrival, order, bytes))
        if Double.random(in: 0..<1, using: &generator) < duplicateProbability {
            duplicated += 1
            inFlight.append((arrival + 1, -order, bytes))
        }
    }

    /// Delivers every datagram due by `nowMs` to `call`, in arrival order.
    func deliver(upTo nowMs: Double, to call: CallMedia) {
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
