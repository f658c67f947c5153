// SPDX-License-Identifier: Apache-2.0
extension AudioSession {
    /// What the session asks of the hardware; requests, applied at activation. The actual
    /// values are read back afterwards (`AudioSession.hardware`) and may differ.
    public struct Preferences: Sendable, Equatable {
        /// Device sample rate in Hz (8–192 kHz), or nil for the engine's own.
        public var sampleRate: Double?
        /// I/O buffer duration (the device period) in seconds (1–100 ms), or nil for the engine's own.
        public var ioBufferDuration: Double?
        /// Input channels (1–2), or nil. The engine runs mono: the actual count is 1.
        public var inputNumberOfChannels: Int?
        /// Output channels (1–2), or nil. The engine runs mono: the actual count is 1.
        public var outputNumberOfChannels: Int?

        /// No preference.
        public init(sampleRate: Double? = nil, ioBufferDuration: Double? = nil,
                    inputNumberOfChannels: Int? = nil, outputNumberOfChannels: Int? = nil) {
            self.sampleRate = sampleRate
            self.ioBufferDuration = ioBufferDuration
            self.inputNumberOfChannels = inputNumberOfChannels
            self.outputNumberOfChannels = outputNumberOfChannels
        }

        static let sampleRateRange = 8_000.0...192_000.0
        static let ioBufferDurationRange = 0.001...0.1
        static let channelRange = 1.0...2.0

        /// Refuses a value outside its range (NaN and infinities included), naming it.
        func validate() throws(AudioSessionError) {
            func check(_ name: String, _ value: Double?, _ range: ClosedRange<Double>) throws(AudioSessionError) {
                guard let value else { return }
                guard value.isFinite, range.contains(value) else { throw .preferenceOutOfRange(name: name, value: value, range: range) }
            }
            try check("sampleRate", sampleRate, Self.sampleRateRange)
            try check("ioBufferDuration", ioBufferDuration, Self.ioBufferDurationRange)
            try check("inputNumberOfChannels", inputNumberOfChannels.map(Double.init), Self.channelRange)
            try check("outputNumberOfChannels", outputNumberOfChannels.map(Double.init), Self.channelRange)
        }
    }

    /// What the hardware runs with after activation.
    public struct Hardware: Sendable, Equatable {
        /// Device sample rate, Hz.
        public var sampleRate: Double
        /// Device period, seconds.
        public var ioBufferDuration: Double
        /// Input channels.
        public var inputNumberOfChannels: Int
        /// Output channels.
        public var outputNumberOfChannels: Int

        /// Values as read back from the device.
        public init(sampleRate: Double, ioBufferDuration: Double, inputNumberOfChannels: Int, outputNumberOfChannels: Int) {
            self.sampleRate = sampleRate
            self.ioBufferDuration = ioBufferDuration
            self.inputNumberOfChannels = inputNumberOfChannels
            self.outputNumberOfChannels = outputNumberOfChannels
        }
    }
}
