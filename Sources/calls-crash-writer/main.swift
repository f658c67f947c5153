// SPDX-License-Identifier: Apache-2.0
// The child the crash tests kill with SIGKILL part-way through a write:
//   calls-crash-writer history PATH     records calls in batches of 50 (one transaction
//                                        each), printing "committed N" after each commit
//   calls-crash-writer directory PATH   reloads a call directory over and over, alternating
//                                        two full data sets, printing "reloaded N"
// It runs until killed.
import CallDirectory
import CallHistory
import Calls
import Foundation

/// Writes `line` to standard output at once (unbuffered: the parent acts on each line).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: calls-crash-writer history|directory PATH\n".utf8))
    exit(2)
}

/// The two data sets the directory alternates between: evens or odds of a range, so the
/// parent can tell a whole set from a mixture.
struct Alternating: CallDirectoryProvider {
    static let count = 400_000
    let round: Int
    func beginRequest(with context: CallDirectoryContext) {
        if context.isIncremental {
            context.removeAllBlockingEntries()
            context.removeAllIdentificationEntries()
        }
        let parity = Int64(round % 2)
        context.addBlockingEntries((0..<Int64(Self.count)).lazy.map { 1_000_000_000 + 2 * $0 + parity })
        context.addIdentificationEntry(withNextSequentialPhoneNumber: 5, label: "round parity \(parity)")
        context.completeRequest()
    }
}

do {
    switch arguments[1] {
    case "history":
        let history = try CallHistory(path: arguments[2])
        var committed = try history.count()
        while true {
            let batch = (0..<50).map { index in
                CallHistoryEntry(id: UUID(), handle: CallHandle(kind: .phoneNumber, value: "+44207946\(committed + index)"),
                                 name: "Caller \(committed + index)", direction: index % 2 == 0 ? .incoming : .outgoing,
                                 startDate: Date(), connectDate: Date(), endDate: Date(), endedReason: .remoteEnded)
            }
            try history.record(batch)
            committed += batch.count
            say("committed \(committed)")
        }
    case "directory":
        var round = 0
        while true {
            let manager = try CallDirectoryManager(storePath: arguments[2], provider: Alternating(round: round), isEnabled: true)
            try manager.reload()
            round += 1
            say("reloaded \(round)")
        }
    default:
        FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("calls-crash-writer: \(error)\n".utf8))
    exit(1)
}
