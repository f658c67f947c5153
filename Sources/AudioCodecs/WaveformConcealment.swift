// SPDX-License-Identifier: Apache-2.0

/// Packet loss concealment by pitch-period repetition, after ITU-T G.711 Appendix I, for any
/// codec that has none of its own (G.711, G.722), at any sample rate.
///
/// It keeps the last 48.75 ms it played. When a frame is lost it finds the pitch period of
/// that history (normalized cross-correlation of the last 20 ms against lags of 5–15 ms) and
/// repeats the last period; after 10 ms of loss it repeats the last two periods, after 20 ms
/// the last three (more periods sound less buzzy), crossfading a quarter period at each
/// change and at each wrap of the repeated stretch. From 10 ms on the output fades by 20 % per
/// 10 ms, silent at 60 ms. The first real frame after a loss is crossfaded in from the
/// continued repetition over a quarter period plus 4 ms per further 10 ms lost (at most 10 ms).
///
/// Unlike Appendix I it adds no delay: the crossfade that Appendix I places on the last
/// played samples (3.75 ms of output delay) is placed on the wrap of the repeated stretch
/// instead, which joins history to repetition at a point one period earlier where the
/// waveform already matches. Memory is allocated in `init`; nothing allocates afterwards.
public final class WaveformConcealment {
    /// The sample rate it works at, in Hz.
    public let sampleRate: Int
    private let historyLength: Int
    private let minimumLag: Int
    private let maximumLag: Int
    private let correlationLength: Int
    private let decimation: Int
    /// The last `historyLength` samples played (real and concealed), oldest first.
    private let history: UnsafeMutableBufferPointer<Int16>
    /// The history as it stood when the current loss began: what is repeated (`frozen`), and
    /// as floats for the pitch search (`snapshot`).
    private let frozen: UnsafeMutableBufferPointer<Int16>
    private let snapshot: UnsafeMutableBufferPointer<Float>
    /// The stretch being repeated (the last one to three periods of `frozen`), its wrap
    /// crossfaded. Synthesis is in integers: a float converted to an integer per sample costs
    /// a range check each time.
    private let loop: UnsafeMutableBufferPointer<Int32>
    /// The continuation synthesized for the crossfade into the first real frame after a loss.
    private let scratch: UnsafeMutableBufferPointer<Int16>
    /// The snapshot averaged over `decimation` samples, for the coarse pitch search.
    private let decimated: UnsafeMutableBufferPointer<Float>

    private var pitch = 0
    private var periods = 0
    private var loopLength = 0
    private var position = 0
    /// A change to more periods being crossfaded: samples left, its length, and where the
    /// previous stretch (the last `fadeFromLength` samples of `snapshot`) stands.
    private var fadeLeft = 0
    private var fadeLength = 0
    private var fadeFromLength = 0
    private var fadeFromPosition = 0
    /// Samples concealed since the last real frame (0: not concealing).
    private var concealedSamples = 0
    private var samplesPerMs: Int { sampleRate / 1_000 }
    /// Where the samples the pitch search reads begin in the history.
    private var pitchSearchStart: Int { historyLength - correlationLength - maximumLag - decimation }

    /// Creates a concealer for PCM at `sampleRate` (at least 4 kHz, a whole number of kHz).
    public init(sampleRate: Int) {
        precondition(sampleRate >= 4_000 && sampleRate % 1_000 == 0, "WaveformConcealment: \(sampleRate) Hz")
        self.sampleRate = sampleRate
        historyLength = sampleRate * 195 / 4_000  // 48.75 ms: three longest periods and a quarter
        minimumLag = sampleRate / 200  // 5 ms (200 Hz)
        maximumLag = sampleRate * 3 / 200  // 15 ms (66.7 Hz)
        correlationLength = sampleRate / 50  // 20 ms
        decimation = max(1, sampleRate / 4_000)
        history = .allocate(capacity: historyLength)
        history.initialize(repeating: 0)
        snapshot = .allocate(capacity: historyLength)
        snapshot.initialize(repeating: 0)
        frozen = .allocate(capacity: historyLength)
        frozen.initialize(repeating: 0)
        loop = .allocate(capacity: historyLength)
        loop.initialize(repeating: 0)
        scratch = .allocate(capacity: sampleRate / 100)
        scratch.initialize(repeating: 0)
        decimated = .allocate(capacity: historyLength / decimation + 1)
        decimated.initialize(repeating: 0)
    }

    deinit {
        history.deallocate()
        snapshot.deallocate()
        frozen.deallocate()
        loop.deallocate()
        scratch.deallocate()
        decimated.deallocate()
    }

    /// Whether the last call concealed (the next real frame will be crossfaded in).
    public var isConcealing: Bool { concealedSamples > 0 }

    /// Takes a frame the decoder produced: crossfades it in if it ends a loss (in place), and
    /// remembers it.
    public func received(_ pcm: UnsafeMutableBufferPointer<Int16>) {
        if concealedSamples > 0 {
            let tenMs = 10 * samplesPerMs
            let furtherTens = max(0, (concealedSamples + tenMs - 1) / tenMs - 1)
            let length = min(pitch / 4 + 4 * samplesPerMs * furtherTens, tenMs, pcm.count)
            if length > 0 {
                let continuation = UnsafeMutableBufferPointer(rebasing: scratch[0..<length])
                synthesize(into: continuation)
                for index in 0..<length {
                    let weight = Float(index + 1) / Float(length + 1)
                    let mixed = weight * Float(pcm[index]) + (1 - weight) * Float(continuation[index])
                    pcm[index] = Self.sample(mixed)
                }
            }
            concealedSamples = 0
        }
        remember(UnsafeBufferPointer(pcm))
    }

    /// Writes `pcm.count` samples of concealment and remembers them.
    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) {
        if concealedSamples == 0 { start() }
        synthesize(into: pcm)
        remember(UnsafeBufferPointer(pcm))
    }

    /// Forgets everything (a new stream).
    public func reset() {
        history.update(repeating: 0)
        concealedSamples = 0
        pitch = 0
        fadeLeft = 0
    }

    // MARK: Synthesis

    /// A loss begins: the history kept as it is, its pitch, and the last period as the stretch.
    private func start() {
        _ = frozen.update(from: history)
        // The pitch search reads only the last 20 ms and the longest lag before them.
        for index in pitchSearchStart..<historyLength { snapshot[index] = Float(history[index]) }
        pitch = findPitch()
        periods = 0
        fadeLeft = 0
        useMorePeriods()
        position = 0
    }

    /// Continues the repetition into `pcm`, changing to more periods at 10 and 20 ms and
    /// fading from 10 ms on; advances the concealment clock.
    private func synthesize(into pcm: UnsafeMutableBufferPointer<Int16>) {
        let tenMs = 10 * samplesPerMs
        var index = 0
        while index < pcm.count {
            let elapsed = concealedSamples + index
            if (elapsed == tenMs && periods == 1) || (elapsed == 2 * tenMs && periods == 2) {
                // The same phase one period further back, reached through a quarter-period crossfade.
                fadeFromLength = loopLength
                fadeFromPosition = position
                fadeLength = max(1, pitch / 4)
                fadeLeft = fadeLength
                useMorePeriods()
                position %= loopLength
            }
            // Up to the next change of stretch, on local copies: a stored property of a class
            // read and written per sample costs an exclusivity check each time.
            let nextChange = elapsed < tenMs ? tenMs : elapsed < 2 * tenMs ? 2 * tenMs : Int.max
            let runEnd = min(pcm.count, nextChange - concealedSamples)
            var position = self.position, fadeLeft = self.fadeLeft, fadeFromPosition = self.fadeFromPosition
            let loop = self.loop, frozen = self.frozen, loopLength = self.loopLength
            let fadeLength = self.fadeLength, fadeFromLength = self.fadeFromLength, fadeFromStart = historyLength - fadeFromLength
            // Gains in Q15, their steps in Q30 (no division per sample): the fade from 10 ms on
            // loses 20 % per 10 ms; a crossfade of fadeLength samples moves 1/(fadeLength + 1) a sample.
            let fadeOrigin = concealedSamples - tenMs  // samples since the fade began = fadeOrigin + sampleIndex
            let attenuationStep = (1 << 30) / 5 / tenMs, crossfadeStep = (1 << 30) / (fadeLength + 1)
            for sampleIndex in index..<runEnd {
                var sample = loop[position]
                if fadeLeft > 0 {
                    let weight = Int32(((fadeLength - fadeLeft + 1) * crossfadeStep) >> 15)
                    sample = (weight * sample + (32_768 - weight) * Int32(frozen[fadeFromStart + fadeFromPosition])) >> 15
                    fadeLeft -= 1
                    fadeFromPosition += 1
                    if fadeFromPosition == fadeFromLength { fadeFromPosition = 0 }
                }
                let sinceFade = fadeOrigin + sampleIndex
                if sinceFade > 0 {
                    let gain = Int32(max(0, (1 << 30) - attenuationStep * sinceFade) >> 15)
                    sample = (sample * gain) >> 15
                }
                pcm[sampleIndex] = Int16(clamping: sample)
                position += 1
                if position == loopLength { position = 0 }
            }
            self.position = position
            self.fadeLeft = fadeLeft
            self.fadeFromPosition = fadeFromPosition
            index = runEnd
        }
        concealedSamples += pcm.count
    }

    /// Makes the stretch one period longer (the last `periods` periods of the snapshot), its
    /// last quarter period crossfaded with what precedes its start so that its wrap is smooth.
    private func useMorePeriods() {
        periods += 1
        let overlap = pitch / 4
        loopLength = min(periods * pitch, historyLength - overlap)
        let start = historyLength - loopLength
        for index in 0..<loopLength { loop[index] = Int32(frozen[start + index]) }
        for index in 0..<overlap {
            let weight = Int32((index + 1) * 32_768 / (overlap + 1))  // Q15
            let target = loopLength - overlap + index
            loop[target] = ((32_768 - weight) * loop[target] + weight * Int32(frozen[start - overlap + index])) >> 15
        }
    }

    /// The lag in `minimumLag…maximumLag` at which the last 20 ms of the snapshot best matches
    /// what came that lag earlier: every `decimation`-th lag and sample first, then the
    /// neighbourhood of the best at full resolution.
    private func findPitch() -> Int {
        // Correlation of the window ending the signal with the one `lag` earlier, normalized
        // by the earlier one's energy (contiguous loops: the compiler vectorizes them).
        func score(_ signal: UnsafeMutableBufferPointer<Float>, end: Int, window: Int, lag: Int) -> Float {
            // Eight lanes at a time: one running sum would chain every addition to the last
            // (floating-point addition is not reassociated for us), eight sums do not.
            var cross = SIMD8<Float>(), energy = SIMD8<Float>()
            let recent = signal.baseAddress! + (end - window), earlier = recent - lag
            var index = 0
            while index + 8 <= window {
                let a = UnsafeRawPointer(recent + index).loadUnaligned(as: SIMD8<Float>.self)
                let b = UnsafeRawPointer(earlier + index).loadUnaligned(as: SIMD8<Float>.self)
                cross += a * b
                energy += b * b
                index += 8
            }
            var crossSum = cross.sum(), energySum = energy.sum()
            while index < window {
                crossSum += recent[index] * earlier[index]
                energySum += earlier[index] * earlier[index]
                index += 1
            }
            return energySum > 0 ? crossSum / energySum.squareRoot() : 0
        }
        let coarseCount = (historyLength - pitchSearchStart) / decimation
        let scale = 1 / Float(decimation)
        for index in 0..<coarseCount {
            var sum: Float = 0
            for step in 0..<decimation { sum += snapshot[historyLength - coarseCount * decimation + index * decimation + step] }
            decimated[index] = sum * scale
        }
        var coarse = maximumLag, coarseScore = -Float.infinity
        for lag in (minimumLag / decimation)...(maximumLag / decimation) {
            let value = score(decimated, end: coarseCount, window: correlationLength / decimation, lag: lag)
            if value > coarseScore { coarseScore = value; coarse = lag * decimation }
        }
        var best = coarse, bestScore = -Float.infinity
        for lag in max(minimumLag, coarse - decimation)...min(maximumLag, coarse + decimation) {
            let value = score(snapshot, end: historyLength, window: correlationLength, lag: lag)
            if value > bestScore { bestScore = value; best = lag }
        }
        return best
    }

    /// A value within the 16-bit range (mixes and fades of 16-bit samples are) rounded half
    /// away from zero, without a call into libm for every sample.
    @inline(__always)
    private static func sample(_ value: Float) -> Int16 {
        Int16(clamping: Int(value + (value < 0 ? -0.5 : 0.5)))
    }

    /// Appends samples to the history, dropping the oldest.
    private func remember(_ samples: UnsafeBufferPointer<Int16>) {
        let count = min(samples.count, historyLength)
        let kept = historyLength - count
        let base = history.baseAddress!
        if kept > 0 { base.update(from: base + count, count: kept) }  // overlapping: a memmove
        (base + kept).update(from: samples.baseAddress! + (samples.count - count), count: count)
    }
}
