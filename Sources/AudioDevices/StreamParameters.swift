// SPDX-License-Identifier: Apache-2.0
/// The shape of a PCM stream: rate, channels, period and buffer, in frames. The sample format
/// is always signed 16-bit little-endian, interleaved (`S16_LE`).
///
/// Used twice: as the request when opening a stream and as what the device negotiated.
public struct StreamParameters: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int
    /// Frames per period: the I/O thread wakes once per period.
    public var periodFrames: Int
    /// Frames in the device buffer (at least two periods).
    public var bufferFrames: Int

    /// Parameters for `sampleRate` with periods of `periodMs` and a buffer of `periods` periods.
    public init(sampleRate: Int = 48_000, channelCount: Int = 1, periodMs: Int = 10, periods: Int = 4) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodFrames = sampleRate * periodMs / 1_000
        self.bufferFrames = periodFrames * periods
    }

    /// Parameters given frame by frame.
    public init(sampleRate: Int, channelCount: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    /// Interleaved samples in one period.
    public var periodSamples: Int { periodFrames * channelCount }

    /// One period in milliseconds.
    public var periodMs: Double { Double(periodFrames) * 1_000 / Double(sampleRate) }

    public var description: String {
        "\(sampleRate) Hz, \(channelCount) ch, S16_LE, period \(periodFrames) frames, buffer \(bufferFrames) frames"
    }
}
