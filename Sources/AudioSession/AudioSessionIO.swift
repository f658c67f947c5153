// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

/// What an audio session starts on activation and stops on deactivation: a `VoiceEngine`'s
/// device I/O, or an app's own player. The session is its only caller.
public protocol AudioSessionIO: AnyObject, Sendable {
    /// Whether it plays audio (the session's category must play).
    var plays: Bool { get }
    /// Whether it records audio (the session's category must record).
    var records: Bool { get }
    /// Whether its device I/O runs.
    var isRunningIO: Bool { get }
    /// Applies `processing` and `preferences`, then starts device I/O; returns what the device
    /// actually runs with.
    func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware
    /// Stops device I/O, and returns once no audio runs (nothing left queued).
    func stopIO()
    /// Calls `handler` (from any thread, never with a session's lock held) whenever device I/O
    /// stopped by itself because the device went away. Nil clears it.
    func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?)
    /// Whether the device could start now (nil) or why not, without starting it; has a default.
    func probeDevice() -> AudioSessionError?
    /// The PCM the next start opens; has a default ("").
    var deviceName: String { get }
    /// The PCM to run on for `route`, or nil to keep its own device; has a default (nil: I/O
    /// that does not follow routes).
    func routeDevice(for route: AudioSession.RouteDescription) -> String?
    /// Points the next start at PCM `name`, I/O stopped; has a default (nothing).
    func useDevice(named name: String) throws(AudioSessionError)
}

extension AudioSessionIO {
    /// Whether the device could start now, without starting it: nil when it could, else the
    /// reason (`deviceBusy`, `mediaServicesLost`, or another error). What a session asks to
    /// learn that a lost or busy device is back. By default: it could.
    public func probeDevice() -> AudioSessionError? { nil }
    /// No device name.
    public var deviceName: String { "" }
    /// Keeps its own device.
    public func routeDevice(for route: AudioSession.RouteDescription) -> String? { nil }
    /// Ignored.
    public func useDevice(named name: String) throws(AudioSessionError) {}
}
