// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import SRTP
import Testing
import TestSupport

/// A peer's packet time is its own (RFC 7587: the receiver decodes whatever it gets, up to
/// 120 ms): a call that sends 20 ms frames receives 40 and 60 ms packets (the longest our
/// sender makes; the jitter buffer's decode buffer holds 120 ms) without losing any for want
/// of buffer space, as it once did with 60 ms.
@Suite struct LongerPeerPacketTests {
    @Test(arguments: [40, 60])
    func longerPacketsFromThePeerAreAllPlayed(peerFrameMs: Int) throws {
        var ours = MediaConfiguration()
        ours.frameDurationMs = 20
        var theirs = MediaConfiguration()
        theirs.frameDurationMs = peerFrameMs
        let key = SRTPKeyingMaterial.random(profile: ours.srtpProfile)
        let peer = try CallMedia(configuration: theirs, sendingKey: key, receivingKey: key, ssrc: 0x6060)
        let call = try CallMedia(configuration: ours, sendingKey: key, receivingKey: key, ssrc: 0x2020)
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let ticksPerPeerFrame = peerFrameMs / 20
        var played = [Int16](repeating: 0, count: call.samplesPerFrame)
        var heard: [Int16] = []
        let ticks = min(400, (speech.count - 5_760) / 960 / 6 * 6)  // up to 8 s, whole peer frames
        var sentPackets = 0
        for tick in 0..<ticks {
            let now = Double(tick) * 20
            if tick % ticksPerPeerFrame == 0 {
                let start = tick * 960
                speech.withUnsafeBufferPointer { peer.send(microphone: UnsafeBufferPointer(rebasing: $0[start..<(start + peer.samplesPerFrame)])) }
                peer.sendDatagrams(nowMs: now) { datagram in
                    guard !CallMedia.isRTCP(datagram) else { return }
                    sentPackets += 1
                    var bytes = Array(datagram)
                    _ = bytes.withUnsafeMutableBytes { call.receiveDatagram($0, arrivalTimeMs: now + 30) }
                }
            }
            played.withUnsafeMutableBufferPointer { _ = call.render(into: $0, nowMs: now) }
            heard += played
        }
        let inbound = call.statistics.inbound
        #expect(sentPackets == ticks / ticksPerPeerFrame)
        #expect(inbound.packetsReceived == sentPackets)
        #expect(inbound.packetsDiscarded == 0)
        #expect(inbound.packetsLost == 0)
        // Every packet's audio played: after the start, nothing was concealed.
        #expect(inbound.concealedSamples < 2 * peerFrameMs * 48, "\(inbound.concealedSamples) concealed")
        // The speech came through: what played matches what the peer said, segment by segment.
        let said = Array(speech[48_000..<(6 * 48_000)])
        let correlation = SignalComparison.segmentalCorrelation(reference: said, signal: Array(heard[48_000...]),
                                                                segmentLength: 9_600, maxLag: 14_400)
        #expect(correlation > 0.8, "segmental correlation \(correlation)")
    }
}
