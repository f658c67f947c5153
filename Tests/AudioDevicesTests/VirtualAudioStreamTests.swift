// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Locking
import Synchronization
import SystemErrors
import Testing
import TestSupport

/// The virtual and WAV devices as a backend at the level of one period (`VirtualAudioStream`):
/// no ALSA between the engine's cycle and the device.
@Suite struct VirtualAudioStreamTests {
    static let source = (0..<48_000).map { Int16(truncatingIfNeeded: $0 &* 7 &+ 1) }

    /// A WAV device on the virtual clock, opened through its backend as an engine opens it.
    static func open(_ device: VirtualAudioDevice, prefill: Int = 2,
                     directions: StreamDirections = .duplex) throws -> VirtualAudioStream {
        let stream = try device.openStream(named: "wav", directions: directions, parameters: StreamParameters(periodMs: 10),
                                           policy: RecoveryPolicy(playbackPrefillPeriods: prefill), onEvent: { _ in })
        return try #require(stream as? VirtualAudioStream)
    }

    @Test func whatTheCycleReadsIsTheSourceAndWhatItWritesIsPlayedAfterThePrefill() throws {
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: Self.source),
                                                pacing: .virtualClock, recordingCapacitySamples: 48_000 * 2)
        for prefill in [1, 2, 3] {
            let stream = try Self.open(device, prefill: prefill)
            let period = PeriodBuffer(samples: 480)
            let shortReads = Atomic<Int>(0)
            try stream.start(thread: .none) {
                if stream.read(into: period.samples) != 480 { shortReads.add(1, ordering: .relaxed) }
                stream.write(UnsafeBufferPointer(period.samples))
            }
            for _ in 0..<50 { stream.runOnce() }
            stream.stop()
            #expect(shortReads.load(ordering: .relaxed) == 0, "every cycle finds the period just captured")
            let recorded = device.recording().samples
            let played = Array(recorded.suffix(from: recorded.count - 50 * 480 - prefill * 480))
            #expect(played.prefix(prefill * 480).allSatisfy { $0 == 0 }, "\(prefill) periods of prefill silence lead")
            #expect(played.count >= (prefill + 49) * 480)
            let consumed = device.time(ofFrame: 0, direction: .capture) != nil
            #expect(consumed)
            if prefill == 1 {
                #expect(Array(played[480..<(480 + 10_000)]) == Array(Self.source.prefix(10_000)),
                        "the cycle's playback leaves the device one prefill after its capture")
            }
        }
    }

    @Test func theCycleRunsOncePerWakeUpAndTheDelayIsThePrefillLead() throws {
        let device = VirtualAudioDevice.null(pacing: .virtualClock)
        let stream = try Self.open(device, prefill: 2)
        let cycles = Atomic<Int>(0)
        let silence = PeriodBuffer(samples: 480)
        try stream.start(thread: .none) {
            cycles.add(1, ordering: .relaxed)
            stream.read(into: silence.samples)
            stream.write(UnsafeBufferPointer(silence.samples))
        }
        defer { stream.stop() }
        for _ in 0..<100 { stream.runOnce() }
        #expect(cycles.load(ordering: .relaxed) == 100)
        #expect(device.virtualNanoseconds == 1_000_000_000, "one crystal: both directions due at each 10 ms")
        #expect(stream.statistics(.capture).frames == 100 * 480)
        #expect(stream.statistics(.playback).frames == 102 * 480, "the prefill and one period per wake-up")
        #expect(stream.delayFrames(.playback) == 960, "two periods of lead on the device")
        #expect(stream.delayFrames(.capture) == 0, "capture read as soon as clocked")
        #expect(stream.statistics(.playback).ringUnderflowSamples == 0)
    }

    @Test func aCycleThatWritesNothingPlaysSilenceAndCountsTheGap() throws {
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: []), pacing: .virtualClock,
                                                recordingCapacitySamples: 48_000)
        let stream = try Self.open(device, prefill: 1)
        try stream.start(thread: .none, onCycle: nil)
        for _ in 0..<10 { stream.runOnce() }
        stream.stop()
        #expect(stream.statistics(.playback).ringUnderflowSamples == 10 * 480)
        #expect(device.recording().samples.count == 11 * 480)
        #expect(device.recording().samples.allSatisfy { $0 == 0 })
    }

    /// A room that echoes the loudspeaker into the microphone at once, doubled.
    final class ImmediateEcho: VirtualAcousticPath, @unchecked Sendable {
        let last = Locked<[Int16]>([Int16](repeating: 0, count: 480))
        let played = Atomic<Int>(0)
        func loudspeakerPlayed(_ samples: UnsafeBufferPointer<Int16>) {
            played.add(samples.count, ordering: .relaxed)
            last.withLock { last in for index in 0..<min(samples.count, last.count) { last[index] = samples[index] } }
        }
        func microphoneCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) {
            last.withLock { last in for index in 0..<min(samples.count, last.count) { samples[index] &+= 2 &* last[index] } }
        }
    }

    @Test func theAcousticPathHearsThePlaybackAndFeedsTheMicrophone() throws {
        let room = ImmediateEcho()
        let device = VirtualAudioDevice.null(pacing: .virtualClock, acousticPath: room)
        let stream = try Self.open(device, prefill: 1)
        let tone = PeriodBuffer(samples: 480)
        for index in 0..<480 { tone.samples[index] = Int16(index) }
        let heard = PeriodBuffer(samples: 480)
        try stream.start(thread: .none) {
            stream.read(into: heard.samples)
            stream.write(UnsafeBufferPointer(tone.samples))
        }
        for _ in 0..<5 { stream.runOnce() }
        stream.stop()
        #expect(room.played.load(ordering: .relaxed) == 6 * 480, "the prefill and five periods reached the room")
        #expect(Array(heard.samples) == (0..<480).map { Int16($0 * 2) }, "the microphone hears the last period played, doubled")
    }

    @Test func parametersTheDeviceCannotTakeAreATypedError() throws {
        let device = VirtualAudioDevice.null()
        #expect(throws: AudioDeviceError.self) {
            try device.openStream(named: "bad", directions: .duplex, parameters: StreamParameters(sampleRate: 0, channelCount: 1, periodFrames: 480, bufferFrames: 960),
                                  policy: RecoveryPolicy(), onEvent: { _ in })
        }
        do {
            _ = try device.openStream(named: "none", directions: [], parameters: StreamParameters(), policy: RecoveryPolicy(), onEvent: { _ in })
            Issue.record("an empty direction set opened")
        } catch {
            #expect(error.code == .invalidArgument && error.device == "none")
        }
    }

    /// The per-period path (wait, capture, cycle, playback, recording into a reserved buffer)
    /// allocates nothing in steady state.
    @Test func thePeriodPathAllocatesNothing() throws {
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: Self.source),
                                                pacing: .virtualClock, recordingCapacitySamples: 48_000 * 3,
                                                acousticPath: ImmediateEcho())
        let stream = try Self.open(device)
        let period = PeriodBuffer(samples: 480)
        try stream.start(thread: .none) {
            stream.read(into: period.samples)
            stream.write(UnsafeBufferPointer(period.samples))
        }
        defer { stream.stop() }
        for _ in 0..<20 { stream.runOnce() }
        let (_, allocations) = AllocationCounter.measure {
            for _ in 0..<160 { stream.runOnce() }
        }
        #expect(allocations == 0, "\(allocations) allocations in 160 wake-ups")
    }

    /// The stream's own thread, paced in real time: periods flow until `stop()`, which ends the
    /// thread's wait at once and closes the device's PCMs; a second stop does nothing. Counts,
    /// never times: it waits for 20 cycles however loaded the machine is.
    @Test func aRealTimeStreamRunsOnItsThreadUntilStopped() async throws {
        try await offCooperativePool {
            let device = VirtualAudioDevice.null(pacing: .realtime)
            let census = ThreadCensus()
            let cycles = Atomic<Int>(0)
            let stream = try Self.open(device)
            try census.counting { () throws(AudioDeviceError) in
                try stream.start(thread: .normal) { cycles.add(1, ordering: .relaxed) }
            }
            while cycles.load(ordering: .relaxed) < 20 { MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 5_000_000) }
            stream.stop()
            stream.stop()
            let after = cycles.load(ordering: .relaxed)
            #expect(census.startedThreads == 1 && census.liveThreads == 0, "one thread, joined by stop")
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 30_000_000)
            #expect(cycles.load(ordering: .relaxed) == after, "no cycle after stop")
            #expect(stream.statistics(.capture).frames >= 20 * 480)
        }
    }
}
