// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Locking
import MediaEngine
import MediaEngineTesting
import RTP
import Testing
import TestSupport

/// `CallMedia.switchCodec(to:)` on a running call, on the virtual clock: what a running call
/// keeps is refused by name and changes nothing; a switch reaches the next frame of both sides
/// (the codec sent, the payload types played, the stream's SSRC and sequence going on); the
/// handoff that carries it never frees on the audio side. Over UDP with SDP:
/// `ReOfferOverUDPTests.aReOfferToAnotherCodecSwitchesTheRunningCall`; allocation-free:
/// `CallMediaAllocationTests.codecSwitchesAllocateNothingOnTheAudioSide`.
@Suite struct CodecSwitchTests {
    static func configuration(_ codec: AudioCodec) -> MediaConfiguration {
        var configuration = MediaConfiguration()
        configuration.codec = codec
        configuration.payloadType = codec.staticPayloadType ?? 111
        configuration.telephoneEventClockRate = codec.rtpClockRate
        configuration.telephoneEventPayloadType = codec == .opus ? 101 : 100
        return configuration
    }

    @Test func whatARunningCallKeepsIsRefusedByName() throws {
        let call = try CallMedia(configuration: Self.configuration(.pcmu), sendingKey: nil, receivingKey: nil)
        for (field, change) in [("frameDurationMs", { (c: inout MediaConfiguration) in c.frameDurationMs = 40 }),
                                ("sampleRate", { $0.sampleRate = 16_000 }),
                                ("jitterBuffer", { $0.jitterBuffer.maximumDelayMs = 500 }),
                                ("a limit or setting other than the codec's", { $0.maximumDatagramBytes = 1_200 })] {
            var next = Self.configuration(.pcma)
            change(&next)
            #expect(throws: CallMediaError.configuration(.invalid(field: field, reason: "a running call keeps it (make new media for another)"))) {
                try call.switchCodec(to: next)
            }
        }
        var invalid = Self.configuration(.pcma)
        invalid.payloadType = 0  // PCMU's static type for PCMA
        #expect(throws: CallMediaError.self) { try call.switchCodec(to: invalid) }
        #expect(call.configuration == Self.configuration(.pcmu), "nothing changed")
    }

    /// Alice switches PCMU → Opus → PCMA while Bob, told first, plays each: every frame after
    /// a switch is sent in the new codec on the same stream, and Bob's playout never stops.
    @Test func aSwitchReachesTheNextFrameOfBothSides() throws {
        let alice = try CallMedia(configuration: Self.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xA1)
        let bob = try CallMedia(configuration: Self.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xB0)
        var frame = [Int16](repeating: 0, count: 960), heard: [Int16] = []
        var sent: [(payloadType: UInt8, sequence: UInt16, ssrc: UInt32, marker: Bool)] = []
        for tick in 0..<300 {
            if tick == 100 || tick == 200 {
                let codec: AudioCodec = tick == 100 ? .opus : .pcma
                try bob.switchCodec(to: Self.configuration(codec))  // the answerer first (it plays the old one on)
                try alice.switchCodec(to: Self.configuration(codec))
            }
            let now = Double(tick) * 20
            CallLoop.frame(tick, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { alice.send(microphone: $0) }
            alice.sendDatagrams(nowMs: now) { datagram in
                guard !CallMedia.isRTCP(datagram), let view = try? RTPPacketView(datagram) else { return }
                sent.append((view.payloadType, view.sequenceNumber, view.ssrc, view.marker))
                var copy = Array(datagram)
                _ = copy.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: now + 10) }
            }
            frame.withUnsafeMutableBufferPointer { _ = bob.render(into: $0, nowMs: now) }
            heard += frame
        }
        #expect(sent.count == 300)
        #expect(sent[0..<100].allSatisfy { $0.payloadType == 0 } && sent[100..<200].allSatisfy { $0.payloadType == 111 }
                && sent[200...].allSatisfy { $0.payloadType == 8 }, "each frame in the codec of its time")
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.sequence == $0.sequence &+ 1 && $1.ssrc == $0.ssrc }, "one stream")
        #expect(sent[100].marker && sent[200].marker, "the first packet of a codec is marked")
        let inbound = bob.statistics.inbound
        #expect(inbound.unknownPayloadTypePackets == 0 && inbound.packetsDiscarded == 0)
        #expect(inbound.concealedSamples <= 960, "concealed \(inbound.concealedSamples)")
        #expect(bob.configuration.codec == .pcma && bob.configuration.alternativeReceiveCodecs == [0: .pcmu, 111: .opus],
                "the codecs it played before stay playable")
        let correlation = SignalComparison.segmentalCorrelation(reference: Array(CallOverNetworkTests.alice.prefix(300 * 960)),
                                                                signal: heard, segmentLength: 9_600, maxLag: 14_400)
        #expect(correlation > 0.85, "Bob heard Alice through both switches: \(correlation)")
        // A switch to what is running does nothing.
        try alice.switchCodec(to: alice.configuration)
    }

    /// The handoff: an offer is taken once, what the taker held comes back, a second offer
    /// withdraws an untaken one, and nothing is freed by the taker.
    @Test func theHandoffGivesBackWhatItReplaced() {
        final class Token { let name: String; init(_ name: String) { self.name = name } }
        let handoff = Handoff<Token>()
        var held = Token("held")
        #expect(!handoff.take { swap(&held, &$0) }, "nothing offered")
        handoff.offer(Token("first"))
        handoff.offer(Token("second"))  // withdraws the first
        #expect(handoff.isOffered && handoff.reclaim() == nil)
        #expect(handoff.take { swap(&held, &$0) } && held.name == "second")
        #expect(!handoff.take { swap(&held, &$0) }, "taken once")
        #expect(handoff.reclaim()?.name == "held" && handoff.reclaim() == nil)
    }
}
