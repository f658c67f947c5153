// SPDX-License-Identifier: Apache-2.0
/// Audio level and energy of a signal as the W3C WebRTC statistics define them: `audioLevel`
/// is the peak magnitude over the last 100 ms on a 0…1 scale, `totalAudioEnergy` accumulates
/// (sample / full scale)² × sample duration. Allocation-free.
struct AudioLevelMeter {
    private let sampleRate: Double
    private let windowSamples: Int
    private var windowPeak: Int32 = 0
    private var samplesInWindow = 0
    /// Peak of the last completed window, 0…1.
    private(set) var audioLevel = 0.0
    /// Σ (sample / 32 768)² / sampleRate.
    private(set) var totalAudioEnergy = 0.0
    /// Seconds measured.
    private(set) var totalSamplesDuration = 0.0

    init(sampleRate: Int) {
        self.sampleRate = Double(sampleRate)
        windowSamples = max(1, sampleRate / 10)
    }

    /// Measures one block of samples.
    mutating func measure(_ samples: UnsafeBufferPointer<Int16>) {
        var energy: Int64 = 0
        for sample in samples {
            let value = Int32(sample)
            energy += Int64(value * value)
            windowPeak = max(windowPeak, abs(value))
            samplesInWindow += 1
            if samplesInWindow == windowSamples {
                audioLevel = Double(windowPeak) / 32_767
                windowPeak = 0
                samplesInWindow = 0
            }
        }
        totalAudioEnergy += Double(energy) / (32_768.0 * 32_768.0) / sampleRate
        totalSamplesDuration += Double(samples.count) / sampleRate
    }
}
