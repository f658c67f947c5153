// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import SRTP
import Testing
import Transport
@testable import voicecall

/// `voicecall send`/`receive`/`call`'s media loop under hostile traffic, one wake-up
/// (`RealTimeMediaLoop.step()`) at a time on a virtual clock, over loopback sockets: a flood
/// is read in bounded bites and never delays the frame that is due; ICMP errors that quote
/// nothing we sent (forged) never end a call; real refusals end it only while the peer sends
/// nothing that authenticates. Waits are for readiness (a datagram or an ICMP error queued).
@Suite struct NetworkAbuseTests {
    /// The loop's clock, moved by the test.
    final class VirtualClock: @unchecked Sendable {
        var ms = 1_000.0
    }

    static func socket() throws -> UDPSocket {
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.reportICMPErrors()
        _ = try socket.setReceiveBufferSize(bytes: 1 << 20)
        return socket
    }

    /// A port on 127.0.0.1 nobody listens on (bound, then closed).
    static func closedPort() throws -> PeerAddress {
        try PeerAddress(try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)).localEndpoint)
    }

    static let ourKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
    static let peerKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)

    static func media() throws -> CallMedia {
        try CallMedia(configuration: MediaConfiguration(), sendingKey: ourKey, receivingKey: peerKey, ssrc: 0x0102_0304, rtcpSeed: 1)
    }

    static func sendingPlan(seconds: Double, giveUpSeconds: Double = 10) -> RealTimeMediaLoop.Plan {
        var plan = RealTimeMediaLoop.Plan()
        plan.source = [Int16](repeating: 0, count: Int(seconds * 48_000))
        plan.endsWhenSourceEnds = true
        plan.giveUpSeconds = giveUpSeconds
        return plan
    }

    @Test func aFloodIsReadInBoundedBitesAndTheDueFrameIsSentInTheSameStep() throws {
        let socket = try Self.socket()
        let peer = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let clock = VirtualClock()
        let media = try Self.media()
        let loop = RealTimeMediaLoop(media: media, socket: socket, remote: try PeerAddress(peer.localEndpoint),
                                     plan: Self.sendingPlan(seconds: 1), clock: { clock.ms })
        // Forged RTP from anyone, more than one bite of it, queued before the step.
        let flooder = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let forged: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 0, 9, 9, 9, 9] + [UInt8](repeating: 0xAB, count: 40)
        let flood = RealTimeMediaLoop.maximumDatagramsPerWakeUp + 100
        let target = try PeerAddress(socket.localEndpoint)
        for _ in 0..<flood { _ = try forged.withUnsafeBytes { try flooder.send($0, to: target) } }
        #expect(try socket.waitForData(timeoutMs: 5_000))

        let first = try loop.step()
        #expect(first.sentFrame, "the frame due was sent, flood or not")
        #expect(first.datagramsRead == RealTimeMediaLoop.maximumDatagramsPerWakeUp, "one bite (the system may have kept fewer than \(flood))")
        #expect(first.waitMs == 0, "more is waiting: no sleep before the next bite")
        #expect(try peer.waitForData(timeoutMs: 5_000))
        var buffer = [UInt8](repeating: 0, count: 1_500)
        _ = try buffer.withUnsafeMutableBytes { try peer.receive(into: $0) }
        #expect(Array(buffer[8..<12]) == [1, 2, 3, 4], "our RTP reached the peer")

        // The same instant: the next bite, no frame (none is due).
        let second = try loop.step()
        #expect(!second.sentFrame)
        #expect(second.datagramsRead > 0)
        clock.ms += 20
        #expect(try loop.step().sentFrame, "the next frame, 20 ms on")
        let outcome = loop.finish()
        #expect(outcome.sent >= 2)
        #expect(outcome.wakeUpsAtReadLimit >= 1)
        let transport = outcome.statistics.transport
        #expect(transport.srtp.authFailures == transport.datagramsReceived, "every forged datagram read was counted as such")
    }

    /// ICMP port unreachable quoting datagrams this loop never sent (as a forger, who cannot
    /// know our RTP headers, sends them) — 50 a second for a healthy flow — never ends the call.
    @Test func forgedRefusalsAreCountedAndDoNotEndAHealthyCall() throws {
        let socket = try Self.socket()
        let peer = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let clock = VirtualClock()
        let loop = RealTimeMediaLoop(media: try Self.media(), socket: socket, remote: try PeerAddress(peer.localEndpoint),
                                     plan: Self.sendingPlan(seconds: 3, giveUpSeconds: 1), clock: { clock.ms })
        let closed = try Self.closedPort()
        let notOurs: [UInt8] = [0x80, 111, 0x55, 0x55, 7, 7, 7, 7, 8, 8, 8, 8, 0]
        var steps = 0
        while steps < 400 {
            let step = try loop.step()
            if step.ended { break }
            if step.sentFrame {
                // A refusal that quotes something else, queued on our socket before the next step.
                _ = try notOurs.withUnsafeBytes { try socket.send($0, to: closed) }
                #expect(try socket.waitForData(timeoutMs: 5_000), "the ICMP error is queued")
            }
            clock.ms += 20
            steps += 1
        }
        let outcome = loop.finish()
        #expect(steps < 400, "the call ended when its source did")
        #expect(outcome.refused == 0)
        #expect(outcome.forgedRefusals >= 140, "\(outcome.forgedRefusals)")
        #expect(outcome.sent >= 150)
    }

    /// Real refusals (nobody listens where we send) while the peer's authenticated packets
    /// keep arriving from elsewhere: counted, the call goes on; once the peer falls silent too,
    /// the call gives up after the give-up time.
    @Test func refusalsEndACallOnlyOnceThePeerSendsNothingThatAuthenticates() throws {
        let socket = try Self.socket()
        let clock = VirtualClock()
        let loop = RealTimeMediaLoop(media: try Self.media(), socket: socket, remote: try Self.closedPort(),
                                     plan: Self.sendingPlan(seconds: 10, giveUpSeconds: 1), clock: { clock.ms })
        let peerSocket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let peer = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.peerKey, receivingKey: Self.ourKey, ssrc: 7, rtcpSeed: 2)
        let target = try PeerAddress(socket.localEndpoint)
        let silence = [Int16](repeating: 0, count: peer.samplesPerFrame)
        var failure: RealCallFailure?
        var steps = 0
        while steps < 300 {
            // The peer talks for the first 3 s (150 frames), then falls silent.
            if steps < 150 {
                silence.withUnsafeBufferPointer { peer.send(microphone: $0) }
                peer.sendDatagrams(nowMs: Double(steps) * 20) { datagram in _ = try? peerSocket.send(datagram, to: target) }
            }
            do {
                let step = try loop.step()
                #expect(!step.ended)
            } catch {
                failure = error
                break
            }
            #expect(try socket.waitForData(timeoutMs: 5_000), "a refusal or the peer's packet is queued")
            clock.ms += 20
            steps += 1
        }
        let outcome = loop.finish()
        guard case .unreachable(let text)? = failure else {
            Issue.record("the call did not give up: \(String(describing: failure))")
            return
        }
        #expect(text.contains("refused every packet"))
        #expect((195...215).contains(steps), "gave up 1 s after the peer's last packet (frame 150): step \(steps)")
        #expect(outcome.refused >= 150, "refusals counted while the peer talked: \(outcome.refused)")
    }
}
