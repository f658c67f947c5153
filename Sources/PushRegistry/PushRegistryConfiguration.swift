// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The registry's limits, all public (no hidden timeouts or thresholds).
public struct PushRegistryConfiguration: Sendable, Hashable {
    /// Pushes older than this (seconds from their send time) are stale: delivered with
    /// `mustReport` false. APNs VoIP pushes live "0 or a few seconds", yet deliveries tens of
    /// seconds late are seen; 30 s by default.
    public var freshnessLimit: Double
    /// Violations of the reporting rule after which VoIP delivery stops until restart (a new
    /// registry). 3 by default; iOS gives no number.
    /// At least 1, however it is set.
    public var maximumViolations: Int { didSet { maximumViolations = max(1, maximumViolations) } }
    /// Seconds after delivery by which a must-report push whose completion handler the app has
    /// not called is decided: reported if a report was made by then, a violation if not. iOS
    /// kills an app that has not reported a call about 7 s after the push (callservicesd's
    /// check, per Apple's forum answers); 7 s by default. Kept within 0…3,600 s however it
    /// is set (NaN is the default), so no timer is ever armed with an unrepresentable delay.
    public var completionTimeout: Double { didSet { completionTimeout = Self.boundedTimeout(completionTimeout) } }

    /// The defaults: 30 s freshness, 3 violations, 7 s to call the completion handler.
    public init(freshnessLimit: Double = 30, maximumViolations: Int = 3, completionTimeout: Double = 7) {
        self.freshnessLimit = freshnessLimit
        self.maximumViolations = max(1, maximumViolations)
        self.completionTimeout = Self.boundedTimeout(completionTimeout)
    }

    /// The longest completion timeout, in seconds.
    public static let maximumCompletionTimeout = 3_600.0

    private static func boundedTimeout(_ seconds: Double) -> Double {
        seconds.isNaN ? 7 : min(max(seconds, 0), maximumCompletionTimeout)
    }
}

/// Whether VoIP pushes reach the app.
public enum PushDeliveryState: Sendable, Hashable {
    /// `.voIP` is not in `desiredPushTypes` (or no delegate yet): pushes are dropped, counted
    /// as `notRegistered`.
    case notRegistered
    /// Pushes are delivered.
    case delivering
    /// The app failed to report `violations` must-report pushes: VoIP delivery stopped, for
    /// the rest of this registry's life (an app restart makes a new registry). Pushes are
    /// dropped and counted as `droppedWhileStopped`; nothing else undoes it.
    case stopped(violations: Int)
}

/// What happened to the pushes so far (every push lands in exactly one of `expired`,
/// `notRegistered`, `droppedWhileStopped`, `cancelled`, `unusable`, `delivered`).
public struct PushStatistics: Sendable, Hashable {
    /// Pushes handed to the registry, any channel.
    public var received = 0
    /// Given to `didReceiveIncomingVoIPPush`.
    public var delivered = 0
    /// Delivered with `mustReport`.
    public var mustReport = 0
    /// Must-report pushes reported in time.
    public var reportedInTime = 0
    /// Delivered stale (`mustReport` false for age).
    public var stale = 0
    /// Delivered while the app had a call.
    public var whileOnCall = 0
    /// Must-report pushes not reported before the app called the completion handler (or
    /// returned, in the returning form), or with no delegate.
    public var violations = 0
    /// Must-report pushes whose completion handler was not called within
    /// `completionTimeout` (each also counted as reported in time or as a violation).
    public var completionTimeouts = 0
    /// Past their `expiresAt`: dropped.
    public var expired = 0
    /// Dropped: not registered for VoIP.
    public var notRegistered = 0
    /// Dropped: delivery stopped.
    public var droppedWhileStopped = 0
    /// Cancelled before arrival: reported and ended `remoteEnded` by the registry.
    public var cancelled = 0
    /// Not a JSON object of at most 5 KB: reported and ended `failed` by the registry.
    public var unusable = 0

    /// No pushes yet.
    public init() {}
}
