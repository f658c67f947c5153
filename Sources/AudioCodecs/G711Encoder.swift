// SPDX-License-Identifier: Apache-2.0

/// A G.711 encoder (PCMU or PCMA): one byte per 8 kHz sample.
public final class G711Encoder: AudioEncoder {
    /// The companding law (μ-law for PCMU, A-law for PCMA).
    public let law: G711Law

    /// Creates an encoder of 8 kHz PCM.
    public init(law: G711Law) {
        self.law = law
        law.prepareTables()
    }

    public var codec: AudioCodec { law.codec }
    public var sampleRate: Int { 8_000 }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(AudioCodecError) -> Int {
        guard !pcm.isEmpty else { throw .invalidFrame(codec, sampleCount: 0) }
        guard payload.count >= pcm.count else { throw .bufferTooSmall(codec, needed: pcm.count, available: payload.count) }
        // One loop per law: the law is not decided again for every sample.
        switch law {
        case .muLaw: for index in 0..<pcm.count { payload[index] = G711Law.muLawCode(Int(pcm[index])) }
        case .aLaw: for index in 0..<pcm.count { payload[index] = G711Law.aLawCode(Int(pcm[index])) }
        }
        return pcm.count
    }

    public func reset() {}
}
