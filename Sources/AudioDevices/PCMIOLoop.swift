// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import Synchronization
import SystemErrors

/// The body of a stream's I/O thread: one `poll` over every PCM's descriptors and the stop
/// waker, then capture served, the cycle callback, playback served. Preallocated; one
/// iteration allocates nothing and takes no lock.
final class PCMIOLoop<Calls: ALSACalls>: @unchecked Sendable {
    let calls: Calls
    /// The stream's PCMs, kept in stored properties rather than an array: iterating a generic
    /// array allocates a coroutine frame in unoptimised builds.
    let capture: PCMChannel<Calls>?
    let playback: PCMChannel<Calls>?
    /// Every PCM's descriptors, then the stop waker's, in one buffer for `poll`.
    private let descriptors: UnsafeMutablePointer<PollDescriptor>
    private let descriptorCapacity = 32
    /// Descriptors of the PCMs (the waker follows them).
    private var descriptorTotal = 0
    private var descriptorsValid = false
    /// Ends a `poll` at once when the stream stops.
    let stopWaker: StopWaker
    /// Called once per wake-up between capture and playback (set before the loop runs).
    var onCycle: (@Sendable () -> Void)?
    /// Cleared to stop the thread.
    let running = Atomic<Bool>(false)
    /// Set by the thread as it leaves (releasing): whoever joins it loads it (acquiring), an
    /// edge ThreadSanitizer sees where it cannot see `pthread_clockjoin_np`'s.
    let finished = Atomic<Bool>(false)
    /// Whether the thread got SCHED_FIFO; the errno of the refusal otherwise.
    let realtime = Atomic<Bool>(false)
    let realtimeRefusal = Atomic<Int32>(0)
    /// A requested stall of the I/O thread, in milliseconds (tests force xruns with it).
    let stallMilliseconds = Atomic<Int>(0)
    /// Joint restarts of a duplex stream so far.
    let restarts = Atomic<Int>(0)
    let post: @Sendable (AudioDeviceEvent) -> Void

    init(calls: Calls, capture: PCMChannel<Calls>?, playback: PCMChannel<Calls>?, stopWaker: StopWaker,
         post: @escaping @Sendable (AudioDeviceEvent) -> Void) {
        self.calls = calls
        self.capture = capture
        self.playback = playback
        self.stopWaker = stopWaker
        self.post = post
        descriptors = .allocate(capacity: descriptorCapacity)
        descriptors.initialize(repeating: PollDescriptor(), count: descriptorCapacity)
    }

    deinit { descriptors.deallocate() }

    private func refreshDescriptors() {
        var offset = 0
        for channel in [capture, playback] {
            guard let channel else { continue }
            channel.descriptorsChanged = false
            channel.descriptorOffset = offset
            channel.descriptorCount = 0
            guard !channel.isLost, let pcm = channel.pcm else { continue }
            // The last slot stays the waker's.
            let wanted = min(calls.pollDescriptorCount(pcm), descriptorCapacity - 1 - offset)
            guard wanted > 0 else { continue }
            let filled = calls.pollDescriptors(pcm, into: descriptors + offset, count: wanted)
            guard filled > 0 else { continue }
            channel.descriptorCount = filled
            offset += filled
        }
        descriptorTotal = offset
        descriptors[offset] = stopWaker.pollDescriptor
        descriptorsValid = true
    }

    /// One wait and one round of transfers: capture, then `onCycle`, then playback, so what the
    /// callback queues for playback reaches the device in the same wake-up. A poll that times
    /// out still calls `onCycle`. Returns false when every PCM is lost.
    func runOnce(timeoutMs: Int32) -> Bool {
        let stall = stallMilliseconds.exchange(0, ordering: .relaxed)
        // `stall(milliseconds:)` clamps to 10 s; bounding again here keeps the microsecond
        // count inside UInt32 whatever was stored (5,000,000 ms used to trap this thread).
        if stall > 0 { usleep(UInt32(min(stall, 1_000_000) * 1_000)) }
        let captureActive = capture.map { prepare($0) } ?? false
        let playbackActive = playback.map { prepare($0) } ?? false
        guard captureActive || playbackActive else { return false }
        // Only a pair that both run restart together; a survivor recovers alone, as a
        // single-direction stream does.
        capture?.restartsWithPartner = captureActive && playbackActive
        playback?.restartsWithPartner = captureActive && playbackActive
        if !descriptorsValid { refreshDescriptors() }
        guard descriptorTotal > 0 else { return true }
        let ready = calls.poll(descriptors, count: descriptorTotal + 1, timeoutMs: timeoutMs)
        if ready > 0, let capture {
            serve(capture)
            if let fault = capture.pendingRestart { restartTogether(cause: capture, fault: fault) }
        }
        onCycle?()
        if ready > 0, let playback {
            serve(playback)
            if let fault = playback.pendingRestart { restartTogether(cause: playback, fault: fault) }
        }
        return !(capture?.isLost ?? true) || !(playback?.isLost ?? true)
    }

    /// Notes a reopened PCM's new descriptors; returns whether the PCM still runs.
    private func prepare(_ channel: PCMChannel<Calls>) -> Bool {
        if channel.descriptorsChanged { descriptorsValid = false }
        return !channel.isLost
    }

    /// Hands a PCM its poll events after a wake-up.
    private func serve(_ channel: PCMChannel<Calls>) {
        guard !channel.isLost, channel.descriptorCount > 0, let pcm = channel.pcm else { return }
        let result = calls.pollEvents(pcm, descriptors: descriptors + channel.descriptorOffset, count: channel.descriptorCount)
        if result.code < 0 {
            channel.handle(Errno(negatedReturnValue: result.code), function: "snd_pcm_poll_descriptors_revents")
        } else if !result.events.isEmpty {
            channel.service(events: result.events)
        }
    }

    /// Prefills playback, then starts every PCM back to back (one clock for a duplex pair).
    func startAll() throws(ALSAError) {
        if let playback {
            let status = playback.prefill()
            if status < 0 { throw ALSAError(function: "snd_pcm_writei", status: status, device: playback.device) }
        }
        for channel in [capture, playback] {
            guard let channel else { continue }
            let status = channel.startPrepared()
            if status < 0 { throw ALSAError(function: "snd_pcm_start", status: status, device: channel.device) }
        }
        descriptorsValid = false
    }
}
