// SPDX-License-Identifier: Apache-2.0
@_spi(PushRegistry) import Calls
import Dispatch
import Foundation
import Locking

/// Wakes the app for incoming calls (PKPushRegistry), and enforces PushKit's reporting rule
/// in the open:
/// - a push with `metadata.mustReport` must be reported to `provider` as an incoming call
///   before the app calls the delegate's completion handler (in the returning form
///   `didReceiveIncomingPushWith:for:`, before it returns) — from the delegate method or from a
///   task it starts; one that is not is a violation, counted (`statistics.violations`) and
///   listed (`violations`). A completion handler never called is decided after
///   `configuration.completionTimeout` on the registry's clock: reported if a report was made
///   by then, a violation if not;
/// - after `configuration.maximumViolations` violations VoIP delivery stops
///   (`deliveryState == .stopped`) for the rest of this registry's life, and the delegate is
///   told once — a documented state, not a silent penalty;
/// - a push the signalling says was cancelled is reported and ended `remoteEnded` at once, and
///   bytes that are not a JSON object are reported and ended `failed` — by the registry
///   itself, so no ghost call rings (`didHandle`); every JSON object goes to the app
///   (`PushPayload.dictionaryPayload`), which reports the call from its own keys;
/// - a push past its `expiresAt` is dropped and counted; one older than the freshness limit is
///   delivered with `mustReport` false.
///
/// Pushes come in on two channels: the app's own signalling (`deliver(jsonPayload:)`) and a
/// UnifiedPush distributor on the D-Bus session bus (`UnifiedPushConnector`).
///
/// ```swift
/// let registry = PushRegistry(provider: provider, queue: .main)
/// registry.delegate = self
/// registry.desiredPushTypes = [.voIP]       // → didUpdate(credentials) with the token
/// // signalling: registry.deliver(jsonPayload: data)
/// ```
///
/// "Reported" means `reportNewIncomingCall` was called on `provider` between the delivery and
/// the completion, refused reports (blocked, busy) included, as CallKit counts them. A report
/// made by another thread in that window also counts: the registry cannot tell whose it was.
///
/// Differs from iOS, where the first check runs when the delegate method returns and the
/// completion handler plays no part: here a report from a task before `completion()` counts,
/// as this package's rule (DESIGN.md) and the completion form's contract say.
public final class PushRegistry: Sendable {
    /// The provider incoming calls are reported to.
    public let provider: CallProvider
    /// The registry's limits.
    public let configuration: PushRegistryConfiguration
    /// The app's queue: every delegate call runs on it, in order.
    public let queue: DispatchQueue
    let now: @Sendable () -> Date
    /// Runs the bound on completion handlers (`completionTimeout`).
    let clock: any CallClock

    /// The app's delegate, held weakly.
    ///
    /// @unchecked Sendable: the delegate is not Sendable (an app delegate with a superclass
    /// and mutable state must conform as written), so the registry only carries the reference
    /// across threads and calls it on `queue` alone — the confinement CXProvider's delegate
    /// queue gives.
    struct Target: @unchecked Sendable {
        weak var delegate: (any PushRegistryDelegate)?
    }

    struct State {
        var target = Target()
        var hasDelegate = false
        var desired: Set<PushType> = []
        var tokens: [PushChannel: Data] = [:]
        var started = false
        var statistics = PushStatistics()
        var violations: [PushViolation] = []
        var stopped = false
        /// Push call id → the UUIDs the app reported that push's call under (the most recent
        /// `reportedCallsLimit` pushes): what a cancel push for that id ends.
        var reportedCalls: [UUID: [UUID]] = [:]
        var reportedOrder: [UUID] = []

        mutating func rememberReport(of id: UUID, as uuids: [UUID]) {
            if reportedCalls.updateValue(uuids, forKey: id) == nil { reportedOrder.append(id) }
            while reportedOrder.count > PushRegistry.reportedCallsLimit {
                reportedCalls.removeValue(forKey: reportedOrder.removeFirst())
            }
        }

        var isRegistered: Bool { hasDelegate && desired.contains(.voIP) }
    }

    let state: Locked<State>
    /// How many reported pushes the registry remembers for cancel pushes.
    static let reportedCallsLimit = 64

    /// A registry reporting to `provider`, calling its delegate on `queue` (a private serial
    /// queue when nil), reading the wall clock from `now` and timing completion handlers on
    /// `clock` (tests pass virtual ones).
    public init(provider: CallProvider, queue: DispatchQueue? = nil, configuration: PushRegistryConfiguration = PushRegistryConfiguration(),
                now: @escaping @Sendable () -> Date = { Date() }, clock: any CallClock = SystemCallClock()) {
        self.provider = provider
        self.clock = clock
        self.queue = queue ?? DispatchQueue(label: "PushRegistry.delegate")
        self.configuration = configuration
        self.now = now
        var state = State()
        state.tokens[.inProcess] = Self.randomToken()
        self.state = Locked(state)
        // Payloads handed to the provider (reportNewIncomingVoIPPushPayload) come in here.
        provider.setVoIPPushRoute { [weak self] data, verdict in
            guard let self else { return verdict(.noPushRegistry) }
            receive(data, on: .inProcess, verdict: verdict)
        }
    }

    /// The delegate (held weakly). Setting one when `.voIP` is desired starts the registry:
    /// `didUpdate` with the current credentials of every channel.
    public var delegate: (any PushRegistryDelegate)? {
        get { state.withLock { $0.target.delegate } }
        set {
            state.withLock { state in
                state.target = Target(delegate: newValue)
                state.hasDelegate = newValue != nil
                state.started = false
                startIfReady(&state)
            }
        }
    }

    /// The push types the app wants (PushKit's `desiredPushTypes`). Adding `.voIP` (with a
    /// delegate set) announces the credentials; removing it invalidates every token of it.
    public var desiredPushTypes: Set<PushType> {
        get { state.withLock { $0.desired } }
        set {
            state.withLock { state in
                let had = state.desired.contains(.voIP)
                state.desired = newValue
                if had, !newValue.contains(.voIP) {
                    state.started = false
                    for channel in state.tokens.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                        post(state) { registry, delegate in delegate.pushRegistry(registry, didInvalidatePushTokenFor: .voIP, channel: channel) }
                    }
                }
                startIfReady(&state)
            }
        }
    }

    /// The in-process channel's token for `type` (PushKit's `pushToken(for:)`); nil when the
    /// type is not desired.
    public func pushToken(for type: PushType) -> Data? {
        state.withLock { $0.desired.contains(type) ? $0.tokens[.inProcess] : nil }
    }

    /// The current credentials on `channel`, nil when it has no token (UnifiedPush before its
    /// first endpoint) or VoIP is not desired.
    public func credentials(on channel: PushChannel) -> PushCredentials? {
        state.withLock { state in
            guard state.desired.contains(.voIP), let token = state.tokens[channel] else { return nil }
            return PushCredentials(type: .voIP, channel: channel, token: token)
        }
    }

    /// Replaces the in-process token with a new random one and announces it (`didUpdate`):
    /// what a reinstall or an OS update does to an APNs token.
    public func rotateInProcessToken() {
        setToken(Self.randomToken(), on: .inProcess)
    }

    /// Whether VoIP pushes reach the app.
    public var deliveryState: PushDeliveryState {
        state.withLock { state in
            if state.stopped { return .stopped(violations: state.statistics.violations) }
            return state.isRegistered ? .delivering : .notRegistered
        }
    }

    /// What happened to the pushes so far.
    public var statistics: PushStatistics { state.withLock { $0.statistics } }

    /// Every violation of the reporting rule, in order.
    public var violations: [PushViolation] { state.withLock { $0.violations } }

    // MARK: Channels

    /// The in-process channel: the app's own signalling connection hands a VoIP push in. It is
    /// read, classified and delivered on the app's queue, in order with every other push.
    public func deliver(jsonPayload: Data) {
        receive(jsonPayload, on: .inProcess)
    }

    /// A push from `channel`: handled on the app's queue.
    func receive(_ data: Data, on channel: PushChannel, verdict: (@Sendable (VoIPPushReportError?) -> Void)? = nil) {
        state.withLock { $0.statistics.received += 1 }
        queue.async { [self] in dispatch(data, on: channel, verdict: verdict ?? { _ in }) }
    }

    /// Sets `channel`'s token; announces it when started and it changed. Nil invalidates it.
    func setToken(_ token: Data?, on channel: PushChannel) {
        state.withLock { state in
            let old = state.tokens[channel]
            guard old != token else { return }
            state.tokens[channel] = token
            guard state.started else { return }
            if let token {
                let credentials = PushCredentials(type: .voIP, channel: channel, token: token)
                post(state) { registry, delegate in delegate.pushRegistry(registry, didUpdate: credentials, for: .voIP) }
            } else {
                post(state) { registry, delegate in delegate.pushRegistry(registry, didInvalidatePushTokenFor: .voIP, channel: channel) }
            }
        }
    }

    // MARK: Internals

    /// Announces every token once the registry has both a delegate and `.voIP`.
    func startIfReady(_ state: inout State) {
        guard state.isRegistered, !state.started else { return }
        state.started = true
        for (channel, token) in state.tokens.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let credentials = PushCredentials(type: .voIP, channel: channel, token: token)
            post(state) { registry, delegate in delegate.pushRegistry(registry, didUpdate: credentials, for: .voIP) }
        }
    }

    /// Queues `body` on the app's queue for the delegate (in order with everything posted).
    func post(_ state: State, _ body: @escaping @Sendable (PushRegistry, any PushRegistryDelegate) -> Void) {
        let target = state.target
        queue.async { [self] in
            if let delegate = target.delegate { body(self, delegate) }
        }
    }

    static func randomToken() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

/// A must-report push the app did not report before calling its completion handler (or
/// returning, or within `completionTimeout`).
public struct PushViolation: Sendable, Hashable {
    /// The push's call.
    public let callUUID: UUID
    /// The channel it came on.
    public let channel: PushChannel
    /// When it was delivered (the registry's wall clock).
    public let deliveredAt: Date
    /// No delegate was there to take it.
    public let hadNoDelegate: Bool
}
