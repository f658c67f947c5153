// SPDX-License-Identifier: Apache-2.0
/// The share of the echo that the linear filter leaves in its output, per bin: the residual
/// echo is this leak × the echo expected at the microphone. 1 (nothing removed) until the
/// filter shows it works.
///
/// Learnt as the smoothed ratio of the filter's output power to the microphone's, only where
/// that ratio measures the filter: where the bin holds echo alone (`EchoPowerModel`'s margin)
/// or the whole frame is echo only. Elsewhere near-end speech, which the filter passes, would
/// count as leak.
///
/// Why rises are followed almost at once (`riseSmoothing`) and falls slowly (`fallSmoothing`):
/// speexdsp's output jumps when it misadapts, as it does in some reverberant rooms; a stale
/// small leak would let that echo through while a slow average caught up. An improving filter
/// is trusted gradually.
final class EchoLeakEstimate {
    /// Weight of the past per frame when the leak falls (the filter got better).
    static let fallSmoothing: Float = 0.8
    /// Weight of the past per frame when the leak rises (the filter got worse).
    static let riseSmoothing: Float = 0.2

    /// Number of bins.
    let binCount: Int
    /// The leak per bin, 0…1.
    let leak: UnsafeMutablePointer<Float>

    /// An estimate for `binCount` bins, starting at 1.
    init(binCount: Int) {
        self.binCount = binCount
        leak = .allocate(capacity: binCount, filledWith: 1)
    }

    deinit { leak.deallocate() }

    /// Back to 1 in every bin: the linear filter was reset.
    func forget() { leak.update(repeating: 1, count: binCount) }

    /// Learns from this frame's smoothed `microphonePower` and linear filter `outputPower`,
    /// where the bin holds echo alone given `predictedEcho`, or everywhere in an echo-only frame.
    func update(microphonePower: UnsafePointer<Float>, outputPower: UnsafePointer<Float>,
                predictedEcho: UnsafePointer<Float>, echoOnlyFrame: Bool) {
        for bin in 0..<binCount {
            let predicted = predictedEcho[bin]
            let echoAlone = EchoPowerModel.isEchoAlone(microphonePower: microphonePower[bin], predictedEcho: predicted)
            guard (echoAlone || echoOnlyFrame) && predicted > 1e-9 else { continue }
            let fraction = min(1, outputPower[bin] / max(microphonePower[bin], 1e-12))
            let smoothing = fraction > leak[bin] ? Self.riseSmoothing : Self.fallSmoothing
            leak[bin] = smoothing * leak[bin] + (1 - smoothing) * fraction
        }
    }
}
