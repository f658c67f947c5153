// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import SystemErrors

/// Tells of changes to this host's network — an address added or removed, a link that comes up
/// or goes down — from the kernel's routing messages (rtnetlink), so that a call can restart
/// ICE (`ICEAgent.restart()` and a re-offer) when the network it runs on changes: Wi-Fi to
/// Ethernet, a new DHCP lease, a VPN coming up. It watches the network namespace of the thread
/// that makes it.
///
/// Sans thread: poll `descriptor` for reading (with the engine's or the application's own
/// poller) or call `waitForChanges(timeoutMs:)`, then `takeChanges()`. Reading allocates; it is
/// for the control side, never the audio thread.
public final class NetworkChangeMonitor: @unchecked Sendable {
    /// One change to the host's network.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        /// An address was added to the interface with `interfaceIndex`.
        case addressAdded(String, interfaceIndex: Int)
        /// An address was removed: a socket bound to it (an ICE candidate) is dead.
        case addressRemoved(String, interfaceIndex: Int)
        /// A link can carry traffic again (up and running) or no longer can.
        case linkChanged(interfaceIndex: Int, isRunning: Bool)

        public var description: String {
            switch self {
            case let .addressAdded(address, index): "address \(address) added on interface \(index)"
            case let .addressRemoved(address, index): "address \(address) removed from interface \(index)"
            case let .linkChanged(index, running): "interface \(index) \(running ? "running" : "down")"
            }
        }
    }

    /// The netlink socket, for a poller (readable when changes wait).
    public let descriptor: Int32
    /// Whether each link was running when last heard of: a link message that does not change
    /// it (statistics, a name) is no change.
    private var running: [Int: Bool] = [:]

    /// Starts watching (addresses of both families, links).
    /// - Throws: `SocketError` when the netlink socket cannot be made or bound.
    public init() throws(SocketError) {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket") }
        // struct sockaddr_nl (<linux/netlink.h>, not in Glibc's module): family (u16), pad
        // (u16), port id (u32: 0, the kernel assigns it), groups (u32): RTMGRP_LINK |
        // RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR (<linux/rtnetlink.h>).
        var address = NetlinkAddress(family: UInt16(AF_NETLINK), pad: 0, portID: 0, groups: 0x1 | 0x10 | 0x100)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        }
        guard bound == 0 else {
            let error = SocketError.current("bind")
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Waits until changes wait to be taken, or `timeoutMs` passes; whether they do.
    public func waitForChanges(timeoutMs: Int) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(clamping: timeoutMs)) > 0
    }

    /// Every change the kernel told of since the last call, oldest first. Messages that do
    /// not parse are skipped (they come from the kernel, but the buffer's lengths are checked
    /// before they are read all the same).
    public func takeChanges() -> [Change] {
        var changes: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            // ENOBUFS: the kernel dropped messages (too many changes at once): what is left is read.
            if received < 0 { if errno == ENOBUFS { continue } else { break } }
            if received == 0 { break }
            changes += buffer.withUnsafeBytes { Self.parse(UnsafeRawBufferPointer(rebasing: $0[0..<received]), running: &running) }
        }
        return changes
    }

    /// The changes in one datagram of netlink messages.
    static func parse(_ bytes: UnsafeRawBufferPointer, running: inout [Int: Bool]) -> [Change] {
        var changes: [Change] = []
        var offset = 0
        // struct nlmsghdr: length (u32), type (u16), flags (u16), sequence (u32), port (u32).
        while offset + 16 <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            guard length >= 16, offset + length <= bytes.count else { break }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 16)..<(offset + length)])
            switch type {
            case 20, 21:  // RTM_NEWADDR, RTM_DELADDR
                if let (address, index) = Self.address(body) {
                    changes.append(type == 20 ? .addressAdded(address, interfaceIndex: index) : .addressRemoved(address, interfaceIndex: index))
                }
            case 16, 17:  // RTM_NEWLINK, RTM_DELLINK
                // struct ifinfomsg: family, pad, type (u16), index (i32), flags (u32), change (u32).
                guard body.count >= 16 else { break }
                let index = Int(body.loadUnaligned(fromByteOffset: 4, as: Int32.self))
                let flags = body.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
                // IFF_UP (0x1) and IFF_RUNNING (0x40): up and with carrier.
                let isRunning = type == 16 && flags & 0x41 == 0x41
                // A link not heard of before is told either way (its state before is unknown).
                if running[index] != isRunning {
                    changes.append(.linkChanged(interfaceIndex: index, isRunning: isRunning))
                    running[index] = isRunning
                }
            default:
                break
            }
            // Messages are aligned to 4 bytes.
            offset += (length + 3) & ~3
        }
        return changes
    }

    /// The address an address message is about (IFA_LOCAL, else IFA_ADDRESS) and its interface.
    private static func address(_ body: UnsafeRawBufferPointer) -> (String, Int)? {
        // struct ifaddrmsg: family (u8), prefix length, flags, scope, index (u32); then rtattrs.
        guard body.count >= 8 else { return nil }
        let family = Int32(body[0])
        let index = Int(body.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        var offset = 8
        var found: (local: String?, address: String?) = (nil, nil)
        // struct rtattr: length (u16), type (u16), value.
        while offset + 4 <= body.count {
            let length = Int(body.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = body.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self)
            guard length >= 4, offset + length <= body.count else { break }
            let value = UnsafeRawBufferPointer(rebasing: body[(offset + 4)..<(offset + length)])
            if type == 1 || type == 2, let text = Self.text(family: family, value) {  // IFA_ADDRESS, IFA_LOCAL
                if type == 2 { found.local = text } else { found.address = text }
            }
            offset += (length + 3) & ~3
        }
        guard let address = found.local ?? found.address else { return nil }
        return (address, index)
    }

    private static func text(family: Int32, _ value: UnsafeRawBufferPointer) -> String? {
        guard (family == AF_INET && value.count == 4) || (family == AF_INET6 && value.count == 16) else { return nil }
        var characters = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, value.baseAddress, &characters, socklen_t(characters.count)) != nil else { return nil }
        return String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `struct sockaddr_nl`, laid out as the kernel reads it (12 bytes).
private struct NetlinkAddress {
    var family: UInt16
    var pad: UInt16
    var portID: UInt32
    var groups: UInt32
}
