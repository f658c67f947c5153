// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
@testable import PushRegistry
import Testing

/// Other peers on the session bus calling the connector's interface as if they were the
/// distributor: an `Unregistered("")` or `Unregistered(token)`, a `NewEndpoint`, a `Message`
/// from any connection but the registered distributor's are ignored and counted; so is an
/// empty-token `Unregistered` the connector did not ask for, even from the distributor.
@Suite(.serialized, .timeLimit(.minutes(1)),
       .enabled(if: PrivateSessionBus.daemonPath != nil, "dbus-daemon is not installed (apt-get install dbus-daemon): UnifiedPush tests skipped"))
struct ForeignPeerTests {
    static let service = "org.voiceengine.PushTest"

    /// Calls `member` on the connector from `bus` and waits for its reply: the connector has
    /// handled it when this returns.
    static func call(_ bus: DBusBus, _ member: String, _ arguments: [DBusValue]) throws {
        _ = try bus.call(destination: service, path: UnifiedPushConnector.connectorPath,
                         interface: UnifiedPushConnector.connectorInterface, member: member, arguments: arguments)
    }

    @Test func onlyTheRegisteredDistributorIsHeard() throws {
        let bus = try #require(try PrivateSessionBus())
        let distributor = try TestDistributor(address: bus.address)
        let harness = try PushHarness()
        let connector = try UnifiedPushConnector(registry: harness.registry, serviceName: Self.service, busAddress: bus.address)
        defer { connector.close() }
        try connector.register()
        #expect(eventually { connector.endpoint == "https://push.example/1" })
        harness.settle()
        let eventsBefore = harness.delegate.events.count

        // Any other connection on the bus, even one that knows the token.
        let rogue = try DBusBus(address: bus.address)
        defer { rogue.close() }
        try Self.call(rogue, "Unregistered", [.string("")])
        try Self.call(rogue, "Unregistered", [.string(connector.token)])
        try Self.call(rogue, "NewEndpoint", [.string(connector.token), .string("https://attacker.example/")])
        try Self.call(rogue, "Message", [.string(connector.token), .bytes(Array(harness.payload().jsonData)), .string("")])
        // The distributor itself, confirming an unregistration nobody asked for.
        try distributor.call(Self.service, "Unregistered", [.string("")])
        harness.settle()
        #expect(connector.statistics.ignored == 5 && connector.statistics.unregistrations == 0)
        #expect(connector.endpoint == "https://push.example/1" && connector.distributor == distributor.name)
        #expect(harness.registry.credentials(on: .unifiedPush)?.endpoint == "https://push.example/1")
        #expect(harness.registry.statistics.received == 0)
        #expect(harness.delegate.events.count == eventsBefore, "the app heard nothing of it")

        // The distributor is still heard: a push, then our own unregistration's confirmation.
        try distributor.push(harness.payload().jsonData, token: connector.token)
        #expect(eventually { harness.registry.statistics.received == 1 })
        try connector.unregister()
        #expect(eventually { connector.endpoint == nil })
        harness.settle()
        #expect(harness.delegate.events.last == .invalidated(.unifiedPush) && connector.statistics.unregistrations == 1)
    }
}
