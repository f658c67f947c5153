// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import MediaEngine
import Testing
import TestSupport

/// A microphone and a loudspeaker on two crystals: the mixer resamples the microphone onto
/// the loudspeaker's clock, so the echo reference stays aligned over a long call. Device
/// periods are simulated on two exact clocks (no device, no thread): an hour of 100 ppm drift
/// is 360 ms, which would leave any echo canceller behind.
@Suite struct DeviceDriftTests {
    /// Runs `seconds` of 10 ms device periods, the capture clock off by `ppm`; returns the
    /// mixer and the worst reference-lag excursion (ms) after the first two minutes.
    static func run(ppm: Double, seconds: Double, compensating: Bool) throws -> (mixer: CallMixer, worstExcursionMs: Double) {
        var configuration = MixerConfiguration()
        configuration.processing = ProcessingConfiguration.off
        configuration.compensatesDeviceDrift = compensating
        let mixer = try CallMixer(configuration: configuration)
        let period = 480
        let playbackPeriodSeconds = 0.010
        let capturePeriodSeconds = 0.010 / (1 + ppm * 1e-6)
        let playback = UnsafeMutableBufferPointer<Int16>.allocate(capacity: period)
        let captured = UnsafeMutableBufferPointer<Int16>.allocate(capacity: period)
        defer { playback.deallocate(); captured.deallocate() }
        captured.initialize(repeating: 0)
        var nextPlayback = 0.0, nextCapture = 0.003
        var settledLag: Double?
        var worst = 0.0
        while min(nextPlayback, nextCapture) < seconds {
            if nextPlayback <= nextCapture {
                mixer.render(into: playback, nowMs: nextPlayback * 1_000)
                nextPlayback += playbackPeriodSeconds
            } else {
                mixer.capture(UnsafeBufferPointer(captured))
                nextCapture += capturePeriodSeconds
                guard nextCapture > 120 else { continue }
                let lag = mixer.mediaSourceStatistics.echoReferenceLagMs
                settledLag = settledLag ?? lag
                worst = max(worst, abs(lag - settledLag!))
            }
        }
        return (mixer, worst)
    }

    @Test(arguments: [600.0, -600.0])
    func theMicrophoneFollowsTheLoudspeakerClock(ppm: Double) async throws {
        try await offCooperativePool {
            // Six minutes at 600 ppm drift as far as 36 minutes at 100 ppm (216 ms); the loop settles within five.
            let (mixer, worst) = try Self.run(ppm: ppm, seconds: 360, compensating: true)
            let statistics = mixer.mediaSourceStatistics
            // The loop sees the lag in 10 ms steps, so its correction swings around the drift.
            #expect(abs(statistics.deviceDriftCorrectionPpm + ppm) < 150,
                    "correction \(statistics.deviceDriftCorrectionPpm) ppm for a microphone \(ppm) ppm off")
            // The reference queue moves in whole 20 ms frames; beyond that, it must not slide.
            #expect(worst <= 40, "the reference slid \(worst) ms after settling")
            #expect(statistics.echoReferenceMissingFrames <= 2)
            #expect(statistics.echoReferenceDiscardedSamples == 0)
        }
    }

    @Test func withoutCompensationTheReferenceFallsApart() throws {
        let (mixer, _) = try Self.run(ppm: 600, seconds: 150, compensating: false)
        let statistics = mixer.mediaSourceStatistics
        #expect(statistics.echoReferenceMissingFrames >= 3, "a microphone 600 ppm fast outruns the reference by 90 ms (4 frames) in 150 s")
    }

    @Test func oneClockNeedsNoCorrection() throws {
        let (mixer, worst) = try Self.run(ppm: 0, seconds: 150, compensating: true)
        #expect(abs(mixer.mediaSourceStatistics.deviceDriftCorrectionPpm) < 1)
        #expect(worst <= 20)
        #expect(mixer.mediaSourceStatistics.echoReferenceMissingFrames == 0)
    }
}

/// Gaps the device's rings make keep the echo reference in step with the room.
@Suite struct DeviceGapTests {
    @Test func playbackSilenceAndCaptureLossMoveTheReferenceByTheSameAmount() throws {
        var configuration = MixerConfiguration()
        configuration.processing = ProcessingConfiguration.off
        let mixer = try CallMixer(configuration: configuration)
        var playback = [Int16](repeating: 0, count: 480)
        playback.withUnsafeMutableBufferPointer { mixer.render(into: $0, nowMs: 0) }
        let before = mixer.echoReferenceLagSamples
        mixer.playbackInsertedSilence(deviceSamples: 1_440)
        #expect(mixer.echoReferenceLagSamples == before + 1_440, "the device's silence joins the reference")
        mixer.captureDropped(deviceSamples: 960)
        #expect(mixer.echoReferenceLagSamples == before + 480, "the microphone's lost span leaves it")
        mixer.playbackInsertedSilence(deviceSamples: -5)
        mixer.captureDropped(deviceSamples: -5)
        #expect(mixer.echoReferenceLagSamples == before + 480, "nonsense counts change nothing")
    }
}
