// SPDX-License-Identifier: Apache-2.0
import Transport

/// Two UDP sockets on 127.0.0.1 (ports the system picks), each with the other as its remote:
/// the two ends of a call for tests and benchmarks.
public enum LoopbackSocketPair {
    /// A new connected pair.
    /// - Throws: `SocketError` from bind or setRemote.
    public static func make() throws(SocketError) -> (UDPSocket, UDPSocket) {
        let first = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let second = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try first.setRemote(second.localEndpoint)
        try second.setRemote(first.localEndpoint)
        return (first, second)
    }
}
