// SPDX-License-Identifier: Apache-2.0
/// Speech time-stretching by one pitch period at a time (pitch-synchronous overlap-add, as
/// WebRTC NetEq's accelerate and preemptive expand do).
///
/// - `accelerate` removes one pitch period `T`: the first `T` samples crossfade from
///   `x[0..<T]` into `x[T..<2T]`, then `x[2T...]` follows; `T` samples shorter.
/// - `preemptiveExpand` inserts one: `x[0..<T]`, then a crossfade from `x[T..<2T]` back into
///   `x[0..<T]`, then `x[T...]`; `T` samples longer.
///
/// The first and last samples are unchanged, so consecutive frames join without a click, and
/// because exactly one period is removed or repeated the pitch is preserved. The stretch
/// happens only when the signal allows: strongly periodic (normalized correlation at the
/// period ≥ `minimumCorrelation`) or quiet (RMS below `quietLevel`). Otherwise the frame is
/// copied unchanged. No allocation after `init`.
///
/// A frame shorter than two of the longest period (`maximumPeriod`: 10 ms frames, where
/// that is 10 ms) stretches only when quiet. The search there cannot see a long period, and
/// a half or a third of one correlates as well when the voice's second harmonic is strong:
/// on the speech fixtures in 10 ms frames, 46 of the 66 voiced frames of Alice's it would
/// shorten (46 of 88 of Bob's) lost under 0.7 of the period that 40 ms of context shows, a
/// jump in the waveform; on 20 ms frames none did. `voicecall demo --fast --network none
/// --ptime 10`, whose jitter buffer comes down from its initial delay through the first
/// words: Bob → Alice 3.78 → 3.88, Alice's first 4 s 2.76 → 3.04 (PESQ-WB).
public final class TimeStretcher {
    /// Correlation at the pitch period above which a frame counts as periodic enough to stretch.
    public var minimumCorrelation = 0.75
    /// RMS (linear, full scale 32 768) below which any frame may be stretched: too quiet to hear a seam.
    public var quietLevel = 100.0
    /// The longest period that can be removed or inserted, in samples; the output of
    /// `preemptiveExpand` needs this much room beyond the input.
    public var maximumPeriod: Int { pitch.maximumLag }
    private let pitch: PitchPeriodSearch

    /// Creates a stretcher for mono frames of up to `maximumFrameCount` samples at `sampleRate`.
    public init(sampleRate: Int, maximumFrameCount: Int) {
        pitch = PitchPeriodSearch(sampleRate: sampleRate, maximumFrameCount: maximumFrameCount)
    }

    /// Shortens `input` by one pitch period into `output` (capacity ≥ `input.count`).
    /// - Parameters:
    ///   - input: the audio to shorten.
    ///   - output: where the shortened audio goes.
    ///   - limit: the most samples that may be removed (`nil`: any period).
    ///   - continuing: `input` is what is left of a frame this call already shortened by a
    ///     period, found on the whole frame: it may stretch although it is now shorter than
    ///     two of the longest period.
    /// - Returns: the number of samples written: `input.count` minus the samples removed
    ///   (0 removed when the signal does not allow it).
    public func accelerate(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>,
                           maximumPeriod limit: Int? = nil, continuing: Bool = false) -> Int {
        precondition(output.count >= input.count, "accelerate: output smaller than input")
        guard let period = stretchablePeriod(input, limit: limit, continuing: continuing) else { return copy(input, into: output) }
        for index in 0..<period {
            output[index] = Self.crossfade(input[index], input[index + period], step: index, length: period)
        }
        var written = period
        for index in (2 * period)..<input.count {
            output[written] = input[index]
            written += 1
        }
        return written
    }

    /// Lengthens `input` by one pitch period into `output` (capacity ≥ `input.count + maximumPeriod`).
    /// - Returns: the number of samples written: `input.count` plus the samples inserted
    ///   (0 inserted when the signal does not allow it).
    public func preemptiveExpand(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        precondition(output.count >= input.count + maximumPeriod, "preemptiveExpand: output lacks room for one period")
        guard let period = stretchablePeriod(input) else { return copy(input, into: output) }
        for index in 0..<period { output[index] = input[index] }
        for index in 0..<period {
            output[period + index] = Self.crossfade(input[period + index], input[index], step: index, length: period)
        }
        var written = 2 * period
        for index in period..<input.count {
            output[written] = input[index]
            written += 1
        }
        return written
    }

    private func stretchablePeriod(_ input: UnsafeBufferPointer<Int16>, limit: Int? = nil, continuing: Bool = false) -> Int? {
        let (lag, correlation) = pitch.search(input, maximumLag: limit)
        guard lag > 0, 2 * lag < input.count else { return nil }
        let seesEveryPeriod = continuing || input.count >= 2 * pitch.maximumLag
        if correlation >= minimumCorrelation && seesEveryPeriod { return lag }
        var energy = 0.0
        for sample in input { energy += Double(sample) * Double(sample) }
        return (energy / Double(max(1, input.count))).squareRoot() < quietLevel ? lag : nil
    }

    private func copy(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        for index in 0..<input.count { output[index] = input[index] }
        return input.count
    }

    /// `from` weighted by (1 − w), `to` by w, with w rising linearly over `length` steps.
    @inline(__always)
    private static func crossfade(_ from: Int16, _ to: Int16, step: Int, length: Int) -> Int16 {
        let weight = Double(step) / Double(length)
        let mixed = Double(from) * (1 - weight) + Double(to) * weight
        return Int16(clamping: Int(mixed.rounded()))
    }
}
