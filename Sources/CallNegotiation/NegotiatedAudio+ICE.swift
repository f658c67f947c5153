// SPDX-License-Identifier: Apache-2.0
import SessionDescription
import Transport

extension NegotiatedAudio {
    /// Whether the peer restarted ICE since `previous` (RFC 8839 §4.4.1.1.1): its `ice-ufrag`
    /// or `ice-pwd` changed. An agent that did not start the restart itself restarts
    /// (`ICEAgent.restart()`) before it takes the new ones with `connectICE(_:)`, and answers
    /// with its own new credentials and candidates. The call's media and its DTLS keys stay.
    public func restartsICE(since previous: NegotiatedAudio) -> Bool {
        guard let now = remoteICE, let before = previous.remoteICE else { return false }
        return now.usernameFragment != before.usernameFragment || now.password != before.password
    }

    /// Gives `agent` the peer's ICE from this negotiation: its credentials, each of its
    /// candidates for RTP's component (one for RTCP's, from a peer that offered RTCP apart, is
    /// skipped: the stream multiplexes RTCP), then that they are complete when the peer sent
    /// them all (`a=end-of-candidates`, or it does not trickle), so checks that fail can fail
    /// the connection. Returns how many candidates the agent took.
    /// - Throws: `.noRemoteICE` when the peer's description carries no ICE credentials (it was
    ///   made without ICE); `.ice(_)` for credentials or a candidate the agent refuses.
    @discardableResult
    public func connectICE(_ agent: ICEAgent) throws(CallNegotiationError) -> Int {
        guard let remote = remoteICE, let usernameFragment = remote.usernameFragment, let password = remote.password else {
            throw .noRemoteICE
        }
        do {
            try agent.setRemoteCredentials(usernameFragment: usernameFragment, password: password)
        } catch {
            throw .ice(error)
        }
        var added = 0
        for candidate in remote.candidates {
            do {
                try agent.addRemoteCandidate(candidate.attributeValue)
                added += 1
            } catch .candidateRefused {
                continue
            } catch {
                throw .ice(error)
            }
        }
        if remote.endOfCandidates || !remote.trickle { agent.remoteCandidatesComplete() }
        return added
    }
}
