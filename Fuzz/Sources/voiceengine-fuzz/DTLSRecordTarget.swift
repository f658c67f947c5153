// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import Transport

/// Datagrams at a DTLS-SRTP call's port: each goes into a `CallMedia` keyed by handshake
/// (RFC 7983 demultiplexing), and what it hands back as DTLS into a `DTLSAssociation` (server
/// or client, mid-handshake) that expects a stranger's certificate. Datagrams may be steered
/// to start like a DTLS 1.2 handshake record so OpenSSL's record and handshake parsing is reached.
/// Invariants: nothing traps; the association never connects (no input can show the expected
/// certificate), so no key leaves it; the call plays and sends nothing; what the association
/// sends fits its MTU and is DTLS (RFC 7983: 20…63); every datagram is counted once.
enum DTLSRecordTarget {
    static let target = FuzzTarget(name: "dtls", run: run, seeds: seeds)

    /// Made once: generating a key per input would be most of each run.
    static let certificate = try! DTLSCertificate()
    static let stranger = try! DTLSCertificate()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        let role: DTLSRole = input.bool() ? .client : .server
        guard let call = try? CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake, ssrc: 0x0102_0304),
              let association = try? DTLSAssociation(certificate: certificate,
                                                     configuration: DTLSAssociation.Configuration(role: role, remoteFingerprints: [stranger.fingerprint]))
        else {
            check(false, "a valid DTLS configuration was refused")
            return
        }
        association.start(nowMs: 0)
        var nowMs = 0.0
        var delivered = 0
        var wire = [UInt8](repeating: 0, count: 1_600)
        while !input.isAtEnd && delivered < 200 {
            let steer = input.byte()
            let raw = input.bytes(maximum: 1_500)
            var length = raw.count
            wire.withUnsafeMutableBytes { $0.copyMemory(from: raw) }
            if steer & 1 == 1, length >= 13 {
                // A DTLS 1.2 handshake record header in epoch 0 with a consistent length.
                wire[0] = 22
                wire[1] = 0xFE
                wire[2] = 0xFD
                wire[3] = 0
                wire[4] = 0
                let body = length - 13
                wire[11] = UInt8(body >> 8)
                wire[12] = UInt8(body & 0xFF)
            } else if steer & 2 == 2, length > 0 {
                wire[0] = 20 + (wire[0] % 44)
            }
            length = min(length, wire.count)
            let disposition = wire.withUnsafeMutableBytes {
                call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), arrivalTimeMs: nowMs)
            }
            delivered += 1
            if disposition == .multiplexed(.dtls) {
                let outcome = wire.withUnsafeBytes { association.receive(UnsafeRawBufferPointer(rebasing: $0[0..<length]), nowMs: nowMs) }
                if case .connected = outcome { check(false, "connected to a peer that never showed the expected certificate") }
            }
            association.drainDatagrams { datagram in
                check(!datagram.isEmpty && datagram.count <= association.configuration.mtu, "sent a \(datagram.count)-byte datagram")
                check((20...63).contains(datagram[0]), "sent a datagram that is not DTLS (first byte \(datagram[0]))")
            }
            if steer & 4 == 4 {
                nowMs += Double(input.byte()) * 40
                association.poll(nowMs: nowMs)
            }
            call.sendDatagrams(nowMs: nowMs) { _ in check(false, "the call sent a datagram before it was keyed") }
        }
        check(association.keys == nil, "keys left an association that never connected")
        let statistics = call.statistics
        check(statistics.transport.datagramsReceived == delivered, "\(statistics.transport.datagramsReceived) counted, \(delivered) delivered")
        check(statistics.inbound.packetsReceived == 0, "the call took RTP before it had keys")
        check(statistics.transport.srtp.packetsUnprotected == 0, "the call unprotected a packet before it had keys")
    }

    /// A real ClientHello (for the server) and a garbage record, as programs.
    static func seeds() throws -> [[UInt8]] {
        let client = try DTLSAssociation(certificate: certificate,
                                         configuration: DTLSAssociation.Configuration(role: .client, remoteFingerprints: [stranger.fingerprint]))
        client.start(nowMs: 0)
        var hello: [UInt8] = []
        client.drainDatagrams { hello = $0 }
        let length = UInt16(hello.count)
        let server: [UInt8] = [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + hello + [4, 0x02, 0x00, 0x05, 22, 0xFE, 0xFD, 0, 0, 250]
        let garbage: [UInt8] = [1, 1, 0x00, 0x20] + [UInt8](repeating: 0x16, count: 32)
        return [server, garbage]
    }
}
