// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Locking
import Synchronization
import Testing
import TestSupport

/// One period of samples that a cycle callback reads into and plays from (allocated up front).
final class PeriodBuffer: @unchecked Sendable {
    let samples: UnsafeMutableBufferPointer<Int16>
    init(samples count: Int) {
        samples = .allocate(capacity: count)
        samples.initialize(repeating: 0)
    }
    deinit { samples.deallocate() }
}

/// The I/O thread's per-period work: rings, the allocation rule, and devices without ALSA.
@Suite struct RealtimePathTests {
    @Test func ringWrapsAroundAndKeepsOrder() {
        let ring = SampleRing(minimumCapacity: 100)
        #expect(ring.capacity == 128)
        var next: Int16 = 0, expected: Int16 = 0
        for round in 0..<50 {
            let chunk = (0..<(37 + round % 11)).map { _ -> Int16 in defer { next &+= 1 }; return next }
            #expect(ring.write(chunk) == chunk.count)
            for sample in ring.read(maximumCount: chunk.count) {
                #expect(sample == expected)
                expected &+= 1
            }
        }
        #expect(ring.write([Int16](repeating: 1, count: 200)) == 128)
        #expect(ring.availableToWrite == 0)
    }

    @Test func ringMovesSamplesBetweenTwoThreadsInOrder() {
        let ring = SampleRing(minimumCapacity: 256)
        let total = 200_000
        let producer = Thread {
            var next: Int16 = 0
            var sent = 0
            var chunk = [Int16](repeating: 0, count: 61)
            let deadline = Date().addingTimeInterval(120)
            while sent < total && Date() < deadline {
                let count = min(chunk.count, total - sent)
                for index in 0..<count { chunk[index] = next &+ Int16(truncatingIfNeeded: index) }
                let written = chunk.withUnsafeBufferPointer { ring.write(UnsafeBufferPointer(rebasing: $0[0..<count])) }
                next &+= Int16(truncatingIfNeeded: written)
                sent += written
                if written == 0 { usleep(10) }
            }
        }
        producer.start()
        var received = 0, outOfOrder = 0
        var expected: Int16 = 0
        var buffer = [Int16](repeating: 0, count: 100)
        let deadline = Date().addingTimeInterval(120)
        while received < total && Date() < deadline {
            let count = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            for sample in buffer[0..<count] {
                if sample != expected { outOfOrder += 1 }
                expected &+= 1
            }
            received += count
            if count == 0 { usleep(10) }
        }
        #expect(received == total)
        #expect(outOfOrder == 0)
    }

    /// The I/O loop with a cycle callback that does what an engine on the I/O thread does:
    /// reads the captured period and writes a period to play, in the same wake-up.
    @Test func steadyStatePeriodsAllocateNothing() throws {
        let alsa = ScriptedALSA()
        let stream = try ALSAStream(device: "mock", parameters: StreamParameters(periodMs: 10), calls: alsa)
        let period = PeriodBuffer(samples: 480)
        let shortfalls = Atomic<Int>(0)
        try stream.start(thread: .none) {
            let read = stream.read(into: period.samples)
            let written = stream.write(UnsafeBufferPointer(period.samples))
            if read != 480 || written != 480 { shortfalls.wrappingAdd(1, ordering: .relaxed) }
        }
        defer { stream.stop() }
        for _ in 0..<50 { stream.runOnce() }  // warm-up: lazy one-time setup
        let (_, allocations) = AllocationCounter.measure {
            for _ in 0..<500 { stream.runOnce() }
        }
        #expect(allocations == 0, "\(allocations) allocations in 500 periods")
        #expect(shortfalls.load(ordering: .relaxed) == 0, "every callback read and wrote a whole period")
        #expect(stream.statistics(.capture).frames == 550 * 480)
        #expect(stream.statistics(.playback).ringUnderflowSamples == 0)
    }

    /// The same on a WAV file device on the virtual clock, recording into a reserved buffer
    /// (a growing recording allocates: 3 times in these 160 wake-ups).
    @Test func virtualClockDeviceWithReservedRecordingAllocatesNothing() throws {
        let source = (0..<48_000).map { Int16(truncatingIfNeeded: $0 &* 3) }
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: source),
                                                pacing: .virtualClock, recordingCapacitySamples: 48_000 * 2)
        let stream = try ALSAStream(device: "wav", parameters: StreamParameters(periodMs: 10), calls: device)
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
        #expect(device.virtualNanoseconds == 1_800_000_000, "180 periods of 10 ms")
        #expect(device.recordingDroppedSamples == 0)
        #expect(Array(device.recording().samples.dropFirst(960).prefix(1_000)) == Array(source.prefix(1_000)),
                "what was captured was played, after the prefill")
    }

    @Test func nullDeviceIsPacedInRealTime() throws {
        let stream = try ALSAStream(device: "null", parameters: StreamParameters(periodMs: 10), calls: VirtualAudioDevice.null())
        try stream.start(thread: .normal)
        let started = Date()
        var captured = 0
        while captured < 4_800 && Date().timeIntervalSince(started) < 60 {
            captured += stream.read().count
            usleep(2_000)
        }
        let elapsed = Date().timeIntervalSince(started)
        stream.stop()
        #expect(captured >= 4_800)
        // Paced: 100 ms of audio cannot come sooner (the ring's prefill aside). No upper bound:
        // a loaded machine may run the thread late, which is not what this tests.
        #expect(elapsed > 0.08, "100 ms of audio took \(elapsed) s")
    }

    @Test func wavFileDeviceAsFastAsPossibleDeliversTheFileAndRecordsPlayback() throws {
        let samples = (0..<48_000).map { Int16(truncatingIfNeeded: $0 &* 7) }
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: samples),
                                                pacing: .asFastAsPossible)
        let stream = try ALSAStream(device: "wav", parameters: StreamParameters(periodMs: 10), ringMs: 2_000, calls: device)
        try stream.start(thread: .none)
        stream.write(samples)
        let started = Date()
        var captured: [Int16] = []
        // The bound is for a stuck loop; how fast it goes is not tested (the machine is shared).
        while !device.sourceFinished && Date().timeIntervalSince(started) < 120 {
            stream.runOnce()
            captured += stream.read()
        }
        stream.stop()
        #expect(captured == samples)
        let recording = device.recording()
        #expect(recording.sampleRate == 48_000)
        #expect(Array(recording.samples.dropFirst(960).prefix(samples.count)) == samples)
    }
}

extension RealtimePathTests {
    @Test func probeLocatesASignalThatStartsWithSilence() {
        let chirp = LoopbackProbe.chirp(sampleRate: 48_000, durationMs: 200)
        let reference = [Int16](repeating: 0, count: 9_600) + chirp
        let captured = [Int16](repeating: 0, count: 2_345) + reference + [Int16](repeating: 0, count: 3_000)
        let found = LoopbackProbe.locate(reference, in: captured)
        #expect(found?.position == 2_345)
        #expect((found?.correlation ?? 0) > 0.99)
    }

    @Test func probeMeasuresTheRoundTripOfAPacedWAVDevice() throws {
        // The WAV device captures its source, not what is played: give it the played signal
        // delayed by 30 ms: the probe must measure those 30 ms plus the 20 ms (two periods) of
        // playback prefill that sit in the device buffer ahead of the signal.
        let chirp = LoopbackProbe.chirp(sampleRate: 48_000)
        let source = [Int16](repeating: 0, count: 9_600 + 1_440 + 960) + chirp
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: source), recordsPlayback: false)
        let stream = try ALSAStream(device: "wav", parameters: StreamParameters(periodMs: 10), calls: device)
        let result = try LoopbackProbe.run(stream, signal: chirp, maximumLatencyMs: 200, timeoutSeconds: 60, thread: .normal)
        let latency = try #require(result.latencyMs)
        #expect(result.correlation > 0.99)
        #expect(abs(latency - 50) < 15, "measured \(latency) ms")
    }
}

extension RealtimePathTests {
    @Test func refusedRealtimePriorityFallsBackAndSaysSo() throws {
        // Priority 1000 is outside SCHED_FIFO's range: refused (EINVAL) even for root.
        let stream = try ALSAStream(device: "null", parameters: StreamParameters(periodMs: 10), calls: VirtualAudioDevice.null())
        try stream.start(thread: .realtime(priority: 1_000))
        let deadline = Date().addingTimeInterval(60)
        while stream.statistics(.capture).frames < 960 && Date() < deadline { usleep(2_000); _ = stream.read() }
        stream.stop()
        #expect(!stream.isRealtime)
        #expect(stream.realtimeRefusal == .invalidArgument)
        #expect(stream.statistics(.capture).frames >= 960, "the stream runs at normal priority")
    }
}
