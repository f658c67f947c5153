// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import Dispatch
import Locking
import Synchronization
import SystemErrors
import Transport

/// The façade a softphone links: calls (`CallMedia` with their sockets) on one audio device,
/// run on two threads at the edge of the sans-I/O core, as pjmedia and WebRTC's audio device
/// modules place them.
///
/// - **The audio thread** is the device stream's I/O thread (SCHED_FIFO when permitted). Each
///   wake-up it reads the captured period, runs voice processing and every call's uplink
///   (Opus, RTP into the call's send queue), renders the mix of every call's jitter buffer
///   into the playback ring, and the device takes it in the same wake-up. No allocation, no
///   lock, no system call besides the device wait (`AudioCycle`).
/// - **The network thread** polls every call's sockets, runs SRTP, RTCP and reception
///   accounting, sends what the audio thread queued, latches remote addresses from
///   authenticated packets (symmetric RTP) and forwards events (`NetworkLoop`).
/// - Between them, each call's fixed-slot single-producer/single-consumer queues; calls are
///   added and removed while audio runs through a queue the audio thread drains at its next
///   cycle, and a removed call is released on the network thread, never on the audio thread.
///
/// `start()` and `stop()` of device I/O are the only entry points that run audio (an audio
/// session is meant to be their only caller). The network thread runs from `init` to
/// `shutdown()` (or deinit), so calls keep their RTCP while audio is stopped.
///
/// ```swift
/// let engine = try VoiceEngine(configuration: VoiceEngineConfiguration())
/// let id = try engine.addCall(call, transport: CallTransport(rtp: socket))
/// try engine.start()
/// for await event in engine.events { … }
/// ```
public final class VoiceEngine: Sendable {
    /// The configuration the engine was made with.
    public let configuration: VoiceEngineConfiguration
    /// What happens, in order; buffers the newest 1,024 events.
    public let events: AsyncStream<VoiceEngineEvent>

    private struct Control: ~Copyable {
        var commands: SPSCProducer<AudioCommand>
        var removals: SPSCConsumer<AudioCommand>
        var calls: [EngineCallID: CallMedia] = [:]
        /// Calls removed from the mixer but not yet let go by the audio thread.
        var retiring: [ObjectIdentifier: CallMedia] = [:]
        var nextID: UInt64 = 1
        var stream: (any AudioDeviceStream)?
        var device: AudioDeviceOpener
        var isShutDown = false
        /// The audio session's preferred device rate and period, replacing the configuration's.
        var preferredParameters: StreamParameters?
        /// The audio session's processing, replacing `configuration.mixer.processing`.
        var processing: ProcessingConfiguration?
        /// Whether an audio session's activation is in effect (from `startForSession` to
        /// `stopForSession`): under `requiresAudioSession`, the app's own `start` and `stop`
        /// work only then.
        var isSessionActive = false
    }

    private let control: Locked<Control>
    private let cycle: AudioCycle
    private let network: NetworkLoop
    private let networkThread: Locked<JoinableThread?>
    private let sink: EngineEventSink

    /// An engine with `configuration`; its network thread starts now, device I/O on `start()`.
    /// - Throws: `VoiceEngineError` naming what was refused.
    public init(configuration: VoiceEngineConfiguration = VoiceEngineConfiguration()) throws(VoiceEngineError) {
        try configuration.validate()
        self.configuration = configuration
        let (events, continuation) = AsyncStream.makeStream(of: VoiceEngineEvent.self, bufferingPolicy: .bufferingNewest(1_024))
        self.events = events
        let sink = EngineEventSink(continuation: continuation)
        self.sink = sink
        let mixer: CallMixer
        do {
            mixer = try CallMixer(configuration: configuration.mixer)
        } catch {
            throw .configuration(.invalid(field: "mixer", reason: "\(error)"))
        }
        let clock = EngineClock()
        let commands = SPSCQueue(minimumCapacity: 2 * configuration.mixer.maximumCalls + 8,
                                 filler: AudioCommand(kind: .add, call: nil))
        let removals = SPSCQueue(minimumCapacity: 2 * configuration.mixer.maximumCalls + 8,
                                 filler: AudioCommand(kind: .remove, call: nil))
        let maximumPeriod = configuration.mixer.deviceSampleRate * configuration.mixer.maximumDevicePeriodMs / 1_000 * 8
        let poller: SocketPoller
        do {
            poller = try SocketPoller(capacity: 2 * configuration.mixer.maximumCalls)
        } catch {
            throw .socket(error)
        }
        network = NetworkLoop(poller: poller, clock: clock, policy: configuration.symmetricRTP, post: { sink.post($0) })
        cycle = AudioCycle(mixer: mixer, commands: commands.consumer, removals: removals.producer, clock: clock,
                           maximumPeriodSamples: maximumPeriod, uplinkWaker: { poller.wake() })
        control = Locked(Control(commands: commands.producer, removals: removals.consumer, device: configuration.device))
        networkThread = Locked(nil)
        network.housekeeping = { [weak self] in self?.housekeeping() }
        let loop = network
        guard let thread = JoinableThread.spawn({ loop.run() }) else { throw .threadCreationFailed("network") }
        networkThread.withLock { $0 = thread }
    }

    deinit {
        shutdown()
    }

    // MARK: Calls

    /// Adds `call` with its sockets; it plays and sends from the next device period (at once
    /// when audio runs). The sockets are marked with `configuration.trafficClass`.
    /// - Throws: `callAlreadyAdded`, `tooManyCalls`, `callFormatMismatch`, `socket` (marking),
    ///   `shutDown`.
    @discardableResult
    public func addCall(_ call: CallMedia, transport: CallTransport) throws(VoiceEngineError) -> EngineCallID {
        let mixer = configuration.mixer
        guard call.configuration.sampleRate == mixer.sampleRate, call.configuration.frameDurationMs == mixer.frameDurationMs else {
            throw .callFormatMismatch(callSampleRate: call.configuration.sampleRate, callFrameDurationMs: call.configuration.frameDurationMs,
                                      engineSampleRate: mixer.sampleRate, engineFrameDurationMs: mixer.frameDurationMs)
        }
        guard (transport.rtp == nil) != (transport.ice == nil) else {
            throw .invalidTransport("a call needs an RTP socket or an ICE agent (one of them)")
        }
        guard transport.ice == nil || transport.rtcp == nil else { throw .invalidTransport("an ICE agent carries RTCP with RTP (rtcp-mux)") }
        let association = try Self.dtlsAssociation(for: call, transport: transport)
        if let dscp = configuration.trafficClass {
            do {
                for socket in [transport.rtp, transport.rtcp].compactMap({ $0 }) { try socket.setTrafficClass(dscp) }
            } catch {
                throw .socket(error)
            }
        }
        let id = try control.withLock { (control: inout Control) throws(VoiceEngineError) -> EngineCallID in
            guard !control.isShutDown else { throw .shutDown }
            releaseRemovedCalls(&control)
            guard !control.calls.values.contains(where: { $0 === call }),
                  !control.retiring.values.contains(where: { $0 === call }) else { throw .callAlreadyAdded }
            // Calls being retired still occupy a mixer slot until the audio side lets them go.
            guard control.calls.count + control.retiring.count < mixer.maximumCalls else { throw .tooManyCalls(maximum: mixer.maximumCalls) }
            let id = EngineCallID(rawValue: control.nextID)
            control.nextID += 1
            control.calls[id] = call
            guard control.commands.push(AudioCommand(kind: .add, call: Unmanaged.passUnretained(call))) else {
                preconditionFailure("VoiceEngine: the audio command queue holds twice the maximum calls")
            }
            if control.stream == nil { cycle.applyCommands() }
            return id
        }
        network.enqueue(.add(id, call, transport, association.map(DTLSKeyingHandoff.init)))
        return id
    }

    /// The DTLS handshake that keys `call`, made here (where allocating is allowed), or nil when
    /// the call is keyed otherwise. Checks that the call's keying and the transport agree.
    private static func dtlsAssociation(for call: CallMedia, transport: CallTransport) throws(VoiceEngineError) -> DTLSCallKeying? {
        guard let keying = transport.dtls else {
            if call.isKeyedByHandshake { throw .keyingMismatch("the call waits for DTLS-SRTP keys, but its transport runs no DTLS handshake") }
            return nil
        }
        guard transport.rtcp == nil else { throw .keyingMismatch("DTLS-SRTP needs RTCP on the RTP port (rtcp-mux)") }
        return try DTLSCallKeying(media: call, keying: keying)
    }

    /// Removes the call `id`: it stops playing and sending at the next device period, and the
    /// network thread sends an RTCP BYE first when `sayingGoodbye`.
    /// - Throws: `unknownCall`.
    public func removeCall(_ id: EngineCallID, sayingGoodbye: Bool = true) throws(VoiceEngineError) {
        try control.withLock { (control: inout Control) throws(VoiceEngineError) in
            guard let call = control.calls.removeValue(forKey: id) else { throw .unknownCall(id) }
            control.retiring[ObjectIdentifier(call)] = call
            guard control.commands.push(AudioCommand(kind: .remove, call: Unmanaged.passUnretained(call))) else {
                preconditionFailure("VoiceEngine: the audio command queue holds twice the maximum calls")
            }
            if control.stream == nil { cycle.applyCommands() }
            releaseRemovedCalls(&control)
        }
        network.enqueue(.remove(id, bye: sayingGoodbye))
    }

    /// The calls in the engine.
    public var callIDs: [EngineCallID] {
        control.withLock { $0.calls.keys.sorted { $0.rawValue < $1.rawValue } }
    }

    /// The call `id`'s statistics (safe from any thread while audio runs), or nil.
    public func statistics(of id: EngineCallID) -> CallMediaStatistics? {
        control.withLock { $0.calls[id] }?.statistics
    }

    /// Releases the calls the audio side has let go of (never on the audio thread).
    private func releaseRemovedCalls(_ control: inout Control) {
        while let removed = control.removals.pop() {
            guard let call = removed.call?.takeUnretainedValue() else { continue }
            control.retiring.removeValue(forKey: ObjectIdentifier(call))
        }
    }

    // MARK: Device I/O

    /// Opens the device and starts the audio thread: calls play and send from the first
    /// period. Does nothing when audio runs.
    ///
    /// With `configuration.requiresAudioSession`, only inside an activation of the engine's
    /// audio session (between `setActive(true)` and its deactivation or interruption): an app
    /// that starts its audio in `didActivate`, as iOS apps start theirs, starts it again after
    /// its own `stop()`; outside an activation it is refused.
    /// - Throws: `sessionNotActive` when `configuration.requiresAudioSession` and no session
    ///   activation is in effect, `device` (the device could not be opened or started),
    ///   `shutDown`.
    public func start() throws(VoiceEngineError) {
        try startAudio(requiringActivation: configuration.requiresAudioSession)
    }

    /// Stops the audio thread and closes the device. Calls stay (their network side runs on);
    /// does nothing when audio is stopped.
    ///
    /// With `configuration.requiresAudioSession`, inside an activation of the engine's audio
    /// session audio stays stopped until `start()` or the next activation. Outside one nothing
    /// runs, so there is nothing to stop and nothing is refused: iOS apps stop their audio in
    /// `didDeactivate`, which comes after the deactivation.
    public func stop() {
        control.withLock { control in
            stopDevice(&control, lost: false)
        }
    }

    /// Starts device I/O for an audio session's activation, whatever `requiresAudioSession`
    /// says, with the session's preferred device rate and period (nil keeps the configuration's).
    /// Package access: the package's audio session is the only caller outside the engine, so
    /// an application starts audio under `requiresAudioSession` only by activating a session.
    /// - Throws: `configuration` (a preference no engine could run with), `device`, `shutDown`.
    package func startForSession(sampleRate: Int?, periodMs: Int?) throws(VoiceEngineError) {
        if let sampleRate, !(8_000...192_000).contains(sampleRate) {
            throw .configuration(.invalid(field: "sampleRate", reason: "\(sampleRate) Hz is outside 8–192 kHz"))
        }
        if let periodMs, !(1...configuration.mixer.maximumDevicePeriodMs).contains(periodMs) {
            throw .configuration(.invalid(field: "periodMs", reason: "\(periodMs) ms is outside 1–\(configuration.mixer.maximumDevicePeriodMs) ms"))
        }
        let parameters = StreamParameters(sampleRate: sampleRate ?? configuration.mixer.deviceSampleRate, channelCount: 1,
                                          periodMs: periodMs ?? configuration.periodMs, periods: configuration.periods)
        control.withLock {
            $0.preferredParameters = parameters
            $0.isSessionActive = true
        }
        do {
            try startAudio(requiringActivation: false)
        } catch {
            control.withLock { $0.isSessionActive = false }
            throw error
        }
    }

    /// Stops device I/O for an audio session's deactivation, whatever `requiresAudioSession` says.
    package func stopForSession() {
        control.withLock { control in
            control.isSessionActive = false
            stopDevice(&control, lost: false)
        }
    }

    /// Points device I/O at the PCM `name` of the same ALSA layer from the next start (an audio
    /// session's route chose it); only while device I/O is stopped.
    /// - Throws: `audioRunning`, `shutDown`.
    package func setDevice(named name: String) throws(VoiceEngineError) {
        try control.withLock { (control: inout Control) throws(VoiceEngineError) in
            guard !control.isShutDown else { throw .shutDown }
            guard control.stream == nil else { throw .audioRunning }
            guard control.device.name != name else { return }
            control.device = control.device.renamed(name)
        }
    }

    /// Replaces the mixer's voice processing (the audio session's mode decides it); only while
    /// device I/O is stopped, and kept across device restarts.
    /// - Throws: `audioRunning`, `configuration` (the processor refused it).
    package func setProcessing(_ processing: ProcessingConfiguration) throws(VoiceEngineError) {
        try control.withLock { (control: inout Control) throws(VoiceEngineError) in
            guard control.stream == nil else { throw .audioRunning }
            do {
                try cycle.mixer.setProcessing(processing)
            } catch {
                throw .configuration(.invalid(field: "processing", reason: "\(error)"))
            }
            control.processing = processing
        }
    }

    /// The voice processing the mixer runs (the configuration's until an audio session sets it).
    package var processing: ProcessingConfiguration {
        control.withLock { _ in cycle.mixer.processor.configuration }
    }

    /// The playback parameters the device runs with (nil while stopped): the actual rate and
    /// period an audio session reads back after activation.
    package var deviceParameters: StreamParameters? {
        control.withLock { $0.stream }?.parameters(for: .playback)
    }

    /// Opens the device as `start` would and closes it again, without starting it: nil when it
    /// could start now (or already runs), else why not — `.resourceBusy` when another process
    /// holds it, `.connectionRefused` when its sound server is down. An audio session asks
    /// this to learn when a lost or busy device is back, without starting audio.
    package func openDeviceOnce() -> AudioDeviceError? {
        control.withLock { control -> AudioDeviceError? in
            guard control.stream == nil, !control.isShutDown else { return nil }
            do throws(AudioDeviceError) {
                let stream = try control.device.open(parameters: control.preferredParameters ?? configuration.streamParameters, policy: configuration.recovery)
                stream.stop()
                return nil
            } catch {
                return error
            }
        }
    }

    /// Calls `observer` with every event, synchronously on the thread that posts it (the
    /// network thread, sometimes with the engine's lock held): an audio session's way to learn
    /// of a lost device without taking the application's handler. The observer must not call
    /// back into the engine; it hands the event to its own queue. Nil clears it.
    package func setSessionObserver(_ observer: (@Sendable (VoiceEngineEvent) -> Void)?) {
        sink.setObserver(observer)
    }

    /// Adds an observer called with every event, synchronously on the thread that posts it (as
    /// `setSessionObserver`'s, and under the same rules: it must not call back into the engine);
    /// a call provider's way to follow its calls' media. Returns a token for
    /// `removeEventObserver`.
    package func addEventObserver(_ observer: @escaping @Sendable (VoiceEngineEvent) -> Void) -> Int {
        sink.addObserver(observer)
    }

    /// Removes the observer `token` named.
    package func removeEventObserver(_ token: Int) {
        sink.removeObserver(token)
    }

    private func startAudio(requiringActivation: Bool) throws(VoiceEngineError) {
        try control.withLock { (control: inout Control) throws(VoiceEngineError) in
            guard !control.isShutDown else { throw .shutDown }
            if requiringActivation && !control.isSessionActive { throw .sessionNotActive }
            guard control.stream == nil else { return }
            try startDevice(&control, device: control.device)
        }
    }

    /// Whether device I/O runs.
    public var isRunning: Bool { control.withLock { $0.stream != nil } }

    /// The device I/O runs on (or will run on at the next `start()`).
    public var deviceName: String { control.withLock { $0.device.name } }

    private func startDevice(_ control: inout Control, device: AudioDeviceOpener) throws(VoiceEngineError) {
        let sink = self.sink
        let network = self.network
        network.deviceLost.store(false, ordering: .relaxed)
        let stream: any AudioDeviceStream
        do {
            stream = try device.open(parameters: control.preferredParameters ?? configuration.streamParameters, policy: configuration.recovery) { event in
                sink.post(.device(event))
                if case .deviceLost = event {
                    network.deviceLost.store(true, ordering: .releasing)
                    network.wake()
                }
            }
        } catch {
            throw .device(error)
        }
        let negotiated = stream.parameters(for: .playback) ?? control.preferredParameters ?? configuration.streamParameters
        var replacement: CallMixer?
        if negotiated.sampleRate != cycle.mixer.configuration.deviceSampleRate {
            var mixing = configuration.mixer
            mixing.deviceSampleRate = negotiated.sampleRate
            if let processing = control.processing { mixing.processing = processing }
            replacement = try? CallMixer(configuration: mixing)
        }
        cycle.attach(stream, mixer: replacement)
        let cycle = self.cycle
        do {
            let thread: IOThreadMode = configuration.realtimePriority.map { .realtime(priority: $0) } ?? .normal
            try stream.start(thread: thread, onCycle: { cycle.cycle() })
        } catch {
            cycle.detach()
            stream.stop()
            throw .device(error)
        }
        control.stream = stream
        control.device = device
        sink.post(.audioStarted(device: device.name))
        if configuration.realtimePriority != nil {
            // The thread asks for SCHED_FIFO as it starts; wait briefly for its answer.
            let deadline = MonotonicClock.nanoseconds + 200_000_000
            while !stream.isRealtime && stream.realtimeRefusal == nil && MonotonicClock.nanoseconds < deadline {
                MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 1_000_000)
            }
            if let refusal = stream.realtimeRefusal { sink.post(.realtimeRefused(refusal)) }
        }
    }

    private func stopDevice(_ control: inout Control, lost: Bool) {
        guard let stream = control.stream else { return }
        stream.stop()
        cycle.detach()
        control.stream = nil
        // The audio thread is gone: this thread applies what it left queued.
        cycle.applyCommands()
        releaseRemovedCalls(&control)
        sink.post(.audioStopped(device: control.device.name, lost: lost))
    }

    /// On the network thread each round: release calls the audio side let go of, and act on
    /// a lost device as configured.
    private func housekeeping() {
        let lost = network.deviceLost.exchange(false, ordering: .acquiring)
        control.withLock { control in
            releaseRemovedCalls(&control)
            guard lost, control.stream != nil else { return }
            let from = control.device.name
            stopDevice(&control, lost: true)
            guard case let .switchTo(fallback) = configuration.onDeviceLoss else { return }
            do {
                try startDevice(&control, device: fallback)
                sink.post(.deviceSwitched(from: from, to: fallback.name))
            } catch {
                sink.post(.audioStopped(device: fallback.name, lost: true))
            }
        }
    }

    // MARK: Observation

    /// The microphone side: levels, echo (ERL, ERLE, delay), drift correction, device faults;
    /// published by the audio thread every period.
    public var mediaSourceStatistics: MediaSourceStatistics { cycle.sourceStatistics.read() }

    /// The device's counters for `direction` while audio runs (nil when stopped).
    public func deviceStatistics(_ direction: AudioDirection) -> StreamStatistics? {
        control.withLock { $0.stream }?.statistics(direction)
    }

    /// Whether the audio thread runs under SCHED_FIFO (false when stopped or refused).
    public var isRealtime: Bool { control.withLock { $0.stream }?.isRealtime ?? false }

    /// From `start()` to the first captured period reaching the calls and the first rendered
    /// period going to the device, in ms (nil until each has happened).
    public var timeToFirstAudio: (capture: Double?, playback: Double?) {
        let start = cycle.startNanoseconds.load(ordering: .relaxed)
        func since(_ stamp: Int64) -> Double? { stamp == 0 ? nil : Double(stamp - start) / 1e6 }
        return (since(cycle.firstCaptureNanoseconds.load(ordering: .relaxed)), since(cycle.firstPlaybackNanoseconds.load(ordering: .relaxed)))
    }

    // MARK: Lifetime

    /// Stops audio, then the network thread (after a BYE on every call), and ends `events`.
    /// The engine refuses everything afterwards. Idempotent.
    public func shutdown() {
        let ids = control.withLock { control -> [EngineCallID] in
            guard !control.isShutDown else { return [] }
            control.isShutDown = true
            stopDevice(&control, lost: false)
            return Array(control.calls.keys)
        }
        for id in ids { network.enqueue(.remove(id, bye: true)) }
        network.running.store(false, ordering: .releasing)
        network.wake()
        if let thread = networkThread.withLock({ handle -> JoinableThread? in defer { handle = nil }; return handle }) {
            thread.join()
        }
        control.withLock { control in
            for (_, call) in control.calls {
                _ = control.commands.push(AudioCommand(kind: .remove, call: Unmanaged.passUnretained(call)))
            }
            cycle.applyCommands()
            releaseRemovedCalls(&control)
            control.calls.removeAll()
        }
        sink.finish()
    }

    /// Delivers every event also to `handler`, on `queue` (nil clears it): the delegate form of
    /// `events`, for code that is not async.
    public func setEventHandler(queue: DispatchQueue, _ handler: (@Sendable (VoiceEngineEvent) -> Void)?) {
        sink.setHandler(queue: queue, handler)
    }

    /// Makes the audio thread sleep `milliseconds` before its next wait, forcing an xrun (a
    /// diagnostic for tests: `ALSAStream.stall(milliseconds:)`).
    func stallAudioThread(milliseconds: Int) {
        control.withLock { $0.stream }?.stall(milliseconds: milliseconds)
    }

    /// Runs `observer` on the audio thread after every cycle (tests count its allocations).
    /// Only while audio is stopped (the audio thread reads it without a lock); ignored otherwise.
    func setCycleObserver(_ observer: (@Sendable () -> Void)?) {
        control.withLock { control in
            guard control.stream == nil else { return }
            cycle.cycleObserver = observer
        }
    }
}
