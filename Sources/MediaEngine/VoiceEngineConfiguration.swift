// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Transport

/// How a `VoiceEngine` runs: its mixer (the calls' format, voice processing), its device and
/// the device's period, its threads and its network behaviour.
public struct VoiceEngineConfiguration: Sendable {
    /// The calls' rate and frame, voice processing and the device rate (the device is opened
    /// at `mixer.deviceSampleRate`, mono).
    public var mixer = MixerConfiguration()
    /// The audio device.
    public var device: AudioDeviceOpener = .alsa()
    /// The device period, in ms: the audio thread wakes once per period (10 ms, as WebRTC's
    /// audio device modules and PulseAudio's low-latency clients run).
    public var periodMs = 10
    /// Periods in the device buffer (at least 2).
    public var periods = 4
    /// SCHED_FIFO priority of the audio thread (1–99), or nil for normal scheduling. When the
    /// system refuses real-time scheduling, the thread runs at normal priority and the engine
    /// reports `.realtimeRefused`.
    public var realtimePriority: Int32? = 10
    /// Fault recovery on the device. One period of silence ahead of the first one rendered
    /// (the stream's default is two): the audio thread keeps one more period queued in the
    /// ring, so the device always holds two, and a period of prefill less is 10 ms less
    /// mouth-to-ear (`voicecall latency`).
    public var recovery = RecoveryPolicy(playbackPrefillPeriods: 1)
    /// What happens when the device is lost.
    public var onDeviceLoss: DeviceLossPolicy = .stopAudio
    /// Whether calls' remote addresses follow authenticated packets.
    public var symmetricRTP: SymmetricRTPPolicy = .authenticated
    /// DSCP mark on every call's sockets (EF for voice, RFC 4594), or nil to leave them be.
    public var trafficClass: DSCP? = .expeditedForwarding
    /// Whether device I/O runs only inside an activation of the engine's audio session
    /// (AudioSession's gate): the activation starts it and the deactivation stops it; in
    /// between, the app's own `start()` and `stop()` work (iOS apps start their audio in
    /// `didActivate`); outside it `start()` throws `sessionNotActive`, so audio cannot begin
    /// before the session's activation (iOS's '!pla'/'!rec' after answering from a locked
    /// screen). Off by default, for programs and tests that drive the engine alone.
    public var requiresAudioSession = false

    /// Built-in defaults: the mixer's defaults (voiceChat, 48 kHz, 20 ms), the "default" ALSA
    /// device with 10 ms periods, SCHED_FIFO 10, symmetric RTP on authenticated packets, EF.
    public init() {}

    /// The stream parameters device I/O opens with.
    var streamParameters: StreamParameters {
        StreamParameters(sampleRate: mixer.deviceSampleRate, channelCount: 1, periodMs: periodMs, periods: periods)
    }

    /// Refuses values no engine could run with, naming the field.
    func validate() throws(VoiceEngineError) {
        do {
            try mixer.validate()
        } catch {
            throw .configuration(error)
        }
        guard (1...100).contains(periodMs) else {
            throw .configuration(.invalid(field: "periodMs", reason: "\(periodMs) ms is outside 1–100 ms"))
        }
        guard periodMs <= mixer.maximumDevicePeriodMs else {
            throw .configuration(.invalid(field: "periodMs", reason: "\(periodMs) ms is longer than the mixer's maximumDevicePeriodMs \(mixer.maximumDevicePeriodMs)"))
        }
        guard (2...32).contains(periods) else {
            throw .configuration(.invalid(field: "periods", reason: "\(periods) is outside 2–32"))
        }
        if let realtimePriority {
            guard (1...99).contains(realtimePriority) else {
                throw .configuration(.invalid(field: "realtimePriority", reason: "\(realtimePriority) is outside SCHED_FIFO's 1–99"))
            }
        }
    }
}
