// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import CSpeexDSP
import Glibc
import Testing
import TestSupport

/// The VAD decides as speexdsp's own does, and a library prints nothing on its own: speexdsp's
/// VAD switch writes "The VAD has been replaced by a hack…" to stderr each time it is set (26
/// times in a demo run before).
@Suite struct VoiceActivityTests {
    static let rate = 16_000

    /// Every byte written to the process's stderr while `body` runs.
    static func stderrText(during body: () throws -> Void) throws -> String {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let saved = dup(STDERR_FILENO)
        fflush(nil)
        dup2(ends[1], STDERR_FILENO)
        close(ends[1])
        // The read end must not block once the writers are gone.
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        defer { close(ends[0]) }
        do {
            try body()
        } catch {
            fflush(nil)
            dup2(saved, STDERR_FILENO)
            close(saved)
            throw error
        }
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = read(ends[0], &chunk, chunk.count)
            if count <= 0 { break }
            text += chunk[0..<count]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A voiceChat processor, made, switched and run as a call does, writes nothing to stderr.
    /// (Another test's output in this window would be caught too: only speexdsp's words count.)
    @Test func aVoiceChatProcessorPrintsNothing() throws {
        let text = try Self.stderrText {
            let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .voiceChat)
            try processor.setConfiguration(.off)
            try processor.setConfiguration(.voiceChat)
            _ = VoiceProcessorTests.run(processor, microphone: EchoScenario.farEnd)
        }
        #expect(!text.contains("VAD"), "stderr: \(text)")
        #expect(!text.contains("warning:"), "stderr: \(text)")
    }

    /// Frame for frame, the VAD says what speexdsp's own VAD says with its default thresholds
    /// on the same audio (noise to learn from, then speech, then noise), processed alike.
    @Test func theDecisionIsSpeexdspsOwn() throws {
        let audio = VoiceProcessorTests.noise(count: 2 * Self.rate, amplitude: 30, seed: 2) + EchoScenario.farEnd
            + VoiceProcessorTests.noise(count: Self.rate, amplitude: 300, seed: 3)
        let frameCount = 160
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .init(voiceActivityDetection: true))
        let reference = try #require(speex_preprocess_state_init(Int32(frameCount), Int32(Self.rate)))
        defer { speex_preprocess_state_destroy(reference) }
        var on: Int32 = 1, off: Int32 = 0
        _ = speex_preprocess_ctl(reference, SPEEX_PREPROCESS_SET_DENOISE, &off)
        _ = speex_preprocess_ctl(reference, SPEEX_PREPROCESS_SET_AGC, &off)
        _ = try Self.stderrText { _ = speex_preprocess_ctl(reference, SPEEX_PREPROCESS_SET_VAD, &on) }
        var ours: [Bool] = [], theirs: [Bool] = []
        var frame = [Int16](repeating: 0, count: frameCount), output = frame
        let silence = [Int16](repeating: 0, count: frameCount)
        for start in stride(from: 0, to: audio.count - frameCount + 1, by: frameCount) {
            frame = Array(audio[start..<(start + frameCount)])
            frame.withUnsafeBufferPointer { mic in
                silence.withUnsafeBufferPointer { far in
                    output.withUnsafeMutableBufferPointer { out in
                        ours.append(processor.process(microphone: mic, farEnd: far, output: out))
                    }
                }
            }
            theirs.append(frame.withUnsafeMutableBufferPointer { speex_preprocess_run(reference, $0.baseAddress!) != 0 })
        }
        let differing = zip(ours, theirs).filter { $0 != $1 }.count
        #expect(ours.contains(true) && ours.contains(false), "the audio has speech and pauses")
        // Our thresholds meet speexdsp's whole percent: only a probability within 1 % of a
        // threshold may be decided otherwise.
        #expect(differing <= ours.count / 100, "\(differing) of \(ours.count) frames decided otherwise")
    }
}
