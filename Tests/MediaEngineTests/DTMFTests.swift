// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import RTP
import Testing
import TestSupport

/// RFC 4733 key presses sent by one call and received by another: the digits and durations
/// arrive intact, the packets follow the RFC (marker on the first, the end packet three
/// times, timestamps that never overlap the voice), and the key's tone plays locally.
@Suite struct DTMFTests {
    struct SentPacket {
        var payloadType: UInt8
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var marker: Bool
        var event: TelephoneEvent?
    }

    @Test func keyPressesRoundTripWithTheirDurationsAndFollowTheRFC() throws {
        let alice = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 1)
        let bob = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 2)
        var sent: [SentPacket] = []
        var alicePlayed: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        let speech = CallOverNetworkTests.alice
        try alice.sendDTMF(.digit5, durationMs: 100)
        try alice.sendDTMF(.star, durationMs: 120)
        try alice.sendDTMF(.digit0, durationMs: 140)
        for index in 0..<40 {
            let now = Double(index) * 20
            frame.withUnsafeMutableBufferPointer { _ = alice.render(into: $0, nowMs: now) }
            alicePlayed += frame
            CallLoop.frame(index, of: speech, length: 960).withUnsafeBufferPointer { alice.send(microphone: $0) }
            alice.sendDatagrams(nowMs: now) { datagram in
                if let view = try? RTPPacketView(datagram) {
                    sent.append(SentPacket(payloadType: view.payloadType, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                           marker: view.marker, event: view.payloadType == 101 ? try? TelephoneEvent(decoding: view.payload) : nil))
                }
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: now) }
            }
            frame.withUnsafeMutableBufferPointer { _ = bob.render(into: $0, nowMs: now) }
        }
        var events: [CallMediaEvent] = []
        bob.drainEvents { events.append($0) }
        #expect(events == [.dtmfReceived(.digit5, durationMs: 100), .dtmfReceived(.star, durationMs: 120), .dtmfReceived(.digit0, durationMs: 140)])
        #expect(alice.statistics.outbound.telephoneEventsSent == 3)
        #expect(bob.statistics.inbound.packetsLost == 0, "events and voice share one sequence")

        // Sequence numbers are contiguous across voice and events.
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        // Each event: marker on its first packet only, the end packet three times, and no
        // voice packet inside its media time.
        let events101 = sent.filter { $0.payloadType == 101 }
        let starts = Set(events101.map(\.timestamp)).sorted()
        #expect(starts.count == 3)
        for start in starts {
            let packets = events101.filter { $0.timestamp == start }
            #expect(packets.first?.marker == true)
            #expect(packets.dropFirst().allSatisfy { !$0.marker })
            #expect(packets.filter { $0.event?.isEnd == true }.count == 3)
            let duration = UInt32(packets.last?.event?.duration ?? 0)
            let voiceInside = sent.filter { $0.payloadType == 111 && $0.timestamp &- start < duration }
            #expect(voiceInside.isEmpty, "no voice overlaps the event at \(start)")
        }
        // The key's tone played on Alice's side while '5' was sent (770 + 1336 Hz).
        let during = alicePlayed[(1 * 960)..<(5 * 960)]
        #expect(SignalComparison.toneAmplitude(during, frequencyHz: 770, sampleRate: 48_000) > 2_000)
        #expect(SignalComparison.toneAmplitude(during, frequencyHz: 1_336, sampleRate: 48_000) > 2_000)
        // Voice resumes after the last event.
        #expect(sent.suffix(5).allSatisfy { $0.payloadType == 111 })
    }

    @Test func keyPressesAreRefusedWithAReason() throws {
        var configuration = MediaConfiguration()
        configuration.telephoneEventPayloadType = nil
        let plain = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil)
        #expect(throws: CallMediaError.telephoneEventsNotNegotiated) { try plain.sendDTMF(.digit1) }
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        #expect(throws: CallMediaError.self) { try call.sendDTMF(.digit1, durationMs: 10) }
        #expect(throws: CallMediaError.self) { try call.sendDTMF(.digit1, durationMs: 1_000_000) }
        #expect(throws: CallMediaError.self) { try call.sendDTMF(.digit1, volume: 64) }
        for _ in 0..<16 { try call.sendDTMF(.digit1) }
        #expect(throws: CallMediaError.keyPressQueueFull) { try call.sendDTMF(.digit1) }
        configuration = MediaConfiguration()
        configuration.telephoneEventClockRate = 8_000
        let narrow = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil)
        #expect(throws: CallMediaError.self) { try narrow.sendDTMF(.digit1) }
    }
}
