// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// The built `voicecall` started with `posix_spawn`, each standard stream chosen by the test:
/// closed (`<&-`, `>&-`), a descriptor of the test's (a pipe, a socket), or `/dev/null`.
/// `Process` cannot start a child with a stream closed; this can.
///
/// Standard error, unless chosen otherwise, is a pipe read on a thread of its own (a chatty
/// child never blocks), handed back by `wait`. Every descriptor the test makes for a child
/// should be close-on-exec (`closeOnExecPipe`): `dup2` clears the flag only on the copy
/// the child gets, so no other child keeps a pipe open by accident.
final class SpawnedVoiceCall: @unchecked Sendable {
    /// What a standard stream of the child is.
    enum Stream {
        /// Closed: the child starts without it.
        case closed
        /// `/dev/null`.
        case null
        /// A copy of this descriptor of the test's.
        case descriptor(Int32)
        /// A pipe to the test (standard error only; the default there).
        case captured
    }

    /// How the child ended.
    struct End {
        /// The exit status, or the signal that ended it.
        var status: Int32
        /// Whether it exited (false: killed by a signal, e.g. a trap, or by the timeout).
        var exited: Bool
        /// What it wrote on standard error (when captured).
        var standardError: String
    }

    let pid: pid_t
    private var errorPipe: Int32 = -1
    private var collected = Data()
    private let reader = DispatchGroup()

    /// Starts `voicecall arguments…` with the given streams.
    init(_ arguments: [String], input: Stream = .null, output: Stream = .null, error: Stream = .captured) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if case .captured = error {
            guard Self.closeOnExecPipe(&pipeEnds) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        }
        for (descriptor, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .closed: posix_spawn_file_actions_addclose(&actions, descriptor)
            case .null: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, descriptor)
            case .captured: posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], descriptor)
            }
        }
        // The test runner's threads block signals; the child must not inherit that mask.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let path = VoiceCallProcess.executable.path
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, path, &actions, &attributes, &argv, environ)
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        guard spawned == 0 else {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]) }
            throw POSIXError(.init(rawValue: spawned) ?? .EIO)
        }
        pid = child
        errorPipe = pipeEnds[0]
        if errorPipe >= 0 {
            reader.enter()
            Thread.detachNewThread { [self] in
                var bytes = Data()
                var chunk = [UInt8](repeating: 0, count: 4_096)
                while true {
                    let count = read(errorPipe, &chunk, chunk.count)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    bytes.append(contentsOf: chunk[..<count])
                }
                collected = bytes
                reader.leave()
            }
        }
    }

    private var hasEnded = false
    private var endStatus: Int32 = 0

    /// Whether the child has ended (reaping it if so); never blocks.
    func hasExited() -> Bool {
        guard !hasEnded else { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            hasEnded = true
            endStatus = status
        }
        return hasEnded
    }

    /// Waits for the end, killing the child after `timeoutSeconds` (a bound for a broken
    /// build, never what a test's result depends on).
    func wait(timeoutSeconds: Double = 30) -> End {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while !hasExited() {
            if Date() >= deadline { kill(pid, SIGKILL) }
            usleep(5_000)
        }
        if errorPipe >= 0 {
            _ = reader.wait(timeout: .now() + 5)
            close(errorPipe)
            errorPipe = -1
        }
        let exited = endStatus & 0x7F == 0
        return End(status: exited ? (endStatus >> 8) & 0xFF : endStatus & 0x7F, exited: exited,
                   standardError: String(decoding: collected, as: UTF8.self))
    }

    /// A pipe whose two ends are close-on-exec (what `pipe2(O_CLOEXEC)` gives, which Glibc's
    /// module does not export). Whether it was made.
    static func closeOnExecPipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    deinit {
        if !hasEnded {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if errorPipe >= 0 { close(errorPipe) }
    }
}
