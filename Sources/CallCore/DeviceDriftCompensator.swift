// SPDX-License-Identifier: Apache-2.0
/// Keeps the microphone on the loudspeaker's clock when the two run on different crystals (a
/// USB microphone and HDMI speakers, a Bluetooth headset, two cards): without it the echo
/// canceller's reference and the microphone slide apart — 100 ppm is 360 ms an hour, beyond
/// any canceller's reach — and the mixer's reference queue overflows or runs dry.
///
/// It watches the lag between the two sides inside the mixer — samples the loudspeaker has
/// taken minus samples the microphone has given, both at the calls' rate — after every
/// capture. On one clock that lag, averaged over a second, stays where it started; a lag
/// that climbs means the microphone delivers fewer samples than the speaker plays. A
/// proportional–integral loop turns the lag's error beyond a dead band of one 10 ms period
/// into a resampling correction for the capture side, in ppm (positive: more capture output
/// per input).
///
/// The dead band matters more than the gains: the correction resamples the microphone the
/// echo canceller adapts to, and a ratio that keeps moving makes the echo path move with it
/// (on PulseAudio's bursty loopback, a loop without one wandered ±100 ppm on one clock and
/// the canceller never converged). Inside the band — one clock, however bursty the device —
/// the correction stays exactly 0. The lag is only seen in steps of a device period, so the
/// gains are low: a simulation of the loop with that quantisation and ±1-period noise kept
/// the correction at 0 on one clock, and at 100 and ±600 ppm of drift held the lag within
/// 17 ms, the correction within 15 % of the drift and changing every few seconds. A
/// constant drift is cancelled by the integral term, so the lag stays bounded however long
/// the call. A pure value, fed on the audio thread.
struct DeviceDriftCompensator: Sendable, Equatable {
    /// Correction per sample of lag error, in ppm.
    static let proportionalGain = 0.5
    /// Correction per sample-second of accumulated error, in ppm.
    static let integralGain = 0.01
    /// The largest correction applied, in ppm (1,000 ppm is 0.1 %: a pitch change nobody
    /// hears; crystals are specified to ±100 ppm or better).
    static let maximumCorrectionPpm = 1_000.0

    /// Windows skipped before the lag is learnt: a device's first second is bursty.
    static let settlingWindows = 2

    /// Samples captured per update (one second).
    let windowSamples: Int
    /// Lag error ignored, in samples (one 10 ms period).
    let deadBandSamples: Double
    private var windowsSeen = 0
    private var lagSum = 0.0
    private var lagCount = 0
    private var samplesInWindow = 0
    /// The lag the loop holds, learnt from the first window (and again after a restart).
    private var targetLag: Double?
    private var integral = 0.0
    /// The correction applied now, in ppm.
    private(set) var correctionPpm = 0.0
    /// The last window's lag error, in samples.
    private(set) var lagErrorSamples = 0.0

    /// A compensator updating once per second at `sampleRate`.
    init(sampleRate: Int) {
        windowSamples = max(1, sampleRate)
        deadBandSamples = Double(sampleRate) / 100
    }

    /// Takes the lag seen after a capture of `capturedSamples` samples; returns the new
    /// correction when a second's window closes.
    mutating func observe(lagSamples: Double, capturedSamples: Int) -> Double? {
        guard lagSamples.isFinite else { return nil }
        lagSum += lagSamples
        lagCount += 1
        samplesInWindow += max(capturedSamples, 0)
        guard samplesInWindow >= windowSamples else { return nil }
        let windowSeconds = Double(samplesInWindow) / Double(windowSamples)
        let mean = lagSum / Double(lagCount)
        lagSum = 0
        lagCount = 0
        samplesInWindow = 0
        windowsSeen += 1
        guard windowsSeen > Self.settlingWindows else { return nil }
        guard let targetLag else {
            targetLag = mean
            return nil
        }
        lagErrorSamples = mean - targetLag
        let beyondBand = lagErrorSamples > deadBandSamples ? lagErrorSamples - deadBandSamples
            : lagErrorSamples < -deadBandSamples ? lagErrorSamples + deadBandSamples : 0
        // Anti-windup: the integral alone never asks for more than the largest correction.
        let integralLimit = Self.maximumCorrectionPpm / Self.integralGain
        integral = min(max(integral + beyondBand * windowSeconds, -integralLimit), integralLimit)
        let correction = Self.proportionalGain * beyondBand + Self.integralGain * integral
        guard correction != correctionPpm else { return nil }
        correctionPpm = min(max(correction, -Self.maximumCorrectionPpm), Self.maximumCorrectionPpm)
        return correctionPpm
    }

    /// Learns the lag again (the device restarted: the queues were emptied); the clocks did not
    /// change, so the correction and its integral stay.
    mutating func restart() {
        targetLag = nil
        windowsSeen = 0
        lagSum = 0
        lagCount = 0
        samplesInWindow = 0
    }
}
