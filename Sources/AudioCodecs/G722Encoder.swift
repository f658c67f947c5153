// SPDX-License-Identifier: Apache-2.0

/// A G.722 encoder at 64 kb/s (spandsp's bit-exact implementation): 16 kHz PCM in, one byte
/// per two samples out.
public final class G722Encoder: AudioEncoder {
    private let state: G722CodecState

    /// Creates an encoder of 16 kHz PCM.
    /// - Throws: `AudioCodecError.library` if spandsp cannot create its state.
    public init() throws(AudioCodecError) {
        state = try G722CodecState(encoding: true)
    }

    public var codec: AudioCodec { .g722 }
    public var sampleRate: Int { 16_000 }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(AudioCodecError) -> Int {
        guard !pcm.isEmpty, pcm.count % 2 == 0 else { throw .invalidFrame(.g722, sampleCount: pcm.count) }
        guard payload.count >= pcm.count / 2 else { throw .bufferTooSmall(.g722, needed: pcm.count / 2, available: payload.count) }
        return state.encode(pcm, into: payload)
    }

    public func reset() { state.reset() }
}
