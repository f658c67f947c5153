// SPDX-License-Identifier: Apache-2.0

/// A voice encoder behind the uplink: PCM frames in, RTP payloads out.
///
/// One encoder serves one thread at a time (the audio thread); `encode` writes into the
/// caller's buffer and does not allocate.
public protocol AudioEncoder: AnyObject {
    /// The codec this encoder produces.
    var codec: AudioCodec { get }
    /// The sample rate of the PCM given to `encode`, in Hz.
    var sampleRate: Int { get }
    /// Encodes one frame of mono PCM (its duration is `pcm.count / sampleRate`) into `payload`.
    /// - Returns: the payload's length in bytes.
    /// - Throws: `AudioCodecError` for a frame the codec cannot take or a payload buffer too small.
    func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(AudioCodecError) -> Int
    /// Whether a payload of `byteCount` bytes, just encoded, means "silence, nothing to send"
    /// (Opus's DTX); always `false` for a codec without discontinuous transmission.
    func isSilencePayload(byteCount: Int) -> Bool
    /// Forgets the signal coded so far (a new stream).
    func reset()
}

extension AudioEncoder {
    public func isSilencePayload(byteCount: Int) -> Bool { false }
}
