// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The residual echo suppressor's gain for one bin: 1 − overdrive × leak × echo / output
/// power, floored at `floorDb`.
///
/// - **Echo**: the power-domain model's prediction; in an echo-only frame also what the linear
///   filter subtracted, whichever is larger. Not while the near end talks: speexdsp's own
///   estimate then carries some near-end speech (its filter adapts a little in double talk).
/// - **Overdrive** (> 1 suppresses harder than the estimate says, for the estimate's own
///   error): `echoDominantOverdrive` where the microphone holds little more than the echo
///   (below `dominanceRatio` × it) and in every bin of an echo-only frame — there a generous
///   estimate costs no near-end speech; otherwise the near end's speech is in the bin and keeps
///   it: `overdrive` while the bin's echo model is young, `settledOverdrive` once it is
///   established. Once established, "little more" means below `settledNearEndDominance` × the
///   echo: a soft talker's speech is rarely twice the echo in its bins.
/// - **Divergence**: where the linear filter's output is louder than the microphone (the
///   filter diverged, or was just reset with a wrong guess), the gain applies to the
///   microphone's spectrum with a leak of 1, as WebRTC's AEC1 does.
struct SuppressionGainRule: Sendable {
    /// Where the microphone is below this × the echo, echo dominates the bin (while the bin's
    /// model is young, and in echo-only frames).
    static let dominanceRatio: Float = 2
    /// The same once the bin's model is established, while the near end talks.
    static let settledNearEndDominance: Float = 1.2

    /// Smallest gain, in dB (negative): how far echo is pushed down at most. −40 dB takes an
    /// echo-only frame close to half duplex while comfort noise keeps the background.
    var floorDb: Float = -40 { didSet { floorGain = Self.amplitude(floorDb) } }
    /// `floorDb` as an amplitude factor.
    private(set) var floorGain: Float = SuppressionGainRule.amplitude(-40)
    /// Overdrive where the near end talks and the microphone is clearly louder than the echo,
    /// while the bin's echo model is young: the young model under-predicts, and 2 covers that.
    var overdrive: Float = 2
    /// Overdrive there once the bin's model is established: a soft talker's speech sits close
    /// to the residual echo in its bins and every unit of overdrive takes some of it. 0.5 keeps
    /// most of it; lower values let distorted echo through on some rooms.
    var settledOverdrive: Float = 0.5
    /// Overdrive where echo dominates the bin and in every bin of an echo-only frame.
    var echoDominantOverdrive: Float = 20

    /// Whether the linear filter made the bin louder than the microphone (it diverged).
    @inline(__always)
    static func isDiverged(microphonePower: Float, outputPower: Float) -> Bool { outputPower > microphonePower }

    /// The gain for a bin with smoothed `microphonePower` and linear filter `outputPower`, the
    /// model's `predictedEcho`, the echo the linear filter subtracted (`linearFilterEcho`), the
    /// filter's `leak`, whether the bin's model is `young`, and whether the frame is echo only.
    @inline(__always)
    func gain(microphonePower: Float, outputPower: Float, predictedEcho: Float, linearFilterEcho: Float,
              leak: Float, young: Bool, echoOnlyFrame: Bool) -> Float {
        let echo = echoOnlyFrame ? max(predictedEcho, linearFilterEcho) : predictedEcho
        let dominated = microphonePower < (young || echoOnlyFrame ? Self.dominanceRatio : Self.settledNearEndDominance) * echo
        let drive = dominated || echoOnlyFrame ? echoDominantOverdrive : (young ? overdrive : settledOverdrive)
        let diverged = Self.isDiverged(microphonePower: microphonePower, outputPower: outputPower)
        let base = diverged ? microphonePower : outputPower
        let residual = drive * (diverged ? 1 : leak) * echo
        return max(floorGain, 1 - residual / max(base, 1e-12))
    }

    /// An amplitude factor from decibels.
    static func amplitude(_ decibels: Float) -> Float { Float(pow(10, Double(decibels) / 20)) }
}
