// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import EchoEvaluation
import Testing
import TestSupport

/// How the canceller decides whether there is an echo at all when both ends talk from the
/// first word — a headset call answered at once, a WebRTC peer — as `benchmarks processing`
/// runs it (48 kHz, 10 ms frames, the speech fixtures): the microphone passes untouched while
/// nothing shows a path, and a real echo talked over is found by the linear filter's shape.
@Suite struct EchoPathEvidenceTests {
    static let rate = 48_000
    static let frame = 480

    /// Alice talks over Bob from the first word for `seconds`, Bob's voice reaching her
    /// microphone through `path` (nil: a headset). Returns what the canceller output and
    /// whether the path was present, frame by frame.
    static func doubleTalk(path: EchoPath?, seconds: Int) throws -> (canceller: EchoCanceller, microphone: [Int16],
                                                                     output: [Int16], present: [Bool]) {
        let count = seconds * rate
        let alice = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: rate)
        let bob = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: rate)
        func looped(_ samples: [Int16]) -> [Int16] { (0..<count).map { samples[$0 % samples.count] } }
        let near = looped(alice), far = looped(bob)
        let echo = path?.echo(of: far) ?? [Int16](repeating: 0, count: count)
        let microphone = zip(near, echo).map { Int16(clamping: Int($0) + Int($1)) }
        let canceller = try EchoCanceller(configuration: .init(sampleRate: rate, frameDurationMs: 10))
        var output = [Int16](repeating: 0, count: count)
        var present: [Bool] = []
        microphone.withUnsafeBufferPointer { microphone in
            far.withUnsafeBufferPointer { far in
                output.withUnsafeMutableBufferPointer { output in
                    for start in stride(from: 0, to: count - frame + 1, by: frame) {
                        let range = start..<(start + frame)
                        canceller.process(microphone: UnsafeBufferPointer(rebasing: microphone[range]),
                                          farEnd: UnsafeBufferPointer(rebasing: far[range]),
                                          output: UnsafeMutableBufferPointer(rebasing: output[range]))
                        present.append(canceller.echoPathPresent)
                    }
                }
            }
        }
        return (canceller, microphone, output, present)
    }

    /// No echo path, both talking from the first word: the canceller never takes the path for
    /// present, and its output is the microphone itself, its latency late, from the first
    /// frame — not the far end subtracted through a filter fitted to chance (the first 8 s
    /// scored PESQ 1.85 when the path started present) — and the path is decided absent
    /// within the first 3 s (the filter's settled shape: spread).
    @Test func doubleTalkWithoutAnEchoPassesTheMicrophone() throws {
        let run = try Self.doubleTalk(path: nil, seconds: 8)
        let firstPresent = run.present.firstIndex(of: true)
        #expect(firstPresent == nil, "present at frame \(firstPresent ?? -1)")
        #expect(run.canceller.echoPathDecided)
        let latency = run.canceller.latencySamples
        var worst = 0
        for index in 0..<(run.microphone.count - latency) {
            worst = max(worst, abs(Int(run.output[index + latency]) - Int(run.microphone[index])))
        }
        #expect(worst <= 2, "the output differs from the microphone by up to \(worst)")
    }

    /// A room's echo (120 ms, −6 dB, RT60 300 ms) under Alice's speech from the first word: the
    /// correlation stays at 0.2–0.3, but the linear filter converges to the room's response,
    /// and that shows the path within 3 s. Once converged, the alignment holds: a chance peak
    /// between the two talkers at 0.3 (at ~330 ms, 4.5 s in) used to move it and throw the
    /// echo out of the filter for the rest of the call.
    @Test func anEchoTalkedOverIsFoundAndItsAlignmentHeld() throws {
        let run = try Self.doubleTalk(path: EchoRoom.standard[1].path(sampleRate: Self.rate), seconds: 16)
        let onset = try #require(run.present.firstIndex(of: true), "the path never present")
        #expect(onset <= 300, "present after \(onset * 10) ms")
        let lost = run.present[onset...].firstIndex(of: false)
        #expect(lost == nil, "the path lost again at frame \(lost ?? -1)")
        #expect(run.canceller.alignmentChanges == 1)
        #expect((90...110).contains(run.canceller.alignmentDelayMs), "aligned at \(run.canceller.alignmentDelayMs) ms")
    }
}
