// SPDX-License-Identifier: Apache-2.0
/// What `UDPSocket.receive(into:)` reports about one datagram it took from the socket.
public struct ReceivedDatagram: Sendable, Hashable {
    /// The datagram's full length on the wire. Greater than the buffer it was received into
    /// when the datagram did not fit: only the buffer's worth of its first bytes is there.
    public var length: Int
    /// Where the datagram came from (`recvfrom`'s source address).
    public var source: PeerAddress

    /// A datagram of `length` bytes from `source`.
    public init(length: Int, source: PeerAddress) {
        self.length = length
        self.source = source
    }
}
