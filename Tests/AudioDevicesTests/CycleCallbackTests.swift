// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Locking
import Synchronization
import Testing

/// What the cycle callback saw, written on the thread that runs the loop.
final class CycleLog: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// `start(thread:onCycle:)`: the callback runs once per wake-up, after capture was served and
/// before playback is, so an engine on the I/O thread adds no period of latency.
@Suite struct CycleCallbackTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    /// The callback plays back what was captured in the same wake-up: the device receives each
    /// captured period in the very wake-up that captured it.
    @Test func callbackSitsBetweenCaptureAndPlayback() throws {
        let alsa = ScriptedALSA(recordPlayback: true)
        let stream = try ALSAStream(device: "mock", directions: .duplex, parameters: parameters, calls: alsa)
        let log = CycleLog()
        try stream.start(thread: .none) {
            log.append("captured \(stream.capturedSamplesAvailable), device played \(alsa.frames(.playback))")
            stream.write(stream.read())
        }
        defer { stream.stop() }
        for _ in 0..<3 { stream.runOnce() }
        #expect(log.all == ["captured 480, device played 960", "captured 480, device played 1440",
                            "captured 480, device played 1920"], "prefill 960, then one period per wake-up after the callback")
        #expect(Array(alsa.recordedPlayback.dropFirst(960)) == (0..<1_440).map { Int16($0) },
                "each captured period was played in its own wake-up")
        #expect(stream.statistics(.playback).ringUnderflowSamples == 0)
    }

    @Test func captureOnlyStreamCallsItAfterCapture() throws {
        let alsa = ScriptedALSA()
        let stream = try ALSAStream(device: "mock", directions: .capture, parameters: parameters, calls: alsa)
        let log = CycleLog()
        try stream.start(thread: .none) { log.append("captured \(stream.capturedSamplesAvailable)") }
        defer { stream.stop() }
        stream.runOnce()
        stream.runOnce()
        #expect(log.all == ["captured 480", "captured 960"])
    }

    @Test func playbackOnlyStreamCallsItBeforePlayback() throws {
        let alsa = ScriptedALSA(recordPlayback: true)
        let stream = try ALSAStream(device: "mock", directions: .playback, parameters: parameters, calls: alsa)
        let marker = [Int16](repeating: 1_234, count: 480)
        try stream.start(thread: .none) {
            #expect(stream.playbackQueuedSamples == 0)
            stream.write(marker)
            #expect(stream.playbackQueuedSamples == 480)
        }
        defer { stream.stop() }
        stream.runOnce()
        #expect(Array(alsa.recordedPlayback.dropFirst(960)) == marker, "written in the callback, played in its wake-up")
        #expect(stream.playbackQueuedSamples == 0)
    }

    @Test func aPollThatTimesOutStillCallsIt() throws {
        let alsa = ScriptedALSA()
        let stream = try ALSAStream(device: "mock", directions: .duplex, parameters: parameters, calls: alsa)
        let log = CycleLog()
        try stream.start(thread: .none) { log.append("captured \(stream.capturedSamplesAvailable)") }
        defer { stream.stop() }
        alsa.scriptPollTimeouts(2)
        for _ in 0..<3 { stream.runOnce() }
        #expect(log.all == ["captured 0", "captured 0", "captured 480"])
    }

    /// After a joint restart the callback notices it on its own thread, before writing playback.
    @Test func callbackSeesARestartInTheWakeUpItHappened() throws {
        let alsa = ScriptedALSA()
        let stream = try ALSAStream(device: "mock", directions: .duplex, parameters: parameters, calls: alsa)
        let log = CycleLog()
        try stream.start(thread: .none) { log.append("restarts \(stream.restartCount)") }
        defer { stream.stop() }
        stream.runOnce()
        alsa.failIO(.capture, .brokenPipe)
        stream.runOnce()
        #expect(log.all == ["restarts 0", "restarts 1"])
    }

    @Test func threadedStreamCallsItOnTheIOThreadAndStopReleasesIt() throws {
        let stream = try ALSAStream(device: "null", directions: .duplex, parameters: parameters,
                                    calls: VirtualAudioDevice.null(pacing: .virtualClock))
        let cycles = Atomic<Int>(0)
        weak var witness: ReleaseWitness?
        do {
            let box = ReleaseWitness()
            witness = box
            try stream.start(thread: .normal) { [box] in
                withExtendedLifetime(box) { _ = cycles.wrappingAdd(1, ordering: .relaxed) }
            }
        }
        #expect(witness != nil, "the stream holds the callback while it runs")
        var waited = 0
        while cycles.load(ordering: .relaxed) < 100 && waited < 5_000 { usleep(1_000); waited += 1 }
        stream.stop()
        #expect(cycles.load(ordering: .relaxed) >= 100)
        #expect(witness == nil, "stop() released the callback and what it captured")
    }
}

/// An object whose release shows that a closure holding it was released.
final class ReleaseWitness: Sendable {}
