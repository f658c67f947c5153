// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Dispatch

/// Routes, lost and busy devices and the media services: what the center learns from its
/// `AudioSessionDeviceLayer` and the engines' devices.
extension AudioSessionCenter {
    /// Whether the media services are lost (until the `checkDevices()` that finds them back).
    public var mediaServicesLost: Bool { state.withLock { $0.servicesLost != nil } }

    /// Looks at the devices now, as a hot-plug notice or `startMonitoringDevices` does:
    /// the sound server gone → media services lost; back → reset; the device list changed →
    /// each session whose route moved gets `routeChanged` (new device available / old device
    /// unavailable) and loses its output override; a lost or busy device of an interrupted
    /// session that opens again ends that interruption (shouldResume true). Blocks its caller.
    public func checkDevices() {
        let devices = deviceLayer.devices()
        let failure = deviceLayer.servicesFailure()
        state.withLock { state in
            if let failure {
                Self.loseServices(&state, reason: failure)
            } else if state.servicesLost != nil {
                Self.resetServices(&state, devices: devices)
            }
            if devices != state.devices {
                let before = Set(AudioSessionRoutes.ports(of: state.devices).inputs + AudioSessionRoutes.ports(of: state.devices).outputs)
                let after = AudioSessionRoutes.ports(of: devices)
                let present = Set(after.inputs + after.outputs)
                let vanished = before.subtracting(present)
                state.devices = devices
                for id in state.records.keys {
                    let old = state.records[id]!.route
                    var record = state.records[id]!
                    record.outputOverride = .none
                    let new = Self.route(of: record, devices: devices)
                    guard new != old else { continue }
                    state.records[id]!.outputOverride = .none
                    state.records[id]!.route = new
                    let lostPort = (old.inputs + old.outputs).contains { vanished.contains($0) }
                    state.records[id]!.sink.post(.routeChanged(reason: lostPort ? .oldDeviceUnavailable : .newDeviceAvailable, previousRoute: old))
                    Self.follow(&state, id)
                }
            }
            guard state.servicesLost == nil else { return }
            for id in state.records.keys {
                let record = state.records[id]!
                guard record.lostDevice || record.deviceBusy, let io = record.io, io.probeDevice() == nil else { continue }
                state.records[id]!.lostDevice = false
                state.records[id]!.deviceBusy = false
                if !state.records[id]!.isInterrupted { record.sink.post(.interruptionEnded(shouldResume: true)) }
            }
        }
    }

    /// Calls `checkDevices()` every `interval` until `stopMonitoringDevices()` (ALSA has no
    /// hot-plug callback without udev; `DeviceChangeMonitor` polls the same way). The checks
    /// run on the center's own queue, after the device-loss notices before them — not on
    /// Swift's cooperative pool, which blocking callers can starve.
    public func startMonitoringDevices(every interval: Duration = .seconds(1)) {
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000), 1_000_000)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak self] in self?.checkDevices() }
        timer.resume()
        monitor.withLock { previous in
            previous?.cancel()
            previous = timer
        }
    }

    /// Stops `startMonitoringDevices` (a check already running finishes).
    public func stopMonitoringDevices() {
        monitor.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    // MARK: Under the lock

    static func route(of record: Record, devices: [AudioDeviceInfo]) -> AudioSession.RouteDescription {
        AudioSessionRoutes.route(devices, category: record.category, options: record.options,
                                 preferredInput: record.preferredInput, override: record.outputOverride)
    }

    /// Recomputes `id`'s route; posts `routeChanged(reason)` when it moved, or `always`.
    static func updateRoute(_ state: inout State, _ id: UInt64, reason: AudioSessionEvent.RouteChangeReason, always: Bool = false) {
        let old = state.records[id]!.route
        let new = route(of: state.records[id]!, devices: state.devices)
        guard new != old || always else { return }
        state.records[id]!.route = new
        state.records[id]!.sink.post(.routeChanged(reason: reason, previousRoute: old))
        follow(&state, id)
    }

    /// Moves `id`'s I/O to its route's device when that is another one: for the next start
    /// while inactive; at once while active (stop, move, start — audio goes on, as iOS moves a
    /// call to the speaker when the headset goes). A device that will not start then
    /// interrupts the session as a lost (or busy) one.
    static func follow(_ state: inout State, _ id: UInt64) {
        let record = state.records[id]!
        guard let io = record.io, let target = io.routeDevice(for: record.route), target != io.deviceName else { return }
        guard record.isActive else {
            try? io.useDevice(named: target)
            return
        }
        io.stopIO()
        do throws(AudioSessionError) {
            try io.useDevice(named: target)
            state.records[id]!.hardware = try io.startIO(processing: record.mode.processing, preferences: record.preferences)
        } catch {
            interruptForFailedStart(&state, id, error)
        }
    }

    /// The sound server is gone: every session's I/O stops, every session is inactive and told.
    static func loseServices(_ state: inout State, reason: String) {
        guard state.servicesLost == nil else { return }
        state.servicesLost = reason
        for id in state.records.keys {
            if state.records[id]!.isActive { state.records[id]!.io?.stopIO() }
            state.records[id]!.isActive = false
            state.records[id]!.hardware = nil
            state.records[id]!.sink.post(.mediaServicesWereLost)
        }
    }

    /// The sound server is back: every session inactive, uninterrupted, its configuration
    /// kept (applied at its next activation), told; nothing restarts.
    static func resetServices(_ state: inout State, devices: [AudioDeviceInfo]) {
        state.servicesLost = nil
        state.devices = devices
        for id in state.records.keys {
            if state.records[id]!.isActive { state.records[id]!.io?.stopIO() }
            state.records[id]!.isActive = false
            state.records[id]!.hardware = nil
            state.records[id]!.interruptedBy = []
            state.records[id]!.lostDevice = false
            state.records[id]!.deviceBusy = false
            state.records[id]!.outputOverride = .none
            state.records[id]!.route = route(of: state.records[id]!, devices: devices)
            state.records[id]!.sink.post(.mediaServicesWereReset)
            follow(&state, id)
        }
    }

    // MARK: Route requests

    func setPreferredInput(_ id: UInt64, _ port: AudioSession.PortDescription?) throws(AudioSessionError) {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            let record = state.records[id]!
            if let port {
                let inputs = AudioSessionRoutes.availableInputs(state.devices, category: record.category, options: record.options)
                guard inputs.contains(port) else { throw .portNotAvailable(uid: port.uid) }
            }
            state.records[id]!.preferredInput = port
            Self.updateRoute(&state, id, reason: .routeConfigurationChange)
        }
    }

    func overrideOutput(_ id: UInt64, _ override: AudioSession.PortOverride) throws(AudioSessionError) {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            let category = state.records[id]!.category
            guard category == .playAndRecord else {
                throw .incompatibleCategory(category: category, reason: "overrideOutputAudioPort works only in playAndRecord")
            }
            state.records[id]!.outputOverride = override
            Self.updateRoute(&state, id, reason: .override)
        }
    }

    func availableInputs(_ id: UInt64) -> [AudioSession.PortDescription] {
        state.withLock { state in
            let record = state.records[id]!
            return AudioSessionRoutes.availableInputs(state.devices, category: record.category, options: record.options)
        }
    }
}
