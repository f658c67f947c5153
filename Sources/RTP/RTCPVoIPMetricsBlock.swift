// SPDX-License-Identifier: Apache-2.0
/// An RTCP XR VoIP Metrics report block (RFC 3611 §4.7, block type 7): a receiver's summary
/// of one voice stream — loss and discards and how bursty they were (§4.7.2), delays, levels,
/// E-model ratings and its jitter buffer — in the RFC's fixed-point encodings.
///
/// The stored properties are the wire values, so a block round-trips exactly; computed
/// properties give them in natural units. Fields the RFC lets a receiver leave unavailable
/// (levels, RERL, R factors, MOS) are optionals: `nil` is the wire's 127. Setting one of them to
/// 127 is the same as `nil`.
///
/// ```
///  0               1               2               3
/// |     BT=7      |   reserved    |       block length = 8        |
/// |                        SSRC of source                         |
/// |   loss rate   | discard rate  | burst density |  gap density  |
/// |       burst duration          |         gap duration          |
/// |     round trip delay          |       end system delay        |
/// | signal level  |  noise level  |     RERL      |     Gmin      |
/// |   R factor    | ext. R factor |    MOS-LQ     |    MOS-CQ     |
/// |   RX config   |   reserved    |          JB nominal           |
/// |          JB maximum           |          JB abs max           |
/// ```
public struct RTCPVoIPMetricsBlock: Sendable, Hashable, BitwiseCopyable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Packets lost since reception began over packets expected, in 1/256 (255 at most).
    public var lossRate: UInt8
    /// Packets the jitter buffer discarded (late, early, overflow) over packets expected, in
    /// 1/256.
    public var discardRate: UInt8
    /// Share of the packets inside bursts (§4.7.2) that were lost or discarded, in 1/256.
    public var burstDensity: UInt8
    /// Share of the packets inside gaps that were lost or discarded, in 1/256.
    public var gapDensity: UInt8
    /// Mean duration of the bursts, in ms.
    public var burstDurationMs: UInt16
    /// Mean duration of the gaps, in ms.
    public var gapDurationMs: UInt16
    /// The last round-trip time measured between the RTP interfaces, in ms (the RFC reserves
    /// no value for "unavailable"; 0 is what a reporter without a measurement sends).
    public var roundTripDelayMs: UInt16
    /// The reporter's internal round trip: its send path (capture, framing, encoder) plus its
    /// receive path (jitter buffer, decoder, playback), in ms.
    public var endSystemDelayMs: UInt16
    /// Speech level relative to 0 dBm0, in dB (wire 127 = nil, unavailable).
    public var signalLevel: Int8?
    /// Background noise level during silence relative to 0 dBm0, in dB (wire 127 = nil).
    public var noiseLevel: Int8?
    /// Residual echo return loss, in dB (wire 127 = nil).
    public var residualEchoReturnLoss: UInt8?
    /// The gap threshold Gmin the burst metrics were computed with (16 recommended).
    public var gapThreshold: UInt8
    /// ITU-T G.107 transmission rating R, 0–100, delay included (wire 127 = nil).
    public var rFactor: UInt8?
    /// R of a network segment outside this RTP stream, 0–100 (wire 127 = nil).
    public var externalRFactor: UInt8?
    /// Estimated listening-quality MOS (delay excluded) × 10, 10–50 (wire 127 = nil).
    public var mosLQ: UInt8?
    /// Estimated conversational-quality MOS (delay included) × 10, 10–50 (wire 127 = nil).
    public var mosCQ: UInt8?
    /// The receiver's packet loss concealment (RX config bits 0–1).
    public var packetLossConcealment: PacketLossConcealment
    /// Whether the receiver's jitter buffer adapts (RX config bits 2–3).
    public var jitterBufferAdaptivity: JitterBufferAdaptivity
    /// The adaptive jitter buffer's adjustment rate J, 0–15 (RX config bits 4–7): it takes
    /// about 2 × J frames to follow a step in peak-to-peak jitter from 30 to 100 ms.
    public var jitterBufferRate: UInt8
    /// The jitter buffer's delay for a packet arriving exactly on time, in ms.
    public var jitterBufferNominalMs: UInt16
    /// The jitter buffer's current maximum delay, in ms.
    public var jitterBufferMaximumMs: UInt16
    /// The most the jitter buffer's delay can ever reach, in ms.
    public var jitterBufferAbsoluteMaximumMs: UInt16

    /// Block type 7.
    public static let blockType: UInt8 = 7
    /// Bytes a block occupies on the wire, header included (block length 8).
    public static let encodedLength = 36
    /// The wire value of every "unavailable" field.
    public static let unavailable: UInt8 = 127

    /// RX config bits 0–1: how lost packets are concealed.
    public enum PacketLossConcealment: UInt8, Sendable, Hashable, CaseIterable, BitwiseCopyable {
        /// 00: not said.
        case unspecified = 0
        /// 01: silence is played instead.
        case disabled = 1
        /// 10: an enhanced algorithm that conceals high loss rates (codec PLC, waveform
        /// extension).
        case enhanced = 2
        /// 11: simple replay or interpolation, for isolated losses.
        case standard = 3
    }

    /// RX config bits 2–3: whether the jitter buffer adapts.
    public enum JitterBufferAdaptivity: UInt8, Sendable, Hashable, CaseIterable, BitwiseCopyable {
        /// 00: not known.
        case unknown = 0
        /// 01: reserved by RFC 3611.
        case reserved = 1
        /// 10: a fixed size.
        case nonAdaptive = 2
        /// 11: its delay follows the jitter.
        case adaptive = 3
    }

    /// A block about `ssrc`; every other field defaults to zero or "unavailable", Gmin to 16.
    public init(
        ssrc: UInt32,
        lossRate: UInt8 = 0,
        discardRate: UInt8 = 0,
        burstDensity: UInt8 = 0,
        gapDensity: UInt8 = 0,
        burstDurationMs: UInt16 = 0,
        gapDurationMs: UInt16 = 0,
        roundTripDelayMs: UInt16 = 0,
        endSystemDelayMs: UInt16 = 0,
        signalLevel: Int8? = nil,
        noiseLevel: Int8? = nil,
        residualEchoReturnLoss: UInt8? = nil,
        gapThreshold: UInt8 = 16,
        rFactor: UInt8? = nil,
        externalRFactor: UInt8? = nil,
        mosLQ: UInt8? = nil,
        mosCQ: UInt8? = nil,
        packetLossConcealment: PacketLossConcealment = .unspecified,
        jitterBufferAdaptivity: JitterBufferAdaptivity = .unknown,
        jitterBufferRate: UInt8 = 0,
        jitterBufferNominalMs: UInt16 = 0,
        jitterBufferMaximumMs: UInt16 = 0,
        jitterBufferAbsoluteMaximumMs: UInt16 = 0
    ) {
        self.ssrc = ssrc
        self.lossRate = lossRate
        self.discardRate = discardRate
        self.burstDensity = burstDensity
        self.gapDensity = gapDensity
        self.burstDurationMs = burstDurationMs
        self.gapDurationMs = gapDurationMs
        self.roundTripDelayMs = roundTripDelayMs
        self.endSystemDelayMs = endSystemDelayMs
        self.signalLevel = signalLevel
        self.noiseLevel = noiseLevel
        self.residualEchoReturnLoss = residualEchoReturnLoss
        self.gapThreshold = gapThreshold
        self.rFactor = rFactor
        self.externalRFactor = externalRFactor
        self.mosLQ = mosLQ
        self.mosCQ = mosCQ
        self.packetLossConcealment = packetLossConcealment
        self.jitterBufferAdaptivity = jitterBufferAdaptivity
        self.jitterBufferRate = jitterBufferRate
        self.jitterBufferNominalMs = jitterBufferNominalMs
        self.jitterBufferMaximumMs = jitterBufferMaximumMs
        self.jitterBufferAbsoluteMaximumMs = jitterBufferAbsoluteMaximumMs
    }

    // MARK: Natural units

    /// ``lossRate`` as a fraction, 0…1.
    public var lossFraction: Double { Double(lossRate) / 256 }
    /// ``discardRate`` as a fraction, 0…1.
    public var discardFraction: Double { Double(discardRate) / 256 }
    /// ``burstDensity`` as a fraction, 0…1.
    public var burstDensityFraction: Double { Double(burstDensity) / 256 }
    /// ``gapDensity`` as a fraction, 0…1.
    public var gapDensityFraction: Double { Double(gapDensity) / 256 }
    /// ``mosLQ`` as a MOS, 1.0–5.0.
    public var listeningQualityMOS: Double? { mosLQ.map { Double($0) / 10 } }
    /// ``mosCQ`` as a MOS, 1.0–5.0.
    public var conversationalQualityMOS: Double? { mosCQ.map { Double($0) / 10 } }

    /// A fraction (0…1, anything else clamped; NaN is 0) in the RFC's 1/256 units, 255 at most.
    public static func fixedPointFraction(_ fraction: Double) -> UInt8 {
        guard fraction.isFinite, fraction > 0 else { return 0 }
        return UInt8(min(fraction * 256, 255))
    }

    // MARK: Wire

    /// Decodes the 32 bytes after the block header.
    init(parsing content: UnsafeRawBufferPointer) {
        func optional(_ byte: UInt8) -> UInt8? { byte == Self.unavailable ? nil : byte }
        func level(_ byte: UInt8) -> Int8? { byte == Self.unavailable ? nil : Int8(bitPattern: byte) }
        let configuration = content[24]
        self.init(
            ssrc: content.bigEndianUInt32(at: 0),
            lossRate: content[4],
            discardRate: content[5],
            burstDensity: content[6],
            gapDensity: content[7],
            burstDurationMs: content.bigEndianUInt16(at: 8),
            gapDurationMs: content.bigEndianUInt16(at: 10),
            roundTripDelayMs: content.bigEndianUInt16(at: 12),
            endSystemDelayMs: content.bigEndianUInt16(at: 14),
            signalLevel: level(content[16]),
            noiseLevel: level(content[17]),
            residualEchoReturnLoss: optional(content[18]),
            gapThreshold: content[19],
            rFactor: optional(content[20]),
            externalRFactor: optional(content[21]),
            mosLQ: optional(content[22]),
            mosCQ: optional(content[23]),
            packetLossConcealment: PacketLossConcealment(rawValue: configuration >> 6)!,  // 2 bits: every value is a case
            jitterBufferAdaptivity: JitterBufferAdaptivity(rawValue: (configuration >> 4) & 3)!,
            jitterBufferRate: configuration & 0x0F,
            jitterBufferNominalMs: content.bigEndianUInt16(at: 26),
            jitterBufferMaximumMs: content.bigEndianUInt16(at: 28),
            jitterBufferAbsoluteMaximumMs: content.bigEndianUInt16(at: 30)
        )
    }

    func validate() throws(RTCPBuildError) {
        guard jitterBufferRate <= 15 else { throw .jitterBufferRateOutOfRange(jitterBufferRate) }
    }

    /// Writes the whole block, header included, at `offset`.
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let unavailable = Self.unavailable
        buffer[offset] = Self.blockType
        buffer[offset + 1] = 0
        buffer.storeBigEndian(UInt16(Self.encodedLength / 4 - 1), at: offset + 2)
        buffer.storeBigEndian(ssrc, at: offset + 4)
        buffer[offset + 8] = lossRate
        buffer[offset + 9] = discardRate
        buffer[offset + 10] = burstDensity
        buffer[offset + 11] = gapDensity
        buffer.storeBigEndian(burstDurationMs, at: offset + 12)
        buffer.storeBigEndian(gapDurationMs, at: offset + 14)
        buffer.storeBigEndian(roundTripDelayMs, at: offset + 16)
        buffer.storeBigEndian(endSystemDelayMs, at: offset + 18)
        buffer[offset + 20] = signalLevel.map { UInt8(bitPattern: $0) } ?? unavailable
        buffer[offset + 21] = noiseLevel.map { UInt8(bitPattern: $0) } ?? unavailable
        buffer[offset + 22] = residualEchoReturnLoss ?? unavailable
        buffer[offset + 23] = gapThreshold
        buffer[offset + 24] = rFactor ?? unavailable
        buffer[offset + 25] = externalRFactor ?? unavailable
        buffer[offset + 26] = mosLQ ?? unavailable
        buffer[offset + 27] = mosCQ ?? unavailable
        buffer[offset + 28] = packetLossConcealment.rawValue << 6 | jitterBufferAdaptivity.rawValue << 4 | jitterBufferRate & 0x0F
        buffer[offset + 29] = 0
        buffer.storeBigEndian(jitterBufferNominalMs, at: offset + 30)
        buffer.storeBigEndian(jitterBufferMaximumMs, at: offset + 32)
        buffer.storeBigEndian(jitterBufferAbsoluteMaximumMs, at: offset + 34)
    }
}
