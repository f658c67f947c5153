// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// Why an `AdaptiveJitterBuffer` could not be created: one case per invalid configuration field.
public enum JitterBufferError: Error, Equatable, Sendable {
    /// `sampleRate` is not one the codec's decoder writes (Opus: 8, 12, 16, 24 or 48 kHz; the
    /// others: 8–48 kHz in whole kHz, resampled).
    case invalidSampleRate(Int)
    /// `frameDurationMs` is not 10, 20, 40 or 60.
    case invalidFrameDuration(Int)
    /// `minimumDelayMs` is negative or above `maximumDelayMs`.
    case invalidMinimumDelay(Int)
    /// `maximumDelayMs` is not positive or above 10 s.
    case invalidMaximumDelay(Int)
    /// `initialDelayMs` lies outside `minimumDelayMs...maximumDelayMs`.
    case invalidInitialDelay(Int)
    /// `capacityPackets` is below 2 or above 65 536.
    case invalidCapacity(Int)
    /// `payloadTypes` holds a number above 127 (RTP's payload type has 7 bits).
    case invalidPayloadType(UInt8)
    /// `payloadTypes` is not empty but gives no payload type to `codec`, which plays first.
    case codecWithoutPayloadType(AudioCodec)
    /// `delayPricing` is out of range: its delay outside the buffer not within 0…10 000 ms, or
    /// its codec's Ie,WB not within 0…128 or Bpl,WB not within 1…1 000 (or any not finite).
    case invalidDelayPricing(PlayoutDelayPricing)
    /// `learntDelays` cannot be started from: its bucket width is not the estimator's 2 ms, it
    /// holds no bucket or more than `LearntDelays.maximumBucketCount`, or a weight is negative
    /// or not finite, or their sum is zero or not finite.
    case invalidLearntDelays
    /// The codec's decoder could not be created.
    case decoderCreationFailed(AudioCodecError)
}
