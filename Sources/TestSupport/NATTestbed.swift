// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// Two hosts behind two NATs, made of Linux network namespaces for one test (as root):
///
///     alice 10.0.1.2 ── 10.0.1.1 nat-a 198.51.100.2 ── 198.51.100.1 ┐
///                                                                    internet (coturn on 198.51.100.1:3478)
///     bob   10.0.2.2 ── 10.0.2.1 nat-b 203.0.113.2  ── 203.0.113.1  ┘
///
/// Each NAT masquerades what leaves its public side (`nftables`); the "internet" namespace
/// forwards between the two public links and sends everything else down a link to nowhere, so
/// a datagram sent to a private address vanishes there. With
/// `.portPreserving` mappings (Linux's masquerade: a flow keeps its source port, and the NAT
/// lets in only what answers a flow it saw) STUN's reflexive candidates connect the hosts;
/// with `.randomPorts` (`masquerade random`: a new port for every destination, a "symmetric"
/// NAT) a reflexive address is good for the STUN server only, and the hosts meet through the
/// TURN relay. `remove()` deletes every namespace (and so every link) and kills what runs in
/// them; call it in a `defer`. Namespaces left by a test run that was killed are deleted by the
/// next testbed made (their names carry the process id).
public final class NATTestbed {
    /// How a NAT maps a private host's flows to its public address.
    public enum Mapping: Sendable {
        /// One public port per private socket, kept from the private one when free (Linux's
        /// `masquerade`): endpoint-independent mapping, address-and-port-dependent filtering.
        case portPreserving
        /// A new random public port for every destination (`masquerade random`).
        case randomPorts
    }

    /// One of the testbed's private hosts.
    public struct Host: Sendable {
        /// Its network namespace.
        public var namespace: String
        /// Its address on its private network.
        public var address: String
        /// Its NAT's public address.
        public var publicAddress: String
    }

    /// `ip` (iproute2) and `nft` (nftables), where installed.
    public static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
    public static let nft = ["/usr/sbin/nft", "/sbin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Whether the NAT tests must run (fail when they cannot) rather than skip.
    public static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_NETNS"] == "1"
    /// Whether the NAT tests run: root, with iproute2, nftables and coturn installed.
    public static let enabled = required || (geteuid() == 0 && ip != nil && nft != nil && LoopbackTURNServer.executable != nil)

    /// The "internet" namespace, where the STUN/TURN server runs at `serverAddress`.
    public let internet: String
    public let alice: Host
    public let bob: Host
    /// The address of the server on the internet (reachable from both NATs).
    public static let serverAddress = "198.51.100.1"

    private static let prefix = "vnat"
    private let namespaces: [String]

    /// Makes the namespaces, links, addresses, routes and NAT rules.
    /// - Throws: when a command fails (the namespaces made so far are removed).
    public init(mapping: Mapping) throws {
        Self.removeLeftovers()
        let tag = "\(Self.prefix)-\(getpid())-\(UUID().uuidString.prefix(6))"
        internet = "\(tag)-internet"
        alice = Host(namespace: "\(tag)-alice", address: "10.0.1.2", publicAddress: "198.51.100.2")
        bob = Host(namespace: "\(tag)-bob", address: "10.0.2.2", publicAddress: "203.0.113.2")
        let natA = "\(tag)-nat-a", natB = "\(tag)-nat-b", sink = "\(tag)-sink"
        namespaces = [internet, natA, natB, alice.namespace, bob.namespace, sink]
        do {
            for namespace in namespaces {
                try Self.ip(["netns", "add", namespace])
                try Self.ip(["-n", namespace, "link", "set", "lo", "up"])
            }
            // Interfaces are made inside their namespaces: names never meet another run's.
            let sides: [(nat: String, host: Host, publicNet: (internet: String, nat: String), privateNet: (nat: String, host: String))] = [
                (natA, alice, ("198.51.100.1/30", "198.51.100.2/30"), ("10.0.1.1/24", "10.0.1.2/24")),
                (natB, bob, ("203.0.113.1/30", "203.0.113.2/30"), ("10.0.2.1/24", "10.0.2.2/24")),
            ]
            for (index, side) in sides.enumerated() {
                let uplink = "to-nat\(index)"
                try Self.ip(["link", "add", "wan", "netns", side.nat, "type", "veth", "peer", "name", uplink, "netns", internet])
                try Self.ip(["link", "add", "eth0", "netns", side.host.namespace, "type", "veth", "peer", "name", "lan", "netns", side.nat])
                try Self.ip(["-n", internet, "addr", "add", side.publicNet.internet, "dev", uplink])
                try Self.ip(["-n", side.nat, "addr", "add", side.publicNet.nat, "dev", "wan"])
                try Self.ip(["-n", side.nat, "addr", "add", side.privateNet.nat, "dev", "lan"])
                try Self.ip(["-n", side.host.namespace, "addr", "add", side.privateNet.host, "dev", "eth0"])
                try Self.ip(["-n", internet, "link", "set", uplink, "up"])
                for link in ["wan", "lan"] { try Self.ip(["-n", side.nat, "link", "set", link, "up"]) }
                try Self.ip(["-n", side.host.namespace, "link", "set", "eth0", "up"])
                try Self.ip(["-n", side.host.namespace, "route", "add", "default", "via", String(side.privateNet.nat.prefix { $0 != "/" })])
                try Self.ip(["-n", side.nat, "route", "add", "default", "via", String(side.publicNet.internet.prefix { $0 != "/" })])
                try Self.run(Self.ip!, ["netns", "exec", side.nat, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
                let masquerade = mapping == .portPreserving ? "masquerade" : "masquerade random"
                try Self.run(Self.ip!, ["netns", "exec", side.nat, Self.nft ?? "nft", "-f", "-"],
                             input: Self.natRules(masquerade: masquerade))
            }
            try Self.run(Self.ip!, ["netns", "exec", internet, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
            // Everything else leaves the internet by a link to nowhere: a datagram to a private
            // address vanishes there, as on the real internet, without an ICMP error (a
            // "network unreachable" at coturn's own send ends the TURN allocation it came from).
            // (A namespace that forwards nothing swallows them; a blackhole route would fail
            // coturn's send with EINVAL instead.)
            try Self.ip(["link", "add", "nowhere", "netns", internet, "type", "veth", "peer", "name", "sink", "netns", sink])
            try Self.ip(["-n", internet, "addr", "add", "192.0.2.1/30", "dev", "nowhere"])
            try Self.ip(["-n", sink, "addr", "add", "192.0.2.2/30", "dev", "sink"])
            try Self.ip(["-n", internet, "link", "set", "nowhere", "up"])
            try Self.ip(["-n", sink, "link", "set", "sink", "up"])
            try Self.ip(["-n", internet, "route", "add", "default", "via", "192.0.2.2"])
        } catch {
            remove()
            throw error
        }
    }

    /// A home router's rules: what leaves the public side is masqueraded; what arrives there
    /// unsolicited (no flow it answers) is dropped without a word. Dropped before conntrack
    /// confirms it, such a datagram leaves no mapping behind: a peer's early connectivity
    /// check must not take the public port that our own first datagram to that peer is about
    /// to be mapped to (Linux would then give our flow another port, as a symmetric NAT does).
    private static func natRules(masquerade: String) -> String {
        """
        table ip nat {
         chain postrouting {
          type nat hook postrouting priority srcnat;
          oifname "wan" \(masquerade)
         }
        }
        table ip filter {
         chain input {
          type filter hook input priority filter;
          iifname "wan" ct state new drop
         }
         chain forward {
          type filter hook forward priority filter;
          iifname "wan" ct state new drop
         }
        }

        """
    }

    /// `arguments` as a command run inside `namespace` (`ip netns exec`, which becomes the
    /// command: the process is the command's own, and a signal to it reaches the command).
    public static func command(in namespace: String, _ executable: String, _ arguments: [String]) -> (URL, [String]) {
        (URL(fileURLWithPath: ip ?? "ip"), ["netns", "exec", namespace, executable] + arguments)
    }

    /// Runs `body` on a thread of its own inside `namespace` (`setns`: only that thread moves)
    /// and returns what it returns: sockets made there — an ICE agent's, when it gathers or
    /// restarts there — belong to that namespace, whichever thread uses them later.
    /// - Throws: what `body` throws, or `NATTestbedFailure` when the namespace cannot be entered.
    public static func run<Result: Sendable>(in namespace: String, _ body: @escaping @Sendable () throws -> Result) throws -> Result {
        let outcome = OutcomeBox<Result>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            let descriptor = open("/run/netns/\(namespace)", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0, Self.setns(descriptor, 0x4000_0000) == 0 else {  // CLONE_NEWNET
                outcome.value = .failure(NATTestbedFailure(command: "setns \(namespace)", output: String(cString: strerror(errno))))
                if descriptor >= 0 { close(descriptor) }
                return
            }
            close(descriptor)
            outcome.value = Swift.Result { try body() }
        }
        thread.start()
        done.wait()
        return try outcome.value!.get()
    }

    /// glibc's setns(2), looked up at run time: Glibc's module declares it only under _GNU_SOURCE.
    private static let setns: @convention(c) (Int32, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return { _, _ in -1 } }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()

    /// Kills every process left in the namespaces and deletes them (and so their links).
    public func remove() {
        for namespace in namespaces { Self.removeNamespace(namespace) }
    }

    private static func removeNamespace(_ namespace: String) {
        guard let ip else { return }
        if let pids = try? run(ip, ["netns", "pids", namespace]) {
            for pid in pids.split(separator: "\n").compactMap({ pid_t($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? run(ip, ["netns", "del", namespace])
    }

    /// Deletes the namespaces of testbeds whose process is gone.
    private static func removeLeftovers() {
        guard let ip, let list = try? run(ip, ["netns", "list"]) else { return }
        for line in list.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            let parts = name.split(separator: "-")
            guard parts.count >= 3, parts[0] == prefix, let pid = pid_t(parts[1]), pid != getpid(), kill(pid, 0) != 0 else { continue }
            removeNamespace(name)
        }
    }

    /// Runs `ip arguments…` (e.g. `["-n", host.namespace, "addr", "add", …]`) to its end.
    /// - Throws: `NATTestbedFailure` with what it said when it fails.
    @discardableResult
    public static func ip(_ arguments: [String]) throws -> String {
        guard let ip else { throw NATTestbedFailure(command: "ip", output: "iproute2 is not installed") }
        return try run(ip, arguments)
    }

    /// Runs a command to its end; its standard output, or a failure with what it said.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe(), feed = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : feed
        try process.run()
        if let input {
            feed.fileHandleForWriting.write(Data(input.utf8))
            try? feed.fileHandleForWriting.close()
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NATTestbedFailure(command: ([executable] + arguments).joined(separator: " "), output: said + text)
        }
        return text
    }
}

/// A command that builds the testbed failed.
public struct NATTestbedFailure: Error, CustomStringConvertible {
    public var command: String
    public var output: String
    public var description: String { "\(command): \(output)" }
}

/// What a thread of `NATTestbed.run(in:_:)` hands back (written before its semaphore is signalled).
private final class OutcomeBox<Value>: @unchecked Sendable {
    var value: Result<Value, any Error>?
}
