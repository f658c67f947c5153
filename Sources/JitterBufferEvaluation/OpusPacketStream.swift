import Opus
import RTP
import TestSupport

/// The RTP packets of a speech stream for jitter-buffer replays: the speech fixture, looped,
/// encoded as 20 ms Opus frames (48 kHz mono VOIP, 24 kb/s, in-band FEC for 10% loss), one
/// packet per trace sequence number.
public struct OpusPacketStream: Sendable {
    /// RTP payload type of the packets.
    public static let payloadType: UInt8 = 111
    /// RTP SSRC of the packets.
    public static let ssrc: UInt32 = 0x5EED_0001
    /// Samples per 20 ms frame at 48 kHz.
    public static let samplesPerFrame = 960
    /// Distinct encoded frames; longer traces loop over them.
    public static let distinctFrames = 1_500

    /// Opus payloads, one per distinct frame.
    public let payloads: [[UInt8]]

    /// Encodes the speech fixture.
    public init() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(24_000))
        try encoder.setComplexity(5)
        try encoder.setInbandFEC(true)
        try encoder.setExpectedPacketLoss(percent: 10)
        var frame = [Int16](repeating: 0, count: Self.samplesPerFrame)
        var output = [UInt8](repeating: 0, count: 1_500)
        var payloads: [[UInt8]] = []
        var position = 0
        for _ in 0..<Self.distinctFrames {
            for index in 0..<Self.samplesPerFrame {
                frame[index] = speech[position]
                position = (position + 1) % speech.count
            }
            let length = try frame.withUnsafeBufferPointer { pcm in
                try output.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            payloads.append(Array(output[0..<length]))
        }
        self.payloads = payloads
    }

    /// The Opus payload of the packet with trace sequence `sequence`.
    public func payload(_ sequence: Int) -> [UInt8] { payloads[sequence % payloads.count] }

    /// The whole RTP packet with trace sequence `sequence` (sequence number and timestamp
    /// start at offsets, so they wrap within long traces).
    public func rtpPacket(_ sequence: Int) throws -> [UInt8] {
        let header = RTPHeader(payloadType: Self.payloadType, sequenceNumber: UInt16(truncatingIfNeeded: sequence + 65_000),
                               timestamp: UInt32(truncatingIfNeeded: sequence * Self.samplesPerFrame + 12_345), ssrc: Self.ssrc)
        let payload = payload(sequence)
        var bytes = [UInt8](repeating: 0, count: header.encodedLength + payload.count)
        let length = try payload.withUnsafeBytes { payload in
            try bytes.withUnsafeMutableBytes { try header.write(payload: payload, into: $0) }
        }
        precondition(length == bytes.count)
        return bytes
    }

    /// The trace sequence number of RTP sequence number `rtpSequence`, given a nearby trace
    /// sequence `reference` (undoes the 16-bit wrap).
    public static func traceSequence(rtp rtpSequence: UInt16, near reference: Int) -> Int {
        let referenceRTP = UInt16(truncatingIfNeeded: reference + 65_000)
        return reference + Int(Int16(bitPattern: rtpSequence &- referenceRTP))
    }
}
