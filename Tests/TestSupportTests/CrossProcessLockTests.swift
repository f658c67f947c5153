// SPDX-License-Identifier: Apache-2.0
import Foundation
import Synchronization
import Testing
import TestSupport

/// `CrossProcessLock` (behind `RealDeviceLock`) excludes threads of this process, including
/// holders with their own lock object on the same file, and other processes.
@Suite struct CrossProcessLockTests {
    /// A lock file of this test's own, so the real device's lock is never touched.
    static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "voiceengine-lock-test-\(getpid())-\(name).lock"
    }

    /// `flock -n PATH true` in another process: whether it got the lock at once.
    static func anotherProcessGetsTheLock(_ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["-n", path, "true"]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// What the two holders of `secondHolderWaits` tell each other.
    final class Holders: Sendable {
        let aInside = Atomic<Bool>(false), bAsking = Atomic<Bool>(false)
        let bSawA = Atomic<Bool>(true), bDone = Atomic<Bool>(false)
    }

    /// Waits (bounded, polling every millisecond) until `condition` holds.
    static func wait(_ condition: () -> Bool) {
        var waited = 0
        while !condition() && waited < 60_000 { usleep(1_000); waited += 1 }
    }

    /// Holder A waits inside the lock until B has asked for it, then stays 50 ms more: if B
    /// got in meanwhile, it saw A still inside.
    func secondHolderWaits(_ first: CrossProcessLock, _ second: CrossProcessLock) {
        let holders = Holders()
        Thread {
            first.withLock {
                holders.aInside.store(true, ordering: .sequentiallyConsistent)
                Self.wait { holders.bAsking.load(ordering: .sequentiallyConsistent) }
                usleep(50_000)
                holders.aInside.store(false, ordering: .sequentiallyConsistent)
            }
        }.start()
        Self.wait { holders.aInside.load(ordering: .sequentiallyConsistent) }
        Thread {
            holders.bAsking.store(true, ordering: .sequentiallyConsistent)
            second.withLock {
                holders.bSawA.store(holders.aInside.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            }
            holders.bDone.store(true, ordering: .sequentiallyConsistent)
        }.start()
        Self.wait { holders.bDone.load(ordering: .sequentiallyConsistent) }
        let done = holders.bDone.load(ordering: .sequentiallyConsistent)
        let overlapped = holders.bSawA.load(ordering: .sequentiallyConsistent)
        #expect(done, "the second holder got the lock once the first let go")
        #expect(!overlapped, "the second holder never ran inside the first's hold")
    }

    @Test func excludesThreadsSharingALock() {
        let lock = CrossProcessLock(path: Self.temporaryPath("shared"))
        defer { unlink(lock.path) }
        secondHolderWaits(lock, lock)
    }

    /// Two lock objects on one file (as two test targets' suites would make) exclude each other
    /// through `flock` alone: each hold opens its own file description.
    @Test func excludesThreadsWithTheirOwnLockOnTheSameFile() {
        let path = Self.temporaryPath("separate")
        defer { unlink(path) }
        secondHolderWaits(CrossProcessLock(path: path), CrossProcessLock(path: path))
    }

    @Test func excludesOtherProcessesWhileHeld() throws {
        let path = Self.temporaryPath("process")
        defer { unlink(path) }
        let lock = CrossProcessLock(path: path)
        let whileHeld = try lock.withLock { try Self.anotherProcessGetsTheLock(path) }
        #expect(!whileHeld, "flock(1) got the lock while this process held it")
        #expect(try Self.anotherProcessGetsTheLock(path), "released after the closure")
    }

    @Test func realDeviceLockIsNamedAfterTheUser() throws {
        #expect(RealDeviceLock.path.hasPrefix("/tmp/voiceengine-real-device-"))
        #expect(RealDeviceLock.path.hasSuffix(".lock"))
        let value = try RealDeviceLock.withLock { () throws(CancellationError) -> Int in 42 }
        #expect(value == 42)
    }
}
