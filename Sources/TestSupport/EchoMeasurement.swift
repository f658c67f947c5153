/// Echo-quality figures over whole signals, framed in `frameCount`-sample frames.
public enum EchoMeasurement {
    /// ERLE in dB over `range`: microphone energy over residual energy, counting only frames
    /// where the microphone is within 40 dB of its loudest frame (echo present).
    public static func erle(microphone: [Int16], residual: [Int16], frameCount: Int, range: Range<Int>) -> Double {
        let frames = frameEnergies(microphone, frameCount: frameCount)
        let residualFrames = frameEnergies(residual, frameCount: frameCount)
        let first = range.lowerBound / frameCount
        let last = min(frames.count, range.upperBound / frameCount)
        let loudest = frames[first..<last].max() ?? 0
        var micSum = 0.0
        var residualSum = 0.0
        for frame in first..<last where frames[frame] > loudest * 1e-4 {
            micSum += frames[frame]
            residualSum += residualFrames[frame]
        }
        return 10 * log10(micSum / max(residualSum, 1e-3))
    }

    /// Seconds until the ERLE over 500 ms windows reaches `targetDb` and stays there to the end
    /// (`nil`: never). Windows more than 30 dB below the loudest (pauses) do not count: their
    /// ERLE says nothing about the filter.
    public static func convergenceSeconds(microphone: [Int16], residual: [Int16], sampleRate: Int, targetDb: Double) -> Double? {
        let window = sampleRate / 2
        let energies = frameEnergies(microphone, frameCount: window)
        let loudest = energies.max() ?? 0
        var lastFailure: Int? = nil
        for (index, energy) in energies.enumerated() where energy > loudest * 1e-3 {
            let start = index * window
            let value = erle(microphone: microphone, residual: residual, frameCount: sampleRate / 100, range: start..<(start + window))
            if value < targetDb { lastFailure = index }
        }
        guard let lastFailure else { return 0 }
        return lastFailure + 1 < energies.count ? Double((lastFailure + 1) * window) / Double(sampleRate) : nil
    }

    /// Mean energy per frame.
    static func frameEnergies(_ samples: [Int16], frameCount: Int) -> [Double] {
        stride(from: 0, to: samples.count - frameCount + 1, by: frameCount).map { start in
            var sum = 0.0
            for index in start..<(start + frameCount) { sum += Double(samples[index]) * Double(samples[index]) }
            return sum / Double(frameCount)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
