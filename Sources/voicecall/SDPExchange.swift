// SPDX-License-Identifier: Apache-2.0
import Glibc
import SessionDescription

/// Reads and writes SDP bodies through files or standard input/output (`-`), for a call
/// between two terminals (paste) or two scripts (files).
///
/// Standard output carries only SDP (it holds our key, for the peer); everything else goes
/// to standard error. A standard stream that was closed when `voicecall` started is never
/// used for SDP (`StandardStreams`), bodies are read through `SDPReader` (bounded, never from
/// a socket) and files written through `OwnerOnlyFile` (mode 0600 from the first byte).
enum SDPExchange {
    /// How often the offerer looks at the answer file while it waits.
    static let pollMicroseconds: UInt32 = 10_000
    /// An answer file that stays unusable this long after its last change is refused: a
    /// copy in progress changes the file; a bad answer stays as it is.
    static let settleSeconds = 2.0

    /// Reads and parses the SDP at `path` (`-`: standard input, up to an empty line or the end).
    static func read(_ path: String) throws(RealCallFailure) -> SessionDescription {
        try parse(readBytes(path), from: path)
    }

    /// What the file at `path` holds now, if it is a regular file: taken before our offer is
    /// written, it is a previous run's answer, which `awaitAnswer` never uses.
    static func snapshot(_ path: String) -> [UInt8]? {
        var status = stat()
        guard path != "-", stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? readBytes(path)
    }

    /// The peer's answer to `offer`, and what it settles.
    ///
    /// From standard input (`-`) or a FIFO it is read once. A regular file is waited for up
    /// to `waitingSeconds`, and read again whenever it changes until it is complete: it is
    /// taken once it parses, answers `offer`, and reads the same twice `pollMicroseconds`
    /// apart, so a file copied in place (created, then written) is never taken half-written.
    /// A file that stays unusable for `settleSeconds` after its last change is refused with
    /// why. A file holding, byte for byte, `stale` — what it held before we wrote our offer —
    /// is the answer to an earlier offer (a previous run's `answer.sdp`): it is never used,
    /// however new its modification time; the wait goes on until the file is replaced. (An
    /// answer's `o=` is the answerer's own session and does not name our offer, and a
    /// modification time can be copied or skewed, so the bytes decide.)
    /// - Parameter command: the command waiting (`call`, `receive`), for its status lines.
    static func awaitAnswer(_ path: String, to offer: SessionDescription, stale: [UInt8]?,
                            waitingSeconds: Double, command: String = "call") throws(RealCallFailure) -> NegotiatedAudio {
        var status = stat()
        let exists = path != "-" && stat(path, &status) == 0
        let missing = !exists && errno == ENOENT
        // Standard input, a FIFO or a device is read once: reading it again would wait for
        // another writer, not see the same file.
        if path == "-" || (exists && status.st_mode & S_IFMT != S_IFREG) || (!exists && !missing) {
            return try negotiate(parse(readBytes(path), from: path), offer: offer)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(waitingSeconds * 1_000))
        var previous: [UInt8]?
        var lastChange = clock.now
        var lastFailure: RealCallFailure?
        var sawStale = false
        while true {
            if let bytes = try readIfPresent(path) {
                let unchanged = bytes == previous
                if !unchanged { lastChange = clock.now }
                previous = bytes
                if let stale, bytes == stale {
                    if !sawStale && !stale.isEmpty {
                        RealCallSetup.say(command, "\(path) still holds an answer from before our offer: waiting for the new one")
                    }
                    sawStale = true
                    lastFailure = nil
                } else {
                    do {
                        let negotiated = try negotiate(parse(bytes, from: path), offer: offer)
                        if unchanged { return negotiated }
                        lastFailure = nil
                    } catch {
                        lastFailure = error
                        if clock.now - lastChange >= .milliseconds(Int64(settleSeconds * 1_000)) { throw error }
                    }
                }
            }
            if clock.now >= deadline {
                if let lastFailure { throw lastFailure }
                throw .file(sawStale ? "\(path) still held the answer from before our offer after \(Int(waitingSeconds)) s"
                                     : "\(path) did not appear in \(Int(waitingSeconds)) s")
            }
            usleep(pollMicroseconds)
        }
    }

    /// Writes `sdp` to `path` (`-`: standard output). A file appears whole, mode 0600
    /// (`OwnerOnlyFile`), so a peer waiting for it never reads half and no other user reads it.
    ///
    /// - Parameter option: the option that named `path` (`--answer-out`), for the message
    ///   when standard output cannot take it.
    static func write(_ sdp: SessionDescription, to path: String, option: String) throws(RealCallFailure) {
        if path == "-" {
            guard !StandardStreams.closedAtStart.contains(1) else {
                throw .file("standard output was closed when voicecall started: the SDP (with our key) has nowhere to go; "
                    + "name a file with \(option) FILE")
            }
            if let failure = OwnerOnlyFile.writeAll(Array((sdp.formatted + "\r\n").utf8), to: 1) {
                throw .file("cannot write SDP to standard output: \(failure)")
            }
            return
        }
        if let failure = OwnerOnlyFile.write(Array(sdp.formatted.utf8), to: path) {
            throw .file("cannot write SDP file \(path): \(failure)")
        }
    }

    /// The bytes at `path` (`-`: standard input up to an empty line).
    private static func readBytes(_ path: String) throws(RealCallFailure) -> [UInt8] {
        if path == "-" {
            guard !StandardStreams.closedAtStart.contains(0) else {
                throw .file("standard input was closed when voicecall started: there is no SDP to read; name a file instead of -")
            }
            let bytes = try SDPReader.read(0, name: "standard input", untilEmptyLine: true)
            guard !bytes.isEmpty else { throw .badDescription("no SDP on standard input") }
            return bytes
        }
        guard let bytes = try readIfPresent(path) else { throw .file("cannot read SDP file \(path): \(String(cString: strerror(ENOENT)))") }
        return bytes
    }

    /// The bytes of the file at `path`, or nil when there is none (yet).
    private static func readIfPresent(_ path: String) throws(RealCallFailure) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .file("cannot read SDP file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try SDPReader.read(descriptor, name: path, untilEmptyLine: false)
    }

    private static func parse(_ bytes: [UInt8], from path: String) throws(RealCallFailure) -> SessionDescription {
        do {
            return try SessionDescription(parsing: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw .badDescription("\(path == "-" ? "SDP from standard input" : path): \(error)")
        }
    }

    private static func negotiate(_ answer: SessionDescription, offer: SessionDescription) throws(RealCallFailure) -> NegotiatedAudio {
        do {
            return try answer.negotiated(offer: offer)
        } catch {
            throw .badDescription("offer/answer: \(error)")
        }
    }
}
