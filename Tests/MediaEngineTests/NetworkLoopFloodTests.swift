// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
@testable import CallCore
@testable import MediaEngine
import SRTP
import Testing
import Transport

/// The engine's network thread under a flood of unauthenticated datagrams (anyone who can
/// reach the port can send them): one wake-up reads a bounded bite, then sends what the
/// calls queued. Driven one turn at a time, on loopback sockets, waiting for readiness only.
@Suite struct NetworkLoopFloodTests {
    @Test func aFloodIsReadInBoundedBitesAndTheQueuedPacketStillGoesOut() throws {
        let clock = EngineClock()
        let loop = NetworkLoop(poller: try SocketPoller(capacity: 4), clock: clock, policy: .authenticated, post: { _ in })
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: key, ssrc: 0x0102_0304, rtcpSeed: 1)
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        _ = try socket.setReceiveBufferSize(bytes: 1 << 20)
        let peer = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        socket.setRemote(try PeerAddress(peer.localEndpoint))
        loop.enqueue(.add(EngineCallID(rawValue: 1), media, CallTransport(rtp: socket), nil))
        loop.turn(timeoutMs: 0)

        // The flood: more than one bite of forged RTP, queued before the turn.
        let flooder = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let forged: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 0, 9, 9, 9, 9] + [UInt8](repeating: 0xAB, count: 40)
        let target = try PeerAddress(socket.localEndpoint)
        let flood = NetworkLoop.maximumDatagramsPerWakeUp + 100
        for _ in 0..<flood { _ = try forged.withUnsafeBytes { try flooder.send($0, to: target) } }
        #expect(try socket.waitForData(timeoutMs: 5_000))
        // A frame queued by the audio side, due now.
        [Int16](repeating: 0, count: media.samplesPerFrame).withUnsafeBufferPointer { media.send(microphone: $0) }

        loop.turn(timeoutMs: 0)
        let transport = media.statistics.transport
        #expect(transport.datagramsReceived == NetworkLoop.maximumDatagramsPerWakeUp, "one bite (the system may have kept fewer than \(flood))")
        #expect(transport.srtp.authFailures == transport.datagramsReceived, "each counted as forged")
        #expect(transport.datagramsSent == 1, "the queued packet went out in the same turn")
        #expect(try peer.waitForData(timeoutMs: 5_000))
        var buffer = [UInt8](repeating: 0, count: 1_500)
        let received = try buffer.withUnsafeMutableBytes { try peer.receive(into: $0) }
        #expect(received != nil && Array(buffer[8..<12]) == [1, 2, 3, 4], "our RTP reached the peer")

        // The rest waits for the next turn.
        loop.turn(timeoutMs: 0)
        #expect(media.statistics.transport.datagramsReceived > NetworkLoop.maximumDatagramsPerWakeUp)
    }
}
