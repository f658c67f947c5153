// SPDX-License-Identifier: Apache-2.0
internal import COpus
internal import COpusShims

/// An Opus encoder: PCM frames in, Opus packets out.
///
/// ```swift
/// let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
/// try encoder.setBitrate(.bitsPerSecond(24000))
/// try encoder.setInbandFEC(true)
/// try encoder.setExpectedPacketLoss(percent: 10)
/// let byteCount = try encoder.encode(frame, into: packetBuffer)   // frame: 960 samples
/// if !OpusEncoder.isDTXPacket(byteCount: byteCount) { send(packetBuffer.prefix(byteCount)) }
/// ```
///
/// **Threads.** One encoder is used by one thread at a time: every call on it — encoding
/// and settings alike — must be serialized by the caller. The type is `Sendable` only so that
/// it can be built on a control thread and handed over to the audio thread; pass later
/// setting changes to that thread (for example through an atomic) rather than calling the
/// setters concurrently with `encode`.
///
/// **Real time.** `encode` does not allocate; it writes into the caller's buffer. Settings
/// calls do not allocate either, but they are not meant for every frame.
///
/// **Errors.** Every method throws `OpusError`, naming the libopus request that failed.
public final class OpusEncoder: @unchecked Sendable {
    /// The sample rate of the PCM given to `encode`, in Hz.
    public let sampleRate: Int
    /// The number of interleaved channels in the PCM given to `encode` (1 or 2).
    public let channels: Int
    /// The application the encoder was created for.
    public let application: OpusApplication
    /// The encoder's algorithmic delay in samples per channel at ``sampleRate``
    /// (`OPUS_GET_LOOKAHEAD`): decoded audio lags the input by this much. 6.5 ms for
    /// `.voip`/`.audio`, 2.5 ms for `.restrictedLowDelay`.
    public let lookahead: Int

    private let handle: EncoderHandle

    /// The largest packet byte count that means "discontinuous transmission, nothing to send".
    ///
    /// With DTX on, once the input has been silent for a while, libopus returns 1–2 byte
    /// packets (a TOC byte, and no coded audio). The caller does not need to send these; the
    /// receiver conceals (comfort noise) until real packets return. libopus still emits a
    /// full packet now and then (about every 400 ms) to refresh the background noise.
    public static let dtxMaximumByteCount = 2

    /// Whether an `encode` result of `byteCount` bytes is a DTX packet that need not be sent
    /// (`byteCount <= 2`). Only meaningful when DTX is on.
    public static func isDTXPacket(byteCount: Int) -> Bool {
        byteCount <= dtxMaximumByteCount
    }

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - sampleRate: 8000, 12000, 16000, 24000 or 48000 Hz.
    ///   - channels: 1 or 2.
    ///   - application: the coding mode; `.voip` for calls.
    /// - Throws: `OpusError` with `.badArgument` for an unsupported rate or channel count
    ///   (checked before libopus is called), or the failure of `opus_encoder_create`.
    public init(sampleRate: Int, channels: Int, application: OpusApplication) throws(OpusError) {
        try OpusStreamFormat.validate(sampleRate: sampleRate, channels: channels, function: "OpusEncoder.init")
        let handle = try EncoderHandle(sampleRate: sampleRate, channels: channels, application: application)
        let lookahead = try handle.get(request: "opus_encoder_ctl(OPUS_GET_LOOKAHEAD)", ve_opus_encoder_get_lookahead)
        self.sampleRate = sampleRate
        self.channels = channels
        self.application = application
        self.lookahead = Int(lookahead)
        self.handle = handle
    }

    // MARK: Encoding

    /// Encodes one frame of interleaved 16-bit PCM.
    ///
    /// - Parameters:
    ///   - pcm: `frameSize × channels` interleaved samples, where `frameSize` is 2.5, 5, 10,
    ///     20, 40 or 60 ms at ``sampleRate`` (e.g. 960 per channel for 20 ms at 48 kHz).
    ///   - packet: where the packet is written. Its size caps the packet; 1500 bytes is ample
    ///     for one frame (libopus's hard limit is 1275 bytes of coded data per frame). A
    ///     smaller buffer is not an error: libopus lowers the bitrate to fit, and below 3 bytes
    ///     it writes a 1-byte packet with no audio in it.
    /// - Returns: the packet length in bytes. With DTX on, a result ≤ 2 means "silence,
    ///   nothing to send" (see ``isDTXPacket(byteCount:)``).
    /// - Throws: `.badArgument` if `pcm` is not a whole valid frame, `.bufferTooSmall` if
    ///   `packet` is empty, or the failure of `opus_encode`.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into packet: UnsafeMutableRawBufferPointer) throws(OpusError) -> Int {
        let frameSize = try validatedFrameSize(pcm.count, function: "opus_encode")
        let (output, capacity) = try validatedOutput(packet, function: "opus_encode")
        guard let input = pcm.baseAddress else {
            throw OpusError(code: .badArgument, function: "opus_encode", detail: "empty PCM buffer")
        }
        return try handle.encode(input, frameSize: frameSize, into: output, capacity: capacity)
    }

    /// Encodes one frame of interleaved floating-point PCM (nominal range −1…1); otherwise as
    /// `encode(_:into:)`.
    public func encode(_ pcm: UnsafeBufferPointer<Float>, into packet: UnsafeMutableRawBufferPointer) throws(OpusError) -> Int {
        let frameSize = try validatedFrameSize(pcm.count, function: "opus_encode_float")
        let (output, capacity) = try validatedOutput(packet, function: "opus_encode_float")
        guard let input = pcm.baseAddress else {
            throw OpusError(code: .badArgument, function: "opus_encode_float", detail: "empty PCM buffer")
        }
        return try handle.encode(input, frameSize: frameSize, into: output, capacity: capacity)
    }

    private func validatedFrameSize(_ sampleCount: Int, function: String) throws(OpusError) -> Int32 {
        let frameSize = sampleCount / channels
        guard sampleCount % channels == 0,
              OpusFrameDuration(sampleCount: frameSize, sampleRate: sampleRate) != nil
        else {
            throw OpusError(
                code: .badArgument, function: function,
                detail: "\(sampleCount) samples for \(channels) channel(s) at \(sampleRate) Hz is not a 2.5, 5, 10, 20, 40 or 60 ms frame")
        }
        return Int32(frameSize)
    }

    private func validatedOutput(
        _ packet: UnsafeMutableRawBufferPointer, function: String
    ) throws(OpusError) -> (UnsafeMutablePointer<UInt8>, Int32) {
        guard let base = packet.baseAddress, packet.count > 0 else {
            throw OpusError(code: .bufferTooSmall, function: function, detail: "empty packet buffer")
        }
        return (base.assumingMemoryBound(to: UInt8.self), Int32(clamping: packet.count))
    }

    /// Resets the codec state to that of a freshly created encoder, keeping the settings
    /// (`OPUS_RESET_STATE`). Use at a stream discontinuity.
    public func reset() throws(OpusError) {
        let status = ve_opus_encoder_reset_state(handle.pointer)
        guard status == OPUS_OK else { throw OpusError(status: status, function: "opus_encoder_ctl(OPUS_RESET_STATE)") }
    }

    // MARK: Settings

    /// Sets the target bitrate (`OPUS_SET_BITRATE`). libopus clamps explicit values to
    /// 500…300 000 × channels bits/s.
    /// - Throws: `.badArgument` for `.bitsPerSecond` ≤ 0.
    public func setBitrate(_ bitrate: OpusBitrate) throws(OpusError) {
        let value: Int32 = switch bitrate {
        case .auto: OPUS_AUTO
        case .maximum: OPUS_BITRATE_MAX
        case .bitsPerSecond(let bps): Int32(clamping: bps)
        }
        if case .bitsPerSecond(let bps) = bitrate, bps <= 0 {
            throw OpusError(code: .badArgument, function: "opus_encoder_ctl(OPUS_SET_BITRATE)", detail: "bitrate \(bps) b/s is not positive")
        }
        try handle.set(value, request: "opus_encoder_ctl(OPUS_SET_BITRATE)", ve_opus_encoder_set_bitrate)
    }

    /// The bitrate the encoder is targeting, in bits per second (`OPUS_GET_BITRATE`).
    ///
    /// libopus reports the effective number, never "auto" or "maximum": after
    /// `setBitrate(.auto)` it reports what auto means for the last frame size.
    public var bitrate: Int {
        get throws(OpusError) {
            Int(try handle.get(request: "opus_encoder_ctl(OPUS_GET_BITRATE)", ve_opus_encoder_get_bitrate))
        }
    }

    /// Sets the computational complexity, 0 (cheapest) … 10 (best); libopus's default is 9
    /// (`OPUS_SET_COMPLEXITY`).
    /// - Throws: `.badArgument` outside 0…10.
    public func setComplexity(_ complexity: Int) throws(OpusError) {
        try handle.set(Int32(clamping: complexity), request: "opus_encoder_ctl(OPUS_SET_COMPLEXITY)", ve_opus_encoder_set_complexity)
    }

    /// The computational complexity, 0…10 (`OPUS_GET_COMPLEXITY`).
    public var complexity: Int {
        get throws(OpusError) {
            Int(try handle.get(request: "opus_encoder_ctl(OPUS_GET_COMPLEXITY)", ve_opus_encoder_get_complexity))
        }
    }

    /// Chooses VBR, constrained VBR (libopus's default) or CBR (`OPUS_SET_VBR` and
    /// `OPUS_SET_VBR_CONSTRAINT`).
    public func setBitrateMode(_ mode: OpusBitrateMode) throws(OpusError) {
        let (vbr, constrained): (Int32, Int32) = switch mode {
        case .vbr: (1, 0)
        case .constrainedVBR: (1, 1)
        case .cbr: (0, 0)
        }
        try handle.set(vbr, request: "opus_encoder_ctl(OPUS_SET_VBR)", ve_opus_encoder_set_vbr)
        try handle.set(constrained, request: "opus_encoder_ctl(OPUS_SET_VBR_CONSTRAINT)", ve_opus_encoder_set_vbr_constraint)
    }

    /// The bitrate mode, read back from `OPUS_GET_VBR` and `OPUS_GET_VBR_CONSTRAINT`.
    public var bitrateMode: OpusBitrateMode {
        get throws(OpusError) {
            let vbr = try handle.get(request: "opus_encoder_ctl(OPUS_GET_VBR)", ve_opus_encoder_get_vbr)
            guard vbr != 0 else { return .cbr }
            let constrained = try handle.get(request: "opus_encoder_ctl(OPUS_GET_VBR_CONSTRAINT)", ve_opus_encoder_get_vbr_constraint)
            return constrained != 0 ? .constrainedVBR : .vbr
        }
    }

    /// Caps the bandwidth the encoder may choose (`OPUS_SET_MAX_BANDWIDTH`); default fullband.
    /// - Throws: `.badArgument` for `.auto` (a cap must be a bandwidth).
    public func setMaxBandwidth(_ bandwidth: OpusBandwidth) throws(OpusError) {
        try handle.set(bandwidth.cValue, request: "opus_encoder_ctl(OPUS_SET_MAX_BANDWIDTH)", ve_opus_encoder_set_max_bandwidth)
    }

    /// The bandwidth cap (`OPUS_GET_MAX_BANDWIDTH`).
    public var maxBandwidth: OpusBandwidth {
        get throws(OpusError) {
            let value = try handle.get(request: "opus_encoder_ctl(OPUS_GET_MAX_BANDWIDTH)", ve_opus_encoder_get_max_bandwidth)
            guard let bandwidth = OpusBandwidth(cValue: value) else {
                throw OpusError(code: .internalError, function: "opus_encoder_ctl(OPUS_GET_MAX_BANDWIDTH)", detail: "unknown bandwidth \(value)")
            }
            return bandwidth
        }
    }

    /// Forces the coded bandwidth, or with `.auto` (the default) lets the encoder choose
    /// (`OPUS_SET_BANDWIDTH`). libopus has no getter for this setting; see
    /// ``codedBandwidth`` for what the encoder actually used.
    public func setForcedBandwidth(_ bandwidth: OpusBandwidth) throws(OpusError) {
        try handle.set(bandwidth.cValue, request: "opus_encoder_ctl(OPUS_SET_BANDWIDTH)", ve_opus_encoder_set_bandwidth)
    }

    /// The bandwidth of the most recently encoded frame (`OPUS_GET_BANDWIDTH`; in libopus
    /// 1.3.1 this reports the encoder's current bandwidth, not the forced setting — fullband
    /// before the first frame).
    public var codedBandwidth: OpusBandwidth {
        get throws(OpusError) {
            let value = try handle.get(request: "opus_encoder_ctl(OPUS_GET_BANDWIDTH)", ve_opus_encoder_get_bandwidth)
            guard let bandwidth = OpusBandwidth(cValue: value) else {
                throw OpusError(code: .internalError, function: "opus_encoder_ctl(OPUS_GET_BANDWIDTH)", detail: "unknown bandwidth \(value)")
            }
            return bandwidth
        }
    }

    /// Tells the encoder what kind of signal to expect (`OPUS_SET_SIGNAL`).
    public func setSignal(_ signal: OpusSignal) throws(OpusError) {
        try handle.set(signal.cValue, request: "opus_encoder_ctl(OPUS_SET_SIGNAL)", ve_opus_encoder_set_signal)
    }

    /// The signal hint (`OPUS_GET_SIGNAL`).
    public var signal: OpusSignal {
        get throws(OpusError) {
            let value = try handle.get(request: "opus_encoder_ctl(OPUS_GET_SIGNAL)", ve_opus_encoder_get_signal)
            guard let signal = OpusSignal(cValue: value) else {
                throw OpusError(code: .internalError, function: "opus_encoder_ctl(OPUS_GET_SIGNAL)", detail: "unknown signal \(value)")
            }
            return signal
        }
    }

    /// Turns in-band forward error correction on or off (`OPUS_SET_INBAND_FEC`).
    ///
    /// With FEC on, each SILK or hybrid packet also carries a low-bitrate copy (LBRR) of the
    /// previous frame, which the receiver recovers with `OpusDecoder.decodeFEC(from:into:)`.
    /// libopus only produces it when the expected packet loss is above 0 (see
    /// ``setExpectedPacketLoss(percent:)``), for speech it codes with SILK, and when the
    /// bitrate leaves room for it; CELT-only packets never carry FEC.
    public func setInbandFEC(_ enabled: Bool) throws(OpusError) {
        try handle.set(enabled ? 1 : 0, request: "opus_encoder_ctl(OPUS_SET_INBAND_FEC)", ve_opus_encoder_set_inband_fec)
    }

    /// Whether in-band FEC is on (`OPUS_GET_INBAND_FEC`).
    public var isInbandFECEnabled: Bool {
        get throws(OpusError) {
            try handle.get(request: "opus_encoder_ctl(OPUS_GET_INBAND_FEC)", ve_opus_encoder_get_inband_fec) != 0
        }
    }

    /// Turns discontinuous transmission on or off (`OPUS_SET_DTX`). See
    /// ``isDTXPacket(byteCount:)`` for what it produces.
    public func setDTX(_ enabled: Bool) throws(OpusError) {
        try handle.set(enabled ? 1 : 0, request: "opus_encoder_ctl(OPUS_SET_DTX)", ve_opus_encoder_set_dtx)
    }

    /// Whether DTX is on (`OPUS_GET_DTX`).
    public var isDTXEnabled: Bool {
        get throws(OpusError) {
            try handle.get(request: "opus_encoder_ctl(OPUS_GET_DTX)", ve_opus_encoder_get_dtx) != 0
        }
    }

    /// Whether the last encoded frame was a DTX frame (`OPUS_GET_IN_DTX`).
    public var isInDTX: Bool {
        get throws(OpusError) {
            try handle.get(request: "opus_encoder_ctl(OPUS_GET_IN_DTX)", ve_opus_encoder_get_in_dtx) != 0
        }
    }

    /// Tells the encoder the packet loss to expect, 0…100 % (`OPUS_SET_PACKET_LOSS_PERC`).
    /// Feed it the RTCP fraction lost to close the FEC loop; in-band FEC is only produced
    /// when this is above 0.
    /// - Throws: `.badArgument` outside 0…100.
    public func setExpectedPacketLoss(percent: Int) throws(OpusError) {
        try handle.set(Int32(clamping: percent), request: "opus_encoder_ctl(OPUS_SET_PACKET_LOSS_PERC)", ve_opus_encoder_set_packet_loss_perc)
    }

    /// The expected packet loss, 0…100 % (`OPUS_GET_PACKET_LOSS_PERC`).
    public var expectedPacketLossPercent: Int {
        get throws(OpusError) {
            Int(try handle.get(request: "opus_encoder_ctl(OPUS_GET_PACKET_LOSS_PERC)", ve_opus_encoder_get_packet_loss_perc))
        }
    }
}
