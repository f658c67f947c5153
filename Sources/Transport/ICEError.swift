// SPDX-License-Identifier: Apache-2.0
/// Why an ICE agent could not be made or refused a request.
public enum ICEError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A parameter is out of range; the string says which and why.
    case badParameter(String)
    /// libnice could not make the agent, its stream or its thread.
    case setupFailed(String)
    /// A remote candidate that does not parse as RFC 8839's `candidate` attribute (as libnice
    /// reads it); the text is the candidate as given.
    case malformedCandidate(String)
    /// A remote candidate for a component this stream does not have (RTCP's, with rtcp-mux).
    case candidateRefused(String)
    /// The peer's credentials are not ICE's (`ice-ufrag` 4–256, `ice-pwd` 22–256 characters of
    /// RFC 8839's ice-char set).
    case badRemoteCredentials
    /// The agent was closed.
    case closed

    public var description: String {
        switch self {
        case let .badParameter(why): return "ICE: bad parameter: \(why)"
        case let .setupFailed(what): return "ICE: \(what)"
        case let .malformedCandidate(text): return "ICE: the candidate \"\(text.prefix(200))\" does not parse"
        case let .candidateRefused(text): return "ICE: the candidate \"\(text.prefix(200))\" is for a component this stream does not have (rtcp-mux)"
        case .badRemoteCredentials: return "ICE: the peer's ice-ufrag or ice-pwd is not valid (RFC 8839: 4–256 and 22–256 ice-chars)"
        case .closed: return "ICE: the agent is closed"
        }
    }
}
