// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import voicecall

/// Issue 16, "Hardening", rows 9 and 10: every numeric option of `voicecall` is checked before
/// any arithmetic. `--bitrate 1e300`, `--ptime 1e300`, `--period-ms 1e300`, `--seconds 1e300`
/// used to trap converting to `Int` (exit by SIGILL, 132 in a shell); `demo --seconds 1e12
/// --fast` to try a 96 PB recording buffer. Each is now a usage error: exit status 1 and a
/// message naming the option, its range and what was given.
@Suite struct OptionParsingTests {
    /// Through the built binary: the exit status and the message, never a signal.
    @Test(arguments: [
        (["demo", "--bitrate", "1e300", "--fast"], "--bitrate needs an integer in 6000…510000, got \"1e300\""),
        (["demo", "--bitrate", "5999"], "--bitrate needs an integer in 6000…510000, got \"5999\""),
        (["demo", "--seconds", "1e300", "--fast"], "--seconds needs a duration in seconds, more than 0 and at most 36000, got \"1e300\""),
        (["demo", "--seconds", "1e12", "--fast"], "--seconds needs a duration in seconds, more than 0 and at most 36000, got \"1e12\""),
        (["demo", "--seconds", "1000000000000", "--fast"], "--seconds needs a duration in seconds, more than 0 and at most 36000"),
        (["demo", "--ptime", "1e300"], "--ptime needs one of 10, 20, 40, 60, got \"1e300\""),
        (["demo", "--ptime", "30"], "--ptime needs one of 10, 20, 40, 60, got \"30\""),
        (["aec", "--far", "f.wav", "--mic", "m.wav", "--out", "o.wav", "--known-delay-ms", "1e15"],
         "--known-delay-ms needs an integer in 0…2000, got \"1e15\""),
        (["aec", "--far", "f.wav", "--mic", "m.wav", "--out", "o.wav", "--tail-ms", "1e300"],
         "--tail-ms needs an integer in 1…2000, got \"1e300\""),
        (["loopback", "--period-ms", "1e300"], "--period-ms needs an integer in 1…1000, got \"1e300\""),
        (["loopback", "--seconds", "1e300"], "--seconds needs a duration in seconds, more than 0 and at most 3600, got \"1e300\""),
        (["loopback", "--stall-ms", "5000000"], "--stall-ms needs an integer in 0…10000, got \"5000000\""),
    ])
    func outOfRangeOptionIsAUsageErrorNotATrap(arguments: [String], message: String) throws {
        let executable = VoiceCallProcess.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path),
                     "voicecall is not built at \(executable.path)")
        let result = try VoiceCallProcess.run(arguments)
        #expect(result.exited, "ended by signal \(result.status): \(result.standardError)")
        #expect(result.status == 1)
        #expect(result.standardError.contains("voicecall \(arguments[0]): usage: \(message)"), "\(result.standardError)")
    }

    /// The parsing itself, typed: integers are Swift's own `Int(_:)` (no exponent, no NUL
    /// prefix, nil on overflow), durations plain decimals.
    @Test func integersAndDurationsAreParsedStrictly() throws {
        var arguments = CommandArguments(["--a", "24000", "--b", "1e4", "--c", "99999999999999999999", "--d", "5\0",
                                          "--e", "2.5", "--f", "2\0xyz", "--g", "inf", "--h", "0", "--i", ".", "--j", "20"])
        #expect(try arguments.integer("--a", in: 6_000...510_000) == 24_000)
        #expect(throws: CommandError.invalidValue(option: "--b", value: "1e4", expected: "an integer in 0…10")) {
            try arguments.integer("--b", in: 0...10)
        }
        #expect(throws: CommandError.self) { try arguments.integer("--c", in: 0...Int.max) }
        #expect(throws: CommandError.self) { try arguments.integer("--d", in: 0...10) }
        #expect(try arguments.seconds("--e", upTo: 10) == 2.5)
        for name in ["--f", "--g", "--h", "--i"] {
            #expect(throws: CommandError.self) { try arguments.seconds(name, upTo: 10) }
        }
        #expect(try arguments.integer("--j", oneOf: [10, 20]) == 20)
        #expect(try arguments.integer("--absent", in: 0...1) == nil)
        #expect(try arguments.seconds("--absent", upTo: 1) == nil)
        try arguments.finish()
    }
}
