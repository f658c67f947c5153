// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Locking
import MediaEngine
import SRTP
import Transport

/// The demo in real time: two `VoiceEngine`s, each its softphone's call I/O (started only by
/// its audio session), on virtual WAV devices paced like sound cards (or a real ALSA PCM for
/// Alice with `--device`), their SRTP/Opus calls over UDP on 127.0.0.1 through `DemoRelay`.
struct DemoRealtimeRun {
    var options: DemoOptions
    var aliceInput: WAVAudio
    var bobInput: WAVAudio
    var seconds: Double

    func run() throws(DemoFlowError) -> DemoOutcome {
        let media = options.media
        // The WAVs keep the first half hour: reserved up front (the I/O threads never
        // allocate), 170 MB a side at most however long the call.
        let capacity = Int((min(seconds, 1_800) + 5) * Double(media.sampleRate))
        let aliceDevice = VirtualAudioDevice.wavFile(aliceInput, pacing: .realtime, recordingCapacitySamples: capacity,
                                                     acousticPath: DemoEchoPath())
        let bobDevice = VirtualAudioDevice.wavFile(bobInput, pacing: .realtime, recordingCapacitySamples: capacity,
                                                   acousticPath: DemoEchoPath())
        let aliceEngine = try Self.engine(device: options.device.map { AudioDeviceOpener.alsa($0) }
                                              ?? AudioDeviceOpener(name: "alice.wav", backend: aliceDevice), media: media)
        defer { aliceEngine.shutdown() }
        // A real device is tried before any call: a missing or busy one is named at once.
        if let pcm = options.device, let problem = aliceEngine.probeDevice() {
            throw .engine("cannot open the ALSA device \(pcm) (voicecall devices lists them): \(problem)")
        }
        let bobEngine = try Self.engine(device: AudioDeviceOpener(name: "bob.wav", backend: bobDevice), media: media)
        defer { bobEngine.shutdown() }

        let log = DemoLog()
        let logger: @Sendable (String) -> Void = { log.note($0) }
        let alice = try DemoSoftphone(name: "alice", engine: aliceEngine, log: logger)
        let ringtone = try DemoRingtone.write()
        defer { try? FileManager.default.removeItem(atPath: ringtone) }
        let bob = try DemoSoftphone(name: "bob", engine: bobEngine, ringtone: ringtone, log: logger)
        let flow = DemoFlow(alice: alice, bob: bob, log: log)

        // The network between them, and each side's socket facing it.
        let relay: ImpairmentRelay, aliceSocket: UDPSocket, bobSocket: UDPSocket
        do {
            relay = try ImpairmentRelay(
                forward: SimulatedNetworkPath(profile: options.network, seconds: seconds, ptimeMs: media.frameDurationMs, seed: options.seed),
                backward: SimulatedNetworkPath(profile: options.network, seconds: seconds, ptimeMs: media.frameDurationMs, seed: options.seed &+ 1))
            aliceSocket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
            bobSocket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
            try aliceSocket.setRemote(relay.front.localEndpoint)
            try bobSocket.setRemote(relay.back.localEndpoint)
            try relay.start(frontPeer: aliceSocket.localEndpoint, backPeer: bobSocket.localEndpoint)
        } catch {
            throw .media("socket: \(error)")
        }
        defer { relay.stop() }

        // SDES: Alice's offer travels with the call set-up, Bob's answer with his answer.
        let keys = try DemoKeys(profile: media.srtpProfile)
        var aliceMedia: CallMedia?, bobMedia: CallMedia?
        let uuid = try flow.connect(
            attachBob: { (uuid: UUID) throws(DemoFlowError) in
                let call = try Self.media(media, sending: keys.bob, receiving: keys.fromOffer)
                do { try bob.provider.addMedia(call, transport: CallTransport(rtp: bobSocket), to: uuid) } catch { throw .engine("bob: \(error)") }
                bobMedia = call
            },
            attachAlice: { (uuid: UUID) throws(DemoFlowError) in
                let call = try Self.media(media, sending: keys.alice, receiving: keys.fromAnswer)
                do { try alice.provider.addMedia(call, transport: CallTransport(rtp: aliceSocket), to: uuid) } catch { throw .engine("alice: \(error)") }
                aliceMedia = call
            })
        guard let aliceMedia, let bobMedia else { throw .media("the calls' media were not attached") }

        // Talk, sampling every half second of wall-clock time.
        var figures = DemoLiveFigures()
        let start = MonotonicClock.nanoseconds
        let end = start + Int64(seconds * 1e9)
        var next = start
        while true {
            next += 500_000_000
            MonotonicClock.sleep(untilNanoseconds: min(next, end))
            let now = MonotonicClock.nanoseconds
            let elapsed = Double(now - start) / 1e9
            figures.update(seconds: elapsed, alice: aliceMedia.statistics, bob: bobMedia.statistics,
                           aliceSource: aliceEngine.mediaSourceStatistics, bobSource: bobEngine.mediaSourceStatistics,
                           paths: relay.demoPaths, final: now >= end)
            if now >= end { break }
        }
        let elapsed = Double(MonotonicClock.nanoseconds - start) / 1e9
        // The figures before hanging up: ending the call takes its media out of the engine.
        let aliceStatistics = aliceMedia.statistics, bobStatistics = bobMedia.statistics
        let aliceSource = aliceEngine.mediaSourceStatistics, bobSource = bobEngine.mediaSourceStatistics
        try flow.hangUp(uuid)
        relay.stop()
        let paths = relay.demoPaths
        let clean = options.network == nil
        let report = DemoReport(
            network: options.networkName, seed: options.seed, fast: false, callSeconds: elapsed, elapsedSeconds: elapsed,
            srtp: media.srtpProfile.sdesName, bitrate: media.bitrate, ptimeMs: media.frameDurationMs, dtx: media.discontinuousTransmission,
            flow: flow.log,
            directions: [
                DemoDirectionReport(from: "alice", to: "bob", sender: aliceStatistics, receiver: bobStatistics, senderSource: aliceSource,
                                    callSeconds: elapsed, path: clean ? nil : paths.aliceToBob, samples: figures.aliceToBob.samples),
                DemoDirectionReport(from: "bob", to: "alice", sender: bobStatistics, receiver: aliceStatistics, senderSource: bobSource,
                                    callSeconds: elapsed, path: clean ? nil : paths.bobToAlice, samples: figures.bobToAlice.samples),
            ])
        return DemoOutcome(report: report, receivedByBob: bobDevice.recording(),
                           receivedByAlice: options.device == nil ? aliceDevice.recording() : nil,
                           offer: keys.offer, answer: keys.answer)
    }

    /// An engine whose device I/O only its audio session starts, on `device`.
    static func engine(device: AudioDeviceOpener, media: MediaConfiguration) throws(DemoFlowError) -> VoiceEngine {
        var configuration = VoiceEngineConfiguration()
        configuration.device = device
        configuration.mixer.sampleRate = media.sampleRate
        configuration.mixer.frameDurationMs = media.frameDurationMs
        // No SCHED_FIFO: a demo needs no privileges, and two engines on a loaded machine
        // share it fairly at normal priority.
        configuration.realtimePriority = nil
        configuration.requiresAudioSession = true
        do {
            return try VoiceEngine(configuration: configuration)
        } catch {
            throw .engine("\(device.name): \(error)")
        }
    }

    /// A call's media with `configuration` and its two keys.
    static func media(_ configuration: MediaConfiguration, sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial) throws(DemoFlowError) -> CallMedia {
        do {
            return try CallMedia(configuration: configuration, sendingKey: sending, receivingKey: receiving)
        } catch {
            throw .media("\(error)")
        }
    }
}

extension ImpairmentRelay {
    /// The paths as the demo names them: Alice is the front peer.
    var demoPaths: (aliceToBob: SimulatedNetworkPath, bobToAlice: SimulatedNetworkPath) {
        let paths = self.paths
        return (paths.forward, paths.backward)
    }
}
