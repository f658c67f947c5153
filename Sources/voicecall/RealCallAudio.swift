import AudioDevices
import AudioProcessing
import Foundation

/// The WAV files of a real call: the input read as 48 kHz mono (what the engine sends),
/// the received audio written as 48 kHz mono.
enum RealCallAudio {
    /// The engine's sample rate.
    static let sampleRate = 48_000

    /// `path` as 48 kHz mono: channels averaged, other rates resampled.
    static func readInput(_ path: String) throws(RealCallFailure) -> [Int16] {
        let audio: WAVAudio
        do {
            audio = try WAVAudio(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .file("cannot read --input \(path): \(error)")
        }
        guard audio.channelCount > 0, audio.sampleRate > 0 else { throw .file("--input \(path) has no audio") }
        var mono = [Int16](repeating: 0, count: audio.frameCount)
        for frame in 0..<audio.frameCount {
            var sum = 0
            for channel in 0..<audio.channelCount { sum += Int(audio.samples[frame * audio.channelCount + channel]) }
            mono[frame] = Int16(sum / audio.channelCount)
        }
        guard audio.sampleRate != sampleRate else { return mono }
        guard (8_000...192_000).contains(audio.sampleRate) else {
            throw .file("--input \(path) is at \(audio.sampleRate) Hz; 8000…192000 Hz can be resampled")
        }
        return try resample(mono, from: audio.sampleRate)
    }

    /// Writes `samples` (48 kHz mono) to `path`.
    static func writeOutput(_ samples: [Int16], to path: String) throws(RealCallFailure) {
        do {
            try WAVAudio(sampleRate: sampleRate, channelCount: 1, samples: samples).write(to: URL(fileURLWithPath: path))
        } catch {
            throw .file("cannot write --output \(path): \(error)")
        }
    }

    /// Checks early that `path` can be written, so a call does not run only to lose its
    /// recording at the end.
    static func checkWritable(_ path: String) throws(RealCallFailure) {
        let url = URL(fileURLWithPath: path)
        let existed = FileManager.default.fileExists(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: existed ? try? Data(contentsOf: url) : Data()) else {
            throw .file("cannot write --output \(path): the directory is missing or not writable")
        }
        // The probe leaves nothing behind: a call that fails writes no empty recording.
        if !existed { try? FileManager.default.removeItem(at: url) }
    }

    private static func resample(_ input: [Int16], from rate: Int) throws(RealCallFailure) -> [Int16] {
        let resampler: Resampler
        do {
            resampler = try Resampler(inputRate: rate, outputRate: sampleRate)
        } catch {
            throw .failed("resampler: \(error)")
        }
        var output = [Int16](repeating: 0, count: input.count * sampleRate / rate + 1_024)
        var consumed = 0
        var written = 0
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                while consumed < source.count && written < target.count {
                    let step = resampler.process(UnsafeBufferPointer(rebasing: source[consumed...]),
                                                 into: UnsafeMutableBufferPointer(rebasing: target[written...]))
                    if step.consumed == 0 && step.written == 0 { break }
                    consumed += step.consumed
                    written += step.written
                }
            }
        }
        return Array(output[..<written])
    }
}
