// SPDX-License-Identifier: Apache-2.0
/// Where an ICE connection stands (RFC 8445's checklist, as W3C's RTCIceConnectionState says it).
public enum ICEConnectionState: String, Sendable, Hashable {
    /// Gathering local candidates; no checks yet.
    case gathering
    /// Checking candidate pairs.
    case checking
    /// A pair works; media can flow (checks may go on).
    case connected
    /// ICE concluded: the pair is selected.
    case completed
    /// No pair worked, or the peer stopped consenting (RFC 7675: no answer to consent checks
    /// for 30 s): the connection is lost until an ICE restart.
    case failed
    /// Nothing scheduled (made, or after a restart).
    case idle
}

/// Something an ICE agent did, in the order it happened.
public enum ICEEvent: Sendable, Equatable {
    /// A local candidate, as the value of an SDP `a=candidate` attribute ("candidate:…"), to
    /// send to the peer (trickled, or written in the description once gathering is done).
    case localCandidate(String)
    /// Gathering finished (trickle: `a=end-of-candidates`).
    case gatheringDone
    /// The connection's state changed.
    case stateChanged(ICEConnectionState)
    /// Media now flows between these candidates (each as its `candidate:` attribute value).
    case selectedPair(local: String, remote: String)
}
