// SPDX-License-Identifier: Apache-2.0
import EchoEvaluation
import TestSupport

/// One echo test case: far-end speech through an `EchoPath` into the microphone, optionally
/// with near-end speech on top (run it with `EchoCanceller.processRecording`).
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

    /// ERLE of `output` against `microphone` in steady state (`EchoMeasurement`: from 4 s on,
    /// over frames carrying echo); −∞ when the signal is too short to have one.
    static func erle(_ microphone: [Int16], _ output: [Int16]) -> Double {
        EchoMeasurement.steadyStateERLE(microphone: microphone, residual: output, sampleRate: sampleRate) ?? -.infinity
    }
}
