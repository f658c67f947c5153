// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Testing
import TestSupport

/// `VirtualAudioDevice`: the virtual clock, per-direction clock errors, a reserved recording,
/// and delays as a sound card reports them. All on the virtual clock, so all deterministic.
@Suite struct VirtualAudioDeviceTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    /// After each wake-up: the virtual time and the frames each direction moved (playback
    /// without its prefill).
    func wakeUps(_ device: VirtualAudioDevice, _ count: Int) throws -> [[Int64]] {
        let stream = try ALSAStream(device: "null", parameters: parameters, calls: device)
        try stream.start(thread: .none)
        defer { stream.stop() }
        return (0..<count).map { _ in
            stream.runOnce()
            return [device.virtualNanoseconds / 1_000, Int64(stream.statistics(.capture).frames),
                    Int64(stream.statistics(.playback).frames - 960)]
        }
    }

    @Test func oneCrystalServesBothDirectionsInEachWakeUp() throws {
        let steps = try wakeUps(.null(pacing: .virtualClock), 3)
        #expect(steps == [[10_000, 480, 480], [20_000, 960, 960], [30_000, 1_440, 1_440]])
    }

    /// A playback crystal 1 % slow: its periods last 10.1 ms, so the wake-ups alternate as on
    /// hardware, each serving the one direction that is due.
    @Test func twoCrystalsInterleaveTheirWakeUps() throws {
        let steps = try wakeUps(.null(pacing: .virtualClock, playbackClockErrorPpm: 10_000), 6)
        #expect(steps == [[10_000, 480, 0], [10_100, 480, 480], [20_000, 960, 480],
                          [20_200, 960, 960], [30_000, 1_440, 960], [30_300, 1_440, 1_440]])
    }

    @Test func timestampsReadTheVirtualClock() throws {
        let device = VirtualAudioDevice.null(pacing: .virtualClock, captureClockErrorPpm: -10_000)
        let stream = try ALSAStream(device: "null", parameters: parameters, calls: device)
        try stream.start(thread: .none)
        defer { stream.stop() }
        stream.runOnce()
        #expect(stream.timestampNanoseconds(.capture) == 9_900_000, "a 1 % fast capture crystal")
        #expect(stream.timestampNanoseconds(.playback) == 0, "playback not served yet")
        stream.runOnce()
        #expect(stream.timestampNanoseconds(.playback) == 10_000_000)
    }

    /// An hour of a capture crystal 100 ppm slow against playback, in seconds: capture falls
    /// behind by 360 ms (18 periods of 20 ms), and playback keeps exactly its prefill queued.
    @Test func anHourOfHundredPpmDrift() async throws {
        try await offCooperativePool {
            let device = VirtualAudioDevice.null(pacing: .virtualClock, captureClockErrorPpm: 100)
            let stream = try ALSAStream(device: "null", parameters: StreamParameters(periodMs: 20), calls: device)
            let period = PeriodBuffer(samples: 960)
            try stream.start(thread: .none) { stream.read(into: period.samples) }
            defer { stream.stop() }
            while device.virtualNanoseconds < 3_600_000_000_000 { stream.runOnce() }
            #expect(device.virtualNanoseconds == 3_600_000_000_000)
            // Capture period k is due at k × 20.002 ms: 179,982 of them fit in the hour.
            #expect(stream.statistics(.capture).frames == 179_982 * 960)
            #expect(stream.statistics(.playback).frames == 1_920 + 180_000 * 960)
            #expect(stream.delayFrames(.playback) == 1_920)
            #expect(stream.delayFrames(.capture) == 0)
        }
    }

    /// Delays read mid-period on the virtual clock: capture holds what its crystal clocked
    /// since the last read, playback what was written and not yet played.
    @Test func delaysAreWhatEachCrystalHasNotYetMoved() throws {
        let device = VirtualAudioDevice.null(pacing: .virtualClock)
        let stream = try ALSAStream(device: "null", parameters: parameters, calls: device)
        try stream.start(thread: .none)
        defer { stream.stop() }
        let capture = PCMHandle(rawValue: 1), playback = PCMHandle(rawValue: 2)  // opened in this order
        #expect(device.delay(playback).frames == 960, "the prefill, before the first period played")
        stream.runOnce()
        #expect(stream.delayFrames(.capture) == 0, "a period read as soon as it was clocked")
        #expect(stream.delayFrames(.playback) == 960, "one period played, one written: the prefill's lead")
        device.sleep(microseconds: 5_000)
        #expect(device.virtualNanoseconds == 15_000_000)
        #expect(device.delay(capture).frames == 240)
        #expect(device.delay(playback).frames == 720)
    }

    @Test func clockErrorsAreClampedToOnePercent() {
        let device = VirtualAudioDevice.null(captureClockErrorPpm: 1e9, playbackClockErrorPpm: -.infinity)
        #expect(device.captureClockErrorPpm == 10_000 && device.playbackClockErrorPpm == -10_000)
        let quiet = VirtualAudioDevice.null(captureClockErrorPpm: .nan, playbackClockErrorPpm: -250)
        #expect(quiet.captureClockErrorPpm == 0 && quiet.playbackClockErrorPpm == -250)
    }

    @Test func aReservedRecordingDropsAndCountsWhatDoesNotFit() throws {
        let source = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [])
        let device = VirtualAudioDevice.wavFile(source, pacing: .virtualClock, recordingCapacitySamples: 4_800)
        let stream = try ALSAStream(device: "wav", directions: .playback, parameters: parameters, calls: device)
        try stream.start(thread: .none)
        for _ in 0..<20 { stream.runOnce() }
        stream.stop()
        #expect(device.recording().samples.count == 4_800)
        #expect(device.recordingDroppedSamples == 960 + 20 * 480 - 4_800)

        let none = VirtualAudioDevice.wavFile(source, pacing: .virtualClock, recordingCapacitySamples: -5)
        let silent = try ALSAStream(device: "wav", directions: .playback, parameters: parameters, calls: none)
        try silent.start(thread: .none)
        silent.runOnce()
        silent.stop()
        #expect(none.recording().samples.isEmpty && none.recordingDroppedSamples == 1_440, "a negative capacity is 0")
    }

    /// Streams started on a grid start their clocks at its nearest point, both directions of a
    /// duplex pair at the same one, and keep their periods on it: a start 0.5 ms after a point
    /// goes back to it, one 4.5 ms before the next goes on to that; without a grid, when started.
    @Test(arguments: [(3_000, 2_500), (8_000, 12_500), (7_500, 12_500)])
    func streamsStartOnTheGridPointNearest(startedAtMicroseconds started: Int, expectedMicroseconds expected: Int64) throws {
        let device = VirtualAudioDevice.null(pacing: .virtualClock)
        device.sleep(microseconds: UInt32(started))
        device.alignStarts(to: 0, offsetNanoseconds: 2_500_000 + 30 * 10_000_000)
        let stream = try ALSAStream(device: "null", parameters: parameters, calls: device)
        try stream.start(thread: .none)
        defer { stream.stop() }
        #expect(device.time(ofFrame: 0, direction: .capture) == expected * 1_000)
        #expect(device.time(ofFrame: 0, direction: .playback) == expected * 1_000)
        stream.runOnce()
        #expect(device.virtualNanoseconds == (expected + 10_000) * 1_000, "the first period ends a period after the start")
        #expect(device.time(ofFrame: 480, direction: .capture) == device.virtualNanoseconds)

        let free = VirtualAudioDevice.null(pacing: .virtualClock)
        free.sleep(microseconds: UInt32(started))
        free.alignStarts(to: 0)
        free.alignStarts(to: nil)
        let freeStream = try ALSAStream(device: "null", parameters: parameters, calls: free)
        try freeStream.start(thread: .none)
        defer { freeStream.stop() }
        #expect(free.time(ofFrame: 0, direction: .capture) == Int64(started) * 1_000, "no grid: started when started")
    }
}
