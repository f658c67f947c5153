// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Runs a long test body (seconds of computation, or of blocking) on a thread of its own
/// instead of one of Swift's cooperative pool, and waits for it there without holding one.
///
/// Why: Swift Testing runs every test on the cooperative pool, which has one thread per core
/// (two on CI). Two long synchronous bodies hold both for as long as they run, and every other
/// test that has started meanwhile, its time limit already counting, waits for them: beside a
/// release build, fifty one-minute limits of quick tests expired at one instant that way. A
/// body given here runs on a Dispatch thread (outside the pool) with the test's task-locals, so
/// `#expect` and `Issue.record` still belong to the test, and the pool stays free for the rest.
///
/// ```swift
/// @Test func anHourOfCall() async throws {
///     try await offCooperativePool { try runTheHour() }
/// }
/// ```
///
/// Code that counts allocations (`AllocationCounter.measure`) may run inside: a synchronous
/// stretch of the body stays on one thread.
public func offCooperativePool<Result, Failure: Error>(
    _ body: () async throws(Failure) -> Result
) async throws(Failure) -> Result {
    try await withTaskExecutorPreference(DispatchThreadExecutor(), operation: body)
}

/// A task executor whose jobs run in order on a serial Dispatch queue: on Dispatch's worker
/// threads, never the cooperative pool's.
private final class DispatchThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "TestSupport.offCooperativePool")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
