// SPDX-License-Identifier: Apache-2.0
import Opus
import RTP
import TestSupport

/// Opus over RTP for jitter-buffer replays and tests: a signal encoded as Opus frames of one
/// duration (20 ms unless told; 48 kHz mono VOIP), and RTP packets around them.
///
/// `init()` is the benchmarks' stream: the speech fixture, looped, at 24 kb/s with in-band FEC
/// for 10 % loss, one packet per trace sequence number (`rtpPacket(_:)`). Tests encode their
/// own signals with other settings through `init(pcm:frameCount:encoding:)` and build packets
/// with `rtpPacket(sequenceNumber:timestamp:ssrc:payloadType:payload:)`.
public struct OpusPacketStream: Sendable {
    /// How the frames are encoded; `nil` leaves libopus's default.
    public struct Encoding: Sendable, Equatable {
        /// Bit rate in bits per second.
        public var bitsPerSecond: Int?
        /// Encoder complexity, 0…10.
        public var complexity: Int?
        /// In-band FEC (LBRR): each packet carries a low-rate copy of the one before.
        public var inbandFEC: Bool
        /// The loss the encoder plans its FEC for, in percent.
        public var expectedLossPercent: Int
        /// Discontinuous transmission: silence is coded as 1-byte "nothing to send" packets.
        public var dtx: Bool

        /// An encoding; by default 24 kb/s, default complexity, no FEC, no DTX.
        public init(bitsPerSecond: Int? = 24_000, complexity: Int? = nil, inbandFEC: Bool = false, expectedLossPercent: Int = 0,
                    dtx: Bool = false) {
            self.bitsPerSecond = bitsPerSecond
            self.complexity = complexity
            self.inbandFEC = inbandFEC
            self.expectedLossPercent = expectedLossPercent
            self.dtx = dtx
        }

        /// The benchmarks' speech stream: 24 kb/s, complexity 5, in-band FEC for 10 % loss.
        public static let speech = Encoding(complexity: 5, inbandFEC: true, expectedLossPercent: 10)
    }

    /// RTP payload type of the packets.
    public static let payloadType: UInt8 = 111
    /// RTP SSRC of the packets.
    public static let ssrc: UInt32 = 0x5EED_0001
    /// Samples per 20 ms frame at 48 kHz: the default packet's.
    public static let samplesPerFrame = 960
    /// Frame durations a stream can be encoded in, in ms (libopus's frames of whole milliseconds).
    public static let frameDurationsMs: Set<Int> = [10, 20, 40, 60]
    /// Distinct encoded frames of the speech stream; longer traces loop over them.
    public static let distinctFrames = 1_500

    /// Opus payloads, one per encoded frame.
    public let payloads: [[UInt8]]
    /// Samples (48 kHz) each packet carries.
    public let samplesPerPacket: Int
    /// Each packet's duration in ms.
    public var frameDurationMs: Int { samplesPerPacket / 48 }

    /// The speech stream: `distinctFrames` frames of the speech fixture (looped), `Encoding.speech`.
    public init() throws {
        try self.init(pcm: try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000), frameCount: Self.distinctFrames,
                      encoding: .speech)
    }

    /// Encodes `frameCount` frames of `frameDurationMs` (one of `frameDurationsMs`) of `pcm`
    /// (48 kHz mono), looping over `pcm` if it is shorter.
    public init(pcm: [Int16], frameCount: Int, encoding: Encoding, frameDurationMs: Int = 20) throws {
        precondition(!pcm.isEmpty, "OpusPacketStream: no samples to encode")
        guard Self.frameDurationsMs.contains(frameDurationMs) else {
            throw JitterBufferEvaluationError.unsupportedFrameDuration(frameDurationMs)
        }
        samplesPerPacket = 48 * frameDurationMs
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        if let bitsPerSecond = encoding.bitsPerSecond { try encoder.setBitrate(.bitsPerSecond(bitsPerSecond)) }
        if let complexity = encoding.complexity { try encoder.setComplexity(complexity) }
        try encoder.setInbandFEC(encoding.inbandFEC)
        try encoder.setExpectedPacketLoss(percent: encoding.expectedLossPercent)
        if encoding.dtx { try encoder.setDTX(true) }
        var frame = [Int16](repeating: 0, count: samplesPerPacket)
        var output = [UInt8](repeating: 0, count: 1_500)
        var payloads: [[UInt8]] = []
        var position = 0
        for _ in 0..<frameCount {
            for index in 0..<samplesPerPacket {
                frame[index] = pcm[position]
                position = (position + 1) % pcm.count
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
    public func rtpPacket(_ sequence: Int) -> [UInt8] {
        Self.rtpPacket(sequenceNumber: UInt16(truncatingIfNeeded: sequence + 65_000),
                       timestamp: UInt32(truncatingIfNeeded: sequence * samplesPerPacket + 12_345), payload: payload(sequence))
    }

    /// An RTP packet (version 2, no marker, CSRC or extension) around `payload`.
    /// `payloadType` must fit in 7 bits.
    public static func rtpPacket(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32 = ssrc, payloadType: UInt8 = payloadType,
                                 payload: [UInt8]) -> [UInt8] {
        let header = RTPHeader(payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc)
        var bytes = [UInt8](repeating: 0, count: header.encodedLength + payload.count)
        do {
            let length = try payload.withUnsafeBytes { payload in
                try bytes.withUnsafeMutableBytes { try header.write(payload: payload, into: $0) }
            }
            precondition(length == bytes.count)
        } catch {
            preconditionFailure("OpusPacketStream.rtpPacket: \(error)")
        }
        return bytes
    }

    /// The trace sequence number of RTP sequence number `rtpSequence`, given a nearby trace
    /// sequence `reference` (undoes the 16-bit wrap).
    public static func traceSequence(rtp rtpSequence: UInt16, near reference: Int) -> Int {
        let referenceRTP = UInt16(truncatingIfNeeded: reference + 65_000)
        return reference + Int(Int16(bitPattern: rtpSequence &- referenceRTP))
    }
}
