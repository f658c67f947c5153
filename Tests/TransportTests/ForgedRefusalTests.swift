// SPDX-License-Identifier: Apache-2.0
import Testing
import Transport

/// ICMP errors carry the start of the datagram they refuse; `takeRefusals(recognising:)` hands
/// it over, so a call can count a refusal only when it quotes a datagram the call sent (a
/// forged error quotes nothing of ours). Real ICMP port unreachable on loopback.
@Suite struct ForgedRefusalTests {
    @Test func aRefusalHandsOverTheQuotedStartOfTheRefusedDatagram() throws {
        let closed = try PeerAddress(try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)).localEndpoint)
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.reportICMPErrors()
        let ours: [UInt8] = [0x80, 111, 0x12, 0x34, 1, 2, 3, 4, 0xCA, 0xFE, 0xBA, 0xBE, 0xEE, 0xEE]
        let other: [UInt8] = [0x80, 111, 0x99, 0x99, 5, 6, 7, 8, 0xCA, 0xFE, 0xBA, 0xBE, 0xEE, 0xEE]
        var quotes: [[UInt8]] = []
        var total = Refusals()
        for datagram in [ours, other] {
            _ = try datagram.withUnsafeBytes { try socket.sendNoticingRefusal($0, to: closed) }
            #expect(try socket.waitForData(timeoutMs: 5_000), "the ICMP error came back")
            let taken = socket.takeRefusals { quote in
                quotes.append(Array(quote))
                return quote.elementsEqual(ours.prefix(Refusals.quotedBytes))
            }
            total.recognised += taken.recognised
            total.unrecognised += taken.unrecognised
        }
        #expect(quotes == [Array(ours.prefix(12)), Array(other.prefix(12))])
        #expect(total == Refusals(recognised: 1, unrecognised: 1))
        #expect(try socket.waitForData(timeoutMs: 0) == false, "all taken")
    }
}
