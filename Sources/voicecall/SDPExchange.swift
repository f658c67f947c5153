import Foundation
import SessionDescription

/// Reads and writes SDP bodies through files or standard input/output (`-`), for a call
/// between two terminals (paste) or two scripts (files).
///
/// Standard output carries only SDP (it holds our key, for the peer); everything else goes
/// to standard error.
enum SDPExchange {
    /// Reads the SDP at `path` (`-`: standard input, up to an empty line or the end).
    ///
    /// - Parameter waitingSeconds: how long to wait for a file that does not exist yet (the
    ///   peer writes it), 0 to fail at once.
    static func read(_ path: String, waitingSeconds: Double = 0) throws(RealCallFailure) -> SessionDescription {
        let text: String
        if path == "-" {
            var lines: [String] = []
            while let line = Swift.readLine(strippingNewline: true) {
                if line.trimmingCharacters(in: .whitespaces).isEmpty {
                    if lines.isEmpty { continue } else { break }
                }
                lines.append(line)
            }
            guard !lines.isEmpty else { throw .badDescription("no SDP on standard input") }
            text = lines.joined(separator: "\n") + "\n"
        } else {
            let deadline = Date().addingTimeInterval(waitingSeconds)
            while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(10_000) }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .file(waitingSeconds > 0 ? "\(path) did not appear in \(Int(waitingSeconds)) s" : "cannot read SDP file \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        do {
            return try SessionDescription(parsing: text)
        } catch {
            throw .badDescription("\(path == "-" ? "SDP from standard input" : path): \(error)")
        }
    }

    /// Writes `sdp` to `path` (`-`: standard output). A file appears whole (written beside it,
    /// then renamed), so a peer waiting for it never reads half.
    static func write(_ sdp: SessionDescription, to path: String) throws(RealCallFailure) {
        let text = sdp.formatted
        if path == "-" {
            FileHandle.standardOutput.write(Data((text + "\r\n").utf8))
            return
        }
        let temporary = path + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0
        else {
            throw .file("cannot write SDP file \(path)")
        }
    }
}
