// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking

/// A UnifiedPush connector on the D-Bus session bus (the UnifiedPush D-Bus specification,
/// interfaces `org.unifiedpush.Connector1` and `org.unifiedpush.Distributor1`): it owns the
/// app's service name, serves `/org/unifiedpush/Connector`, registers with a distributor, and
/// feeds the registry — `NewEndpoint` becomes the UnifiedPush credentials (`didUpdate`, the
/// endpoint URL as token), `Message` a VoIP push (the POST body is the JSON payload),
/// `Unregistered` an invalidation (`didInvalidatePushTokenFor`).
///
/// ```swift
/// let connector = try UnifiedPushConnector(registry: registry, serviceName: "org.example.Phone",
///                                          token: savedToken)   // nil the first time
/// save(connector.token)                  // reuse it at every start, as the spec asks
/// try connector.register(description: "Phone calls")   // every start: fetches the newest endpoint
/// ```
///
/// Incoming calls are dispatched on a thread of the connector's own; every call to the
/// distributor is made from the caller's thread and waits for its reply (at most `timeout`).
/// `Register` takes (serviceName, token, description) as the specification's interface XML
/// declares it, and accepts NEW_ENDPOINT or REGISTRATION_SUCCEEDED as success.
///
/// Only the distributor registered with is heard: `Message`, `NewEndpoint` and `Unregistered`
/// count only from the bus connection that owned its name when `register` ran, with this
/// connector's token — any other peer on the session bus could otherwise drop the endpoint
/// (an `Unregistered("")`) or feed pushes. A distributor that restarts is heard again after
/// the next `register`.
public final class UnifiedPushConnector: Sendable {
    /// The object path the connector serves.
    public static let connectorPath = "/org/unifiedpush/Connector"
    /// The connector's interface.
    public static let connectorInterface = "org.unifiedpush.Connector1"
    /// The object path distributors serve.
    public static let distributorPath = "/org/unifiedpush/Distributor"
    /// The distributors' interface.
    public static let distributorInterface = "org.unifiedpush.Distributor1"
    /// Every distributor's service name begins with this.
    public static let distributorPrefix = "org.unifiedpush.Distributor."

    /// The app's service name on the bus (reverse DNS, its application ID).
    public let serviceName: String
    /// The connection token between this app and its distributor: store it and pass it again
    /// at the next start (the distributor then keeps the same registration).
    public let token: String
    /// How long a call to the distributor may take, in seconds.
    public let timeout: Double

    /// What the connector has seen.
    public struct Statistics: Sendable, Hashable {
        /// Messages handed to the registry.
        public var messages = 0
        /// Endpoints received.
        public var endpoints = 0
        /// Unregistrations received.
        public var unregistrations = 0
        /// Calls with another connection's token, from a peer that is not the distributor
        /// registered with, an unasked-for confirmation, or malformed arguments: ignored.
        public var ignored = 0
    }

    struct State {
        var distributor: String?
        /// The unique bus name of `distributor`'s connection when `register` ran.
        var distributorOwner: String?
        /// The unique name of the distributor a running `register` asks (its NewEndpoint may
        /// come before Register's reply).
        var registeringOwner: String?
        /// `unregister()` was asked and not confirmed yet: an empty-token `Unregistered` is its confirmation.
        var unregistering = false
        var endpoint: String?
        var statistics = Statistics()
        var closed = false
    }

    private let registry: PushRegistry
    private let bus: DBusBus
    private let state = Locked(State())

    /// Connects to the session bus (or `busAddress`), takes `serviceName`, and serves the
    /// connector interface. `token`: the one stored from an earlier start, nil for a new
    /// random one.
    /// - Throws: `noSessionBus`, `connectionFailed`, `serviceNameTaken`, `invalidServiceName`.
    public init(registry: PushRegistry, serviceName: String, token: String? = nil, busAddress: String? = nil,
                timeout: Double = 5) throws(UnifiedPushError) {
        guard let address = busAddress ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else { throw .noSessionBus }
        self.registry = registry
        self.serviceName = serviceName
        self.token = token ?? UUID().uuidString
        self.timeout = timeout
        do {
            bus = try DBusBus(address: address)
        } catch {
            throw .connectionFailed(name: error.name, message: error.message)
        }
        do {
            try bus.requestName(serviceName)
        } catch {
            bus.close()
            if error == .nameTaken(serviceName) { throw .serviceNameTaken(serviceName) }
            throw .invalidServiceName(serviceName, reason: error.message)
        }
        let handler = ConnectorHandler(registry: registry, token: self.token, state: StateBox(connector: self))
        bus.start { call in handler.handle(call) }
    }

    deinit { bus.close() }

    /// The distributors on the bus, sorted by service name.
    public func distributors() throws(UnifiedPushError) -> [String] {
        let reply = try call("ListNames", destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                             interface: "org.freedesktop.DBus", arguments: [])
        guard reply.count == 1, case let .strings(names) = reply[0] else { throw .unexpectedReply(method: "ListNames") }
        return names.filter { $0.hasPrefix(Self.distributorPrefix) }.sorted()
    }

    /// Registers with `distributor` (the first on the bus when nil); the endpoint follows
    /// through `NewEndpoint`. Call it at every start: it fetches the newest endpoint.
    /// - Returns: the distributor registered with.
    /// - Throws: `noDistributor`, `distributorNotFound`, `registrationFailed`, `callFailed`,
    ///   `unexpectedReply`, `closed`.
    @discardableResult
    public func register(with distributor: String? = nil, description: String = "") throws(UnifiedPushError) -> String {
        let available = try distributors()
        let chosen: String
        if let distributor {
            guard available.contains(distributor) else { throw .distributorNotFound(distributor) }
            chosen = distributor
        } else {
            guard let first = available.first else { throw .noDistributor }
            chosen = first
        }
        // Who answers for the name now: only that connection's callbacks are heard.
        let ownerReply = try call("GetNameOwner", destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                  interface: "org.freedesktop.DBus", arguments: [.string(chosen)])
        guard ownerReply.count == 1, let owner = ownerReply[0].string else { throw .unexpectedReply(method: "GetNameOwner") }
        state.withLock { $0.registeringOwner = owner }
        defer { state.withLock { $0.registeringOwner = nil } }
        let reply = try call("Register", destination: chosen, path: Self.distributorPath, interface: Self.distributorInterface,
                             arguments: [.string(serviceName), .string(token), .string(description)])
        guard reply.count == 2, let result = reply[0].string, let reason = reply[1].string else { throw .unexpectedReply(method: "Register") }
        switch result {
        case "NEW_ENDPOINT", "REGISTRATION_SUCCEEDED":
            state.withLock { state in
                state.distributor = chosen
                state.distributorOwner = owner
            }
            return chosen
        case "REGISTRATION_FAILED":
            throw .registrationFailed(reason: reason)
        default:
            throw .unexpectedReply(method: "Register")
        }
    }

    /// Asks the distributor to unregister this app; its `Unregistered` confirms it (the
    /// endpoint is invalidated then).
    /// - Throws: `notRegistered`, `callFailed`, `closed`.
    public func unregister() throws(UnifiedPushError) {
        guard let distributor = state.withLock({ $0.distributor }) else { throw .notRegistered }
        try ensureOpen()
        state.withLock { $0.unregistering = true }
        do {
            try bus.send(destination: distributor, path: Self.distributorPath, interface: Self.distributorInterface, member: "Unregister",
                         arguments: [.string(token)])
        } catch {
            throw .callFailed(method: "Unregister", name: error.name, message: error.message)
        }
    }

    /// The distributor registered with, nil before `register` and after `Unregistered`.
    public var distributor: String? { state.withLock { $0.distributor } }
    /// The endpoint URL the app server pushes to, nil until `NewEndpoint`.
    public var endpoint: String? { state.withLock { $0.endpoint } }
    /// What the connector has seen.
    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// The connection's unique name on the bus (":1.42").
    public var uniqueName: String { bus.uniqueName }

    /// Stops serving and closes the connection (the service name is released). Idempotent.
    public func close() {
        state.withLock { $0.closed = true }
        bus.close()
    }

    // MARK: Internals

    private func ensureOpen() throws(UnifiedPushError) {
        if state.withLock({ $0.closed }) || bus.isDisconnected { throw .closed }
    }

    private func call(_ method: String, destination: String, path: String, interface: String,
                      arguments: [DBusValue]) throws(UnifiedPushError) -> [DBusValue] {
        try ensureOpen()
        do {
            return try bus.call(destination: destination, path: path, interface: interface, member: method, arguments: arguments,
                                timeout: timeout)
        } catch {
            throw .callFailed(method: method, name: error.name, message: error.message)
        }
    }

    /// The connector's state as the dispatch thread sees it (weakly: the bus's handler must not
    /// keep the connector alive).
    final class StateBox: Sendable {
        weak let connector: UnifiedPushConnector?
        init(connector: UnifiedPushConnector) { self.connector = connector }
        func update(_ body: (inout State) -> Void) { connector?.state.withLock { body(&$0) } }
        /// Whether `sender` is the distributor registered with (or being registered with).
        func isDistributor(_ sender: String?) -> Bool {
            guard let sender else { return false }
            return connector?.state.withLock { $0.distributorOwner == sender || $0.registeringOwner == sender } ?? false
        }
        /// Whether an `unregister()` waits for its confirmation.
        var isUnregistering: Bool { connector?.state.withLock { $0.unregistering } ?? false }
    }

    /// Serves `org.unifiedpush.Connector1` on the dispatch thread.
    struct ConnectorHandler: Sendable {
        let registry: PushRegistry
        let token: String
        let state: StateBox

        func handle(_ call: DBusIncomingCall) -> DBusCallOutcome {
            guard call.path == UnifiedPushConnector.connectorPath,
                  call.interface == nil || call.interface == UnifiedPushConnector.connectorInterface
            else { return .notHandled }
            let arguments = call.arguments ?? []
            let fromDistributor = state.isDistributor(call.sender)
            switch (call.member, arguments.count) {
            case ("Message", 3):
                guard fromDistributor, arguments[0].string == token, let message = arguments[1].bytes, arguments[2].string != nil else { return ignored() }
                registry.receive(Data(message), on: .unifiedPush)
                state.update { $0.statistics.messages += 1 }
            case ("NewEndpoint", 2):
                guard fromDistributor, arguments[0].string == token, let endpoint = arguments[1].string else { return ignored() }
                // The registry first: once `endpoint` shows the new value, `didUpdate` is queued.
                registry.setToken(Data(endpoint.utf8), on: .unifiedPush)
                state.update { state in
                    state.endpoint = endpoint
                    state.statistics.endpoints += 1
                }
            case ("Unregistered", 1):
                // Ours means the distributor dropped us; an empty token confirms our own
                // Unregister, so it counts only while one waits for its confirmation.
                guard fromDistributor, let received = arguments[0].string,
                      received == token || (received.isEmpty && state.isUnregistering) else { return ignored() }
                registry.setToken(nil, on: .unifiedPush)
                state.update { state in
                    state.endpoint = nil
                    state.distributor = nil
                    state.distributorOwner = nil
                    state.unregistering = false
                    state.statistics.unregistrations += 1
                }
            case ("Message", _), ("NewEndpoint", _), ("Unregistered", _):
                state.update { $0.statistics.ignored += 1 }
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "wrong arguments for \(call.member)")
            default:
                return .notHandled
            }
            return .reply([])
        }

        private func ignored() -> DBusCallOutcome {
            state.update { $0.statistics.ignored += 1 }
            return .reply([])
        }
    }
}
