// SPDX-License-Identifier: Apache-2.0
internal import COpus
internal import COpusShims

/// An Opus decoder: packets in, PCM out, with in-band FEC recovery and packet loss
/// concealment (PLC).
///
/// For each 20 ms tick a receiver does one of:
/// - the packet arrived: `decode(_:into:)`;
/// - it is lost but the next one is here: `decodeFEC(from:into:)`
///   with the next packet, then decode that next packet normally on the following tick;
/// - nothing to go on: `conceal(into:)`.
///
/// **Threads.** One decoder is used by one thread at a time; the caller serializes every
/// call. `Sendable` only so it can be handed to the audio thread.
///
/// **Real time.** Decoding, FEC and concealment write into the caller's buffer and do not
/// allocate.
public final class OpusDecoder: @unchecked Sendable {
    /// The sample rate of the PCM the decoder produces, in Hz (any stream can be decoded at
    /// any supported rate).
    public let sampleRate: Int
    /// The number of interleaved channels the decoder produces (1 or 2).
    public let channels: Int

    private let handle: DecoderHandle

    /// Creates a decoder.
    /// - Parameters:
    ///   - sampleRate: 8000, 12000, 16000, 24000 or 48000 Hz.
    ///   - channels: 1 or 2 (a stereo stream decoded to mono is downmixed, and vice versa).
    /// - Throws: `.badArgument` for an unsupported rate or channel count (checked before
    ///   libopus is called), or the failure of `opus_decoder_create`.
    public init(sampleRate: Int, channels: Int) throws(OpusError) {
        try OpusStreamFormat.validate(sampleRate: sampleRate, channels: channels, function: "OpusDecoder.init")
        self.handle = try DecoderHandle(sampleRate: sampleRate, channels: channels)
        self.sampleRate = sampleRate
        self.channels = channels
    }

    // MARK: Decoding

    /// Decodes one packet.
    ///
    /// - Parameters:
    ///   - packet: a complete Opus packet (not empty: use `conceal(into:)`
    ///     for a lost one).
    ///   - pcm: room for the packet's samples, interleaved; its capacity per channel
    ///     (`pcm.count / channels`) must be at least the packet's duration (up to 120 ms).
    /// - Returns: the number of samples decoded per channel.
    /// - Throws: `.invalidPacket` for an empty or corrupt packet, `.bufferTooSmall` if `pcm`
    ///   cannot hold the packet.
    public func decode(_ packet: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        let data = try validatedPacket(packet, function: "opus_decode")
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode")
        return try handle.decode(data, length: Int32(clamping: packet.count), into: output, frameSize: frameSize, fec: false)
    }

    /// Decodes one packet to floating-point PCM; otherwise as the `Int16` variant.
    public func decode(_ packet: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Float>) throws(OpusError) -> Int {
        let data = try validatedPacket(packet, function: "opus_decode_float")
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode_float")
        return try handle.decode(data, length: Int32(clamping: packet.count), into: output, frameSize: frameSize, fec: false)
    }

    /// Recovers the lost frame that preceded `nextPacket` from the in-band FEC (LBRR) data
    /// `nextPacket` carries.
    ///
    /// `pcm.count / channels` must be exactly the lost frame's duration (a multiple of 2.5 ms;
    /// any part longer than `nextPacket`'s duration is concealed). When `nextPacket` carries
    /// no FEC (CELT-only packet, FEC off at the sender, or a frame the sender's VAD judged
    /// inactive), or the duration is shorter than `nextPacket`'s, libopus conceals instead, as
    /// `conceal(into:)` would; check
    /// `OpusPacketInfo.hasFEC` beforehand to know which happened. Decode `nextPacket`
    /// normally afterwards.
    /// - Returns: the number of samples produced per channel (the lost frame's duration).
    public func decodeFEC(from nextPacket: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        let data = try validatedPacket(nextPacket, function: "opus_decode(decode_fec=1)")
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode(decode_fec=1)")
        return try handle.decode(data, length: Int32(clamping: nextPacket.count), into: output, frameSize: frameSize, fec: true)
    }

    /// Recovers a lost frame from FEC to floating-point PCM; otherwise as the `Int16` variant.
    public func decodeFEC(from nextPacket: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Float>) throws(OpusError) -> Int {
        let data = try validatedPacket(nextPacket, function: "opus_decode_float(decode_fec=1)")
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode_float(decode_fec=1)")
        return try handle.decode(data, length: Int32(clamping: nextPacket.count), into: output, frameSize: frameSize, fec: true)
    }

    /// Conceals a lost frame (packet loss concealment: `opus_decode` with no data).
    ///
    /// `pcm.count / channels` is the duration to conceal and must be a multiple of 2.5 ms
    /// (normally the stream's frame duration).
    /// - Returns: the number of samples produced per channel.
    /// - Throws: `.badArgument` if the duration is not a multiple of 2.5 ms.
    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(OpusError) -> Int {
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode(NULL)")
        return try handle.decode(nil, length: 0, into: output, frameSize: frameSize, fec: false)
    }

    /// Conceals a lost frame to floating-point PCM; otherwise as the `Int16` variant.
    public func conceal(into pcm: UnsafeMutableBufferPointer<Float>) throws(OpusError) -> Int {
        let (output, frameSize) = try validatedOutput(pcm, function: "opus_decode_float(NULL)")
        return try handle.decode(nil, length: 0, into: output, frameSize: frameSize, fec: false)
    }

    private func validatedPacket(_ packet: UnsafeRawBufferPointer, function: String) throws(OpusError) -> UnsafePointer<UInt8> {
        guard let base = packet.baseAddress, packet.count > 0 else {
            throw OpusError(code: .invalidPacket, function: function, detail: "empty packet (use conceal(into:) for a lost packet)")
        }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    private func validatedOutput<Sample>(
        _ pcm: UnsafeMutableBufferPointer<Sample>, function: String
    ) throws(OpusError) -> (UnsafeMutablePointer<Sample>, Int32) {
        guard let base = pcm.baseAddress, pcm.count >= channels else {
            throw OpusError(code: .bufferTooSmall, function: function, detail: "PCM buffer holds no whole sample frame")
        }
        guard pcm.count % channels == 0 else {
            throw OpusError(code: .badArgument, function: function, detail: "PCM buffer of \(pcm.count) samples is not a whole number of \(channels)-channel frames")
        }
        return (base, Int32(clamping: pcm.count / channels))
    }

    /// Resets the decoder to its freshly created state (`OPUS_RESET_STATE`). Use at a stream
    /// discontinuity such as an SSRC change.
    public func reset() throws(OpusError) {
        let status = ve_opus_decoder_reset_state(handle.pointer)
        guard status == OPUS_OK else { throw OpusError(status: status, function: "opus_decoder_ctl(OPUS_RESET_STATE)") }
    }

    // MARK: State and settings

    /// The duration of the last decoded, recovered or concealed frame, in samples per channel
    /// (`OPUS_GET_LAST_PACKET_DURATION`).
    public var lastPacketDuration: Int {
        get throws(OpusError) {
            Int(try handle.get(request: "opus_decoder_ctl(OPUS_GET_LAST_PACKET_DURATION)", ve_opus_decoder_get_last_packet_duration))
        }
    }

    /// Sets the output gain in Q8 dB (256 = +1 dB), −32768…32767 (`OPUS_SET_GAIN`).
    /// - Throws: `.badArgument` outside that range.
    public func setGain(q8Decibels: Int) throws(OpusError) {
        guard (-32768...32767).contains(q8Decibels) else {
            throw OpusError(code: .badArgument, function: "opus_decoder_ctl(OPUS_SET_GAIN)", detail: "gain \(q8Decibels) is outside −32768…32767 (Q8 dB)")
        }
        try handle.set(Int32(q8Decibels), request: "opus_decoder_ctl(OPUS_SET_GAIN)", ve_opus_decoder_set_gain)
    }

    /// The output gain in Q8 dB (`OPUS_GET_GAIN`).
    public var gainQ8Decibels: Int {
        get throws(OpusError) {
            Int(try handle.get(request: "opus_decoder_ctl(OPUS_GET_GAIN)", ve_opus_decoder_get_gain))
        }
    }
}
