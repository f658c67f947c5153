// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import Transport

/// `NetworkChangeMonitor` in a network namespace of a `NATTestbed` (as root): an address added
/// and removed, a link that comes up and goes down, each told once; and the parser fed
/// truncated messages.
@Suite(.serialized) struct NetworkChangeMonitorTests {
    /// Takes changes until one matches `predicate` or 5 s pass; every change taken.
    static func wait(_ monitor: NetworkChangeMonitor, into seen: inout [NetworkChangeMonitor.Change],
                     for predicate: (NetworkChangeMonitor.Change) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if monitor.waitForChanges(timeoutMs: 100) { seen += monitor.takeChanges() }
            if seen.contains(where: predicate) { return true }
        }
        return false
    }

    @Test(.enabled(if: NATTestbed.enabled, "needs root, iproute2 and nftables (VOICEENGINE_REQUIRE_NETNS=1 fails instead)"))
    func addressesAndLinksAreToldAsTheyChange() throws {
        let testbed = try NATTestbed(mapping: .portPreserving)
        defer { testbed.remove() }
        let namespace = testbed.alice.namespace
        let monitor = try NATTestbed.run(in: namespace) { try NetworkChangeMonitor() }
        #expect(monitor.takeChanges().isEmpty, "nothing changed yet")
        var seen: [NetworkChangeMonitor.Change] = []
        try NATTestbed.ip(["-n", namespace, "addr", "add", "10.0.1.3/24", "dev", "eth0"])
        #expect(Self.wait(monitor, into: &seen) { if case .addressAdded("10.0.1.3", _) = $0 { true } else { false } }, "\(seen)")
        try NATTestbed.ip(["-n", namespace, "addr", "del", "10.0.1.3/24", "dev", "eth0"])
        #expect(Self.wait(monitor, into: &seen) { if case .addressRemoved("10.0.1.3", _) = $0 { true } else { false } }, "\(seen)")
        try NATTestbed.ip(["-n", namespace, "addr", "add", "fd00::2/64", "dev", "eth0", "nodad"])
        #expect(Self.wait(monitor, into: &seen) { if case .addressAdded("fd00::2", _) = $0 { true } else { false } }, "\(seen)")
        try NATTestbed.ip(["-n", namespace, "link", "set", "eth0", "down"])
        #expect(Self.wait(monitor, into: &seen) { if case .linkChanged(_, false) = $0 { true } else { false } }, "\(seen)")
        try NATTestbed.ip(["-n", namespace, "link", "set", "eth0", "up"])
        #expect(Self.wait(monitor, into: &seen) { if case .linkChanged(_, true) = $0 { true } else { false } }, "\(seen)")
        // Only this namespace: a change in another is not ours.
        seen = []
        try NATTestbed.ip(["-n", testbed.bob.namespace, "addr", "add", "10.0.2.9/24", "dev", "eth0"])
        #expect(!Self.wait(monitor, into: &seen) { if case .addressAdded("10.0.2.9", _) = $0 { true } else { false } }, "\(seen)")
    }

    /// An RTM_NEWADDR for 192.0.2.5 on interface 3 and an RTM_NEWLINK (up, running) for it, in
    /// one datagram: both read; cut at every length, nothing traps and no change is made up.
    @Test func theParserReadsMessagesAndSurvivesTruncation() {
        func message(type: UInt16, body: [UInt8]) -> [UInt8] {
            let length = UInt32(16 + body.count)
            var bytes = withUnsafeBytes(of: length.littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init)
            bytes += [0, 0] + [UInt8](repeating: 0, count: 8) + body
            return bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
        }
        // ifaddrmsg (AF_INET 2, /24, flags, scope, index 3) + rtattr IFA_LOCAL (8 bytes).
        let address = message(type: 20, body: [2, 24, 0, 0, 3, 0, 0, 0] + [8, 0, 2, 0, 192, 0, 2, 5])
        // ifinfomsg (family, pad, type, index 3, flags IFF_UP|IFF_RUNNING, change).
        let link = message(type: 16, body: [0, 0, 1, 0, 3, 0, 0, 0, 0x41, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])
        let both = address + link
        var running: [Int: Bool] = [:]
        let changes = both.withUnsafeBytes { NetworkChangeMonitor.parse($0, running: &running) }
        #expect(changes == [.addressAdded("192.0.2.5", interfaceIndex: 3), .linkChanged(interfaceIndex: 3, isRunning: true)])
        for cut in 0..<both.count {
            var fresh: [Int: Bool] = [:]
            let partial = both.withUnsafeBytes { NetworkChangeMonitor.parse(UnsafeRawBufferPointer(rebasing: $0[0..<cut]), running: &fresh) }
            #expect(partial.allSatisfy(changes.contains), "cut at \(cut): \(partial)")
        }
    }
}
