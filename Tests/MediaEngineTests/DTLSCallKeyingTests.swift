// SPDX-License-Identifier: Apache-2.0
import CallCore
import MediaEngine
import Testing
import Transport

/// `DTLSCallKeying.takes`: which datagrams a program that runs a call's network side (the
/// engine's network thread, `voicecall send`) hands to the handshake.
@Suite struct DTLSCallKeyingTests {
    @Test func onlyDTLSFromThePeerGoesToTheHandshake() throws {
        let peer = try PeerAddress(UDPEndpoint(host: "127.0.0.1", port: 40_000))
        let stranger = try PeerAddress(UDPEndpoint(host: "127.0.0.1", port: 40_001))
        #expect(DTLSCallKeying.takes(.multiplexed(.dtls), from: peer, peer: peer))
        #expect(!DTLSCallKeying.takes(.multiplexed(.dtls), from: stranger, peer: peer), "anyone could talk to the handshake")
        // Before the peer's address is known, any source.
        #expect(DTLSCallKeying.takes(.multiplexed(.dtls), from: stranger, peer: nil))
        for other: ReceivedDatagramDisposition in [.multiplexed(.stun), .media(authenticated: false), .control(authenticated: true), .dropped] {
            #expect(!DTLSCallKeying.takes(other, from: peer, peer: peer), "\(other)")
        }
    }
}
