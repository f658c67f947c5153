// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs a helper executable built next to the test binary, reads its standard output line by
/// line until `killWhen` says so, then kills it with SIGKILL — a crash part-way through
/// whatever it was writing, at a point the test does not choose.
public enum KilledChild {
    /// Why the child could not be run to the kill.
    public enum Failure: Error, CustomStringConvertible {
        /// No executable `name` next to the test binary (build with `swift build --build-tests`).
        case notBuilt(path: String)
        /// The child exited by itself (status) before the kill; `output` is what it printed.
        case exited(status: Int32, output: String)

        public var description: String {
            switch self {
            case let .notBuilt(path): "\(path) is not built (swift build --build-tests builds it)"
            case let .exited(status, output): "the child exited with \(status) before it was killed: \(output)"
            }
        }
    }

    /// The path of executable `name` in the test binary's build directory.
    public static func executablePath(_ name: String) -> String {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        // The test binary is .build/<config>/<Package>PackageTests.xctest (a file on Linux).
        return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Runs `name` with `arguments` and kills it once `killWhen(line)` is true for a line it
    /// printed. Returns every line it printed before the kill.
    public static func run(_ name: String, arguments: [String], killWhen: (String) -> Bool) throws -> [String] {
        let path = executablePath(name)
        guard FileManager.default.isExecutableFile(atPath: path) else { throw Failure.notBuilt(path: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lines: [String] = []
        var pending = Data()
        let reader = output.fileHandleForReading
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw Failure.exited(status: process.terminationStatus, output: lines.joined(separator: "\n"))
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                lines.append(line)
                if killWhen(line) {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    return lines
                }
            }
        }
    }
}
