// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngineTesting
import Testing
import Transport

/// Issue 25: ICE (RFC 8445) through libnice between two agents in one process on loopback:
/// gathering, the exchange of credentials and candidates, connectivity, datagrams both ways,
/// failures and refusals. libnice's checks run on its own thread on the wall clock, so the
/// tests wait for its events with bounds far above what they need.
@Suite(.timeLimit(.minutes(2))) struct ICEAgentTests {
    static func agent(_ role: ICEConfiguration.Role, trickle: Bool = false) throws -> ICEAgent {
        var configuration = ICEConfiguration(role: role)
        configuration.localAddresses = ["127.0.0.1"]
        configuration.trickle = trickle
        return try ICEAgent(configuration: configuration)
    }

    static func wait(_ agent: ICEAgent, seconds: Double = 20, into seen: inout [ICEEvent], for predicate: (ICEEvent) -> Bool) -> Bool {
        ICEPairing.wait(agent, seconds: seconds, into: &seen, for: predicate)
    }

    static func candidates(_ events: [ICEEvent]) -> [String] { ICEPairing.candidates(events) }

    /// Exchanges everything (non-trickle) and waits for both to connect.
    static func connect(_ a: ICEAgent, _ b: ICEAgent) throws -> (a: [ICEEvent], b: [ICEEvent]) {
        var (aEvents, bEvents) = try #require(try ICEPairing.exchange(a, b))
        let connected: (ICEEvent) -> Bool = { $0 == .stateChanged(.connected) || $0 == .stateChanged(.completed) }
        #expect(wait(a, into: &aEvents, for: connected), "a: \(aEvents)")
        #expect(wait(b, into: &bEvents, for: connected), "b: \(bEvents)")
        return (aEvents, bEvents)
    }

    @Test func twoAgentsConnectOnLoopbackAndCarryDatagramsBothWays() throws {
        let caller = try Self.agent(.controlling), callee = try Self.agent(.controlled)
        let (callerEvents, calleeEvents) = try Self.connect(caller, callee)
        let hosts = Self.candidates(callerEvents)
        #expect(!hosts.isEmpty && hosts.allSatisfy { $0.hasPrefix("candidate:") && $0.contains("127.0.0.1") && $0.contains("typ host") })
        var seen = callerEvents
        #expect(Self.wait(caller, into: &seen) { if case .selectedPair = $0 { true } else { false } })
        var received: [[UInt8]] = []
        let deadline = Date().addingTimeInterval(20)
        var index: UInt8 = 0
        while received.count < 10 && Date() < deadline {
            let datagram: [UInt8] = [0x80, 111, 0, index] + [UInt8](repeating: index, count: 100)
            index &+= 1
            _ = datagram.withUnsafeBytes { caller.send($0) }
            Thread.sleep(forTimeInterval: 0.005)
            callee.receive { received.append(Array($0)) }
        }
        #expect(received.count >= 10)
        #expect(received.allSatisfy { $0.count == 104 && $0[0] == 0x80 }, "datagrams arrive whole, STUN kept by libnice")
        // And back.
        var back: [[UInt8]] = []
        for _ in 0..<200 where back.isEmpty {
            _ = [UInt8](repeating: 0x90, count: 50).withUnsafeBytes { callee.send($0) }
            Thread.sleep(forTimeInterval: 0.005)
            caller.receive { back.append(Array($0)) }
        }
        #expect(back.first == [UInt8](repeating: 0x90, count: 50))
        _ = calleeEvents
        caller.close()
        callee.close()
        #expect(throws: ICEError.closed) { try caller.gatherCandidates() }
    }

    /// Trickle ICE (RFC 8838): credentials first, each candidate handed over as it is
    /// gathered (the peer's checks start on the first), end-of-candidates when gathering is
    /// done; the agents connect and carry datagrams, and neither fails while candidates may
    /// still come.
    @Test func tricklingAgentsConnect() throws {
        let caller = try Self.agent(.controlling, trickle: true), callee = try Self.agent(.controlled, trickle: true)
        defer {
            caller.close()
            callee.close()
        }
        try caller.setRemoteCredentials(usernameFragment: callee.localCredentials.usernameFragment, password: callee.localCredentials.password)
        try callee.setRemoteCredentials(usernameFragment: caller.localCredentials.usernameFragment, password: caller.localCredentials.password)
        try caller.gatherCandidates()
        try callee.gatherCandidates()
        var seen: [ICEEvent] = []
        var trickled = (caller: 0, callee: 0)
        var ended = (caller: false, callee: false)
        let deadline = Date().addingTimeInterval(20)
        func connected(_ event: ICEEvent) -> Bool { event == .stateChanged(.connected) || event == .stateChanged(.completed) }
        var calleeConnected = false
        while !(seen.contains(where: connected) && calleeConnected) && Date() < deadline {
            // Each side's events, handed to the other as a signalling channel would.
            for event in caller.takeEvents() {
                seen.append(event)
                if case let .localCandidate(line) = event { try callee.addRemoteCandidate(line); trickled.caller += 1 }
                if event == .gatheringDone { callee.remoteCandidatesComplete(); ended.caller = true }
            }
            for event in callee.takeEvents() {
                #expect(event != .stateChanged(.failed), "the callee failed while candidates could still come")
                if case let .localCandidate(line) = event { try caller.addRemoteCandidate(line); trickled.callee += 1 }
                if event == .gatheringDone { caller.remoteCandidatesComplete(); ended.callee = true }
                if connected(event) { calleeConnected = true }
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        #expect(trickled.caller > 0 && trickled.callee > 0 && ended.caller && ended.callee)
        #expect(seen.contains(where: connected) && calleeConnected, "\(seen)")
        #expect(!seen.contains(.stateChanged(.failed)), "\(seen)")
        var received = 0
        for index in 0..<200 where received == 0 {
            _ = [0x80, 111, 0, UInt8(index & 0xFF)].withUnsafeBytes { caller.send($0) }
            Thread.sleep(forTimeInterval: 0.005)
            callee.receive { _ in received += 1 }
        }
        #expect(received > 0, "a datagram over the trickled pair")
    }

    /// RFC 7675: a connected peer that stops answering (its agent closed) loses our consent:
    /// the connection fails by itself, as an event, within consent's 30 s (about 10 s here:
    /// on loopback the closed port answers the consent checks with ICMP errors).
    @Test func aPeerThatStopsConsentingFailsTheConnection() throws {
        let caller = try Self.agent(.controlling), callee = try Self.agent(.controlled)
        var (callerEvents, _) = try Self.connect(caller, callee)
        callee.close()
        let closedAt = Date()
        #expect(Self.wait(caller, seconds: 60, into: &callerEvents) { $0 == .stateChanged(.failed) }, "\(callerEvents)")
        let elapsed = Date().timeIntervalSince(closedAt)
        #expect(elapsed <= 40, "consent lost after \(elapsed) s (RFC 7675: 30 s)")
        caller.close()
    }

    /// The controlled side's checks find nobody at the candidate's port: with the peer's
    /// candidates complete the connection fails, as an event, in bounded time.
    @Test func aPeerThatNeverAnswersFails() throws {
        let agent = try Self.agent(.controlling)
        var events: [ICEEvent] = []
        try agent.gatherCandidates()
        #expect(Self.wait(agent, into: &events) { $0 == .gatheringDone })
        try agent.setRemoteCredentials(usernameFragment: "abcd", password: "abcdefghijklmnopqrstuv")
        // A port where nothing listens (bound, then closed).
        let port = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)).localEndpoint.port
        try agent.addRemoteCandidate("candidate:1 1 UDP 2130706431 127.0.0.1 \(port) typ host")
        agent.remoteCandidatesComplete()
        #expect(Self.wait(agent, seconds: 60, into: &events) { $0 == .stateChanged(.failed) }, "\(events)")
        agent.close()
    }

    @Test func malformedCandidatesAndCredentialsAreTypedErrors() throws {
        let agent = try Self.agent(.controlled)
        #expect(throws: ICEError.self) { try agent.addRemoteCandidate("candidate:nonsense") }
        #expect(throws: ICEError.self) { try agent.addRemoteCandidate("candidate:1 1 UDP 2130706431 127.0.0.1 99999 typ host") }
        #expect(throws: ICEError.candidateRefused("candidate:1 2 UDP 2130706431 127.0.0.1 5000 typ host")) {
            try agent.addRemoteCandidate("candidate:1 2 UDP 2130706431 127.0.0.1 5000 typ host")
        }
        #expect(throws: ICEError.self) { try agent.addRemoteCandidate(String(repeating: "x", count: 5_000)) }
        #expect(throws: ICEError.badRemoteCredentials) { try agent.setRemoteCredentials(usernameFragment: "ab", password: "abcdefghijklmnopqrstuv") }
        #expect(throws: ICEError.badRemoteCredentials) { try agent.setRemoteCredentials(usernameFragment: "abcd", password: "short") }
        #expect(throws: ICEError.badRemoteCredentials) { try agent.setRemoteCredentials(usernameFragment: "ab d", password: "abcdefghijklmnopqrstuv") }
        try agent.addRemoteCandidate("1 1 UDP 2130706431 127.0.0.1 5000 typ host")
        let credentials = agent.localCredentials
        #expect(credentials.usernameFragment.count >= 4 && credentials.password.count >= 22)
        try agent.restart()
        #expect(agent.localCredentials.usernameFragment != credentials.usernameFragment, "a restart takes new credentials")
    }

    @Test func badConfigurationsAreRefused() {
        var relayWithoutServer = ICEConfiguration(role: .controlling)
        relayWithoutServer.relayOnly = true
        #expect(throws: ICEError.self) { try ICEAgent(configuration: relayWithoutServer) }
        var named = ICEConfiguration(role: .controlling)
        named.stunServer = UDPEndpoint(host: "stun.example.org", port: 3478)
        #expect(throws: ICEError.self) { try ICEAgent(configuration: named) }
        var noUser = ICEConfiguration(role: .controlling)
        noUser.turnServers = [.init(server: UDPEndpoint(host: "127.0.0.1", port: 3478), username: "", password: "x")]
        #expect(throws: ICEError.self) { try ICEAgent(configuration: noUser) }
        var local = ICEConfiguration(role: .controlling)
        local.localAddresses = ["eth0"]
        #expect(throws: ICEError.self) { try ICEAgent(configuration: local) }
        #expect("\(ICEConfiguration.TURNServer(server: UDPEndpoint(host: "127.0.0.1", port: 3478), username: "u", password: "secret"))".contains("secret") == false)
    }
}
