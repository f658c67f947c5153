// SPDX-License-Identifier: Apache-2.0
/// Why a UnifiedPush operation failed. D-Bus errors keep the bus's error name and text.
public enum UnifiedPushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No bus address was given and DBUS_SESSION_BUS_ADDRESS is not set.
    case noSessionBus
    /// Connecting or registering with the bus failed.
    case connectionFailed(name: String, message: String)
    /// The app's service name is owned by another connection (another instance runs).
    case serviceNameTaken(String)
    /// The bus refused the service name (not a valid bus name, or not allowed), with its text.
    case invalidServiceName(String, reason: String)
    /// No `org.unifiedpush.Distributor.*` service is on the bus.
    case noDistributor
    /// The distributor asked for is not on the bus.
    case distributorNotFound(String)
    /// The distributor answered REGISTRATION_FAILED, with its reason (may be empty).
    case registrationFailed(reason: String)
    /// A call was answered with a D-Bus error (or none came in time: NoReply).
    case callFailed(method: String, name: String, message: String)
    /// A reply had other arguments than the specification's.
    case unexpectedReply(method: String)
    /// `unregister()` before any successful `register`.
    case notRegistered
    /// The connector was closed.
    case closed

    public var description: String {
        switch self {
        case .noSessionBus: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
        case let .connectionFailed(name, message): "cannot connect to the bus: \(name): \(message)"
        case let .serviceNameTaken(name): "service name \(name) is owned by another connection"
        case let .invalidServiceName(name, reason): "the bus refused service name \(name): \(reason)"
        case .noDistributor: "no UnifiedPush distributor on the bus"
        case let .distributorNotFound(name): "distributor \(name) is not on the bus"
        case let .registrationFailed(reason): "the distributor refused the registration: \(reason.isEmpty ? "no reason given" : reason)"
        case let .callFailed(method, name, message): "\(method) failed: \(name): \(message)"
        case let .unexpectedReply(method): "unexpected reply to \(method)"
        case .notRegistered: "not registered with a distributor"
        case .closed: "the connector is closed"
        }
    }
}
