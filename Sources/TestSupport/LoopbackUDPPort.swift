// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// UDP ports on 127.0.0.1 for a process outside ours (gst-launch-1.0, voicecall) to bind.
public enum LoopbackUDPPort {
    /// A port free now (bound and released: another process may take it before the caller's
    /// receiver does, rarely).
    public static func free() -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Waits until some socket is bound to UDP 127.0.0.1:`port` (`/proc/net/udp`), up to
    /// `timeoutSeconds`: what is sent before a receiver binds is lost.
    public static func waitUntilBound(_ port: UInt16, timeoutSeconds: Double = 60) -> Bool {
        let local = String(format: "0100007F:%04X", port)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            let table = (try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? ""
            if table.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first == Substring(local) }) { return true }
            usleep(10_000)
        }
        return false
    }
}
