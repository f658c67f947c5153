// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// Owns one `SpeexPreprocessState` (noise suppression, AGC, speech probability, residual echo suppression):
/// created in `init`, destroyed in `deinit`. Internal: the public API is `VoiceProcessor` and
/// `EchoCanceller`.
final class SpeexPreprocessState {
    let pointer: OpaquePointer
    let frameCount: Int

    init(frameCount: Int, sampleRate: Int) throws(SpeexDSPError) {
        guard let state = speex_preprocess_state_init(Int32(frameCount), Int32(sampleRate)) else {
            throw .stateCreationFailed(function: "speex_preprocess_state_init")
        }
        pointer = state
        self.frameCount = frameCount
    }

    deinit { speex_preprocess_state_destroy(pointer) }

    /// Sets an `Int32` parameter (`SPEEX_PREPROCESS_SET_*`).
    func set(_ request: Int32, _ value: Int32, name: String) throws(SpeexDSPError) {
        var value = value
        let code = speex_preprocess_ctl(pointer, request, &value)
        if code != 0 { throw .callFailed(function: "speex_preprocess_ctl(\(name))", code: code) }
    }

    /// Sets a `Float` parameter (`SPEEX_PREPROCESS_SET_AGC_LEVEL`).
    func setFloat(_ request: Int32, _ value: Float, name: String) throws(SpeexDSPError) {
        var value = value
        let code = speex_preprocess_ctl(pointer, request, &value)
        if code != 0 { throw .callFailed(function: "speex_preprocess_ctl(\(name))", code: code) }
    }

    /// Switches the AGC on or off for the following frames (per frame on the real-time path:
    /// no allocation, no error — the request is always valid). Off, speexdsp neither applies
    /// nor adapts its gain, so on again resumes with the gain it had.
    func setAGCEnabled(_ enabled: Bool) {
        var value: Int32 = enabled ? 1 : 0
        _ = speex_preprocess_ctl(pointer, SPEEX_PREPROCESS_SET_AGC, &value)
    }

    /// Links the echo state whose residual echo this preprocessor suppresses (`nil`: none).
    func setEchoState(_ echo: SpeexEchoState?) {
        _ = speex_preprocess_ctl(pointer, SPEEX_PREPROCESS_SET_ECHO_STATE, echo.map { UnsafeMutableRawPointer($0.pointer) })
    }

    /// Processes `frameCount` samples in place (speexdsp's own VAD stays off: see
    /// `VoiceActivityGate`).
    @inline(__always)
    func run(_ samples: UnsafeMutablePointer<Int16>) {
        _ = speex_preprocess_run(pointer, samples)
    }

    /// The last frame's speech probability in whole percent (0–100), computed by every `run`.
    @inline(__always)
    var speechProbabilityPercent: Int32 {
        var percent: Int32 = 0
        _ = speex_preprocess_ctl(pointer, SPEEX_PREPROCESS_GET_PROB, &percent)
        return percent
    }
}
