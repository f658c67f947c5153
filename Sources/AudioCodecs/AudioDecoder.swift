// SPDX-License-Identifier: Apache-2.0

/// What a decoder reads from a payload before decoding it.
public struct AudioPacketInfo: Sendable, Hashable {
    /// The audio the payload holds, in samples at the decoder's `sampleRate`.
    public var sampleCount: Int
    /// Whether the payload also carries the previous frame (in-band FEC).
    public var hasFEC: Bool

    /// Creates the figures for one payload.
    public init(sampleCount: Int, hasFEC: Bool) {
        self.sampleCount = sampleCount
        self.hasFEC = hasFEC
    }
}

/// A voice decoder behind the jitter buffer: RTP payloads in, PCM out, with the three ways
/// of making audio a receiver needs — decode the packet, rebuild a lost one from the next
/// packet's redundancy, or conceal.
///
/// One decoder serves one thread at a time (the playout thread); every method writes into
/// the caller's buffer and does not allocate.
public protocol AudioDecoder: AnyObject {
    /// The codec this decoder reads.
    var codec: AudioCodec { get }
    /// The sample rate of the PCM it writes, in Hz.
    var sampleRate: Int { get }
    /// The payload's duration and redundancy, without decoding it.
    /// - Throws: `AudioCodecError.invalidPacket` for a payload that cannot be this codec's.
    func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo
    /// Decodes one payload into `pcm`.
    /// - Returns: the number of samples written.
    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int
    /// Rebuilds the frame before `nextPayload` from its redundancy into all of `pcm`; a codec
    /// without in-band FEC conceals instead.
    /// - Returns: the number of samples written.
    func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int
    /// Conceals a lost stretch of `pcm.count` samples.
    /// - Returns: the number of samples written.
    func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int
    /// Whether a payload of `byteCount` bytes is a DTX frame (comfort noise, the sender silent).
    func isComfortNoisePayload(byteCount: Int) -> Bool
    /// Forgets the stream decoded so far.
    func reset()
}

extension AudioDecoder {
    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        try conceal(into: pcm)
    }

    public func isComfortNoisePayload(byteCount: Int) -> Bool { false }
}
