// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import PushRegistry
import Testing

/// The UnifiedPush connector over a real private `dbus-daemon --session`, against the test
/// distributor: registration, endpoints, messages as VoIP pushes, rotation, unregistration,
/// and every error a caller can meet.
@Suite(.serialized, .timeLimit(.minutes(1)),
       .enabled(if: PrivateSessionBus.daemonPath != nil, "dbus-daemon is not installed (apt-get install dbus-daemon): UnifiedPush tests skipped"))
struct UnifiedPushTests {
    static let service = "org.voiceengine.PushTest"

    struct Setup {
        let bus: PrivateSessionBus
        let distributor: TestDistributor
        let harness: PushHarness
        let connector: UnifiedPushConnector
    }

    func setUp(behaviour: AppBehaviour = .reportNow, configuration: PushRegistryConfiguration = PushRegistryConfiguration(),
               token: String? = nil) throws -> Setup {
        let bus = try #require(try PrivateSessionBus())
        let distributor = try TestDistributor(address: bus.address)
        let harness = try PushHarness(configuration: configuration, behaviour: behaviour)
        let connector = try UnifiedPushConnector(registry: harness.registry, serviceName: Self.service, token: token, busAddress: bus.address)
        return Setup(bus: bus, distributor: distributor, harness: harness, connector: connector)
    }

    @Test func registrationEndpointAndMessagesBecomeVoIPPushes() throws {
        let setup = try setUp()
        let (distributor, harness, connector) = (setup.distributor, setup.harness, setup.connector)
        #expect(try connector.distributors() == [distributor.name])
        #expect(try connector.register(description: "Phone calls") == distributor.name)
        #expect(distributor.registrations == [.init(serviceName: Self.service, token: connector.token, description: "Phone calls")])
        #expect(eventually { connector.endpoint == "https://push.example/1" })
        harness.settle()
        let credentials = try #require(harness.delegate.credentials.last)
        #expect(credentials.channel == .unifiedPush && credentials.endpoint == "https://push.example/1")
        #expect(harness.registry.credentials(on: .unifiedPush) == credentials)

        // A push: the distributor's Message becomes a VoIP push the app reports in time.
        let payload = harness.payload()
        try distributor.push(payload.jsonData, token: connector.token, id: "m1")
        #expect(eventually { harness.registry.statistics.received == 1 })
        harness.settle()
        let metadata = try #require(harness.delegate.received.first)
        #expect(metadata.channel == .unifiedPush && metadata.mustReport)
        #expect(harness.isLive(payload.callUUID))
        #expect(harness.registry.statistics.reportedInTime == 1)

        // Another connection's token is ignored; the next real message still arrives, in order.
        try distributor.pushForged(harness.payload().jsonData, to: Self.service, token: "someone-else")
        try distributor.push(Data("not json".utf8), token: connector.token)
        // The connector counts a message after handing it to the registry: wait for its count.
        #expect(eventually { connector.statistics.messages == 2 })
        harness.settle()
        #expect(connector.statistics.ignored == 1 && connector.statistics.messages == 2)
        #expect(harness.delegate.handled.last?.reason == .unusablePayload(.notJSON))
        // An empty message (an empty byte array on the bus) is a push too: unusable.
        try distributor.push(Data(), token: connector.token)
        #expect(eventually { harness.registry.statistics.received == 3 })
        harness.settle()
        #expect(harness.registry.statistics.unusable == 2)
        let handled = try #require(harness.delegate.handled.last)
        #expect(handled.reason == .unusablePayload(.notJSON) && handled.channel == .unifiedPush)
        #expect(harness.changes.endedReason(handled.callUUID) == .failed)

        // The distributor moves the endpoint: new credentials for the app's server.
        let rotated = try distributor.rotateEndpoint(token: connector.token)
        #expect(eventually { connector.endpoint == rotated })
        harness.settle()
        #expect(harness.delegate.credentials.last?.endpoint == rotated)

        // The distributor drops the app: the endpoint is invalidated.
        try distributor.drop(token: connector.token)
        #expect(eventually { connector.endpoint == nil })
        harness.settle()
        #expect(harness.delegate.events.last == .invalidated(.unifiedPush))
        #expect(connector.distributor == nil && harness.registry.credentials(on: .unifiedPush) == nil)
        connector.close()
    }

    @Test func theReportingRuleHoldsOverUnifiedPush() throws {
        let setup = try setUp(behaviour: .ignore, configuration: PushRegistryConfiguration(maximumViolations: 1))
        let (distributor, harness, connector) = (setup.distributor, setup.harness, setup.connector)
        try connector.register()
        #expect(eventually { connector.endpoint != nil })
        let ignored = harness.payload()
        try distributor.push(ignored.jsonData, token: connector.token)
        #expect(eventually { harness.registry.statistics.received == 1 })
        harness.settle()
        #expect(harness.registry.violations.map(\.callUUID) == [ignored.callUUID])
        #expect(harness.registry.violations.first?.channel == .unifiedPush)
        #expect(harness.registry.deliveryState == .stopped(violations: 1))
        try distributor.push(harness.payload().jsonData, token: connector.token)
        #expect(eventually { harness.registry.statistics.received == 2 })
        harness.settle()
        #expect(harness.registry.statistics.droppedWhileStopped == 1 && harness.delegate.received.count == 1)
    }

    @Test func unregisterIsConfirmedAndInvalidatesTheEndpoint() throws {
        let setup = try setUp()
        try setup.connector.register()
        #expect(eventually { setup.connector.endpoint != nil })
        try setup.connector.unregister()
        #expect(eventually { setup.connector.endpoint == nil })
        setup.harness.settle()
        #expect(setup.distributor.unregisterCalls == 1 && setup.distributor.registrations.isEmpty)
        #expect(setup.harness.delegate.events.last == .invalidated(.unifiedPush))
        #expect(setup.connector.statistics.unregistrations == 1)
        #expect(throws: UnifiedPushError.notRegistered) { try setup.connector.unregister() }
    }

    @Test func aRestartReusesTheTokenAndGetsTheEndpointAgain() throws {
        let setup = try setUp()
        try setup.connector.register()
        #expect(eventually { setup.connector.endpoint == "https://push.example/1" })
        let token = setup.connector.token
        setup.connector.close()

        // The app starts again: a new registry and connector with the stored token.
        let harness = try PushHarness()
        let again = try UnifiedPushConnector(registry: harness.registry, serviceName: Self.service, token: token, busAddress: setup.bus.address)
        try again.register()
        #expect(eventually { again.endpoint == "https://push.example/2" })
        harness.settle()
        #expect(setup.distributor.registerCalls == 2 && setup.distributor.registrations.count == 1, "one registration, same token")
        #expect(harness.delegate.credentials.contains { $0.endpoint == "https://push.example/2" })
        again.close()
    }

    @Test func failuresAreTypedErrors() throws {
        let setup = try setUp()
        let (distributor, connector) = (setup.distributor, setup.connector)
        #expect(throws: UnifiedPushError.distributorNotFound("org.unifiedpush.Distributor.none")) {
            try connector.register(with: "org.unifiedpush.Distributor.none")
        }
        distributor.refuse(with: "quota exceeded")
        #expect(throws: UnifiedPushError.registrationFailed(reason: "quota exceeded")) { try connector.register() }
        #expect(connector.distributor == nil)

        #expect(throws: UnifiedPushError.serviceNameTaken(Self.service)) {
            try UnifiedPushConnector(registry: setup.harness.registry, serviceName: Self.service, busAddress: setup.bus.address)
        }
        #expect {
            try UnifiedPushConnector(registry: setup.harness.registry, serviceName: "org.voiceengine.Other", busAddress: "unix:path=/nonexistent/bus")
        } throws: { error in
            if case UnifiedPushError.connectionFailed = error { true } else { false }
        }
        // libdbus aborts the process on an invalid bus name: the connector refuses it first.
        #expect {
            try UnifiedPushConnector(registry: setup.harness.registry, serviceName: "not a bus name", busAddress: setup.bus.address)
        } throws: { error in
            if case UnifiedPushError.invalidServiceName("not a bus name", _) = error { true } else { false }
        }

        distributor.close()
        #expect(eventually { (try? connector.distributors())?.isEmpty == true })
        #expect(throws: UnifiedPushError.noDistributor) { try connector.register() }

        connector.close()
        #expect(throws: UnifiedPushError.closed) { try connector.register() }
    }

    @Test func theBusGoingAwayIsAnErrorNotACrash() throws {
        var setup: Setup? = try setUp()
        let connector = setup!.connector
        try connector.register()
        let harness = setup!.harness
        setup = nil  // stops the daemon (and the distributor)
        #expect(eventually { (try? connector.distributors()) == nil })
        do {
            try connector.register()
            Issue.record("register succeeded without a bus")
        } catch {
            #expect(error == .closed || { if case .callFailed = error { true } else { false } }())
        }
        _ = harness
    }
}
