import AudioProcessing
import TestSupport

/// One echo test case: far-end speech through an `EchoPath` into the microphone, optionally
/// with near-end speech on top, run frame by frame through an `EchoCanceller`.
struct EchoScenario {
    static let sampleRate = 16_000
    static let frameCount = 160
    /// The far-end talker at 16 kHz (loaded once).
    static let farEnd: [Int16] = (try? SpeechFixture.samples(SpeechFixture.alice)) ?? []
    /// The near-end talker at 16 kHz (loaded once).
    static let nearEnd: [Int16] = (try? SpeechFixture.samples(SpeechFixture.bob)) ?? []

    var far: [Int16]
    var echo: [Int16]
    var near: [Int16]

    var microphone: [Int16] {
        zip(echo, near).map { Int16(clamping: Int($0) + Int($1)) }
    }

    init(path: EchoPath, far: [Int16] = EchoScenario.farEnd, near: [Int16]? = nil) {
        self.far = far
        echo = path.echo(of: far)
        self.near = near.map { Array($0.prefix(far.count)) + [Int16](repeating: 0, count: max(0, far.count - $0.count)) }
            ?? [Int16](repeating: 0, count: far.count)
    }

    /// Runs `canceller` over the whole signal; returns its output.
    static func run(_ canceller: EchoCanceller, microphone: [Int16], far: [Int16]) -> [Int16] {
        let frameCount = canceller.frameCount
        var output = [Int16](repeating: 0, count: microphone.count)
        let frames = microphone.count / frameCount
        microphone.withUnsafeBufferPointer { mic in
            far.withUnsafeBufferPointer { farBuffer in
                output.withUnsafeMutableBufferPointer { out in
                    for frame in 0..<frames {
                        let range = (frame * frameCount)..<((frame + 1) * frameCount)
                        canceller.process(microphone: UnsafeBufferPointer(rebasing: mic[range]),
                                          farEnd: UnsafeBufferPointer(rebasing: farBuffer[range]),
                                          output: UnsafeMutableBufferPointer(rebasing: out[range]))
                    }
                }
            }
        }
        return output
    }
}
