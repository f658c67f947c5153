// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

/// `offCooperativePool`: the body runs outside Swift's cooperative pool, holds none of its
/// threads while it blocks, and still reports to the test that called it.
@Suite struct OffCooperativePoolTests {
    @Test func theBodyReturnsItsResultOrThrowsItsError() async throws {
        #expect(await offCooperativePool { 6 * 7 } == 42)
        let thrown = await #expect(throws: CocoaError.self) {
            try await offCooperativePool { () throws -> Int in throw CocoaError(.fileNoSuchFile) }
        }
        #expect(thrown?.code == .fileNoSuchFile)
    }

    @Test func anIssueInsideBelongsToTheTest() async {
        await withKnownIssue("an issue recorded inside the body") {
            try await Self.recordAnIssueOffThePool()
        }
    }

    static func recordAnIssueOffThePool() async throws {
        await offCooperativePool { () -> Void in Issue.record("recorded off the pool") }
    }

    /// As many blocked bodies as the pool has threads, and more: each waits for a task that
    /// runs on the pool once every body is waiting. Were the bodies on the pool, no thread
    /// would be left to run it, and the waits would give up.
    @Test func blockedBodiesLeaveThePoolFree() async {
        let bodies = ProcessInfo.processInfo.activeProcessorCount + 2
        let released = DispatchSemaphore(value: 0)
        let counts = Counts()
        Task.detached {
            while counts.waiting.load(ordering: .acquiring) < bodies, counts.finished.load(ordering: .acquiring) == 0 {
                try? await Task.sleep(for: .milliseconds(5))
            }
            for _ in 0..<bodies { released.signal() }
        }
        let results = await withTaskGroup(of: DispatchTimeoutResult.self) { group in
            for _ in 0..<bodies {
                group.addTask {
                    await offCooperativePool {
                        counts.waiting.add(1, ordering: .releasing)
                        defer { counts.finished.add(1, ordering: .releasing) }
                        return released.wait(timeout: .now() + 120)
                    }
                }
            }
            return await group.reduce(into: [DispatchTimeoutResult]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 == .success })
    }

    /// Bodies that have started waiting, and bodies that are done.
    final class Counts: Sendable {
        let waiting = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
    }
}
