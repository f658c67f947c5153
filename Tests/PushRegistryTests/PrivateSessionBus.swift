// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// A private `dbus-daemon --session` for one test: started with `--print-address`, stopped
/// (by its own process id) when released. Nil when dbus-daemon is not installed.
final class PrivateSessionBus: Sendable {
    static let daemonPath: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let address: String
    private let pid: pid_t

    enum Failure: Error, CustomStringConvertible {
        case spawn(Int32)
        case noAddress(String)
        var description: String {
            switch self {
            case let .spawn(code): "cannot start dbus-daemon: errno \(code)"
            case let .noAddress(text): "dbus-daemon printed no address: \(text)"
            }
        }
    }

    /// Started with posix_spawn and an empty signal mask: the test runner's threads block
    /// signals, and a child inheriting that mask would ignore SIGTERM.
    init?() throws {
        guard let path = Self.daemonPath else { return nil }
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw Failure.spawn(errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = [path, "--session", "--nofork", "--nopidfile", "--print-address=1"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, &attributes, &argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { throw Failure.spawn(spawned) }
        // The address is the first line the daemon prints; it prints it once it listens.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(pipe[0], &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("unix:") else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            throw Failure.noAddress(text)
        }
        address = text
        pid = child
    }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// Waits (polling every millisecond, at most `seconds`) until `condition` holds; whether it did.
/// Only for what crosses a process boundary (the bus): everything in-process is settled exactly.
/// The bound is for a peer that never answers, not a time the answer must beat: it returns as
/// soon as `condition` holds, and a loaded machine may take seconds to schedule the bus.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1_000)
    }
    return true
}
