// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Dispatch
import MediaEngine
import SRTP
import Locking
import Synchronization
import TestSupport
import Transport

/// One side of a call between two `VoiceEngine`s in one process: a UDP socket on loopback,
/// a call keyed for SRTP, an engine on a device (a virtual WAV device by default: capture
/// plays `speech`, playback is recorded).
final class EngineParty: Sendable {
    let socket: UDPSocket
    let call: CallMedia
    let engine: VoiceEngine
    let device: VirtualAudioDevice?
    let sendingKey: SRTPKeyingMaterial

    /// A party speaking `speech` on a virtual device (or on `opener` when given).
    init(speech: [Int16], sendingKey: SRTPKeyingMaterial = .random(profile: .aesCM128HmacSha1_80),
         receivingKey: SRTPKeyingMaterial? = nil, pacing: DevicePacing = .realtime, recordingSeconds: Int = 30,
         opener: AudioDeviceOpener? = nil, loops: Bool = false, keyedByHandshake: Bool = false,
         configure: (inout VoiceEngineConfiguration) -> Void = { _ in }) throws {
        socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        self.sendingKey = sendingKey
        let protection = keyedByHandshake ? MediaProtection.srtpKeyedByHandshake : .srtp(sending: sendingKey, receiving: receivingKey ?? sendingKey)
        call = try CallMedia(configuration: MediaConfiguration(), protection: protection, ssrc: .random(in: 1 ... .max), rtcpSeed: 7)
        var configuration = VoiceEngineConfiguration()
        if let opener {
            device = nil
            configuration.device = opener
        } else {
            let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: speech), loops: loops, pacing: pacing,
                                                    recordingCapacitySamples: 48_000 * recordingSeconds)
            self.device = device
            configuration.device = AudioDeviceOpener(name: "virtual", backend: device)
        }
        // The product's scheduling (SCHED_FIFO 10 where permitted; normal, with a
        // `.realtimeRefused` event, where not) for devices paced in real time and real devices:
        // at normal priority beside a release build, the audio thread of a call on the
        // PulseAudio loopback fell 1.8 s of 12 behind its device (playback ring underflows) and
        // the echo canceller got 5–12 dB instead of 30. Unpaced devices and sanitizer builds
        // (which cannot keep real time) run at normal priority: a real-time thread that never
        // sleeps would take a core from everything else.
        let paced = opener != nil || pacing == .realtime
        configuration.realtimePriority = paced && AllocationCounter.isCounting ? VoiceEngineConfiguration().realtimePriority : nil
        configure(&configuration)
        engine = try VoiceEngine(configuration: configuration)
    }

    /// Two parties keyed for each other, each socket's remote the other's.
    static func pair(alice: [Int16], bob: [Int16], pacing: DevicePacing = .realtime,
                     configure: (inout VoiceEngineConfiguration) -> Void = { _ in }) throws -> (EngineParty, EngineParty) {
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let a = try EngineParty(speech: alice, sendingKey: aliceKey, receivingKey: bobKey, pacing: pacing, configure: configure)
        let b = try EngineParty(speech: bob, sendingKey: bobKey, receivingKey: aliceKey, pacing: pacing, configure: configure)
        try a.socket.setRemote(b.socket.localEndpoint)
        try b.socket.setRemote(a.socket.localEndpoint)
        return (a, b)
    }

    /// Adds the call to the engine.
    @discardableResult
    func addCall() throws -> EngineCallID {
        try engine.addCall(call, transport: CallTransport(rtp: socket))
    }

    /// What this party's loudspeaker played.
    var heard: [Int16] { device?.recording().samples ?? [] }
}

/// Events of an engine, collected through its handler on a private queue (not on the
/// cooperative pool, which synchronous tests keep busy).
final class EngineEventLog: Sendable {
    private final class Storage: Sendable {
        let events = Locked<[VoiceEngineEvent]>([])
    }

    private let storage = Storage()

    init(_ engine: VoiceEngine) {
        let storage = self.storage
        engine.setEventHandler(queue: DispatchQueue(label: "EngineEventLog")) { event in
            storage.events.withLock { $0.append(event) }
        }
    }

    var all: [VoiceEngineEvent] { storage.events.withLock { $0 } }

    /// Waits up to `seconds` for an event matching `predicate`.
    func wait(seconds: Double, for predicate: (VoiceEngineEvent) -> Bool) -> VoiceEngineEvent? {
        let deadline = MonotonicClock.nanoseconds + Int64(seconds * 1e9)
        while MonotonicClock.nanoseconds < deadline {
            if let found = all.first(where: predicate) { return found }
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 5_000_000)
        }
        return all.first(where: predicate)
    }
}
