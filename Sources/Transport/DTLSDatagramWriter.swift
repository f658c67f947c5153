// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL

/// The write side of a DTLS association: an OpenSSL BIO that keeps each write as one datagram.
///
/// OpenSSL's DTLS writes each datagram it means to send with one `BIO_write`, sized to the MTU
/// it was given; a memory BIO would run a flight's datagrams together. This BIO hands each
/// write to `datagrams` instead, so the caller sends them one by one.
final class DTLSDatagramWriter {
    /// What OpenSSL wrote since the last `drain`, a datagram each.
    private(set) var datagrams: [[UInt8]] = []
    /// The largest datagram OpenSSL may write (it asks through `BIO_CTRL_DGRAM_QUERY_MTU`).
    let mtu: Int
    /// The BIO (owned by the `SSL` once handed to it with `SSL_set_bio`).
    let bio: OpaquePointer

    /// A writer for datagrams of up to `mtu` bytes; nil when OpenSSL cannot make the BIO.
    init?(mtu: Int) {
        guard let method = Self.method.pointer, let bio = BIO_new(method) else { return nil }
        self.mtu = mtu
        self.bio = bio
        BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
        BIO_set_init(bio, 1)
    }

    /// Hands every datagram written since the last call to `send`, oldest first, and forgets them.
    func drain(_ send: ([UInt8]) -> Void) {
        let written = datagrams
        datagrams.removeAll(keepingCapacity: true)
        for datagram in written { send(datagram) }
    }

    /// Detaches the BIO from this writer (the `SSL` may outlive it by a moment while it is freed).
    func detach() { BIO_set_data(bio, nil) }

    fileprivate func append(_ bytes: UnsafeRawBufferPointer) { datagrams.append(Array(bytes)) }

    /// The BIO method, made once per process (OpenSSL keeps a pointer to it in every BIO).
    private static let method = MethodHandle()

    private struct MethodHandle: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() {
            let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
            guard let method = BIO_meth_new(type, "VoiceEngine DTLS datagrams") else {
                pointer = nil
                return
            }
            BIO_meth_set_write(method) { bio, data, length in
                guard let bio, let data, length >= 0, let context = BIO_get_data(bio) else { return -1 }
                let writer = Unmanaged<DTLSDatagramWriter>.fromOpaque(context).takeUnretainedValue()
                writer.append(UnsafeRawBufferPointer(start: data, count: Int(length)))
                return length
            }
            BIO_meth_set_ctrl(method) { bio, command, _, _ in
                switch command {
                case BIO_CTRL_FLUSH: return 1
                case BIO_CTRL_DGRAM_QUERY_MTU, BIO_CTRL_DGRAM_GET_FALLBACK_MTU:
                    guard let bio, let context = BIO_get_data(bio) else { return 0 }
                    return Int(Unmanaged<DTLSDatagramWriter>.fromOpaque(context).takeUnretainedValue().mtu)
                default: return 0
                }
            }
            BIO_meth_set_create(method) { bio in
                BIO_set_init(bio, 1)
                return 1
            }
            pointer = method
        }
    }
}
