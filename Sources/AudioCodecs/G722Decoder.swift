// SPDX-License-Identifier: Apache-2.0

/// A G.722 decoder at 64 kb/s (spandsp) writing 16 kHz PCM, with waveform-substitution
/// concealment (`WaveformConcealment`; G.722 has no concealment of its own in spandsp).
public final class G722Decoder: AudioDecoder {
    /// The longest payload taken: 120 ms.
    public static let maximumPayloadBytes = 960
    private let state: G722CodecState
    private let concealment = WaveformConcealment(sampleRate: 16_000)

    /// Creates a decoder writing 16 kHz PCM.
    /// - Throws: `AudioCodecError.library` if spandsp cannot create its state.
    public init() throws(AudioCodecError) {
        state = try G722CodecState(encoding: false)
    }

    public var codec: AudioCodec { .g722 }
    public var sampleRate: Int { 16_000 }

    public func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo {
        guard (1...Self.maximumPayloadBytes).contains(payload.count) else { throw .invalidPacket(.g722, byteCount: payload.count) }
        return AudioPacketInfo(sampleCount: 2 * payload.count, hasFEC: false)
    }

    public func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        let count = try packetInfo(payload).sampleCount
        guard pcm.count >= count else { throw .bufferTooSmall(.g722, needed: count, available: pcm.count) }
        let written = state.decode(payload, into: pcm)
        concealment.received(UnsafeMutableBufferPointer(rebasing: pcm[0..<written]))
        return written
    }

    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        concealment.conceal(into: pcm)
        return pcm.count
    }

    public func reset() {
        state.reset()
        concealment.reset()
    }
}
