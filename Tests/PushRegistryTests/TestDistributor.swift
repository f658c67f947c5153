// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
@testable import PushRegistry

/// A small UnifiedPush distributor for the tests: `org.unifiedpush.Distributor1` on its own
/// bus connection (libdbus, through the module's internal bus owner), handing out endpoints
/// `https://push.example/<n>` and pushing what the test tells it to.
final class TestDistributor: Sendable {
    struct Registration: Sendable, Equatable {
        let serviceName: String
        let token: String
        let description: String
    }

    struct State {
        var registrations: [String: Registration] = [:]
        var registerCalls = 0
        var unregisterCalls = 0
        var nextEndpoint = 1
        var refusal: String?
    }

    let name: String
    private let bus: DBusBus
    private let state = Locked(State())

    init(address: String, name: String = "org.unifiedpush.Distributor.test") throws {
        self.name = name
        bus = try DBusBus(address: address)
        try bus.requestName(name)
        let box = Box(state: self)
        bus.start { call in box.distributor?.handle(call) ?? .notHandled }
    }

    deinit { bus.close() }

    final class Box: Sendable {
        weak let distributor: TestDistributor?
        init(state: TestDistributor) { distributor = state }
    }

    /// Refuse registrations with `reason` from now on (nil: accept).
    func refuse(with reason: String?) { state.withLock { $0.refusal = reason } }

    var registrations: [Registration] { state.withLock { Array($0.registrations.values) } }
    var registerCalls: Int { state.withLock { $0.registerCalls } }
    var unregisterCalls: Int { state.withLock { $0.unregisterCalls } }

    private func handle(_ call: DBusIncomingCall) -> DBusCallOutcome {
        guard call.path == UnifiedPushConnector.distributorPath, call.interface == UnifiedPushConnector.distributorInterface else { return .notHandled }
        let arguments = call.arguments ?? []
        switch call.member {
        case "Register":
            guard arguments.count == 3, let service = arguments[0].string, let token = arguments[1].string, let description = arguments[2].string else {
                return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Register takes (sss)")
            }
            let outcome = state.withLock { state -> (String?, String?) in
                state.registerCalls += 1
                if let refusal = state.refusal { return (nil, refusal) }
                state.registrations[token] = Registration(serviceName: service, token: token, description: description)
                defer { state.nextEndpoint += 1 }
                return ("https://push.example/\(state.nextEndpoint)", nil)
            }
            if let reason = outcome.1 { return .reply([.string("REGISTRATION_FAILED"), .string(reason)]) }
            try? bus.send(destination: service, path: UnifiedPushConnector.connectorPath, interface: UnifiedPushConnector.connectorInterface,
                          member: "NewEndpoint", arguments: [.string(token), .string(outcome.0!)])
            return .reply([.string("NEW_ENDPOINT"), .string("")])
        case "Unregister":
            guard arguments.count == 1, let token = arguments[0].string else { return .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Unregister takes (s)") }
            let removed = state.withLock { state in
                state.unregisterCalls += 1
                return state.registrations.removeValue(forKey: token)
            }
            if let removed {
                // Confirmation: an empty token (the specification's form for a confirmation).
                try? bus.send(destination: removed.serviceName, path: UnifiedPushConnector.connectorPath,
                              interface: UnifiedPushConnector.connectorInterface, member: "Unregistered", arguments: [.string("")])
            }
            return .reply([])
        default:
            return .notHandled
        }
    }

    private func connector(_ token: String) -> Registration? { state.withLock { $0.registrations[token] } }

    /// Pushes `message` (the raw POST body) to the app registered with `token`.
    func push(_ message: Data, token: String, id: String = "") throws {
        let registration = try require_(connector(token))
        try bus.send(destination: registration.serviceName, path: UnifiedPushConnector.connectorPath,
                     interface: UnifiedPushConnector.connectorInterface, member: "Message",
                     arguments: [.string(token), .bytes(Array(message)), .string(id)])
    }

    /// Sends a call with any token (another app's, a forged one) to `service`.
    func pushForged(_ message: Data, to service: String, token: String) throws {
        try bus.send(destination: service, path: UnifiedPushConnector.connectorPath, interface: UnifiedPushConnector.connectorInterface,
                     member: "Message", arguments: [.string(token), .bytes(Array(message)), .string("")])
    }

    /// Gives the app registered with `token` a new endpoint.
    func rotateEndpoint(token: String) throws -> String {
        let registration = try require_(connector(token))
        let endpoint = state.withLock { state in
            defer { state.nextEndpoint += 1 }
            return "https://push.example/\(state.nextEndpoint)"
        }
        try bus.send(destination: registration.serviceName, path: UnifiedPushConnector.connectorPath,
                     interface: UnifiedPushConnector.connectorInterface, member: "NewEndpoint", arguments: [.string(token), .string(endpoint)])
        return endpoint
    }

    /// Drops the app registered with `token` (the user removed it in the distributor).
    func drop(token: String) throws {
        let registration = try require_(state.withLock { $0.registrations.removeValue(forKey: token) })
        try bus.send(destination: registration.serviceName, path: UnifiedPushConnector.connectorPath,
                     interface: UnifiedPushConnector.connectorInterface, member: "Unregistered", arguments: [.string(token)])
    }

    /// Calls `member` on `service`'s connector from the distributor's connection and waits
    /// for the reply (the connector has handled it when this returns).
    func call(_ service: String, _ member: String, _ arguments: [DBusValue]) throws {
        _ = try bus.call(destination: service, path: UnifiedPushConnector.connectorPath,
                         interface: UnifiedPushConnector.connectorInterface, member: member, arguments: arguments)
    }

    func close() { bus.close() }
}

struct NotRegisteredWithTestDistributor: Error {}

/// The value, or an error when nil.
func require_<T>(_ value: T?) throws -> T {
    guard let value else { throw NotRegisteredWithTestDistributor() }
    return value
}
