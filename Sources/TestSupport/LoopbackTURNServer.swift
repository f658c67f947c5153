// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A coturn `turnserver` for one test, STUN and TURN on one port: on 127.0.0.1 (a free
/// listening port), or in a network namespace of a `NATTestbed` at an address of its own
/// (port 3478: nothing else runs there); a random relay port range, its files (log, pid, user
/// database) in a temporary directory, one static long-term user. Loopback peers are allowed
/// (coturn refuses to relay to 127.0.0.0/8 otherwise). `stop()` kills it and removes its
/// directory; call it in a `defer`.
public final class LoopbackTURNServer {
    /// The static user and its password.
    public static let user = "voiceengine"
    public static let password = "correct horse battery"

    /// Where `turnserver` is, if installed (`scripts/install-deps --aiortc` installs coturn).
    public static let executable: URL? = ["/usr/bin/turnserver", "/usr/local/bin/turnserver"]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    /// Whether the TURN tests must run (fail without coturn) rather than skip.
    public static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_TURN"] == "1"
    /// Whether the TURN tests run.
    public static let enabled = required || executable != nil

    public let address: String
    public let port: UInt16
    public let directory: URL
    private let process: Process

    /// Starts the server on `address` (in `namespace`, when given) and waits (bounded) until
    /// its port is bound.
    public init(address: String = "127.0.0.1", namespace: String? = nil) throws {
        guard let executable = Self.executable else { throw TURNServerDidNotStart(log: "turnserver is missing: scripts/install-deps --aiortc installs coturn") }
        self.address = address
        port = namespace == nil ? LoopbackUDPPort.free() : 3478
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("voiceengine-turn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A 40-port relay range somewhere in the dynamic ports: two runs side by side rarely meet.
        let relayBase = Int.random(in: 50_000...64_000)
        let process = Process()
        let arguments = [
            "-n", "--listening-ip=\(address)", "--relay-ip=\(address)", "--listening-port=\(port)",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 40)", "--lt-cred-mech",
            "--user=\(Self.user):\(Self.password)", "--realm=voiceengine.test", "--fingerprint", "--no-tls", "--no-dtls",
            "--no-cli", "--allow-loopback-peers", "--no-stdout-log", "--simple-log",
            "--log-file=\(directory.appendingPathComponent("turnserver.log").path)",
            "--pidfile=\(directory.appendingPathComponent("turnserver.pid").path)",
            "--userdb=\(directory.appendingPathComponent("turndb").path)",
        ]
        if let namespace {
            (process.executableURL, process.arguments) = NATTestbed.command(in: namespace, executable.path, arguments)
        } else {
            (process.executableURL, process.arguments) = (executable, arguments)
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        self.process = process
        try process.run()
        let bound = namespace == nil ? LoopbackUDPPort.waitUntilBound(port, timeoutSeconds: 20)
                                     : Self.waitUntilBound(port: port, in: process, timeoutSeconds: 20)
        guard bound else {
            stop()
            throw TURNServerDidNotStart(log: (try? String(contentsOf: directory.appendingPathComponent("turnserver.log"), encoding: .utf8)) ?? "")
        }
    }

    /// Waits until `process` (in its own network namespace) has a UDP socket bound to `port`,
    /// read from its own view of the sockets (`/proc/PID/net/udp`).
    private static func waitUntilBound(port: UInt16, in process: Process, timeoutSeconds: Double) -> Bool {
        let local = String(format: ":%04X", port)
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline && process.isRunning {
            let table = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/net/udp", encoding: .utf8)) ?? ""
            if table.split(separator: "\n").contains(where: { $0.split(separator: " ").dropFirst().first?.hasSuffix(local) == true }) { return true }
            usleep(10_000)
        }
        return false
    }

    /// What the server logged so far (its last 4,000 characters): why it refused a request.
    public var log: String {
        String(((try? String(contentsOf: directory.appendingPathComponent("turnserver.log"), encoding: .utf8)) ?? "").suffix(4_000))
    }

    /// Kills the server (SIGKILL after a grace period) and removes its files.
    public func stop() {
        if process.isRunning {
            process.terminate()
            let grace = Date().addingTimeInterval(3)
            while process.isRunning && Date() < grace { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// `--turn HOST:PORT` and the user, for voicecall.
    public var arguments: [String] { ["--turn", "\(address):\(port)", "--turn-user", Self.user] }

    /// `arguments` and `--turn-password-file` with the password written to a file in `directory`.
    public func arguments(passwordFileIn directory: URL) throws -> [String] {
        let passwordFile = directory.appendingPathComponent("turn-password").path
        try (Self.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        return arguments + ["--turn-password-file", passwordFile]
    }
}

/// coturn did not bind its port in time; its log says why.
public struct TURNServerDidNotStart: Error, CustomStringConvertible {
    public var log: String
    public var description: String { "turnserver did not bind its port: \(log.suffix(2_000))" }
}
