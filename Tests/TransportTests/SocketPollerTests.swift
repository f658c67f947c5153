// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import SystemErrors
import Testing
import TestSupport
@testable import Transport

@Suite struct SocketPollerTests {
    @Test func reportsEachReadableSocketAndNoOther() throws {
        let poller = try SocketPoller(capacity: 4)
        let sockets = try (0..<3).map { _ in try loopbackSocket() }
        for socket in sockets { try poller.add(socket) }
        #expect(poller.count == 3)
        let sender = try loopbackSocket()
        try sender.send([1], to: PeerAddress(sockets[1].localEndpoint))
        try sender.send([2], to: PeerAddress(sockets[2].localEndpoint))
        _ = try sockets[2].waitForData(timeoutMs: 1_000)

        var reported: [ObjectIdentifier] = []
        try poller.wait(timeoutMs: 1_000) { reported.append(ObjectIdentifier($0)) }
        #expect(Set(reported) == [ObjectIdentifier(sockets[1]), ObjectIdentifier(sockets[2])])
        #expect(reported.count == 2)

        // Level-triggered: still reported until received; then not at all.
        var again = 0
        try poller.wait(timeoutMs: 0) { socket in
            again += 1
            _ = try? socket.receiveWaiting()
        }
        #expect(again == 2)
        try poller.wait(timeoutMs: 0) { _ in Issue.record("nothing is waiting") }
    }

    @Test func wakeBeforeWaitEndsTheNextWaitAtOnceAndIsConsumed() throws {
        let poller = try SocketPoller(capacity: 1)
        let socket = try loopbackSocket()
        try poller.add(socket)
        let watchdog = try Watchdog(poking: socket)
        poller.wake()
        poller.wake()
        poller.wake()
        try poller.wait(timeoutMs: 60_000) { _ in Issue.record("woken, not by a datagram: the watchdog fired") }
        watchdog.finish()

        // Every wake so far was drained: the next wait blocks until a datagram comes.
        let sender = try loopbackSocket()
        let destination = try PeerAddress(socket.localEndpoint)
        Thread {
            usleep(100_000)
            _ = try? sender.send([5], to: destination)
        }.start()
        var reported = 0
        try poller.wait(timeoutMs: 60_000) { _ in reported += 1 }
        #expect(reported == 1, "the wait returned before the datagram: a wake was left in the counter")
    }

    @Test func wakeFromAnotherThreadEndsAWait() throws {
        let poller = try SocketPoller(capacity: 1)
        let socket = try loopbackSocket()
        try poller.add(socket)
        let watchdog = try Watchdog(poking: socket)
        Thread {
            usleep(50_000)
            poller.wake()
        }.start()
        try poller.wait(timeoutMs: 60_000) { _ in Issue.record("the watchdog fired: wake() did not end the wait") }
        watchdog.finish()
    }

    @Test func negativeTimeoutPollsWithoutWaiting() throws {
        let poller = try SocketPoller(capacity: 1)
        let socket = try loopbackSocket()
        try poller.add(socket)
        let watchdog = try Watchdog(poking: socket)
        try poller.wait(timeoutMs: -1) { _ in Issue.record("the watchdog fired: a negative timeout waited") }
        try poller.wait(timeoutMs: .min) { _ in Issue.record("the watchdog fired: a negative timeout waited") }
        watchdog.finish()
        #expect(SocketPoller.clampedTimeoutMs(-1) == 0)
        #expect(SocketPoller.clampedTimeoutMs(.min) == 0)
        #expect(SocketPoller.clampedTimeoutMs(250) == 250)
        #expect(SocketPoller.clampedTimeoutMs(60_001) == 60_000)
        #expect(SocketPoller.clampedTimeoutMs(.max) == 60_000)
    }

    @Test func refusesBadCapacityDuplicatesAndMoreThanCapacity() throws {
        for capacity in [-1, Int.min, SocketPoller.maximumCapacity + 1] {
            #expect(throws: SocketError(function: "SocketPoller.init", code: .invalidArgument)) { try SocketPoller(capacity: capacity) }
        }
        let poller = try SocketPoller(capacity: 2)
        let a = try loopbackSocket(), b = try loopbackSocket(), c = try loopbackSocket()
        try poller.add(a)
        #expect(throws: SocketError(function: "SocketPoller.add", code: Errno(rawValue: EEXIST))) { try poller.add(a) }
        let tokenB = try poller.add(b)
        #expect(throws: SocketError(function: "SocketPoller.add", code: .noBufferSpace)) { try poller.add(c) }
        #expect(poller.remove(tokenB))
        try poller.add(c)
        #expect(poller.count == 2)

        // A wake-only poller.
        let waker = try SocketPoller(capacity: 0)
        waker.wake()
        try waker.wait(timeoutMs: 60_000) { _ in Issue.record("no sockets") }
    }

    @Test func removedSocketIsNotReportedAndStaleTokensRemoveNothing() throws {
        let poller = try SocketPoller(capacity: 3)
        let a = try loopbackSocket(), b = try loopbackSocket(), c = try loopbackSocket()
        let tokenA = try poller.add(a)
        try poller.add(b)
        try poller.add(c)
        let sender = try loopbackSocket()
        for socket in [a, b, c] { try sender.send([1], to: PeerAddress(socket.localEndpoint)) }
        _ = try c.waitForData(timeoutMs: 1_000)

        #expect(poller.remove(tokenA))
        #expect(!poller.remove(tokenA))
        #expect(poller.count == 2)
        var reported: Set<ObjectIdentifier> = []
        try poller.wait(timeoutMs: 1_000) { reported.insert(ObjectIdentifier($0)) }
        #expect(reported == [ObjectIdentifier(b), ObjectIdentifier(c)])

        // Re-adding gives a new token; the old one still removes nothing.
        let newTokenA = try poller.add(a)
        #expect(newTokenA != tokenA)
        #expect(!poller.remove(tokenA))
        #expect(poller.count == 3)
    }

    /// `ready` may remove sockets, its own or others, while `wait` walks them.
    @Test func readyMayRemoveSockets() throws {
        let poller = try SocketPoller(capacity: 4)
        let sockets = try (0..<4).map { _ in try loopbackSocket() }
        var tokens: [ObjectIdentifier: SocketPoller.Token] = [:]
        for socket in sockets { tokens[ObjectIdentifier(socket)] = try poller.add(socket) }
        let sender = try loopbackSocket()
        for socket in sockets { try sender.send([1], to: PeerAddress(socket.localEndpoint)) }
        for socket in sockets { _ = try socket.waitForData(timeoutMs: 1_000) }

        // Each reported socket removes itself: all four are reported once.
        var reported: [ObjectIdentifier] = []
        try poller.wait(timeoutMs: 1_000) { socket in
            reported.append(ObjectIdentifier(socket))
            #expect(poller.remove(tokens[ObjectIdentifier(socket)]!))
        }
        #expect(reported.count == 4)
        #expect(Set(reported).count == 4)
        #expect(poller.count == 0)

        // The first reported socket removes every other: only it is reported.
        for socket in sockets { tokens[ObjectIdentifier(socket)] = try poller.add(socket) }
        reported = []
        try poller.wait(timeoutMs: 1_000) { socket in
            reported.append(ObjectIdentifier(socket))
            for other in sockets where other !== socket { poller.remove(tokens[ObjectIdentifier(other)]!) }
        }
        #expect(reported.count == 1)
        #expect(poller.count == 1)
    }

    /// An ICMP port-unreachable for a connected socket sets its error (`POLLERR`) with no
    /// datagram waiting: `ready` hears of it, and receiving consumes it.
    @Test func socketErrorIsReportedToReady() throws {
        let socket = try loopbackSocket()
        let closedPort = try PeerAddress(loopbackSocket().localEndpoint)  // bound, then closed
        let connected = closedPort.withSocketAddress { connect(socket.descriptor, $0, $1) }
        #expect(connected == 0)
        let poller = try SocketPoller(capacity: 1)
        try poller.add(socket)
        try socket.send([1], to: closedPort)

        var reported = 0
        try poller.wait(timeoutMs: 1_000) { socket in
            reported += 1
            var buffer = [UInt8](repeating: 0, count: 16)
            do {
                #expect(try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) } == nil)
            } catch {
                Issue.record("receive threw \(error)")
            }
        }
        #expect(reported == 1)
        try poller.wait(timeoutMs: 0) { _ in Issue.record("the error was consumed by receive") }
    }

    @Test func waitingAndWakingAllocateNothing() throws {
        let poller = try SocketPoller(capacity: 8)
        let sockets = try (0..<4).map { _ in try loopbackSocket() }
        for socket in sockets { try poller.add(socket) }
        let sender = try loopbackSocket()
        let destinations = try sockets.map { try PeerAddress($0.localEndpoint) }
        let payload = [UInt8](repeating: 3, count: 160)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        try payload.withUnsafeBytes { out in
            try buffer.withUnsafeMutableBytes { into in
                let (received, allocations) = try AllocationCounter.measure { () throws(SocketError) -> Int in
                    var received = 0
                    for index in 0..<1_000 {
                        _ = try sender.send(out, to: destinations[index % 4])
                        if index % 10 == 0 { poller.wake() }
                        try poller.wait(timeoutMs: 1_000) { socket in
                            while let datagram = try? socket.receive(into: into) {
                                if datagram.length == 160 { received += 1 }
                            }
                        }
                    }
                    return received
                }
                #expect(received == 1_000)
                #expect(allocations == 0)
            }
        }
    }
}
