// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The built `voicecall` executable, run as a child process: how a user meets it, and the
/// only way to see a trap (exit by SIGILL, status 132 in a shell) without killing the tests.
struct VoiceCallProcess {
    /// How the process ended.
    var status: Int32
    /// Whether it exited (false: a signal ended it, e.g. a trap).
    var exited: Bool
    /// What it printed on standard error.
    var standardError: String

    /// The executable next to the test bundle (both are products of the same build).
    static var executable: URL {
        let products = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return products.appendingPathComponent("voicecall")
    }

    /// Runs `voicecall arguments…` to its end.
    static func run(_ arguments: [String]) throws -> VoiceCallProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return VoiceCallProcess(status: process.terminationStatus, exited: process.terminationReason == .exit,
                                standardError: String(decoding: text, as: UTF8.self))
    }
}
