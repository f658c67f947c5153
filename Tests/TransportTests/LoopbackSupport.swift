// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import Transport

/// A socket bound to `host` (loopback) on a port the system chooses.
func loopbackSocket(_ host: String = "127.0.0.1") throws -> UDPSocket {
    try UDPSocket(bindingTo: UDPEndpoint(host: host, port: 0))
}

/// Whether this machine can bind `::1`: the IPv6 suites run only then.
enum IPv6Loopback {
    static let isAvailable = (try? loopbackSocket("::1")) != nil
    static let skipReason: Comment = "no IPv6 loopback (::1) on this machine"
}

extension UDPSocket {
    /// Sends `bytes` to `destination`, or to the remote when nil.
    @discardableResult
    func send(_ bytes: [UInt8], to destination: PeerAddress? = nil) throws -> Bool {
        try bytes.withUnsafeBytes { raw in
            if let destination { return try send(raw, to: destination) }
            return try send(raw)
        }
    }

    /// Waits up to a second for a datagram and receives it into a buffer of `capacity`:
    /// what `receive` reported and the bytes it stored; nil when none came.
    func receiveWaiting(capacity: Int = 1_500) throws -> (datagram: ReceivedDatagram, bytes: [UInt8])? {
        _ = try waitForData(timeoutMs: 1_000)
        var buffer = [UInt8](repeating: 0, count: capacity)
        guard let datagram = try buffer.withUnsafeMutableBytes({ try receive(into: $0) }) else { return nil }
        return (datagram, Array(buffer[0..<min(datagram.length, capacity)]))
    }
}

/// Sends one datagram to `target` from its own socket after `seconds`, unless `finish()` came
/// first: it ends a `SocketPoller.wait` that a broken wake or timeout would leave blocked,
/// and the test sees `target` reported where it expected nothing.
final class Watchdog: @unchecked Sendable {
    private let finished = NSCondition()
    private var isFinished = false

    init(poking target: UDPSocket, afterSeconds seconds: Double = 5) throws {
        let poker = try loopbackSocket(target.localEndpoint.host)
        let destination = try PeerAddress(target.localEndpoint)
        Thread {
            self.finished.lock()
            let deadline = Date().addingTimeInterval(seconds)
            while !self.isFinished, self.finished.wait(until: deadline) {}
            let fire = !self.isFinished
            self.finished.unlock()
            if fire { _ = try? poker.send([0xDD], to: destination) }
        }.start()
    }

    func finish() {
        finished.lock()
        isFinished = true
        finished.signal()
        finished.unlock()
    }
}
