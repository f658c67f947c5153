// SPDX-License-Identifier: Apache-2.0
import Glibc
@testable import Transport

/// Turns on `IP_RECVTOS` / `IPV6_RECVTCLASS` for `socket`, so `receivedTrafficClass(on:)` can
/// read the TOS / traffic-class byte each datagram carried on the wire.
func reportTrafficClass(on socket: UDPSocket) {
    var on: Int32 = 1
    let isIPv6 = socket.localEndpoint.host.contains(":")
    let result = isIPv6
        ? setsockopt(socket.descriptor, Int32(IPPROTO_IPV6), IPV6_RECVTCLASS, &on, socklen_t(MemoryLayout<Int32>.size))
        : setsockopt(socket.descriptor, Int32(IPPROTO_IP), IP_RECVTOS, &on, socklen_t(MemoryLayout<Int32>.size))
    precondition(result == 0, "setsockopt RECVTOS/RECVTCLASS: errno \(errno)")
}

/// Waits up to a second for a datagram on `socket` and returns the TOS / traffic-class byte
/// it arrived with (from `recvmsg`'s control messages); nil when none came or none was reported.
func receivedTrafficClass(on socket: UDPSocket) throws -> UInt8? {
    _ = try socket.waitForData(timeoutMs: 1_000)
    var payload = [UInt8](repeating: 0, count: 64)
    var control = [UInt64](repeating: 0, count: 32)  // cmsghdr alignment
    return payload.withUnsafeMutableBytes { payloadBytes in
        control.withUnsafeMutableBytes { controlBytes -> UInt8? in
            var vector = iovec(iov_base: payloadBytes.baseAddress, iov_len: payloadBytes.count)
            return withUnsafeMutablePointer(to: &vector) { vectorPointer -> UInt8? in
                var message = msghdr()
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = controlBytes.baseAddress
                message.msg_controllen = controlBytes.count
                guard recvmsg(socket.descriptor, &message, 0) >= 0 else { return nil }
                // CMSG_FIRSTHDR / CMSG_NXTHDR by hand: headers and data are 8-byte aligned.
                let headerSize = MemoryLayout<cmsghdr>.size
                var offset = 0
                while offset + headerSize <= Int(message.msg_controllen) {
                    let header = controlBytes.load(fromByteOffset: offset, as: cmsghdr.self)
                    let data = offset + headerSize
                    if header.cmsg_level == Int32(IPPROTO_IP), header.cmsg_type == IP_TOS { return controlBytes[data] }
                    if header.cmsg_level == Int32(IPPROTO_IPV6), header.cmsg_type == IPV6_TCLASS {
                        return UInt8(truncatingIfNeeded: controlBytes.load(fromByteOffset: data, as: Int32.self))
                    }
                    guard header.cmsg_len > 0 else { return nil }
                    offset += (Int(header.cmsg_len) + 7) & ~7
                }
                return nil
            }
        }
    }
}
