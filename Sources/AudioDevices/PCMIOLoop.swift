internal import Glibc
import Synchronization
import SystemErrors

/// The body of a stream's I/O thread: one `poll` over every PCM's descriptors, then each
/// ready PCM served. Preallocated; one iteration allocates nothing and takes no lock.
final class PCMIOLoop<Calls: ALSACalls>: @unchecked Sendable {
    let calls: Calls
    /// At most two PCMs (capture first), kept in stored properties rather than an array:
    /// iterating a generic array allocates a coroutine frame in unoptimised builds.
    private let first: PCMChannel<Calls>?
    private let second: PCMChannel<Calls>?
    private let descriptors: UnsafeMutablePointer<PollDescriptor>
    private let descriptorCapacity = 32
    private var descriptorTotal = 0
    private var descriptorsValid = false
    /// Cleared to stop the thread.
    let running = Atomic<Bool>(false)
    /// Set by the thread as it leaves.
    let finished = Atomic<Bool>(false)
    /// Whether the thread got SCHED_FIFO; the errno of the refusal otherwise.
    let realtime = Atomic<Bool>(false)
    let realtimeRefusal = Atomic<Int32>(0)
    /// A requested stall of the I/O thread, in milliseconds (tests force xruns with it).
    let stallMilliseconds = Atomic<Int>(0)

    init(calls: Calls, channels: [PCMChannel<Calls>]) {
        self.calls = calls
        precondition(channels.count <= 2, "a stream has at most a capture and a playback PCM")
        first = channels.first
        second = channels.count > 1 ? channels[1] : nil
        descriptors = .allocate(capacity: descriptorCapacity)
        descriptors.initialize(repeating: PollDescriptor(), count: descriptorCapacity)
    }

    deinit { descriptors.deallocate() }

    private func refreshDescriptors() {
        var offset = 0
        for channel in [first, second] {
            guard let channel else { continue }
            channel.descriptorsChanged = false
            channel.descriptorOffset = offset
            channel.descriptorCount = 0
            guard !channel.isLost, let pcm = channel.pcm else { continue }
            let wanted = min(calls.pollDescriptorCount(pcm), descriptorCapacity - offset)
            guard wanted > 0 else { continue }
            let filled = calls.pollDescriptors(pcm, into: descriptors + offset, count: wanted)
            guard filled > 0 else { continue }
            channel.descriptorCount = filled
            offset += filled
        }
        descriptorTotal = offset
        descriptorsValid = true
    }

    /// One wait and one round of transfers. Returns false when every PCM is lost.
    func runOnce(timeoutMs: Int32) -> Bool {
        let stall = stallMilliseconds.exchange(0, ordering: .relaxed)
        // `stall(milliseconds:)` clamps to 10 s; bounding again here keeps the microsecond
        // count inside UInt32 whatever was stored (5,000,000 ms used to trap this thread).
        if stall > 0 { usleep(UInt32(min(stall, 1_000_000) * 1_000)) }
        let firstActive = first.map { prepare($0) } ?? false
        let secondActive = second.map { prepare($0) } ?? false
        guard firstActive || secondActive else { return false }
        if !descriptorsValid { refreshDescriptors() }
        guard descriptorTotal > 0 else { return true }
        let ready = calls.poll(descriptors, count: descriptorTotal, timeoutMs: timeoutMs)
        guard ready > 0 else { return true }
        if let first { serve(first) }
        if let second { serve(second) }
        return !(first?.isLost ?? true) || !(second?.isLost ?? true)
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

    /// Prefills playback and starts every PCM back to back (one clock for a duplex pair).
    func startAll() throws(ALSAError) {
        for channel in [first, second] {
            guard let channel else { continue }
            let status = channel.startPCM()
            if status < 0 {
                throw ALSAError(function: channel.direction == .playback ? "snd_pcm_writei/snd_pcm_start" : "snd_pcm_start",
                                status: status, device: channel.device)
            }
        }
        descriptorsValid = false
    }
}
