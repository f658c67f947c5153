/// Command-line arguments consumed option by option, so unknown leftovers are reported.
struct CommandArguments {
    private var remaining: [String]

    init(_ arguments: some Sequence<String>) { remaining = Array(arguments) }

    /// Removes and returns the first argument (the subcommand), if any.
    mutating func popFirst() -> String? { remaining.isEmpty ? nil : remaining.removeFirst() }

    /// Removes `--name VALUE` and returns VALUE; throws when VALUE is missing.
    mutating func value(_ name: String) throws -> String? {
        guard let index = remaining.firstIndex(of: name) else { return nil }
        guard index + 1 < remaining.count else { throw CommandError.usage("\(name) needs a value") }
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

    static func number(_ text: String, for option: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value > 0 else { throw CommandError.usage("\(option) needs a positive number, got \(text)") }
        return value
    }
}

/// Why a command stopped.
enum CommandError: Error, CustomStringConvertible {
    /// The command line was wrong.
    case usage(String)
    /// The command ran and found a failure.
    case failed(String)

    var description: String {
        switch self {
        case let .usage(detail): return "usage: \(detail)"
        case let .failed(detail): return "failed: \(detail)"
        }
    }
}
