// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

extension EchoCanceller {
    /// Runs the canceller frame by frame over a whole recording: `microphone` (what the
    /// microphone heard) and `farEnd` (what was played, sample-aligned with it as played; zeros
    /// where it is shorter). Returns the output, as long as `microphone`: as the canceller
    /// produces it (`latencySamples` late), with a trailing partial frame left at zero.
    ///
    /// Offline: allocates the output (and a padded far end when `farEnd` is short).
    public func processRecording(microphone: [Int16], farEnd: [Int16]) -> [Int16] {
        let frames = microphone.count / frameCount
        let far = farEnd.count >= frames * frameCount
            ? farEnd : farEnd + [Int16](repeating: 0, count: frames * frameCount - farEnd.count)
        var output = [Int16](repeating: 0, count: microphone.count)
        microphone.withUnsafeBufferPointer { microphone in
            far.withUnsafeBufferPointer { far in
                output.withUnsafeMutableBufferPointer { output in
                    for frame in 0..<frames {
                        let range = (frame * frameCount)..<((frame + 1) * frameCount)
                        process(microphone: UnsafeBufferPointer(rebasing: microphone[range]),
                                farEnd: UnsafeBufferPointer(rebasing: far[range]),
                                output: UnsafeMutableBufferPointer(rebasing: output[range]))
                    }
                }
            }
        }
        return output
    }
}
