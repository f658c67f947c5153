// SPDX-License-Identifier: Apache-2.0
import AudioSession
@_spi(RowDecoding) @testable import CallHistory
import Calls
import CSQLite
import Foundation
import Testing

/// The history against what others do to its file: text with NULs, rows that are no call
/// (a NULL start, an unknown reason), another process holding the write lock for seconds.
@Suite(.timeLimit(.minutes(2))) final class HistoryHardeningTests {
    let path = temporaryDatabase("hardening")

    deinit { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }

    /// A handle and a name with a NUL inside (a push's JSON may carry `\u0000`) read back
    /// whole: text is bound with its length, not as a C string (it was cut at the NUL).
    @Test func textWithANulIsStoredWhole() throws {
        let history = try CallHistory(path: path)
        let id = UUID()
        let handle = CallHandle(kind: .generic, value: "sip:alice@example.org\u{0}evil")
        try history.record(CallHistoryEntry(id: id, handle: handle, name: "A\u{0}B", direction: .incoming, startDate: Date(timeIntervalSinceReferenceDate: 5)))
        let entry = try #require(try history.entry(id: id))
        #expect(entry.handle == handle && entry.name == "A\u{0}B")
        #expect(try history.calls(with: handle).map(\.id) == [id], "found by the whole handle")
        #expect(try history.calls(with: CallHandle(kind: .generic, value: "sip:alice@example.org")).isEmpty)
        // And "" is text, not NULL.
        try history.record(CallHistoryEntry(id: id, handle: CallHandle(kind: .generic, value: ""), name: "", direction: .incoming, startDate: Date()))
        #expect(try history.entry(id: id)?.name == "" && history.entry(id: id)?.handle?.value == "")
    }

    /// A file of the current schema version whose table lacks the NOT NULL constraints (a
    /// hand-made or damaged file), with good rows around bad ones.
    func fileWithBadRows() throws -> (good: [UUID], bad: [String]) {
        try raw(path, """
            CREATE TABLE calls (id TEXT PRIMARY KEY, handle_kind INTEGER, handle TEXT, name TEXT, outgoing INTEGER, started REAL,
                                connected REAL, ended REAL, duration REAL, ended_reason INTEGER, missed INTEGER, video INTEGER);
            PRAGMA user_version = \(CallHistory.schemaVersion);
            """)
        let good = [UUID(), UUID(), UUID()]
        let bad = ["B0000000-0000-0000-0000-000000000001", "B0000000-0000-0000-0000-000000000002", "not a uuid"]
        try raw(path, """
            INSERT INTO calls VALUES ('\(good[0])', 2, '+1555', NULL, 0, 30, NULL, NULL, 0, NULL, 1, 0);
            INSERT INTO calls VALUES ('\(bad[0])', 2, '+1556', NULL, 0, NULL, NULL, NULL, 0, NULL, 1, 0);
            INSERT INTO calls VALUES ('\(good[1])', 2, '+1557', 'x', 1, 20, 21, 25, 4, 0, 0, 1);
            INSERT INTO calls VALUES ('\(bad[1])', 2, '+1558', NULL, 0, 15, NULL, NULL, 0, 999, 1, 0);
            INSERT INTO calls VALUES ('\(bad[2])', 2, '+1559', NULL, 0, 12, NULL, NULL, 0, NULL, 1, 0);
            INSERT INTO calls VALUES ('\(good[2])', NULL, NULL, NULL, 0, 10, NULL, NULL, 0, 2, 0, 0);
            """)
        return (good, bad)
    }

    /// A NULL `started` used to trap (a force unwrap): now `entry(id:)` throws `.corrupt`
    /// naming the column.
    @Test func aRowWithANullStartIsCorruptNotATrap() throws {
        let (_, bad) = try fileWithBadRows()
        let history = try CallHistory(path: path)
        #expect { try history.entry(id: UUID(uuidString: bad[0])!) } throws: { error in
            guard case let .corrupt(_, message) = error as? CallHistoryError else { return false }
            return message.contains("started is NULL")
        }
    }

    /// One malformed row used to fail the whole list: the rest is returned, newest first, and
    /// each bad row is reported once in `skippedRows` (rowid, id, what is wrong).
    @Test func malformedRowsAreSkippedAndReported() throws {
        let (good, bad) = try fileWithBadRows()
        let history = try CallHistory(path: path)
        #expect(try history.recent().map(\.id) == good)
        #expect(try history.missed().map(\.id) == [good[0]])
        let skipped = history.skippedRows
        #expect(skipped.map(\.id) == [bad[1], bad[2], bad[0]], "in the order met (newest first; NULL sorts last)")
        #expect(skipped.map(\.rowID) == [4, 5, 2])
        let messages = skipped.map { row -> String in if case let .corrupt(_, message) = row.error { message } else { "" } }
        #expect(messages[0].contains("ended_reason is no ended reason") && messages[1].contains("id is not a UUID")
                && messages[2].contains("started is NULL"), "\(messages)")
        _ = try history.recent()
        #expect(history.skippedRows.count == 3, "each row reported once")
        #expect(try history.count() == 6, "the bad rows stay in the file")
    }

    /// The decoder over every storage class in every column never traps, and what it accepts
    /// is what `record` would write back.
    @Test func theRowDecoderRefusesWhatIsNoCall() throws {
        let entry = CallHistoryEntry(id: UUID(), handle: CallHandle(kind: .phoneNumber, value: "+1\u{0}2"), name: "n", direction: .outgoing,
                                     startDate: Date(timeIntervalSinceReferenceDate: 1), connectDate: Date(timeIntervalSinceReferenceDate: 2),
                                     endDate: Date(timeIntervalSinceReferenceDate: 9), endedReason: .remoteEnded, hasVideo: true)
        let row = CallHistoryRow(entry)
        #expect(try row.entry() == entry)
        let strange: [CallHistoryRow.Value] = [.null, .integer(.max), .integer(-1), .real(.nan), .real(.infinity), .real(1e300),
                                               .text([0xFF, 0x00]), .blob([1, 2, 3])]
        var refused = 0
        for column in 0..<CallHistoryRow.columnNames.count {
            for value in strange {
                var values = row.values
                values[column] = value
                do { _ = try CallHistoryRow(values: values).entry() } catch { refused += 1 }
            }
        }
        #expect(refused > 40)
        #expect(throws: CallHistoryRow.Malformation(column: "started", problem: "is not finite")) {
            var values = row.values
            values[5] = .real(.nan)
            return try CallHistoryRow(values: values).entry()
        }
    }

    /// Holds the database's write lock from another connection (as another process would).
    final class OtherWriter {
        var connection: OpaquePointer?
        init(_ path: String) {
            sqlite3_open(path, &connection)
            sqlite3_exec(connection, "BEGIN EXCLUSIVE", nil, nil, nil)
        }
        func commit() { sqlite3_exec(connection, "COMMIT", nil, nil, nil) }
        deinit { sqlite3_close(connection) }
    }

    /// Another process holds BEGIN EXCLUSIVE while calls happen: every write times out (a
    /// 10 ms busy timeout here), yet no call is lost — each waits in `pendingWrites` (its
    /// newest state) and is written once the lock is gone (writes used to be dropped, kept in
    /// `errors` only). The retry's delay is an hour: the test retries by hand, no clock involved.
    @Test func callsRecordedWhileTheDatabaseIsLockedAreWrittenLater() throws {
        let rig = try CallHistoryTests.Rig(path: path, busyTimeout: 0.01,
                                           retryPolicy: CallHistoryRecorder.RetryPolicy(firstDelay: 3_600, maximumDelay: 3_600))
        let other = OtherWriter(path)
        let answered = try rig.incoming("+44 20 7946 0001", name: "Ann")
        try rig.request(AnswerCallAction(call: answered))
        rig.provider.reportCall(with: answered, endedAt: nil, reason: .remoteEnded)
        rig.settle()
        let missed = try rig.incoming("+44 20 7946 0002")
        rig.provider.reportCall(with: missed, endedAt: nil, reason: .remoteEnded)
        rig.settle()
        #expect(rig.recorder.errors.count >= 4 && rig.recorder.errors.allSatisfy { if case .locked = $0 { true } else { false } })
        #expect(rig.recorder.pendingWrites.map(\.id) == [answered, missed], "the newest state of each call waits")
        #expect(rig.recorder.pendingWrites.allSatisfy { $0.endDate != nil })
        rig.recorder.retryPendingWrites()
        #expect(rig.recorder.pendingWrites.count == 2, "still locked")
        other.commit()
        rig.recorder.retryPendingWrites()
        #expect(rig.recorder.pendingWrites.isEmpty && rig.recorder.droppedWrites == 0)
        let a = try #require(try rig.history.entry(id: answered))
        #expect(a.connectDate != nil && a.endDate != nil && a.endedReason == .remoteEnded && a.name == "Ann")
        #expect(try rig.history.entry(id: missed)?.isMissed == true)
    }

    /// The next call's write, once the lock is gone, writes the waiting ones first; and the
    /// queue is bounded: past `maximumPendingCalls` the call waiting longest is dropped, counted.
    @Test func aLaterWriteTakesTheWaitingCallsAlongAndTheQueueIsBounded() throws {
        let rig = try CallHistoryTests.Rig(path: path, busyTimeout: 0.01,
                                           retryPolicy: CallHistoryRecorder.RetryPolicy(firstDelay: 3_600, maximumDelay: 3_600, maximumPendingCalls: 2))
        let other = OtherWriter(path)
        func call(_ number: String) throws -> UUID {
            let id = try rig.incoming(number)
            rig.provider.reportCall(with: id, endedAt: nil, reason: .remoteEnded)
            rig.settle()
            return id
        }
        let calls = try (1...3).map { try call("+44 20 7946 000\($0)") }
        #expect(rig.recorder.pendingWrites.map(\.id) == Array(calls.suffix(2)) && rig.recorder.droppedWrites == 1)
        other.commit()
        let next = try call("+44 20 7946 0009")
        #expect(rig.recorder.pendingWrites.isEmpty)
        let recent = try rig.history.recent().map(\.id)
        #expect(Set(recent) == Set(calls.suffix(2) + [next]), "\(calls) \(next) \(recent)")
    }

    /// Without a hand: the scheduled retry writes the waiting call once the lock is gone
    /// (delays of 1–20 ms; the test waits for the row, not for a time).
    @Test func theScheduledRetryWritesTheWaitingCall() throws {
        let rig = try CallHistoryTests.Rig(path: path, busyTimeout: 0.001,
                                           retryPolicy: CallHistoryRecorder.RetryPolicy(firstDelay: 0.001, maximumDelay: 0.02))
        let other = OtherWriter(path)
        let call = try rig.incoming("+44 20 7946 0001")
        #expect(rig.recorder.pendingWrites.map(\.id) == [call])
        other.commit()
        var written = false
        for _ in 0..<6_000 where !written {
            rig.recorder.flush()
            written = rig.recorder.pendingWrites.isEmpty
            if !written { usleep(1_000) }
        }
        #expect(written)
        #expect(try rig.history.entry(id: call) != nil)
    }
}
