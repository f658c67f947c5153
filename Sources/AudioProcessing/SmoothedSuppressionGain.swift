// SPDX-License-Identifier: Apache-2.0
/// The suppression gains actually applied: the gain rule's raw gains per bin smoothed over
/// frequency (3 taps, ¼ ½ ¼) and, when they rise, over time. Both against musical noise —
/// isolated bins whose gain flickers from frame to frame sound like tones. Falling gains act
/// at once so echo onsets do not leak.
///
/// How slowly a gain rises back depends on the frame: quickly while the near end talks
/// (`releaseSmoothing`), since a slow release costs near-end speech onsets; slowly in
/// echo-only frames (`echoOnlyReleaseSmoothing`), where nothing is worth keeping and a slow
/// release holds the gain down through the gaps in a distorting loudspeaker's echo.
final class SmoothedSuppressionGain {
    /// Number of bins.
    let binCount: Int
    /// The gain rule's gains of this frame, written by the caller before `smooth`.
    let raw: UnsafeMutablePointer<Float>
    /// The smoothed gains, to apply.
    let gain: UnsafeMutablePointer<Float>
    /// Weight of the past per frame when a gain rises while the near end talks (0: at once).
    var releaseSmoothing: Float = 0.2
    /// Weight of the past per frame when a gain rises in an echo-only frame.
    var echoOnlyReleaseSmoothing: Float = 0.8

    /// Gains for `binCount` bins, all 1.
    init(binCount: Int) {
        self.binCount = binCount
        raw = .allocate(capacity: binCount, filledWith: 0)
        gain = .allocate(capacity: binCount, filledWith: 1)
    }

    deinit {
        raw.deallocate()
        gain.deallocate()
    }

    /// Back to 1 in every bin.
    func reset() { gain.update(repeating: 1, count: binCount) }

    /// Smooths `raw` into `gain`, releasing at the near-end rate when `nearEndActive`.
    func smooth(nearEndActive: Bool) {
        let release = nearEndActive ? releaseSmoothing : echoOnlyReleaseSmoothing
        for bin in 0..<binCount {
            let low = raw[max(0, bin - 1)], high = raw[min(binCount - 1, bin + 1)]
            let smoothed = 0.25 * low + 0.5 * raw[bin] + 0.25 * high
            gain[bin] = smoothed < gain[bin] ? smoothed : release * gain[bin] + (1 - release) * smoothed
        }
    }
}
