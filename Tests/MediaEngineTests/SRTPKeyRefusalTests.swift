// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import Testing

/// Issue 26, "Hardening, round 2", rows 10 and 11: a key with an SDES lifetime (`|2^4|`)
/// stopped the call's sending (or receiving) after 16 packets with nothing but a generic
/// failure count, and packets with another key's MKI were refused without a word. Now a
/// key that runs out is an event, once per direction, with its own counters; a refused MKI
/// is counted as what it is through `CallMedia`.
@Suite struct SRTPKeyRefusalTests {
    static let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
    static let otherKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)

    /// One frame of silence sent by `sender`: its datagrams, as they would go on the wire.
    static func frame(_ sender: CallMedia, index: Int) -> [[UInt8]] {
        let silence = [Int16](repeating: 0, count: sender.samplesPerFrame)
        silence.withUnsafeBufferPointer { sender.send(microphone: $0) }
        var datagrams: [[UInt8]] = []
        sender.sendDatagrams(nowMs: Double(index) * 20) { datagrams.append(Array($0)) }
        return datagrams
    }

    static func deliver(_ datagrams: [[UInt8]], to receiver: CallMedia, index: Int) {
        for datagram in datagrams {
            var copy = datagram + [UInt8](repeating: 0, count: 16)
            copy.withUnsafeMutableBytes { _ = receiver.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<datagram.count]), arrivalTimeMs: Double(index) * 20) }
        }
    }

    static func events(_ media: CallMedia) -> [CallMediaEvent] {
        var events: [CallMediaEvent] = []
        media.drainEvents { events.append($0) }
        return events
    }

    @Test func aSendingKeyThatRunsOutIsAnEventAndNothingMoreIsSent() throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.key.with(masterKeyIdentifier: nil, lifetimePackets: 16),
                                   receivingKey: Self.otherKey, ssrc: 1, rtcpSeed: 1)
        var onTheWire = 0
        var events: [CallMediaEvent] = []
        for index in 0..<40 {
            onTheWire += Self.frame(sender, index: index).count
            events += Self.events(sender)
        }
        let statistics = sender.statistics
        #expect(onTheWire == 16)
        #expect(statistics.transport.datagramsSent + statistics.transport.rtcpPacketsSent == 16)
        #expect(statistics.transport.srtp.sendingKeyLifetimeExpired == statistics.transport.srtp.protectFailures)
        #expect(statistics.transport.srtp.sendingKeyLifetimeExpired >= 24)
        #expect(events == [.srtpKeyLifetimeExpired(.outbound)], "once, however many packets fail after")
    }

    @Test func aReceivingKeyThatRunsOutIsAnEventAndItsRefusalsAreCounted() throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.key, receivingKey: Self.otherKey, ssrc: 1, rtcpSeed: 1)
        let receiver = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.otherKey,
                                     receivingKey: Self.key.with(masterKeyIdentifier: nil, lifetimePackets: 16), ssrc: 2, rtcpSeed: 2)
        var events: [CallMediaEvent] = []
        var delivered = 0
        for index in 0..<40 {
            let datagrams = Self.frame(sender, index: index)
            delivered += datagrams.count
            Self.deliver(datagrams, to: receiver, index: index)
            events += Self.events(receiver)
        }
        let srtp = receiver.statistics.transport.srtp
        #expect(srtp.packetsUnprotected == 16)
        #expect(srtp.keyLifetimeExpired == delivered - 16)
        #expect(srtp.authFailures == 0)
        #expect(events == [.srtpKeyLifetimeExpired(.inbound)])
    }

    /// The peer keyed its packets with MKI 2:4, we were told 1:4: every one refused, each
    /// counted as an unknown MKI (not as an authentication failure, which would say "wrong key").
    @Test func packetsWithAnotherMasterKeyIdentifierAreCountedAsSuch() throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.key.with(masterKeyIdentifier: [0, 0, 0, 2], lifetimePackets: nil),
                                   receivingKey: Self.otherKey, ssrc: 1, rtcpSeed: 1)
        let receiver = try CallMedia(configuration: MediaConfiguration(), sendingKey: Self.otherKey,
                                     receivingKey: Self.key.with(masterKeyIdentifier: [0, 0, 0, 1], lifetimePackets: nil), ssrc: 2, rtcpSeed: 2)
        var delivered = 0
        for index in 0..<20 {
            let datagrams = Self.frame(sender, index: index)
            delivered += datagrams.count
            Self.deliver(datagrams, to: receiver, index: index)
        }
        let transport = receiver.statistics.transport
        #expect(transport.datagramsReceived == delivered)
        #expect(transport.srtp.unknownMasterKeyIdentifier == delivered)
        #expect(transport.srtp.authFailures == 0 && transport.srtp.packetsUnprotected == 0)
        #expect(receiver.statistics.inbound.packetsReceived == 0)
    }
}
