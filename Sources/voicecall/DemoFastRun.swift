// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Locking
import MediaEngine

/// `--fast`: the same call flow through both providers and audio sessions, then the media on a
/// virtual clock (`DemoCall`: each side a `CallMixer` with its `CallMedia`, real UDP sockets
/// and SRTP, the network simulator's delays applied on the virtual clock) as fast as the CPU
/// goes. Each side's call session starts a `DemoTickedIO`, and the media run only once both
/// sessions are active. A `VoiceEngine` cannot take part: its threads read CLOCK_MONOTONIC.
struct DemoFastRun {
    var options: DemoOptions
    var aliceInput: WAVAudio
    var bobInput: WAVAudio
    var seconds: Double

    func run() throws(DemoFlowError) -> DemoOutcome {
        let media = options.media
        let log = DemoLog()
        let logger: @Sendable (String) -> Void = { log.note($0) }
        let aliceIO = DemoTickedIO(), bobIO = DemoTickedIO()
        let alice = try DemoSoftphone(name: "alice", io: aliceIO, log: logger)
        let ringtone = try DemoRingtone.write()
        defer { try? FileManager.default.removeItem(atPath: ringtone) }
        let bob = try DemoSoftphone(name: "bob", io: bobIO, ringtone: ringtone, log: logger)
        let flow = DemoFlow(alice: alice, bob: bob, log: log)
        let uuid = try flow.connect(attachBob: { (_: UUID) throws(DemoFlowError) in }, attachAlice: { (_: UUID) throws(DemoFlowError) in })
        guard aliceIO.isRunningIO && bobIO.isRunningIO else { throw .media("a call session did not start its I/O") }

        var call = DemoCall(aliceInput: aliceInput, bobInput: bobInput, configuration: media, durationSeconds: seconds,
                            pacing: .asFastAsPossible)
        call.echoes = true
        call.seed = options.seed
        if let network = options.network {
            call.network = (SimulatedNetworkPath(profile: network, seconds: seconds, ptimeMs: media.frameDurationMs, seed: options.seed),
                            SimulatedNetworkPath(profile: network, seconds: seconds, ptimeMs: media.frameDurationMs, seed: options.seed &+ 1))
        }
        // The sampling callback runs on this thread, inside `run()`: a box lets it keep state.
        final class Figures { var live = DemoLiveFigures() }
        let figures = Figures()
        call.onSample = { milliseconds, snapshot in
            figures.live.update(seconds: milliseconds / 1_000, alice: snapshot.alice, bob: snapshot.bob,
                                aliceSource: snapshot.aliceSource, bobSource: snapshot.bobSource, paths: nil)
        }
        let result: DemoCallResult
        do {
            result = try call.run()
        } catch {
            throw .media("\(error)")
        }
        if figures.live.aliceToBob.samples.last.map({ $0.seconds < result.callSeconds - 0.01 }) ?? true {
            // The call's last moments, when they did not end on a sampling instant.
            figures.live.update(seconds: result.callSeconds, alice: result.bobToAlice.receiver, bob: result.aliceToBob.receiver,
                                aliceSource: result.aliceSource, bobSource: result.bobSource, paths: nil, final: true)
        }
        try flow.hangUp(uuid)
        // The network delays are known once the call ran: fold them into the samples.
        var samples = (figures.live.aliceToBob.samples, figures.live.bobToAlice.samples)
        if let paths = result.paths {
            samples.0 = Self.withNetworkDelays(samples.0, paths.aliceToBob.appliedDelays)
            samples.1 = Self.withNetworkDelays(samples.1, paths.bobToAlice.appliedDelays)
        }
        let report = DemoReport(
            network: options.networkName, seed: options.seed, fast: true, callSeconds: result.callSeconds,
            elapsedSeconds: result.elapsedSeconds, srtp: media.srtpProfile.sdesName, bitrate: media.bitrate,
            ptimeMs: media.frameDurationMs, dtx: media.discontinuousTransmission, flow: flow.log,
            directions: [
                DemoDirectionReport(from: "alice", to: "bob", sender: result.aliceToBob.sender, receiver: result.aliceToBob.receiver,
                                    senderSource: result.aliceSource, callSeconds: result.callSeconds, path: result.paths?.aliceToBob,
                                    samples: samples.0),
                DemoDirectionReport(from: "bob", to: "alice", sender: result.bobToAlice.sender, receiver: result.bobToAlice.receiver,
                                    senderSource: result.bobSource, callSeconds: result.callSeconds, path: result.paths?.bobToAlice,
                                    samples: samples.1),
            ])
        return DemoOutcome(report: report, receivedByBob: result.receivedByBob, receivedByAlice: result.receivedByAlice,
                           offer: result.offer, answer: result.answer)
    }

    /// `samples` with each one's mean network delay over the interval it closes.
    static func withNetworkDelays(_ samples: [DemoSample], _ delays: [(sendMs: Double, delayMs: Double)]) -> [DemoSample] {
        var result = samples
        var index = 0
        for position in result.indices {
            let until = result[position].seconds * 1_000
            var sum = 0.0, count = 0
            while index < delays.count && delays[index].sendMs < until {
                sum += delays[index].delayMs
                count += 1
                index += 1
            }
            result[position].networkDelayMs = count > 0 ? sum / Double(count) : nil
        }
        return result
    }
}
