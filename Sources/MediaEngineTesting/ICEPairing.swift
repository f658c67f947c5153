// SPDX-License-Identifier: Apache-2.0
import Foundation
import Transport

/// Two ICE agents in one process told about each other as two SDP bodies written after
/// gathering would tell them (credentials, every candidate, end-of-candidates): for tests of
/// what runs over ICE without a signalling channel.
public enum ICEPairing {
    /// Waits up to `seconds` (wall clock: libnice's checks run on it) for an event of `agent`
    /// matching `predicate`, adding every event taken to `seen`. Returns whether one came.
    public static func wait(_ agent: ICEAgent, seconds: Double = 20, into seen: inout [ICEEvent],
                            for predicate: (ICEEvent) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            seen += agent.takeEvents()
            if seen.contains(where: predicate) { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return false
    }

    /// The local candidates among `events`, as `candidate:` attribute values.
    public static func candidates(_ events: [ICEEvent]) -> [String] {
        events.compactMap { if case let .localCandidate(line) = $0 { line } else { nil } }
    }

    /// Gathers on both agents (`gather` each: by default here, on this thread; a test whose
    /// agents live in network namespaces gathers each inside its own), then gives each the
    /// other's credentials and candidates and says they are complete. Returns each agent's
    /// events so far (nil for an agent whose gathering did not finish within `seconds`).
    /// - Throws: what the agents throw for the other's credentials or candidates, or `gather`.
    public static func exchange(_ a: ICEAgent, _ b: ICEAgent, seconds: Double = 20,
                                gather: (ICEAgent) throws -> Void = { try $0.gatherCandidates() }) throws -> (a: [ICEEvent], b: [ICEEvent])? {
        var aEvents: [ICEEvent] = [], bEvents: [ICEEvent] = []
        try gather(a)
        try gather(b)
        guard wait(a, seconds: seconds, into: &aEvents, for: { $0 == .gatheringDone }),
              wait(b, seconds: seconds, into: &bEvents, for: { $0 == .gatheringDone })
        else { return nil }
        try introduce(a, aEvents, b, bEvents)
        return (aEvents, bEvents)
    }

    /// An ICE restart on both agents, as a re-offer with new credentials and its answer make
    /// it (RFC 8445 §9): each restarts, then gets the other's new credentials and candidates.
    /// Events waiting on either agent before the restart are dropped. Returns each agent's
    /// events from the restart on (nil for one that did not gather again within `seconds`).
    /// `restart` restarts each (by default here, on this thread).
    /// - Throws: what the agents throw restarting, or for the other's credentials or candidates.
    public static func restart(_ a: ICEAgent, _ b: ICEAgent, seconds: Double = 20,
                               restart: (ICEAgent) throws -> Void = { try $0.restart() }) throws -> (a: [ICEEvent], b: [ICEEvent])? {
        _ = a.takeEvents()
        _ = b.takeEvents()
        try restart(a)
        try restart(b)
        var aEvents: [ICEEvent] = [], bEvents: [ICEEvent] = []
        guard wait(a, seconds: seconds, into: &aEvents, for: { $0 == .gatheringDone }),
              wait(b, seconds: seconds, into: &bEvents, for: { $0 == .gatheringDone })
        else { return nil }
        try introduce(a, aEvents, b, bEvents)
        return (aEvents, bEvents)
    }

    /// Gives each agent the other's credentials and the candidates among its events (what
    /// each gathered), complete: an offer and its answer, both non-trickle.
    public static func introduce(_ a: ICEAgent, _ aEvents: [ICEEvent], _ b: ICEAgent, _ bEvents: [ICEEvent]) throws(ICEError) {
        try a.setRemoteCredentials(usernameFragment: b.localCredentials.usernameFragment, password: b.localCredentials.password)
        try b.setRemoteCredentials(usernameFragment: a.localCredentials.usernameFragment, password: a.localCredentials.password)
        for line in candidates(bEvents) { try a.addRemoteCandidate(line) }
        for line in candidates(aEvents) { try b.addRemoteCandidate(line) }
        a.remoteCandidatesComplete()
        b.remoteCandidatesComplete()
    }
}
