// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Opus

/// How a `CallMixer` meets its device: the device's rate, the calls' rate and frame, and the
/// voice processing on the microphone.
public struct MixerConfiguration: Sendable, Equatable {
    /// Rate every call runs at (the `MediaConfiguration.sampleRate` of the calls mixed), Hz.
    public var sampleRate = 48_000
    /// Frame duration every call runs at, ms (10, 20, 40 or 60).
    public var frameDurationMs = 20
    /// Frame duration voice processing runs at, ms (10 or 20; it must divide
    /// `frameDurationMs`): the echo canceller, residual suppressor and preprocessor were tuned
    /// and measured on 10 ms frames.
    public var processingFrameDurationMs = 10
    /// The device's rate, Hz; audio is resampled when it differs from `sampleRate`.
    public var deviceSampleRate = 48_000
    /// Longest device period the mixer's adapters are sized for, ms; longer blocks handed to
    /// `render` or `capture` are served in pieces of this size.
    public var maximumDevicePeriodMs = 100
    /// Voice processing on the microphone (voiceChat: echo cancellation, NS, AGC, VAD).
    public var processing = ProcessingConfiguration.voiceChat
    /// Echo canceller settings (its rate and frame are taken from this configuration; a
    /// `residualCrossfadeMs` left at nil follows the call frame,
    /// `EchoCanceller.Configuration.residualCrossfadeMs(callFrameDurationMs:)`).
    public var echoCanceller = EchoCanceller.Configuration()
    /// Calls mixed at most at once.
    public var maximumCalls = 8
    /// Whether every unheld call also hears the other unheld calls (a local conference, as a
    /// CallKit call group); otherwise each hears only the microphone.
    public var bridgesCalls = true

    /// How much of each call is rendered at a time: what the device period needs (the
    /// default), or a frame (`PlayoutTick`).
    public var playoutTick = PlayoutTick.devicePeriod

    /// Whether the microphone is resampled onto the loudspeaker's clock when the two drift
    /// apart (`DeviceDriftCompensator`); on one clock the correction stays at 0 ppm.
    public var compensatesDeviceDrift = true

    /// voiceChat processing, 48 kHz, 20 ms frames, a 48 kHz device.
    public init() {}

    /// Samples in one frame at the calls' rate.
    public var samplesPerFrame: Int { sampleRate * frameDurationMs / 1_000 }

    /// Refuses values no mixer could use, naming the field.
    public func validate() throws(MediaConfigurationError) {
        guard OpusStreamFormat.isSupported(sampleRate: sampleRate) else {
            throw .invalid(field: "sampleRate", reason: "\(sampleRate) Hz is not an Opus rate (8, 12, 16, 24 or 48 kHz)")
        }
        guard OpusStreamFormat.isSupported(packetTimeMs: frameDurationMs) else {
            throw .invalid(field: "frameDurationMs", reason: "\(frameDurationMs) ms is not a packet time calls send (10, 20, 40, 60)")
        }
        guard processingFrameDurationMs == 10 || processingFrameDurationMs == 20, frameDurationMs % processingFrameDurationMs == 0 else {
            throw .invalid(field: "processingFrameDurationMs",
                           reason: "\(processingFrameDurationMs) ms: voice processing takes 10 or 20 ms frames that divide the \(frameDurationMs) ms call frame")
        }
        guard (8_000...192_000).contains(deviceSampleRate) else {
            throw .invalid(field: "deviceSampleRate", reason: "\(deviceSampleRate) Hz is outside 8–192 kHz")
        }
        guard (1...1_000).contains(maximumDevicePeriodMs) else {
            throw .invalid(field: "maximumDevicePeriodMs", reason: "\(maximumDevicePeriodMs) ms is outside 1–1000 ms")
        }
        guard (1...256).contains(maximumCalls) else {
            throw .invalid(field: "maximumCalls", reason: "\(maximumCalls) is outside 1–256")
        }
    }
}
