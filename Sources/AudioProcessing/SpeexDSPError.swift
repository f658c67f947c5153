// SPDX-License-Identifier: Apache-2.0
/// A failure of the speexdsp-backed processors: which call failed and why.
public enum SpeexDSPError: Error, Equatable, Sendable {
    /// The frame size is not one the processor supports (10 or 20 ms at the given rate).
    case unsupportedFrameSize(frameCount: Int, sampleRate: Int)
    /// A sample rate outside what the processor supports.
    case unsupportedSampleRate(Int)
    /// A configuration value out of its range: which one and why.
    case invalidConfiguration(String)
    /// The named speexdsp constructor returned no state (out of memory or bad parameters).
    case stateCreationFailed(function: String)
    /// A speexdsp call returned an error code.
    case callFailed(function: String, code: Int32)
}
