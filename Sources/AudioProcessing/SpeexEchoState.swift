// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// Owns one `SpeexEchoState` (speexdsp's MDF echo canceller): created in `init`, destroyed in
/// `deinit`. Internal: the public API is `EchoCanceller`.
final class SpeexEchoState {
    let pointer: OpaquePointer
    let frameCount: Int

    init(frameCount: Int, filterLength: Int, sampleRate: Int) throws(SpeexDSPError) {
        guard let state = speex_echo_state_init(Int32(frameCount), Int32(filterLength)) else {
            throw .stateCreationFailed(function: "speex_echo_state_init")
        }
        pointer = state
        self.frameCount = frameCount
        var rate = Int32(sampleRate)
        let code = speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        if code != 0 {
            speex_echo_state_destroy(state)
            throw .callFailed(function: "speex_echo_ctl(SPEEX_ECHO_SET_SAMPLING_RATE)", code: code)
        }
    }

    deinit { speex_echo_state_destroy(pointer) }

    /// Cancels the echo of `reference` in `microphone` into `output`; all `frameCount` samples.
    @inline(__always)
    func cancel(microphone: UnsafePointer<Int16>, reference: UnsafePointer<Int16>, output: UnsafeMutablePointer<Int16>) {
        speex_echo_cancellation(pointer, microphone, reference, output)
    }

    func reset() { speex_echo_state_reset(pointer) }

    /// Length of the adaptive filter's impulse response, in samples.
    var impulseResponseCount: Int {
        var size: Int32 = 0
        speex_echo_ctl(pointer, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &size)
        return Int(size)
    }

    /// Writes the adaptive filter's impulse response (`impulseResponseCount` values, speexdsp's
    /// scale) into `response`; speexdsp computes it by one inverse FFT per filter block.
    func impulseResponse(into response: UnsafeMutablePointer<Int32>) {
        speex_echo_ctl(pointer, SPEEX_ECHO_GET_IMPULSE_RESPONSE, response)
    }
}
