// SPDX-License-Identifier: Apache-2.0
/// Sample-rate conversion of mono 16-bit audio (speexdsp's resampler): a device rate to the
/// pipeline rate, with a quality level and a fine ratio adjustment that absorbs the drift
/// between two device clocks. No allocation per call after `init`.
public final class Resampler {
    /// Speed/quality trade-off (speexdsp levels 0…10).
    public enum Quality: Int, Sendable, CaseIterable {
        /// Level 0: cheapest.
        case fastest = 0
        /// Level 3: speexdsp's recommendation for VoIP.
        case voip = 3
        /// Level 4: speexdsp's default.
        case standard = 4
        /// Level 5: desktop audio.
        case desktop = 5
        /// Level 10: best.
        case best = 10
    }

    /// Input sample rate in Hz.
    public let inputRate: Int
    /// Output sample rate in Hz.
    public let outputRate: Int
    /// The drift correction currently applied, in parts per million (positive: more output).
    public private(set) var driftPPM = 0.0
    private let state: SpeexResamplerState

    /// Creates a resampler from `inputRate` to `outputRate` (1 000–384 000 Hz).
    ///
    /// With `skipsLeadingZeros` (the default) the filter's delay is taken out of the first
    /// output, so the first calls write fewer samples than the ratio gives; without it every
    /// call writes exactly the ratio's share (a codec adapter that must fill whole frames).
    public init(inputRate: Int, outputRate: Int, quality: Quality = .voip, skipsLeadingZeros: Bool = true) throws(SpeexDSPError) {
        guard (1_000...384_000).contains(inputRate) else { throw .unsupportedSampleRate(inputRate) }
        guard (1_000...384_000).contains(outputRate) else { throw .unsupportedSampleRate(outputRate) }
        self.inputRate = inputRate
        self.outputRate = outputRate
        state = try SpeexResamplerState(inputRate: inputRate, outputRate: outputRate, quality: quality.rawValue)
        if skipsLeadingZeros { state.skipZeros() }
    }

    /// Samples of delay the filter adds, counted at the input rate.
    public var inputLatency: Int { state.inputLatency }

    /// Converts as much of `input` as fits in `output`.
    /// - Returns: input samples consumed and output samples written.
    @discardableResult
    public func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, written: Int) {
        state.process(input, into: output)
    }

    /// Adjusts the conversion ratio by `ppm` parts per million (positive: the output side
    /// runs faster, so more output per input), to follow measured clock drift. Keeps the
    /// filter state, so there is no click. `ppm` is clamped to ±10,000.
    ///
    /// The ratio is expressed over 2^16 (a resolution of about 15 ppm), and exactly as
    /// `inputRate / outputRate` at 0 ppm: speexdsp rescales its filter phase from the old
    /// denominator to the new one in 32-bit arithmetic and refuses the change (overflow) when
    /// their product exceeds 2^32 — as it did going from −250 to −100 ppm over denominators of
    /// 48,000,000.
    public func adjustRatio(ppm: Double) throws(SpeexDSPError) {
        let clamped = ppm.isFinite ? min(max(ppm, -10_000), 10_000) : 0
        // ratio = input / output; more output per input → smaller ratio.
        let numerator: UInt32, denominator: UInt32
        if clamped == 0 {
            numerator = UInt32(inputRate)
            denominator = UInt32(outputRate)
        } else {
            denominator = 1 << 16
            numerator = UInt32((Double(inputRate) / Double(outputRate) * Double(denominator) / (1 + clamped / 1_000_000)).rounded())
        }
        try state.setRate(numerator: numerator, denominator: denominator, inputRate: inputRate, outputRate: outputRate)
        driftPPM = clamped
    }

    /// Clears the filter history (a new stream).
    public func reset() { state.reset() }
}
