// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the linear echo filter from subtracting more than the echo it found: the filter's
/// echo estimate (microphone minus its output) is scaled by how much of it the microphone
/// actually holds, the least-squares factor α = ⟨microphone, estimate⟩ / ⟨estimate, estimate⟩
/// over the last `timeConstantMs`, clamped to 0…`limit`, and the output is the microphone minus
/// α × estimate.
///
/// With an echo the filter models, the estimate is in the microphone and α is near 1
/// (0.85–0.94 measured in double talk in the standard rooms, 48 kHz): the filter's output
/// passes nearly unchanged. Where the estimate is partly not echo — a filter misadapting while
/// the near end talks over the far end, or adapting to a path that does not exist — α falls
/// and less of the far end is injected into the uplink. It cannot fall to 0 on its own: the
/// filter fits whatever chance correlation the near end's speech has with the far end's (α ≈
/// 0.6 with no echo path at all, measured), which is why `EchoPathPresence` sets `limit` to 0
/// where no path exists. With no echo path and the near end talking over the far end, the
/// filter's output correlated 0.947 with the microphone, 0.980 with this scaling, 1 with the
/// presence gate.
///
/// The sums are energy-weighted and decay together, so α holds through the far end's pauses
/// (an estimate of zero adds nothing to either) and starts at 1 (no evidence: the filter's
/// output as is). α moves linearly across each frame, so the scaling never steps.
struct EchoEstimateScaling {
    /// Averaging time of the correlations, in milliseconds: long enough that the near end's
    /// chance correlation with the estimate averages out, short enough to follow an echo path
    /// that appears (a loudspeaker switched on).
    static let timeConstantMs = 500.0
    /// Regulariser of the ratio, in squared sample units per sample of the window: below
    /// this much estimate energy α stays near where it was.
    static let regularisation = 1.0

    private let frameCount: Int
    private let decay: Double
    private var microphoneEstimate = 0.0
    private var estimateEnergy = 0.0
    /// The factor applied at the end of the last frame.
    private(set) var factor = 1.0
    /// The least-squares factor of the last frame before `limit`: how much of the filter's
    /// estimate the microphone holds.
    private(set) var echoShare = 1.0

    init(frameCount: Int, sampleRate: Int) {
        self.frameCount = frameCount
        let frameMs = 1_000 * Double(frameCount) / Double(sampleRate)
        decay = exp(-frameMs / Self.timeConstantMs)
    }

    /// Replaces `output` (the filter's output for `microphone`) with the microphone minus the
    /// scaled estimate, the factor at most `limit` (0 where no echo path is present: the
    /// microphone as it is). `frameCount` samples each.
    mutating func apply(microphone: UnsafePointer<Int16>, output: UnsafeMutablePointer<Int16>, limit: Double = 1) {
        var cross = 0.0
        var energy = 0.0
        for index in 0..<frameCount {
            let estimate = Double(microphone[index]) - Double(output[index])
            cross += Double(microphone[index]) * estimate
            energy += estimate * estimate
        }
        microphoneEstimate = microphoneEstimate * decay + cross
        estimateEnergy = estimateEnergy * decay + energy
        // Regularised toward 1: with no estimate energy yet, the filter is trusted.
        let floor = Self.regularisation * Double(frameCount)
        echoShare = min(max((microphoneEstimate + floor) / (estimateEnergy + floor), 0), 1)
        let target = min(echoShare, limit)
        let start = factor
        let step = (target - start) / Double(frameCount)
        for index in 0..<frameCount {
            let alpha = start + step * Double(index + 1)
            let estimate = Double(microphone[index]) - Double(output[index])
            let value = (Double(microphone[index]) - alpha * estimate).rounded()
            output[index] = Int16(clamping: Int(value))
        }
        factor = target
    }

    /// Forgets the correlations (the filter was reset).
    mutating func reset() {
        microphoneEstimate = 0
        estimateEnergy = 0
        factor = 1
    }
}
