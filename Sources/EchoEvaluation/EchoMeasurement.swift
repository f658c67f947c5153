// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ERLE and convergence time of an echo canceller's output against its microphone signal, for
/// recordings where the microphone holds echo only (no near-end talker): the definitions behind
/// every echo figure VoiceEngine reports.
///
/// Both work on 10 ms frames and count only frames (or windows) that carry echo, so that pauses
/// in the far end's speech — where the microphone holds nothing to remove — neither inflate nor
/// deflate the figures.
public enum EchoMeasurement {
    /// Frame length of the measurement, in ms.
    public static let frameDurationMs = 10
    /// Where steady state starts, in seconds: the figures quoted as "ERLE" are measured from
    /// here to the end, after the canceller has converged.
    public static let steadyStateStartSeconds = 4
    /// A frame carries echo when its microphone energy is above this share of the loudest
    /// frame's in the measured range (1e-4: within 40 dB).
    public static let echoFrameEnergyRatio = 1e-4
    /// Length of the windows convergence is judged on, in ms.
    public static let convergenceWindowMs = 500
    /// A window counts for convergence when its microphone energy is above this share of the
    /// loudest window's (1e-3: within 30 dB); quieter ones are pauses, whose ERLE says nothing
    /// about the canceller.
    public static let convergenceWindowEnergyRatio = 1e-3
    /// The ERLE a window must reach to count as converged, in dB.
    public static let convergenceTargetDb = 20.0

    /// ERLE in dB over `range` (sample indices): the microphone's energy over the residual's,
    /// summed over the 10 ms frames in `range` that carry echo.
    public static func erle(microphone: [Int16], residual: [Int16], sampleRate: Int, range: Range<Int>) -> Double {
        let frameCount = sampleRate * frameDurationMs / 1_000
        let frames = frameEnergies(microphone, frameCount: frameCount)
        let residualFrames = frameEnergies(residual, frameCount: frameCount)
        let first = range.lowerBound / frameCount
        let last = max(first, min(frames.count, range.upperBound / frameCount))
        let loudest = frames[first..<last].max() ?? 0
        let threshold = loudest * echoFrameEnergyRatio
        var microphoneSum = 0.0
        var residualSum = 0.0
        for frame in first..<last where frames[frame] > threshold {
            microphoneSum += frames[frame]
            residualSum += residualFrames[frame]
        }
        return 10 * log10(microphoneSum / max(residualSum, 1e-3))
    }

    /// ERLE in dB from `steadyStateStartSeconds` to the end; `nil` when the recording is not
    /// longer than that.
    public static func steadyStateERLE(microphone: [Int16], residual: [Int16], sampleRate: Int) -> Double? {
        let start = steadyStateStartSeconds * sampleRate
        guard microphone.count > start + sampleRate * frameDurationMs / 1_000 else { return nil }
        return erle(microphone: microphone, residual: residual, sampleRate: sampleRate, range: start..<microphone.count)
    }

    /// Seconds until the ERLE over `convergenceWindowMs` windows reaches `targetDb` and stays
    /// there to the end: the end of the last window that carries echo and misses the target
    /// (0 when none misses), `nil` when the last window itself misses (never converged).
    public static func convergenceSeconds(microphone: [Int16], residual: [Int16], sampleRate: Int,
                                          targetDb: Double = convergenceTargetDb) -> Double? {
        let window = sampleRate * convergenceWindowMs / 1_000
        let energies = frameEnergies(microphone, frameCount: window)
        let threshold = (energies.max() ?? 0) * convergenceWindowEnergyRatio
        var lastFailure: Int? = nil
        for (index, energy) in energies.enumerated() where energy > threshold {
            let start = index * window
            let value = erle(microphone: microphone, residual: residual, sampleRate: sampleRate, range: start..<(start + window))
            if value < targetDb { lastFailure = index }
        }
        guard let lastFailure else { return 0 }
        return lastFailure + 1 < energies.count ? Double((lastFailure + 1) * window) / Double(sampleRate) : nil
    }

    /// Mean energy per sample of each whole frame of `frameCount` samples.
    static func frameEnergies(_ samples: [Int16], frameCount: Int) -> [Double] {
        stride(from: 0, to: samples.count - frameCount + 1, by: frameCount).map { start in
            var sum = 0.0
            for index in start..<(start + frameCount) { sum += Double(samples[index]) * Double(samples[index]) }
            return sum / Double(frameCount)
        }
    }
}
