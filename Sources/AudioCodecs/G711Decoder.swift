// SPDX-License-Identifier: Apache-2.0

/// A G.711 decoder (PCMU or PCMA) at 8 kHz with waveform-substitution concealment
/// (`WaveformConcealment`, after G.711 Appendix I).
public final class G711Decoder: AudioDecoder {
    /// The companding law (μ-law for PCMU, A-law for PCMA).
    public let law: G711Law
    /// The longest payload taken: 120 ms, the longest packet the jitter buffer plays.
    public static let maximumPayloadBytes = 960
    private let concealment = WaveformConcealment(sampleRate: 8_000)

    /// Creates a decoder writing 8 kHz PCM.
    public init(law: G711Law) {
        self.law = law
        law.prepareTables()
    }

    public var codec: AudioCodec { law.codec }
    public var sampleRate: Int { 8_000 }

    public func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo {
        guard (1...Self.maximumPayloadBytes).contains(payload.count) else { throw .invalidPacket(codec, byteCount: payload.count) }
        return AudioPacketInfo(sampleCount: payload.count, hasFEC: false)
    }

    public func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        let count = try packetInfo(payload).sampleCount
        guard pcm.count >= count else { throw .bufferTooSmall(codec, needed: count, available: pcm.count) }
        G711Tables.decode(payload, law: law, into: pcm.baseAddress!)
        concealment.received(UnsafeMutableBufferPointer(rebasing: pcm[0..<count]))
        return count
    }

    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        concealment.conceal(into: pcm)
        return pcm.count
    }

    public func reset() { concealment.reset() }
}
