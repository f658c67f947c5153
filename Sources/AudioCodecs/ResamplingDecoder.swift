// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

/// A decoder writing PCM at the call's rate for a codec that works at another (G.711's 8 kHz
/// played into a 48 kHz call): decoding, FEC and concealment at the codec's rate, then
/// speexdsp's resampler, its state carried through all three so losses join smoothly.
public final class ResamplingDecoder: AudioDecoder {
    /// The decoder at the codec's own rate.
    public let inner: any AudioDecoder
    /// The rate of the PCM written, in Hz.
    public let sampleRate: Int
    private let resampler: Resampler
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Wraps `inner` to write PCM at `sampleRate`, packets of up to `maximumPacketMs`.
    /// - Throws: `AudioCodecError.unsupportedSampleRate` when no resampler can be made.
    public init(_ inner: any AudioDecoder, sampleRate: Int, maximumPacketMs: Int = 120) throws(AudioCodecError) {
        self.inner = inner
        self.sampleRate = sampleRate
        do {
            resampler = try Resampler(inputRate: inner.sampleRate, outputRate: sampleRate, quality: .voip, skipsLeadingZeros: false)
        } catch {
            throw .unsupportedSampleRate(inner.codec, sampleRate)
        }
        scratch = .allocate(capacity: inner.sampleRate * maximumPacketMs / 1_000)
        scratch.initialize(repeating: 0)
    }

    deinit { scratch.deallocate() }

    public var codec: AudioCodec { inner.codec }

    public func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo {
        var info = try inner.packetInfo(payload)
        info.sampleCount = info.sampleCount * sampleRate / inner.sampleRate
        return info
    }

    public func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        let needed = try packetInfo(payload).sampleCount
        guard pcm.count >= needed else { throw .bufferTooSmall(codec, needed: needed, available: pcm.count) }
        let count = try inner.decode(payload, into: scratch)
        return resample(count, into: pcm)
    }

    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        let inner = try innerFrame(for: pcm.count)
        return resample(try self.inner.decodeFEC(from: nextPayload, into: inner), into: pcm)
    }

    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        let inner = try innerFrame(for: pcm.count)
        return resample(try self.inner.conceal(into: inner), into: pcm)
    }

    public func isComfortNoisePayload(byteCount: Int) -> Bool { inner.isComfortNoisePayload(byteCount: byteCount) }

    public func reset() {
        resampler.reset()
        inner.reset()
    }

    /// The stretch of scratch at the codec's rate that becomes `count` samples at ours.
    private func innerFrame(for count: Int) throws(AudioCodecError) -> UnsafeMutableBufferPointer<Int16> {
        let (innerCount, remainder) = (count * inner.sampleRate).quotientAndRemainder(dividingBy: sampleRate)
        guard innerCount > 0, remainder == 0, innerCount <= scratch.count else { throw .invalidFrame(codec, sampleCount: count) }
        return UnsafeMutableBufferPointer(rebasing: scratch[0..<innerCount])
    }

    /// Resamples the first `count` samples of scratch into `pcm`; returns what that makes at our rate.
    private func resample(_ count: Int, into pcm: UnsafeMutableBufferPointer<Int16>) -> Int {
        let expected = count * sampleRate / inner.sampleRate
        let output = UnsafeMutableBufferPointer(rebasing: pcm[0..<expected])
        let written = resampler.process(UnsafeBufferPointer(rebasing: scratch[0..<count]), into: output).written
        if written < expected { for index in written..<expected { output[index] = written > 0 ? output[written - 1] : 0 } }
        return expected
    }
}
