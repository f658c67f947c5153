#if canImport(Glibc)
import Glibc
#endif

/// Echo return loss (ERL) and its enhancement (ERLE) as a call sees them, for the
/// media-source statistics: exponentially weighted powers of the far end played, the
/// microphone and the processed microphone over frames in which the far end was active
/// (above −50 dBFS), with a memory of about 4 s (a 0.995 decay per 20 ms frame).
///
/// ERLE = 10·log10(microphone / processed) and ERL = 10·log10(played / microphone) over those
/// frames. Near-end speech during far-end speech counts too, so in double talk both read
/// lower than the canceller's true figures: they are what the far end hears, not a lab ERLE.
struct EchoMeter {
    private var played = 0.0
    private var microphone = 0.0
    private var processed = 0.0
    private var framesMeasured = 0
    private let decay: Double
    /// Far-end frames quieter than this mean power (−50 dBFS) do not count.
    private static let activePower = 32_768.0 * 32_768.0 * 1e-5

    /// A meter for frames of `frameDurationMs`.
    init(frameDurationMs: Int) {
        decay = pow(0.995, Double(frameDurationMs) / 20)
    }

    /// Measures one frame: what was played (the canceller's reference), the microphone and
    /// the processed microphone.
    mutating func measure(played reference: UnsafeBufferPointer<Int16>, microphone input: UnsafeBufferPointer<Int16>,
                          processed output: UnsafeBufferPointer<Int16>) {
        let referencePower = Self.meanPower(reference)
        guard referencePower >= Self.activePower else { return }
        played = played * decay + referencePower
        microphone = microphone * decay + Self.meanPower(input)
        processed = processed * decay + Self.meanPower(output)
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

    private static func meanPower(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        var sum: Int64 = 0
        for sample in samples { sum += Int64(sample) * Int64(sample) }
        return samples.isEmpty ? 0 : Double(sum) / Double(samples.count)
    }
}
