// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Reads one SDP body from a descriptor: never from a socket, never more than
/// `maximumBytes`.
///
/// A body comes from a file, a pipe or a terminal (`S_ISREG`, `S_ISFIFO`, `S_ISCHR`); a
/// socket on standard input is refused, since whoever can send to it could hand us an
/// address and key. Endless input (`yes | voicecall receive --sdp -`) ends at the bound with
/// a `.badDescription` (exit 3) instead of growing until memory runs out.
enum SDPReader {
    /// The largest SDP body read: a SIP offer is a few KiB; 64 KiB leaves room for many
    /// media sections and candidates.
    static let maximumBytes = 65_536

    /// Reads `descriptor` (`name` in messages) to its end or, with `untilEmptyLine`, up to
    /// the first empty line after some text (leading empty lines skipped: a paste ends with one).
    ///
    /// - Throws: `.file` for a socket, directory or block device, or a read error (exit 7);
    ///   `.badDescription` past `maximumBytes` (exit 3).
    static func read(_ descriptor: Int32, name: String, untilEmptyLine: Bool) throws(RealCallFailure) -> [UInt8] {
        try checkKind(descriptor, name: name)
        var body: [UInt8] = []
        var consumed = 0
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    // A non-blocking descriptor inherited from the parent: wait until it has data.
                    var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&waiting, 1, -1)
                    continue
                }
                throw .file("cannot read SDP from \(name): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            consumed += count
            guard consumed <= maximumBytes else {
                throw .badDescription("SDP from \(name) is larger than \(maximumBytes) bytes: refused")
            }
            guard untilEmptyLine else {
                body.append(contentsOf: chunk[..<count])
                continue
            }
            for byte in chunk[..<count] {
                line.append(byte)
                guard byte == UInt8(ascii: "\n") else { continue }
                let blank = line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
                if blank && !body.isEmpty { return body }
                if !blank { body.append(contentsOf: line) }
                line.removeAll(keepingCapacity: true)
            }
        }
        if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { body.append(contentsOf: line) }
        return body
    }

    /// Refuses what SDP is never read from: sockets (above all), directories, block devices.
    private static func checkKind(_ descriptor: Int32, name: String) throws(RealCallFailure) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .file("cannot read SDP from \(name): \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG, S_IFIFO, S_IFCHR:
            return
        case S_IFSOCK:
            throw .file("\(name) is a socket: SDP is read only from a file, a pipe or a terminal")
        case S_IFDIR:
            throw .file("\(name) is a directory, not an SDP file")
        default:
            throw .file("\(name) is a device, not an SDP file")
        }
    }
}
