// SPDX-License-Identifier: Apache-2.0

/// The command line of `MinimalSoftphone`, checked before anything opens.
struct SoftphoneOptions {
    /// A command line that cannot run, and why.
    struct UsageError: Error {
        var message: String
    }

    /// Where the call's audio comes from and goes.
    enum Audio {
        /// An ALSA device, for this many seconds.
        case device(String, seconds: Double)
        /// A WAV file to send and one to record.
        case files(input: String, output: String)
    }

    var offer: String
    var answerOut: String
    var address = "127.0.0.1"
    var audio: Audio

    init(_ arguments: ArraySlice<String>) throws(UsageError) {
        var values: [String: String] = [:]
        var remaining = arguments
        while let flag = remaining.popFirst() {
            guard ["--offer", "--answer-out", "--address", "--device", "--seconds", "--input", "--output"].contains(flag) else {
                throw UsageError(message: "unknown option \(flag)")
            }
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            values[flag] = value
        }
        guard let offer = values["--offer"], let answerOut = values["--answer-out"] else {
            throw UsageError(message: "--offer and --answer-out are needed")
        }
        self.offer = offer
        self.answerOut = answerOut
        if let address = values["--address"] { self.address = address }
        switch (values["--device"], values["--input"], values["--output"]) {
        case let (device?, nil, nil):
            let seconds = values["--seconds"].map { Double($0) } ?? 10
            guard let seconds, seconds.isFinite, seconds > 0, seconds <= 36_000 else {
                throw UsageError(message: "--seconds needs a duration in seconds, more than 0 and at most 36000")
            }
            audio = .device(device, seconds: seconds)
        case let (nil, input?, output?):
            audio = .files(input: input, output: output)
        default:
            throw UsageError(message: "give --device NAME, or --input IN.wav and --output OUT.wav")
        }
    }
}
