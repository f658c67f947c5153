// SPDX-License-Identifier: Apache-2.0
/// Whether ICMP refusals mean that nobody listens at the peer's address: refusals that have
/// lasted the whole give-up time and still come (one within the last second), with no
/// authenticated datagram (RTP or RTCP) from the peer in that time. A peer that answers with
/// authenticated packets is alive whatever ICMP errors say (anyone who knows both addresses can
/// forge those); one that stops answering, and whose host refuses, is still noticed. Times are
/// in milliseconds on the caller's clock.
struct PeerReachability {
    /// How long refusals, without authenticated packets, last before the peer is unreachable.
    let giveUpMs: Double
    private var streakStart: Double?
    private var lastRefusal: Double?
    private var lastAuthenticated: Double?

    init(giveUpMs: Double) {
        self.giveUpMs = giveUpMs
    }

    /// Notes `count` refusals (ICMP errors that quote our datagrams) taken at `now`.
    mutating func noteRefusals(_ count: Int, atMs now: Double) {
        guard count > 0 else { return }
        // A second without refusals ends a streak.
        if lastRefusal.map({ now - $0 > 1_000 }) ?? true { streakStart = now }
        lastRefusal = now
    }

    /// Notes a datagram from the peer that passed SRTP or SRTCP authentication at `now`.
    mutating func noteAuthenticated(atMs now: Double) {
        lastAuthenticated = now
    }

    /// Whether the peer is to be given up at `now`.
    func isUnreachable(atMs now: Double) -> Bool {
        guard let start = streakStart, let last = lastRefusal, now - last < 1_000 else { return false }
        // Refused since `start`, and not heard from since the later of the two.
        let heardFrom = max(start, lastAuthenticated ?? start)
        return now - heardFrom >= giveUpMs
    }
}
