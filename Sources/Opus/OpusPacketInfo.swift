// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// What an Opus packet holds, read from its TOC byte and framing (RFC 6716 §3) without
/// decoding it.
///
/// The initializer checks the whole framing (`opus_packet_parse`), so a truncated or
/// malformed packet is rejected with `OpusError` rather than described. It does not
/// allocate.
public struct OpusPacketInfo: Sendable, Hashable {
    /// The number of Opus frames in the packet (1…48).
    public let frameCount: Int
    /// Samples per channel in each frame at the sample rate given to `init`.
    public let samplesPerFrame: Int
    /// Samples per channel in the whole packet (`frameCount × samplesPerFrame`).
    public let sampleCount: Int
    /// The audio bandwidth coded in the packet.
    public let bandwidth: OpusBandwidth
    /// The number of channels coded in the packet (1 or 2).
    public let channelCount: Int
    /// The coding layer (SILK, hybrid or CELT).
    public let mode: OpusMode
    /// Whether the packet carries in-band FEC (LBRR) data for the frame before it, so that
    /// `OpusDecoder.decodeFEC(from:into:)` recovers that frame rather than concealing it.
    ///
    /// libopus 1.3.1 has no `opus_packet_has_lbrr` (added in 1.5); this reads the LBRR flag
    /// of the first frame's SILK header as RFC 6716 §4.2.3–4.2.4 lays it out (the first
    /// range-coded symbols are equiprobable bits, so they are the leading bits of the frame):
    /// VAD flag(s) then the LBRR flag for the mid channel, then the same for the side channel
    /// in stereo.
    public let hasFEC: Bool

    /// Describes `packet` with sample counts at `sampleRate`.
    /// - Parameters:
    ///   - packet: one complete Opus packet.
    ///   - sampleRate: the rate to count samples at: 8000, 12000, 16000, 24000 or 48000 Hz.
    /// - Throws: `.badArgument` for an unsupported rate, `.invalidPacket` for an empty or
    ///   malformed packet (bad frame count or lengths, more than 120 ms).
    public init(packet: UnsafeRawBufferPointer, sampleRate: Int) throws(OpusError) {
        guard OpusStreamFormat.isSupported(sampleRate: sampleRate) else {
            throw OpusError(code: .badArgument, function: "OpusPacketInfo.init", detail: "sample rate \(sampleRate) Hz is not one of 8000, 12000, 16000, 24000, 48000")
        }
        guard let base = packet.baseAddress, packet.count > 0 else {
            throw OpusError(code: .invalidPacket, function: "OpusPacketInfo.init", detail: "empty packet")
        }
        let data = base.assumingMemoryBound(to: UInt8.self)
        let length = Int32(clamping: packet.count)

        // Validate the framing and find the first frame.
        let (parsed, firstFrameOffset, firstFrameSize) = Self.parse(data, length: length)
        guard parsed > 0 else { throw OpusError(status: parsed, function: "opus_packet_parse") }

        let rate = Int32(sampleRate)
        let frames = opus_packet_get_nb_frames(data, length)
        guard frames > 0 else { throw OpusError(status: frames, function: "opus_packet_get_nb_frames") }
        let samples = opus_packet_get_nb_samples(data, length, rate)
        guard samples > 0 else { throw OpusError(status: samples, function: "opus_packet_get_nb_samples") }
        let channels = opus_packet_get_nb_channels(data)
        guard channels > 0 else { throw OpusError(status: channels, function: "opus_packet_get_nb_channels") }
        let bandwidthValue = opus_packet_get_bandwidth(data)
        guard let bandwidth = OpusBandwidth(cValue: bandwidthValue), bandwidth != .auto else {
            throw OpusError(status: bandwidthValue < 0 ? bandwidthValue : OPUS_INVALID_PACKET, function: "opus_packet_get_bandwidth")
        }

        self.frameCount = Int(frames)
        self.samplesPerFrame = Int(opus_packet_get_samples_per_frame(data, rate))
        self.sampleCount = Int(samples)
        self.channelCount = Int(channels)
        self.bandwidth = bandwidth
        self.mode = OpusMode(config: Int(data[0] >> 3))

        // LBRR flag (RFC 6716 §4.2.3/§4.2.4), as libopus 1.5's opus_packet_has_lbrr reads it.
        if mode == .celt || firstFrameSize == 0 {
            self.hasFEC = false
        } else {
            let samplesAt48k = Int(opus_packet_get_samples_per_frame(data, 48000))
            let silkFrames = samplesAt48k > 960 ? samplesAt48k / 960 : 1  // 40 ms: 2, 60 ms: 3
            let header = Int(data[firstFrameOffset])
            var lbrr = (header >> (7 - silkFrames)) & 1 == 1
            if channels == 2 {
                lbrr = lbrr || (header >> (6 - 2 * silkFrames)) & 1 == 1
            }
            self.hasFEC = lbrr
        }
    }

    /// Runs `opus_packet_parse`; returns its status (frame count or error) and the first
    /// frame's offset and size. Scratch arrays live on the stack.
    private static func parse(_ data: UnsafePointer<UInt8>, length: Int32) -> (status: Int32, offset: Int, size: Int) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>?.self, capacity: 48) { frames in
            withUnsafeTemporaryAllocation(of: Int16.self, capacity: 48) { sizes in
                guard let frameStarts = frames.baseAddress, let frameSizes = sizes.baseAddress else {
                    return (OPUS_INTERNAL_ERROR, 0, 0)
                }
                let status = opus_packet_parse(data, length, nil, frameStarts, frameSizes, nil)
                guard status > 0, let first = frames[0] else { return (status < 0 ? status : OPUS_INVALID_PACKET, 0, 0) }
                return (status, first - data, Int(sizes[0]))
            }
        }
    }
}
