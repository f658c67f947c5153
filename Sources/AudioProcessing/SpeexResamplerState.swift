// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// Owns one mono `SpeexResamplerState`: created in `init`, destroyed in `deinit`. Internal:
/// the public API is `Resampler`.
final class SpeexResamplerState {
    let pointer: OpaquePointer

    init(inputRate: Int, outputRate: Int, quality: Int) throws(SpeexDSPError) {
        var error: Int32 = 0
        guard let state = speex_resampler_init(1, UInt32(inputRate), UInt32(outputRate), Int32(quality), &error) else {
            throw .callFailed(function: "speex_resampler_init", code: error)
        }
        pointer = state
    }

    deinit { speex_resampler_destroy(pointer) }

    /// Resamples; returns (input consumed, output written).
    func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, written: Int) {
        var inputLength = UInt32(input.count)
        var outputLength = UInt32(output.count)
        _ = speex_resampler_process_int(pointer, 0, input.baseAddress, &inputLength, output.baseAddress, &outputLength)
        return (Int(inputLength), Int(outputLength))
    }

    func setRate(numerator: UInt32, denominator: UInt32, inputRate: Int, outputRate: Int) throws(SpeexDSPError) {
        let code = speex_resampler_set_rate_frac(pointer, numerator, denominator, UInt32(inputRate), UInt32(outputRate))
        if code != 0 { throw .callFailed(function: "speex_resampler_set_rate_frac", code: code) }
    }

    var inputLatency: Int { Int(speex_resampler_get_input_latency(pointer)) }

    func skipZeros() { _ = speex_resampler_skip_zeros(pointer) }

    func reset() { _ = speex_resampler_reset_mem(pointer) }
}
