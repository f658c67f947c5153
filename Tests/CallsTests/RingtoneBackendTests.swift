// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import AudioProcessing
import AudioSession
import Calls
import MediaEngine
import Testing

/// The ringtone plays through any backend the engine can use (`AudioDeviceOpener`), here a
/// period-callback device without ALSA: opened playback-only, fed from the ringtone's start,
/// looped, and closed when the ringing stops.
@Suite(.timeLimit(.minutes(1)))
struct RingtoneBackendTests {
    @Test func theRingtonePlaysThroughAPeriodCallbackBackend() throws {
        let ringtone = try Ringtone(path: Fixtures.ringtonePath)
        let device = PeriodCallbackDevice(recordingSeconds: 5)
        let backend = PeriodCallbackBackend(device: device)
        let player = RingtonePlayer(ringtone: ringtone, device: AudioDeviceOpener(name: "ringer", backend: backend))
        #expect(player.device == "ringer")
        _ = try player.startIO(processing: ProcessingConfiguration(), preferences: AudioSession.Preferences())
        #expect(player.isRunningIO)
        let samples = ringtone.audio.samples
        // Long enough to wrap around the ringtone once.
        let wanted = samples.count + 4_800
        let deadline = MonotonicClock.nanoseconds + 20_000_000_000
        while device.recording().count < wanted, MonotonicClock.nanoseconds < deadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 20_000_000)
        }
        player.stopIO()
        #expect(!player.isRunningIO)
        let played = device.recording()
        let periods = device.periods
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 50_000_000)
        #expect(device.periods == periods, "the device stopped with the ringing")
        #expect(backend.openCount == 1 && device.startCount == 1)
        try #require(played.count >= wanted, "played \(played.count) samples")
        #expect(Array(played.prefix(samples.count)) == samples, "the ringtone from its start")
        #expect(Array(played[samples.count..<wanted]) == Array(samples.prefix(wanted - samples.count)), "then again from the start")
    }
}
