// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import SystemErrors
import Testing
import TestSupport

/// Fault sequences played through `ScriptedALSA`, with the loop driven synchronously.
@Suite struct FaultHandlingTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    func makeStream(_ alsa: ScriptedALSA, _ recorder: EventRecorder, directions: StreamDirections = .duplex,
                    policy: RecoveryPolicy = RecoveryPolicy()) throws -> ALSAStream<ScriptedALSA> {
        let stream = try ALSAStream(device: "mock", directions: directions, parameters: parameters, policy: policy,
                                    calls: alsa, onEvent: recorder.handler)
        try stream.start(thread: .none)
        return stream
    }

    @Test func opensNegotiatesAndStartsBothDirections() throws {
        let alsa = ScriptedALSA(recordPlayback: true)
        let stream = try makeStream(alsa, EventRecorder())
        #expect(stream.parameters(for: .capture) == parameters)
        #expect(stream.parameters(for: .playback)?.periodFrames == 480)
        #expect(alsa.log == ["open capture", "configure capture", "open playback", "configure playback",
                             "start capture", "start playback"])
        #expect(alsa.recordedPlayback.count == 2 * 480, "two periods of silence prefill")
        stream.stop()
        #expect(alsa.openCount == 0)
    }

    @Test func movesPeriodsThroughTheRings() throws {
        let alsa = ScriptedALSA(recordPlayback: true)
        let stream = try makeStream(alsa, EventRecorder())
        let tone = (0..<960).map { Int16($0) }
        #expect(stream.write(tone) == 960)
        for _ in 0..<3 { #expect(stream.runOnce()) }
        let captured = stream.read()
        #expect(captured == (0..<1_440).map { Int16($0) })
        #expect(Array(alsa.recordedPlayback[960..<1_920]) == tone)
        #expect(stream.statistics(.capture).frames == 1_440)
        #expect(stream.statistics(.playback).frames == 960 + 1_440, "prefill counts as frames played")
        #expect(stream.statistics(.playback).ringUnderflowSamples == 480)
        #expect(stream.delayFrames(.playback) == 960)
        #expect(stream.timestampNanoseconds(.capture) > 0)
    }

    /// A playback-only stream recovers alone (duplex streams restart both: `DuplexRestartTests`).
    @Test func underrunIsRecoveredAndCounted() throws {
        let alsa = ScriptedALSA()
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder, directions: .playback)
        stream.runOnce()
        alsa.clearLog()
        alsa.failIO(.playback, .brokenPipe)
        stream.runOnce()
        #expect(alsa.log == ["recover playback", "start playback"])
        #expect(stream.statistics(.playback).xruns == 1)
        stream.runOnce()
        let statistics = stream.statistics(.playback)
        #expect(statistics.recoveries == 1)
        #expect(statistics.lastRecoveryNanoseconds > 0)
        #expect(recorder.all.first == .xrun(.playback, count: 1))
        #expect(recorder.all.contains { if case .recovered(.playback, _) = $0 { true } else { false } })
        #expect(statistics.restarts == 0 && stream.restartCount == 0, "nothing to restart together with")
    }

    @Test func overrunIsRecoveredAndCaptureContinues() throws {
        let alsa = ScriptedALSA()
        let stream = try makeStream(alsa, EventRecorder(), directions: .capture)
        alsa.failIO(.capture, .brokenPipe)
        stream.runOnce()
        stream.runOnce()
        #expect(stream.statistics(.capture).xruns == 1)
        #expect(stream.statistics(.capture).frames == 480)
        #expect(alsa.log.suffix(2) == ["recover capture", "start capture"])
    }

    @Test func suspendResumesThroughEAGAIN() throws {
        let alsa = ScriptedALSA()
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder, directions: .capture, policy: RecoveryPolicy(resumeRetryMicroseconds: 2_000))
        alsa.clearLog()
        alsa.failIO(.capture, .streamPipe)
        alsa.scriptResume([.resourceTemporarilyUnavailable, .resourceTemporarilyUnavailable, nil])
        stream.runOnce()
        #expect(alsa.log == ["resume capture", "resume capture", "resume capture"])
        #expect(alsa.sleptMicroseconds == 4_000)
        #expect(stream.statistics(.capture).suspends == 1)
        #expect(stream.statistics(.capture).recoveries == 1)
        #expect(recorder.all.first == .suspended(.capture))
    }

    @Test func suspendFallsBackToPrepareWhenResumeIsUnsupported() throws {
        let alsa = ScriptedALSA()
        let stream = try makeStream(alsa, EventRecorder(), directions: .playback,
                                    policy: RecoveryPolicy(resumeAttempts: 3, resumeRetryMicroseconds: 1))
        alsa.clearLog()
        alsa.failIO(.playback, .streamPipe)
        alsa.scriptResume([.resourceTemporarilyUnavailable, .resourceTemporarilyUnavailable, .resourceTemporarilyUnavailable])
        stream.runOnce()
        #expect(alsa.log == ["resume playback", "resume playback", "resume playback", "prepare playback", "start playback"])
        #expect(alsa.sleptMicroseconds == 2)
        #expect(stream.statistics(.playback).recoveries == 1)
    }

    @Test func repeatedFailedRecoveriesCloseAndReopen() throws {
        let alsa = ScriptedALSA()
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder, directions: .capture)
        alsa.clearLog()
        alsa.failIO(.capture, .brokenPipe)
        alsa.scriptRecover([.ioError])
        alsa.scriptPrepare([.ioError, .ioError])
        stream.runOnce()
        #expect(alsa.log == ["recover capture", "prepare capture", "prepare capture", "drop capture", "close capture",
                             "open capture", "configure capture", "start capture"])
        #expect(stream.statistics(.capture).reopens == 1)
        #expect(recorder.all.last == .reopened(.capture))
        stream.runOnce()
        stream.runOnce()
        #expect(stream.statistics(.capture).frames == 960, "audio flows on the reopened PCM")
        #expect(alsa.openCount == 1)
    }

    @Test func deviceGoneMidStreamIsAnEventNotACrash() throws {
        let alsa = ScriptedALSA()
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder)
        stream.runOnce()
        alsa.scriptOpen([.noSuchDevice, .noSuchDevice])
        alsa.failIO(.capture, .noSuchDevice)
        #expect(stream.runOnce(), "playback still runs")
        let lost = AudioDeviceEvent.deviceLost(.capture, AudioDeviceError(ALSAError(function: "snd_pcm_readi", code: .noSuchDevice, device: "mock")))
        #expect(recorder.all.last == lost)
        #expect(stream.statistics(.capture).isLost)
        #expect(!stream.isLost)
        alsa.scriptOpen([.noSuchDevice, .noSuchDevice])
        alsa.scriptPollEvents(.playback, [.error, .hangUp])
        #expect(!stream.runOnce(), "the loop ends when every direction is lost")
        #expect(stream.isLost)
        #expect(alsa.openCount == 0)
        #expect(ALSAError(function: "snd_pcm_readi", code: .noSuchDevice, device: "mock").description
            == "snd_pcm_readi failed on mock: No such device (-ENODEV = -19)")
    }

    @Test func threadedStreamReportsDeviceLostAndStopsPromptly() async throws {
        let alsa = ScriptedALSA(pollIntervalMicroseconds: 1_000)
        let recorder = EventRecorder()
        let stream = try ALSAStream(device: "mock", parameters: parameters, calls: alsa, onEvent: recorder.handler)
        try stream.start(thread: .normal)
        var waited = 0
        while stream.statistics(.capture).frames < 4_800 && waited < 2_000 { usleep(1_000); waited += 1 }
        alsa.scriptOpen([.noSuchDevice, .noSuchDevice, .noSuchDevice, .noSuchDevice])
        alsa.failIO(.capture, .noSuchDevice)
        alsa.failIO(.playback, .noSuchDevice)
        // Returns on the event; the bound is for a thread that never reports it.
        let lost = recorder.wait(timeoutSeconds: 60) {
            if case .deviceLost(.playback, _) = $0 { true } else { false }
        }
        #expect(lost != nil)
        var iterator = stream.events.makeAsyncIterator()
        var sawLost = false
        for _ in 0..<10 {
            guard let event = await iterator.next() else { break }
            if case .deviceLost = event { sawLost = true; break }
        }
        #expect(sawLost)
        // With every direction lost the I/O loop has ended: stop() joins it and waits out
        // nothing (no retry, no poll timeout). The bound is for a stop that hangs; a loaded
        // machine may take a while to run the join.
        let started = Date()
        stream.stop()
        #expect(Date().timeIntervalSince(started) < 30)
    }
}

extension FaultHandlingTests {
    @Test func eagainIsNotAFault() throws {
        let alsa = ScriptedALSA()
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder, directions: .capture)
        alsa.clearLog()
        alsa.failIO(.capture, .resourceTemporarilyUnavailable)
        stream.runOnce()
        stream.runOnce()
        #expect(alsa.log.isEmpty)
        #expect(recorder.all.isEmpty)
        #expect(stream.statistics(.capture).frames == 480)
    }

    @Test func rejectsAStreamWithNoDirection() {
        #expect(throws: ALSAError(function: "ALSAStream.init", code: .invalidArgument, device: "mock")) {
            try ALSAStream(device: "mock", directions: [], calls: ScriptedALSA())
        }
    }
}
