// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

/// An encoder taking PCM at the call's rate for a codec that works at another (G.711 at
/// 8 kHz under a 48 kHz call): speexdsp's resampler in front of it, its state carried from
/// frame to frame.
public final class ResamplingEncoder: AudioEncoder {
    /// The encoder at the codec's own rate.
    public let inner: any AudioEncoder
    /// The rate of the PCM given to `encode`, in Hz.
    public let sampleRate: Int
    private let resampler: Resampler
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Wraps `inner` to take PCM at `sampleRate`, frames of up to `maximumFrameMs`.
    /// - Throws: `AudioCodecError.unsupportedSampleRate` when no resampler can be made.
    public init(_ inner: any AudioEncoder, sampleRate: Int, maximumFrameMs: Int = 120) throws(AudioCodecError) {
        self.inner = inner
        self.sampleRate = sampleRate
        do {
            resampler = try Resampler(inputRate: sampleRate, outputRate: inner.sampleRate, quality: .voip, skipsLeadingZeros: false)
        } catch {
            throw .unsupportedSampleRate(inner.codec, sampleRate)
        }
        scratch = .allocate(capacity: inner.sampleRate * maximumFrameMs / 1_000)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    public var codec: AudioCodec { inner.codec }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(AudioCodecError) -> Int {
        let (count, remainder) = (pcm.count * inner.sampleRate).quotientAndRemainder(dividingBy: sampleRate)
        guard count > 0, remainder == 0, count <= scratch.count else { throw .invalidFrame(codec, sampleCount: pcm.count) }
        let frame = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
        let written = resampler.process(pcm, into: frame).written
        // The ratio is exact, so the resampler fills the frame; should rounding leave it one
        // short, the last sample is held rather than a zero clicked in.
        if written < count { for index in written..<count { frame[index] = written > 0 ? frame[written - 1] : 0 } }
        return try inner.encode(UnsafeBufferPointer(frame), into: payload)
    }

    public func isSilencePayload(byteCount: Int) -> Bool { inner.isSilencePayload(byteCount: byteCount) }

    public func reset() {
        resampler.reset()
        inner.reset()
    }
}
