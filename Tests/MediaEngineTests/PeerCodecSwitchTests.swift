// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import MediaEngine
import MediaEngineTesting
import RTP
import Testing
import TestSupport

/// An answer listing several codecs lets the answerer switch among them without a new offer
/// (RFC 3264 §5.1): a call told of them (`alternativeReceiveCodecs`, from
/// `NegotiatedAudio`) plays the peer's PCMU and then its PCMA on one stream, each with its
/// own decoder; a call not told counts the PCMA as an unknown payload type and plays none.
@Suite struct PeerCodecSwitchTests {
    static let ticks = 300

    /// The peer's stream: PCMU (0) for the first half, PCMA (8) after, one SSRC, sequence
    /// numbers and the 8 kHz timestamps going on; what `call` played, and the speech sent.
    static func receive(into call: CallMedia) throws -> (heard: [Int16], said: [Int16]) {
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let encoders = [try AudioCodec.pcmu.makeEncoder(sampleRate: 48_000), try AudioCodec.pcma.makeEncoder(sampleRate: 48_000)]
        var payload = [UInt8](repeating: 0, count: 400), datagram = [UInt8](repeating: 0, count: 600)
        var played = [Int16](repeating: 0, count: 960), heard: [Int16] = []
        for tick in 0..<ticks {
            let now = Double(tick) * 20, switched = tick >= ticks / 2
            let bytes = try speech.withUnsafeBufferPointer { speech in
                try payload.withUnsafeMutableBytes {
                    try encoders[switched ? 1 : 0].encode(UnsafeBufferPointer(rebasing: speech[(tick * 960)..<((tick + 1) * 960)]), into: $0)
                }
            }
            let header = RTPHeader(payloadType: switched ? 8 : 0, sequenceNumber: UInt16(200 + tick), timestamp: UInt32(7_000 + 160 * tick),
                                   ssrc: 0xC0DE)
            let length = try payload.prefix(bytes).withUnsafeBytes { payload in
                try datagram.withUnsafeMutableBytes { try header.write(payload: payload, into: $0) }
            }
            _ = datagram.withUnsafeMutableBytes { call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), arrivalTimeMs: now + 30) }
            played.withUnsafeMutableBufferPointer { _ = call.render(into: $0, nowMs: now) }
            heard += played
        }
        return (heard, Array(speech.prefix(ticks * 960)))
    }

    static func configuration(alternatives: [UInt8: AudioCodec]) -> MediaConfiguration {
        var configuration = MediaConfiguration()
        configuration.codec = .pcmu
        configuration.payloadType = 0
        configuration.telephoneEventClockRate = 8_000
        configuration.alternativeReceiveCodecs = alternatives
        return configuration
    }

    @Test func theAnswerersSwitchToAnotherOfItsCodecsPlaysOn() throws {
        let call = try CallMedia(configuration: Self.configuration(alternatives: [8: .pcma]), sendingKey: nil, receivingKey: nil, ssrc: 1)
        let (heard, said) = try Self.receive(into: call)
        let inbound = call.statistics.inbound
        #expect(inbound.unknownPayloadTypePackets == 0 && inbound.packetsDiscarded == 0)
        #expect(inbound.concealedSamples < 3 * 960, "concealed \(inbound.concealedSamples)")
        // After the switch (from 3.4 s on), what played is what was said, decoded as A-law.
        let after = Array(said[(160 * 960)...]), heardAfter = Array(heard[(160 * 960)...])
        let correlation = SignalComparison.segmentalCorrelation(reference: after, signal: heardAfter, segmentLength: 9_600, maxLag: 14_400)
        #expect(correlation > 0.9, "segmental correlation after the switch \(correlation)")
    }

    @Test func aCodecOutsideTheAnswerIsCountedNotPlayed() throws {
        let call = try CallMedia(configuration: Self.configuration(alternatives: [:]), sendingKey: nil, receivingKey: nil, ssrc: 1)
        _ = try Self.receive(into: call)
        #expect(call.statistics.inbound.unknownPayloadTypePackets == Self.ticks / 2)
    }

    @Test func alternativesMustBeFreePayloadTypesOfTheirCodec() {
        for alternatives: [UInt8: AudioCodec] in [[0: .pcma], [101: .pcma], [9: .pcma], [200: .g722]] {
            #expect(throws: MediaConfigurationError.self, "\(alternatives)") {
                try Self.configuration(alternatives: alternatives).validate()
            }
        }
        #expect(throws: Never.self) { try Self.configuration(alternatives: [8: .pcma, 9: .g722, 96: .opus]).validate() }
    }
}
