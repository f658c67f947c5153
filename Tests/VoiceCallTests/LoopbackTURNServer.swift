// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// A coturn `turnserver` on 127.0.0.1 for one test: a free listening port, a random relay
/// port range, its files (log, pid, user database) in a temporary directory, one static
/// long-term user. Loopback peers are allowed (coturn refuses to relay to 127.0.0.0/8
/// otherwise). `stop()` kills it and removes its directory; call it in a `defer`.
final class LoopbackTURNServer {
    /// The static user and its password.
    static let user = "voiceengine"
    static let password = "correct horse battery"

    /// Where `turnserver` is, if installed (`scripts/install-deps --aiortc` installs coturn).
    static let executable: URL? = ["/usr/bin/turnserver", "/usr/local/bin/turnserver"]
        .map(URL.init(fileURLWithPath:)).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    /// Whether the TURN tests must run (fail without coturn) rather than skip.
    static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_TURN"] == "1"
    /// Whether the TURN tests run.
    static let enabled = required || executable != nil

    let port: UInt16
    let directory: URL
    private let process: Process

    /// Starts the server and waits (bounded) until its port is bound.
    init() throws {
        let executable = try #require(Self.executable, "turnserver is missing: scripts/install-deps --aiortc installs coturn")
        port = RealCallSupport.freePort()
        directory = try RealCallSupport.directory()
        // A 40-port relay range somewhere in the dynamic ports: two runs side by side rarely meet.
        let relayBase = Int.random(in: 50_000...64_000)
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", "--listening-port=\(port)",
            "--min-port=\(relayBase)", "--max-port=\(relayBase + 40)", "--lt-cred-mech",
            "--user=\(Self.user):\(Self.password)", "--realm=voiceengine.test", "--fingerprint", "--no-tls", "--no-dtls",
            "--no-cli", "--allow-loopback-peers", "--no-stdout-log", "--simple-log",
            "--log-file=\(directory.appendingPathComponent("turnserver.log").path)",
            "--pidfile=\(directory.appendingPathComponent("turnserver.pid").path)",
            "--userdb=\(directory.appendingPathComponent("turndb").path)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        self.process = process
        try process.run()
        guard RealCallSupport.waitUntilBound(port: port, timeoutSeconds: 20) else {
            stop()
            throw TURNServerDidNotStart(log: (try? String(contentsOf: directory.appendingPathComponent("turnserver.log"), encoding: .utf8)) ?? "")
        }
    }

    /// Kills the server (SIGKILL after a grace period) and removes its files.
    func stop() {
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
    var arguments: [String] { ["--turn", "127.0.0.1:\(port)", "--turn-user", Self.user] }
}

/// coturn did not bind its port in time; its log says why.
struct TURNServerDidNotStart: Error, CustomStringConvertible {
    var log: String
    var description: String { "turnserver did not bind its port: \(log.suffix(2_000))" }
}
