// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Testing
import TestSupport

/// What other threads may do with a running stream: read its negotiated parameters while the
/// I/O thread reopens a PCM (ThreadSanitizer runs this in CI), and never drive its loop.
@Suite struct StreamThreadSafetyTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    @Test func parametersCanBeReadWhileTheIOThreadReopensAPCM() throws {
        let alsa = ScriptedALSA(pollIntervalMicroseconds: 500)
        let recorder = EventRecorder()
        let stream = try ALSAStream(device: "mock", directions: .capture, parameters: parameters, calls: alsa, onEvent: recorder.handler)
        try stream.start(thread: .normal)
        defer { stream.stop() }
        // The failed recoveries are scripted before the fault that consumes them: the I/O
        // thread runs already, and a fault taken between two script calls would recover.
        alsa.scriptRecover([.ioError])
        alsa.scriptPrepare([.ioError, .ioError])
        alsa.failIO(.capture, .brokenPipe)
        var reads = 0
        var reopened = false
        // A bound for a stuck thread, not a timing: a loaded machine may take long to run it.
        let deadline = Date().addingTimeInterval(120)
        while !reopened && Date() < deadline {
            #expect(stream.parameters(for: .capture)?.sampleRate == 48_000)
            #expect(stream.parameters.periodMs == 10)
            reads += 1
            reopened = recorder.all.contains(.reopened(.capture))
        }
        #expect(reopened)
        #expect(reads > 0)
        #expect(stream.statistics(.capture).reopens == 1)
    }

    @Test func drivingAThreadedStreamByHandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let stream = try ALSAStream(device: "mock", parameters: StreamParameters(), calls: ScriptedALSA(pollIntervalMicroseconds: 1_000))
            try stream.start(thread: .normal)
            stream.runOnce()
        }
    }
}
