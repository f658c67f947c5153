// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import DSP

/// Echo return loss (ERL) and its enhancement (ERLE) as a call sees them, for the
/// media-source statistics: exponentially weighted powers of the far end played, the
/// microphone and the processed microphone over frames whose echo is expected in the
/// microphone — the far end was active (above −50 dBFS) one echo delay earlier, the delay the
/// canceller aligned to — with a memory of about 1 s (a 0.98 decay per 20 ms frame), so the
/// figure tells what the far end hears now rather than how the canceller converged.
///
/// ERLE = 10·log10(microphone / processed) and ERL = 10·log10(played / microphone) over those
/// frames, leaving out the frames where the near end talks (the canceller's near-end detector)
/// and those without an echo path (a headset): there the microphone is the talker, whom the
/// canceller rightly keeps, and counting those frames read the near end's own speech as echo
/// left over (6–8 dB at the end of the demo's turns while the canceller took 30 dB and more off
/// the echo).
struct EchoMeter {
    private var played = 0.0
    private var microphone = 0.0
    private var processed = 0.0
    private var framesMeasured = 0
    private let decay: Double
    private let frameDurationMs: Double
    /// Far-end power per frame, newest at `position`.
    private let history: UnsafeMutableBufferPointer<Double>
    private var position = 0
    /// Far-end frames quieter than this mean power (−50 dBFS) do not count.
    private static let activePower = 32_768.0 * 32_768.0 * 1e-5

    /// A meter for frames of `frameDurationMs` and echo delays up to `maximumDelayMs`.
    init(frameDurationMs: Int, maximumDelayMs: Int) {
        decay = pow(0.98, Double(frameDurationMs) / 20)
        self.frameDurationMs = Double(frameDurationMs)
        history = .allocate(capacity: max(4, maximumDelayMs / max(1, frameDurationMs) + 4))
        history.initialize(repeating: 0)
    }

    /// Frees the history (the owner calls it once, from its `deinit`).
    func deallocate() { history.deallocate() }

    /// Measures one frame: what was played (the canceller's reference), the microphone and
    /// the processed microphone; `echoDelayMs` is where the canceller found the echo;
    /// `echoOnly` false (the near end talks, or no echo path is present) keeps the frame out.
    mutating func measure(played reference: UnsafeBufferPointer<Int16>, microphone input: UnsafeBufferPointer<Int16>,
                          processed output: UnsafeBufferPointer<Int16>, echoDelayMs: Double, echoOnly: Bool = true) {
        position = (position + 1) % history.count
        history[position] = reference.meanSquare
        // The far end's history is kept either way: the next echo-only frame needs it.
        guard echoOnly else { return }
        // The echo in this microphone frame comes from the frames played about one delay ago
        // (the canceller's alignment sits one margin before the echo): take the loudest of the
        // three around it.
        let lag = Int(((echoDelayMs.isFinite ? max(0, echoDelayMs) : 0) + 20) / frameDurationMs)
        var farPower = 0.0
        for offset in max(0, lag - 1)...min(history.count - 1, lag + 1) {
            farPower = max(farPower, history[(position - offset + history.count) % history.count])
        }
        guard farPower >= Self.activePower else { return }
        played = played * decay + farPower
        microphone = microphone * decay + input.meanSquare
        processed = processed * decay + output.meanSquare
        framesMeasured += 1
    }

    /// ERLE in dB (capped at 100), nil before 25 far-end frames.
    var echoReturnLossEnhancement: Double? {
        guard framesMeasured >= 25 else { return nil }
        return min(100, 10 * log10(max(microphone, 1e-3) / max(processed, 1e-3)))
    }

    /// ERL in dB (capped at 100), nil before 25 far-end frames.
    var echoReturnLoss: Double? {
        guard framesMeasured >= 25 else { return nil }
        return min(100, 10 * log10(max(played, 1e-3) / max(microphone, 1e-3)))
    }
}
