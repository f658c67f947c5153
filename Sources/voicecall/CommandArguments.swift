// SPDX-License-Identifier: Apache-2.0
/// Command-line arguments consumed option by option, so unknown leftovers are reported.
struct CommandArguments {
    private var remaining: [String]

    init(_ arguments: some Sequence<String>) { remaining = Array(arguments) }

    /// Removes and returns the first argument (the subcommand), if any.
    mutating func popFirst() -> String? { remaining.isEmpty ? nil : remaining.removeFirst() }

    /// Removes `--name VALUE` and returns VALUE; throws when VALUE is missing.
    mutating func value(_ name: String) throws(CommandError) -> String? {
        guard let index = remaining.firstIndex(of: name) else { return nil }
        guard index + 1 < remaining.count else { throw .usage("\(name) needs a value") }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `--name` and tells whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// Throws when arguments are left that no option took.
    func finish() throws {
        if !remaining.isEmpty { throw CommandError.usage("unexpected arguments: \(remaining.joined(separator: " "))") }
    }

    // Numbers from the command line are checked here, before any arithmetic: an option out
    // of its range is a usage error naming the option, the range and what was given, never
    // an overflow trap or an absurd allocation later on.

    /// Removes `--name N` and returns N, a decimal integer within `range`; nil when absent.
    mutating func integer(_ name: String, in range: ClosedRange<Int>) throws(CommandError) -> Int? {
        guard let text = try value(name) else { return nil }
        // Int(_:) is Swift's own parser: it takes only an optional sign and digits (no
        // exponent, no NUL-terminated prefix), and nil on overflow.
        guard let number = Int(text), range.contains(number) else {
            throw .invalidValue(option: name, value: text, expected: "an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    /// Removes `--name N` and returns N, one of `allowed`; nil when absent.
    mutating func integer(_ name: String, oneOf allowed: [Int]) throws(CommandError) -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text), allowed.contains(number) else {
            throw .invalidValue(option: name, value: text, expected: "one of \(allowed.map(String.init).joined(separator: ", "))")
        }
        return number
    }

    /// Removes `--name SECONDS` and returns a duration more than 0 and at most `maximum`
    /// seconds, written as digits with an optional fraction (`2`, `0.5`); nil when absent.
    mutating func seconds(_ name: String, upTo maximum: Double) throws(CommandError) -> Double? {
        guard let text = try value(name) else { return nil }
        // Digits and at most one point only: Double(_:) alone would also take "1e300", "inf",
        // "nan", hex, and read "2\0xyz" as 2 (it stops at a NUL).
        let bytes = text.utf8
        let plain = bytes.contains { $0 != UInt8(ascii: ".") }
            && bytes.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
            && bytes.filter { $0 == UInt8(ascii: ".") }.count <= 1
        guard plain, let seconds = Double(text), seconds > 0, seconds <= maximum else {
            let bound = maximum.rounded() == maximum ? String(Int(maximum)) : String(maximum)
            throw .invalidValue(option: name, value: text, expected: "a duration in seconds, more than 0 and at most \(bound)")
        }
        return seconds
    }
}

/// Why a command stopped.
enum CommandError: Error, Equatable, CustomStringConvertible {
    /// The command line was wrong.
    case usage(String)
    /// An option's value is not what it takes: the option, the text given, and what it
    /// expects (e.g. "an integer in 6000…510000").
    case invalidValue(option: String, value: String, expected: String)
    /// The command ran and found a failure.
    case failed(String)

    var description: String {
        switch self {
        case let .usage(detail): return "usage: \(detail)"
        case let .invalidValue(option, value, expected): return "usage: \(option) needs \(expected), got \(value.debugDescription)"
        case let .failed(detail): return "failed: \(detail)"
        }
    }
}
