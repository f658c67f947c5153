// SPDX-License-Identifier: Apache-2.0
/// Which way a call's media flows, seen from this side: SDP's `a=sendrecv`, `a=sendonly`,
/// `a=recvonly` and `a=inactive` (RFC 3264, § 5.1 and 6.1). A SIP hold is a re-offer with
/// `sendonly` (the holder keeps sending music or nothing) or `inactive`.
public enum MediaDirection: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Both ways (`a=sendrecv`, SDP's default).
    case sendReceive = "sendrecv"
    /// We send, and receive nothing (`a=sendonly`).
    case sendOnly = "sendonly"
    /// We receive, and send nothing (`a=recvonly`).
    case receiveOnly = "recvonly"
    /// Neither way (`a=inactive`); RTCP still flows.
    case inactive

    /// The direction with these two permissions.
    public init(sends: Bool, receives: Bool) {
        switch (sends, receives) {
        case (true, true): self = .sendReceive
        case (true, false): self = .sendOnly
        case (false, true): self = .receiveOnly
        case (false, false): self = .inactive
        }
    }

    /// Whether media goes out.
    public var sends: Bool { self == .sendReceive || self == .sendOnly }
    /// Whether media comes in (and is played).
    public var receives: Bool { self == .sendReceive || self == .receiveOnly }

    /// The same flow seen from the other side: what we send, it receives.
    public var reversed: MediaDirection { MediaDirection(sends: receives, receives: sends) }

    /// What both allow: an answer's direction is the answerer's wish within the offer's
    /// `reversed` (RFC 3264 § 6.1: `sendonly` is answered `recvonly` or `inactive`, …).
    public func intersection(_ other: MediaDirection) -> MediaDirection {
        MediaDirection(sends: sends && other.sends, receives: receives && other.receives)
    }

    /// The SDP attribute's name (`sendrecv`, …).
    public var description: String { rawValue }
}
