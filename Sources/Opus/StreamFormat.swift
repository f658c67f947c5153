/// Checks a sample rate and channel count before they reach libopus, so that a bad value
/// gets an error that names it instead of a bare `OPUS_BAD_ARG`.
enum StreamFormat {
    /// Sample rates libopus encodes and decodes at, in Hz.
    static func isSupported(sampleRate: Int) -> Bool {
        switch sampleRate {
        case 8000, 12000, 16000, 24000, 48000: true
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
