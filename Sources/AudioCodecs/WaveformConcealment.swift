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
    /// The history as it stood when the current loss began: what is repeated.
    private let snapshot: UnsafeMutableBufferPointer<Float>
    /// The stretch being repeated (the last one to three periods of `snapshot`), its wrap crossfaded.
    private let loop: UnsafeMutableBufferPointer<Float>
    /// The continuation synthesized for the crossfade into the first real frame after a loss.
    private let scratch: UnsafeMutableBufferPointer<Int16>

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
        loop = .allocate(capacity: historyLength)
        loop.initialize(repeating: 0)
        scratch = .allocate(capacity: sampleRate / 100)
        scratch.initialize(repeating: 0)
    }

    deinit {
        history.deallocate()
        snapshot.deallocate()
        loop.deallocate()
        scratch.deallocate()
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
                    pcm[index] = Int16(clamping: Int(mixed.rounded()))
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
        for index in 0..<historyLength { snapshot[index] = Float(history[index]) }
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
        for index in 0..<pcm.count {
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
            var sample = loop[position]
            if fadeLeft > 0 {
                let old = snapshot[historyLength - fadeFromLength + fadeFromPosition]
                let weight = Float(fadeLength - fadeLeft + 1) / Float(fadeLength + 1)
                sample = weight * sample + (1 - weight) * old
                fadeLeft -= 1
                fadeFromPosition += 1
                if fadeFromPosition == fadeFromLength { fadeFromPosition = 0 }
            }
            let gain = elapsed < tenMs ? Float(1) : max(0, 1 - 0.2 * Float(elapsed - tenMs) / Float(tenMs))
            pcm[index] = Int16(clamping: Int((sample * gain).rounded()))
            position += 1
            if position == loopLength { position = 0 }
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
        for index in 0..<loopLength { loop[index] = snapshot[start + index] }
        for index in 0..<overlap {
            let weight = Float(index + 1) / Float(overlap + 1)
            let target = loopLength - overlap + index
            loop[target] = (1 - weight) * loop[target] + weight * snapshot[start - overlap + index]
        }
    }

    /// The lag in `minimumLag…maximumLag` at which the last 20 ms of the snapshot best matches
    /// what came that lag earlier: every `decimation`-th lag and sample first, then the
    /// neighbourhood of the best at full resolution.
    private func findPitch() -> Int {
        func score(_ lag: Int, step: Int) -> Float {
            var cross: Float = 0, energy: Float = 0
            var index = historyLength - correlationLength
            while index < historyLength {
                let a = snapshot[index], b = snapshot[index - lag]
                cross += a * b
                energy += b * b
                index += step
            }
            return energy > 0 ? cross / energy.squareRoot() : 0
        }
        var coarse = maximumLag, coarseScore = -Float.infinity
        var lag = minimumLag
        while lag <= maximumLag {
            let value = score(lag, step: decimation)
            if value > coarseScore { coarseScore = value; coarse = lag }
            lag += decimation
        }
        var best = coarse, bestScore = -Float.infinity
        for lag in max(minimumLag, coarse - decimation)...min(maximumLag, coarse + decimation) {
            let value = score(lag, step: 1)
            if value > bestScore { bestScore = value; best = lag }
        }
        return best
    }

    /// Appends samples to the history, dropping the oldest.
    private func remember(_ samples: UnsafeBufferPointer<Int16>) {
        let count = min(samples.count, historyLength)
        let kept = historyLength - count
        if kept > 0 {
            for index in 0..<kept { history[index] = history[index + count] }
        }
        for index in 0..<count { history[kept + index] = samples[samples.count - count + index] }
    }
}
