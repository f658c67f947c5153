// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Glibc
import Testing

/// `stop()` wakes the I/O thread through the stop waker (the last descriptor of its `poll`) and
/// joins it; nothing is left behind.
@Suite struct StopTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    /// Whether `descriptor` is readable now.
    static func isReadable(_ descriptor: Int32) -> Bool {
        var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&probe, 1, 0) == 1 && probe.revents & Int16(POLLIN) != 0
    }

    /// Waits (bounded) until the stream's thread has polled once; returns its stop waker.
    static func stopWaker(of alsa: ScriptedALSA) -> Int32? {
        var waited = 0
        while alsa.stopWakerDescriptor == nil && waited < 60_000 { usleep(1_000); waited += 1 }
        return alsa.stopWakerDescriptor
    }

    @Test func stopMakesTheWakerReadable() throws {
        let alsa = ScriptedALSA(pollIntervalMicroseconds: 1_000)
        let stream = try ALSAStream(device: "mock", parameters: parameters, calls: alsa)
        try stream.start(thread: .normal)
        let waker = try #require(Self.stopWaker(of: alsa))
        // The last descriptor the thread polls is the stream's own eventfd.
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(waker)")
        #expect(target == "anon_inode:[eventfd]", "the waker is \(target)")
        #expect(!Self.isReadable(waker), "not before stop()")
        stream.stop()
        #expect(Self.isReadable(waker), "readable once stop() was asked for")
        #expect(alsa.openCount == 0)
    }

    /// The double waits a minute in `poll` unless the waker ends it; stop() would give up on the
    /// thread after 2 s and leave the PCMs open (detached) if the waker did not wake it.
    @Test func stopEndsAPollLongerThanItsJoinDeadline() throws {
        let alsa = ScriptedALSA(pollIntervalMicroseconds: 60_000_000)
        let stream = try ALSAStream(device: "mock", parameters: parameters, calls: alsa)
        try stream.start(thread: .normal)
        _ = try #require(Self.stopWaker(of: alsa), "the thread is in its first poll")
        stream.stop()
        #expect(alsa.openCount == 0, "the thread was joined and the PCMs closed")
    }

    /// Entries of a /proc/self directory: the process's descriptors or threads.
    static func count(_ directory: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    }

    /// 200 streams on a real-time null device, started and stopped: no eventfd or thread is
    /// left. Other suites run in parallel in this process, so the counts may move a little;
    /// a leak would add 200.
    @Test func startStopCyclesLeakNoDescriptorOrThread() throws {
        let device = VirtualAudioDevice.null(pacing: .realtime)
        let descriptorsBefore = Self.count("/proc/self/fd"), threadsBefore = Self.count("/proc/self/task")
        for _ in 0..<200 {
            let stream = try ALSAStream(device: "null", parameters: parameters, calls: device)
            try stream.start(thread: .normal)
            stream.stop()
        }
        let descriptorsAfter = Self.count("/proc/self/fd"), threadsAfter = Self.count("/proc/self/task")
        #expect(descriptorsBefore > 0 && threadsBefore > 0)
        #expect(descriptorsAfter - descriptorsBefore < 50, "descriptors \(descriptorsBefore) → \(descriptorsAfter)")
        #expect(threadsAfter - threadsBefore < 50, "threads \(threadsBefore) → \(threadsAfter)")
    }
}
