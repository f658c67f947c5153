import AudioDevices
import Foundation
import Locking
import Transport

/// The network between the two softphones in real time: a UDP relay on 127.0.0.1 with one
/// socket per side. Alice's engine sends to `aliceFacing`, whose datagrams leave from
/// `bobFacing` to Bob after their `DemoNetworkPath` delay (or never, when lost), and back the
/// same way: each engine sees one peer address, as symmetric RTP expects. Runs on its own
/// thread; datagrams are released within about a millisecond of their due time.
final class DemoRelay: @unchecked Sendable {
    // @unchecked: the sockets are thread-safe; `paths` and `pending` are touched only by the
    // relay thread while it runs and read through `state` after `stop()` joined it.
    /// The socket Alice's engine sends to and hears from.
    let aliceFacing: UDPSocket
    /// The socket Bob's engine sends to and hears from.
    let bobFacing: UDPSocket
    private let state: Locked<State>
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    private struct Pending {
        var dueNanoseconds: Int64
        var bytes: [UInt8]
        var towardBob: Bool
    }

    private struct State {
        var aliceToBob: DemoNetworkPath
        var bobToAlice: DemoNetworkPath
        var stopping = false
    }

    /// A relay impairing each direction with its own path.
    init(aliceToBob: DemoNetworkPath, bobToAlice: DemoNetworkPath) throws(SocketError) {
        aliceFacing = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        bobFacing = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        state = Locked(State(aliceToBob: aliceToBob, bobToAlice: bobToAlice))
    }

    /// Both paths as they stand (their applied delays and drops so far).
    var paths: (aliceToBob: DemoNetworkPath, bobToAlice: DemoNetworkPath) {
        state.withLock { ($0.aliceToBob, $0.bobToAlice) }
    }

    /// Starts relaying between the sockets at `aliceEndpoint` and `bobEndpoint` (both known from
    /// the SDP before media flows, so neither side's first words are lost).
    func start(aliceEndpoint: UDPEndpoint, bobEndpoint: UDPEndpoint) throws(SocketError) {
        try aliceFacing.setRemote(aliceEndpoint)
        try bobFacing.setRemote(bobEndpoint)
        let origin = MonotonicClock.nanoseconds
        let thread = Thread { [self] in
            run(origin: origin)
            done.signal()
        }
        thread.name = "voicecall demo relay"
        self.thread = thread
        thread.start()
    }

    /// Stops relaying and waits for the thread.
    func stop() {
        guard thread != nil else { return }
        state.withLock { $0.stopping = true }
        done.wait()
        thread = nil
    }

    private func run(origin: Int64) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        var pending: [Pending] = []
        while !state.withLock({ $0.stopping }) {
            let now = MonotonicClock.nanoseconds
            for (socket, towardBob) in [(aliceFacing, true), (bobFacing, false)] {
                while let received = try? socket.receive(into: buffer) {
                    guard received.length <= buffer.count else { continue }
                    let sendMs = Double(now - origin) / 1e6
                    let fate = state.withLock { state -> Double? in
                        towardBob ? state.aliceToBob.fate(sendMs: sendMs) : state.bobToAlice.fate(sendMs: sendMs)
                    }
                    guard let delayMs = fate else { continue }
                    pending.append(Pending(dueNanoseconds: now + Int64(delayMs * 1e6),
                                           bytes: Array(UnsafeRawBufferPointer(rebasing: buffer[0..<received.length])), towardBob: towardBob))
                }
            }
            // Release what is due, in due order (a packet delayed less may overtake one before it).
            pending.sort { $0.dueNanoseconds < $1.dueNanoseconds }
            var released = 0
            for item in pending {
                guard item.dueNanoseconds <= now else { break }
                released += 1
                item.bytes.withUnsafeBytes { bytes in
                    if item.towardBob {
                        _ = try? bobFacing.send(bytes)
                    } else {
                        _ = try? aliceFacing.send(bytes)
                    }
                }
            }
            pending.removeFirst(released)
            let next = pending.first.map { max(0, Int(($0.dueNanoseconds - MonotonicClock.nanoseconds) / 1_000_000)) } ?? 5
            _ = try? aliceFacing.waitForData(timeoutMs: min(next, 1))
        }
    }
}
