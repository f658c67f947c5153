// SPDX-License-Identifier: Apache-2.0
/// The sample rates and frame durations libopus accepts: the one place that knows them, so
/// every layer above (pipelines, jitter buffer, SDP) checks a value the same way and a bad
/// value gets an error that names it instead of a bare `OPUS_BAD_ARG`.
public enum OpusStreamFormat {
    /// Sample rates libopus encodes and decodes at, in Hz.
    /// Whether libopus encodes and decodes at `sampleRate` Hz.
    public static func isSupported(sampleRate: Int) -> Bool {
        switch sampleRate {
        case 8000, 12000, 16000, 24000, 48000: true
        default: false
        }
    }

    /// Whether `milliseconds` is a packet time a call sends as one Opus frame: 10, 20, 40 or
    /// 60 ms (2.5 and 5 ms are CELT-only and too costly in headers for voice calls).
    public static func isSupported(packetTimeMs milliseconds: Int) -> Bool {
        switch milliseconds {
        case 10, 20, 40, 60: true
        default: false
        }
    }

    static func validate(sampleRate: Int, channels: Int, function: String) throws(OpusError) {
        guard isSupported(sampleRate: sampleRate) else {
            throw OpusError(
                code: .badArgument, function: function,
                detail: "sample rate \(sampleRate) Hz is not one of 8000, 12000, 16000, 24000, 48000")
        }
        guard channels == 1 || channels == 2 else {
            throw OpusError(
                code: .badArgument, function: function,
                detail: "channel count \(channels) is not 1 or 2")
        }
    }
}
