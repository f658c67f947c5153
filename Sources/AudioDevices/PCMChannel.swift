// SPDX-License-Identifier: Apache-2.0
import Locking
import SystemErrors

/// One open PCM of a stream (one direction): its descriptors, its ring, its fault handling.
/// Touched only by the thread that runs the I/O loop (or by the opener before it starts).
final class PCMChannel<Calls: ALSACalls> {
    let calls: Calls
    let device: String
    let direction: AudioDirection
    let policy: RecoveryPolicy
    let ring: SampleRing
    let counters = StreamCounters()
    /// The negotiated parameters, as the I/O thread uses them.
    private(set) var parameters: StreamParameters {
        didSet { published.withLock { $0 = parameters } }
    }
    /// A copy for other threads, updated when a reopen renegotiates (never per period): the
    /// app may ask `ALSAStream.parameters(for:)` at any time.
    let published: Locked<StreamParameters>
    private(set) var pcm: PCMHandle?
    /// Period buffer for one transfer (sized at the first open).
    private let scratch: UnsafeMutablePointer<Int16>
    private let scratchSamples: Int
    /// Where this PCM's descriptors sit in the loop's pollfd array.
    var descriptorOffset = 0
    var descriptorCount = 0
    /// Set when the PCM was reopened, so the loop refreshes its descriptors.
    var descriptorsChanged = false
    private(set) var isLost = false
    /// When the current fault began (0: none pending).
    private var faultStartNanoseconds: Int64 = 0
    /// POLLERR wake-ups in a row that moved no audio and returned no error.
    private var idleErrorWakeups = 0
    /// Set by the loop while the stream's other direction runs: xruns and suspends then wait in
    /// `pendingRestart` for the loop to restart both directions together.
    var restartsWithPartner = false
    /// The xrun (`.brokenPipe`) or suspend (`.streamPipe`) the loop must still restart from.
    var pendingRestart: Errno?
    private let post: @Sendable (AudioDeviceEvent) -> Void

    init(calls: Calls, device: String, direction: AudioDirection, requested: StreamParameters,
         ringSamples: Int, policy: RecoveryPolicy, post: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(ALSAError) {
        self.calls = calls
        self.device = device
        self.direction = direction
        self.policy = policy
        self.post = post
        let (pcm, negotiated) = try Self.open(calls: calls, device: device, direction: direction, requested: requested)
        self.pcm = pcm
        published = Locked(negotiated)
        self.parameters = negotiated
        scratchSamples = max(negotiated.periodSamples, requested.periodSamples)
        scratch = .allocate(capacity: scratchSamples)
        scratch.initialize(repeating: 0, count: scratchSamples)
        ring = SampleRing(minimumCapacity: max(ringSamples, 4 * scratchSamples))
    }

    deinit {
        if let pcm { calls.close(pcm) }
        scratch.deallocate()
    }

    private static func open(calls: Calls, device: String, direction: AudioDirection,
                             requested: StreamParameters) throws(ALSAError) -> (PCMHandle, StreamParameters) {
        let opened = calls.open(device: device, direction: direction)
        guard let pcm = opened.pcm, opened.code >= 0 else {
            guard opened.code < 0 else { throw ALSAError(function: "snd_pcm_open", code: .noSuchDevice, device: device) }
            throw ALSAError(function: "snd_pcm_open", status: opened.code, device: device)
        }
        var parameters = requested
        let configured = calls.configure(pcm, &parameters)
        guard configured.code >= 0 else {
            calls.close(pcm)
            throw ALSAError(function: configured.function, status: configured.code, device: device)
        }
        return (pcm, parameters)
    }

    /// Frames per transfer: one period, bounded by the scratch buffer.
    private var transferFrames: Int { min(parameters.periodFrames, scratchSamples / max(parameters.channelCount, 1)) }

    /// Prefills playback with silence and starts the PCM; returns 0 or a negative errno.
    func startPCM() -> Int32 {
        let status = prefill()
        return status < 0 ? status : startPrepared()
    }

    /// Writes `playbackPrefillPeriods` of silence into a prepared playback PCM (the start
    /// threshold is at the boundary, so this does not start it); capture does nothing. Returns
    /// 0 or a negative errno.
    func prefill() -> Int32 {
        guard let pcm else { return -Errno.noSuchDevice.rawValue }
        guard direction == .playback else { return 0 }
        let frames = transferFrames
        scratch.update(repeating: 0, count: frames * parameters.channelCount)
        for _ in 0..<max(policy.playbackPrefillPeriods, 1) {
            let written = calls.write(pcm, from: scratch, frames: frames)
            if written < 0 && Errno(negatedReturnValue: written) != .resourceTemporarilyUnavailable { return Int32(written) }
            if written > 0 { counters.frames.wrappingAdd(written, ordering: .relaxed) }
        }
        return 0
    }

    /// `snd_pcm_start` on a prepared (and, for playback, prefilled) PCM.
    func startPrepared() -> Int32 {
        guard let pcm else { return -Errno.noSuchDevice.rawValue }
        return calls.start(pcm)
    }

    /// `snd_pcm_drop`: stops the PCM where it is, dropping what its buffer holds.
    func drop() {
        guard let pcm else { return }
        _ = calls.drop(pcm)
    }

    /// `snd_pcm_prepare`, up to `policy.recoveryAttempts` times; returns the last status.
    func prepareWithRetries() -> Int32 {
        guard let pcm else { return -Errno.noSuchDevice.rawValue }
        var status = calls.prepare(pcm)
        var attempts = 1
        while status < 0 && attempts < policy.recoveryAttempts {
            status = calls.prepare(pcm)
            attempts += 1
        }
        return status
    }

    /// `snd_pcm_resume` while it answers `EAGAIN` (the device is still waking up), at most
    /// `policy.resumeAttempts` times with `policy.resumeRetryMicroseconds` between; returns the
    /// last status (negative: resume did not succeed, prepare instead).
    func resumeAfterSuspend() -> Int32 {
        guard let pcm else { return -Errno.noSuchDevice.rawValue }
        var status = calls.resume(pcm)
        var attempts = 1
        while status < 0 && Errno(negatedReturnValue: status) == .resourceTemporarilyUnavailable
                && attempts < policy.resumeAttempts {
            calls.sleep(microseconds: policy.resumeRetryMicroseconds)
            status = calls.resume(pcm)
            attempts += 1
        }
        return status
    }

    /// Stops and closes the PCM.
    func close() {
        guard let pcm else { return }
        _ = calls.drop(pcm)
        calls.close(pcm)
        self.pcm = nil
    }

    /// Serves one wake-up with the PCM's demangled poll events.
    func service(events: PollEvents) {
        guard let pcm, !isLost else { return }
        if events.contains(.hangUp) || events.contains(.invalid) {
            fail(ALSAError(function: "poll", code: .noSuchDevice, device: device))
            return
        }
        let moved = direction == .capture ? capture(pcm) : playback(pcm)
        if events.contains(.error) && moved == 0 && !isLost {
            idleErrorWakeups += 1
            if idleErrorWakeups >= 100 { fail(ALSAError(function: "poll", code: .noSuchDevice, device: device)) }
        } else if moved > 0 {
            idleErrorWakeups = 0
        }
    }

    /// Reads ready periods into the ring; returns frames moved.
    private func capture(_ pcm: PCMHandle) -> Int {
        let frames = transferFrames, channels = parameters.channelCount
        var moved = 0
        for _ in 0..<8 {
            let count = calls.read(pcm, into: scratch, frames: frames)
            if count == 0 { break }
            if count < 0 {
                let error = Errno(negatedReturnValue: count)
                if error == .resourceTemporarilyUnavailable { break }
                handle(error, function: "snd_pcm_readi")
                return moved
            }
            let samples = count * channels
            let written = ring.write(UnsafeBufferPointer(start: scratch, count: samples))
            if written < samples { counters.ringOverflowSamples.wrappingAdd(samples - written, ordering: .relaxed) }
            transferred(count)
            moved += count
            if count < frames { break }
        }
        updateTiming(pcm)
        return moved
    }

    /// Writes periods from the ring (silence when it runs dry) while the device has room.
    private func playback(_ pcm: PCMHandle) -> Int {
        let frames = transferFrames, samples = frames * parameters.channelCount
        var moved = 0
        for _ in 0..<8 {
            let available = calls.availableFrames(pcm)
            if available < 0 {
                let error = Errno(negatedReturnValue: available)
                if error == .resourceTemporarilyUnavailable { break }
                handle(error, function: "snd_pcm_avail_update")
                return moved
            }
            if available < frames { break }
            let got = ring.read(into: UnsafeMutableBufferPointer(start: scratch, count: samples))
            if got < samples {
                (scratch + got).update(repeating: 0, count: samples - got)
                counters.ringUnderflowSamples.wrappingAdd(samples - got, ordering: .relaxed)
            }
            let count = calls.write(pcm, from: scratch, frames: frames)
            if count < 0 {
                let error = Errno(negatedReturnValue: count)
                if error == .resourceTemporarilyUnavailable { break }
                handle(error, function: "snd_pcm_writei")
                return moved
            }
            transferred(count)
            moved += count
        }
        updateTiming(pcm)
        return moved
    }

    private func transferred(_ frames: Int) {
        let now = MonotonicClock.nanoseconds
        counters.frames.wrappingAdd(frames, ordering: .relaxed)
        counters.lastTransferNanoseconds.store(now, ordering: .releasing)
        if faultStartNanoseconds != 0 {
            let elapsed = now - faultStartNanoseconds
            faultStartNanoseconds = 0
            counters.lastRecoveryNanoseconds.store(elapsed, ordering: .relaxed)
            post(.recovered(direction, nanoseconds: elapsed))
        }
    }

    private func updateTiming(_ pcm: PCMHandle) {
        let delay = calls.delay(pcm)
        if delay.code >= 0 { counters.delayFrames.store(delay.frames, ordering: .relaxed) }
        let stamp = calls.timestamp(pcm)
        if stamp.code >= 0 { counters.timestampNanoseconds.store(stamp.nanoseconds, ordering: .relaxed) }
    }

    /// Handles an error `function` returned: recover, resume, reopen, or give up. An xrun or
    /// suspend of a channel that `restartsWithPartner` is only counted, reported and left in
    /// `pendingRestart` for the loop, which restarts both directions together.
    func handle(_ error: Errno, function: StaticString) {
        guard let pcm, error != .resourceTemporarilyUnavailable, error != .interrupted else { return }
        if faultStartNanoseconds == 0 { faultStartNanoseconds = MonotonicClock.nanoseconds }
        switch error {
        case .brokenPipe:  // xrun
            let total = counters.xruns.wrappingAdd(1, ordering: .relaxed).newValue
            post(.xrun(direction, count: total))
            if restartsWithPartner {
                pendingRestart = error
                return
            }
            var status = calls.recover(pcm, error: -error.rawValue)
            var attempts = 1
            while status < 0 && attempts < policy.recoveryAttempts {
                status = calls.prepare(pcm)
                attempts += 1
            }
            if status >= 0 { status = startPCM() }
            guard status >= 0 else {
                reopen(after: ALSAError(function: "snd_pcm_recover", status: status, device: device))
                return
            }
            counters.recoveries.wrappingAdd(1, ordering: .relaxed)
        case .streamPipe:  // suspended
            counters.suspends.wrappingAdd(1, ordering: .relaxed)
            post(.suspended(direction))
            if restartsWithPartner {
                pendingRestart = error
                return
            }
            var status = resumeAfterSuspend()
            if status < 0 {
                status = prepareWithRetries()
                if status >= 0 { status = startPCM() }
            }
            guard status >= 0 else {
                reopen(after: ALSAError(function: "snd_pcm_prepare", status: status, device: device))
                return
            }
            counters.recoveries.wrappingAdd(1, ordering: .relaxed)
        default:
            reopen(after: ALSAError(function: String(describing: function), code: error, device: device))
        }
    }

    /// Counts a restart of both directions in this one's statistics; the direction whose
    /// fault caused it also counts a recovery.
    func countRestart(causedHere: Bool) {
        counters.restarts.wrappingAdd(1, ordering: .relaxed)
        if causedHere { counters.recoveries.wrappingAdd(1, ordering: .relaxed) }
    }

    /// Closes the PCM and opens it again (bounded); declares the device lost if that fails.
    func reopen(after error: ALSAError) {
        close()
        descriptorsChanged = true
        for _ in 0..<max(policy.reopenAttempts, 0) {
            do {
                let (pcm, negotiated) = try Self.open(calls: calls, device: device, direction: direction, requested: parameters)
                self.pcm = pcm
                parameters = negotiated
                if startPCM() >= 0 {
                    counters.reopens.wrappingAdd(1, ordering: .relaxed)
                    post(.reopened(direction))
                    return
                }
                close()
            } catch {
                continue
            }
        }
        fail(error)
    }

    /// Marks the device lost and tells the stream's listeners.
    private func fail(_ error: ALSAError) {
        close()
        descriptorsChanged = true
        isLost = true
        counters.isLost.store(true, ordering: .releasing)
        post(.deviceLost(direction, AudioDeviceError(error)))
    }
}
