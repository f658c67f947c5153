// SPDX-License-Identifier: Apache-2.0
import AudioSession
@testable import CallHistory
import Calls
import CSQLite
import Foundation
import Testing
import TestSupport

/// The history: calls of a provider recorded as they happen (or not, when the configuration
/// says so), the queries, deletion, redial, migrations, damaged and locked databases.
@Suite(.timeLimit(.minutes(2))) struct CallHistoryTests {
    let path = temporaryDatabase("calls")

    struct Rig {
        let provider: CallProvider
        let controller: CallController
        let delegate = FulfillingDelegate()
        let clock = ManualCallClock()
        let history: CallHistory
        let recorder: CallHistoryRecorder

        init(path: String, recents: Bool = true, busyTimeout: Double = 2,
             retryPolicy: CallHistoryRecorder.RetryPolicy = CallHistoryRecorder.RetryPolicy()) throws {
            provider = try CallProvider(configuration: ProviderConfiguration(includesCallsInRecents: recents, supportsVideo: true),
                                        audio: CallAudioSystem(center: AudioSessionCenter()), clock: clock)
            controller = CallController(provider: provider)
            provider.setDelegate(delegate, queue: delegate.queue)
            history = try CallHistory(path: path, busyTimeout: busyTimeout)
            let wall = SteppingClock()
            recorder = CallHistoryRecorder(provider: provider, history: history, now: { wall.now() }, retryPolicy: retryPolicy)
        }

        func settle() {
            delegate.settle()
            recorder.flush()
        }

        func incoming(_ number: String, name: String? = nil) throws -> UUID {
            let uuid = UUID()
            try provider.reportNewIncomingCall(with: uuid, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: number),
                                                                              localizedCallerName: name))
            settle()
            return uuid
        }

        func request(_ action: CallAction) throws {
            try controller.requestTransaction(with: action)
            settle()
        }
    }

    @Test func everyCallIsRecordedAsItHappens() throws {
        let rig = try Rig(path: path)
        let h = rig.history
        // Answered, then the far end hangs up.
        let answered = try rig.incoming("+44 20 7946 0001", name: "Ann")
        try rig.request(AnswerCallAction(call: answered))
        #expect(try h.entry(id: answered)?.connectDate != nil && h.entry(id: answered)?.endDate == nil, "written while live")
        rig.provider.reportCall(with: answered, endedAt: nil, reason: .remoteEnded)
        rig.settle()
        // Rings out (the system's unanswered timeout).
        let rangOut = try rig.incoming("+44 20 7946 0002")
        rig.clock.advance(by: 61)
        rig.settle()
        // The caller gives up; declined here.
        let gaveUp = try rig.incoming("+44 20 7946 0002")
        rig.provider.reportCall(with: gaveUp, endedAt: nil, reason: .remoteEnded)
        let declined = try rig.incoming("+44 20 7946 0003")
        try rig.request(EndCallAction(call: declined))
        // Outgoing video call, connected, hung up here.
        let outgoing = UUID()
        try rig.request(StartCallAction(call: outgoing, handle: CallHandle(kind: .generic, value: "sip:bob@example.org"), isVideo: true))
        rig.provider.reportOutgoingCall(with: outgoing, connectedAt: nil)
        rig.settle()
        try rig.request(EndCallAction(call: outgoing))

        #expect(rig.recorder.errors.isEmpty)
        let a = try #require(try h.entry(id: answered))
        #expect(a.direction == .incoming && a.name == "Ann" && a.endedReason == .remoteEnded && !a.isMissed && !a.hasVideo)
        #expect(a.handle == CallHandle(kind: .phoneNumber, value: "+44 20 7946 0001"))
        #expect(a.connectDate! > a.startDate && a.endDate! > a.connectDate!)
        #expect(a.duration == a.endDate!.timeIntervalSince(a.connectDate!) && a.duration > 0)
        let r = try #require(try h.entry(id: rangOut))
        #expect(r.isMissed && r.endedReason == .unanswered && r.connectDate == nil && r.duration == 0)
        #expect(try h.entry(id: gaveUp)?.isMissed == true)
        let d = try #require(try h.entry(id: declined))
        #expect(!d.isMissed && d.endedReason == .local, "declined here is not missed")
        let o = try #require(try h.entry(id: outgoing))
        #expect(o.direction == .outgoing && o.hasVideo && o.connectDate != nil && o.endedReason == .local && !o.isMissed)

        // Queries.
        #expect(try h.recent(limit: 10).map(\.id) == [outgoing, declined, gaveUp, rangOut, answered])
        #expect(try h.recent(limit: 2).map(\.id) == [outgoing, declined])
        #expect(try h.missed().map(\.id) == [gaveUp, rangOut])
        #expect(try h.calls(with: CallHandle(kind: .phoneNumber, value: "+44 20 7946 0002")).map(\.id) == [gaveUp, rangOut])
        #expect(try h.calls(with: CallHandle(kind: .generic, value: "+44 20 7946 0002")).isEmpty, "the kind counts")
        #expect(try h.delete(id: gaveUp) && !(try h.delete(id: gaveUp)))
        #expect(try h.missed().map(\.id) == [rangOut])

        // Redial the missed call: a start action with its handle reaches the delegate.
        let again = UUID()
        let transaction = try #require(try h.missed().first?.redialTransaction(callUUID: again))
        try rig.controller.request(transaction)
        rig.settle()
        let start = try #require(rig.delegate.actions.last as? StartCallAction)
        #expect(start.callUUID == again && start.handle == CallHandle(kind: .phoneNumber, value: "+44 20 7946 0002"))
        #expect(try h.entry(id: again)?.direction == .outgoing, "the redial is recorded too")
        try h.deleteAll()
        #expect(try h.count() == 0)
    }

    @Test func notRecordedWhenTheConfigurationSaysSo() throws {
        let rig = try Rig(path: path, recents: false)
        let call = try rig.incoming("+1 800 555 1234")
        rig.provider.reportCall(with: call, endedAt: nil, reason: .remoteEnded)
        rig.settle()
        #expect(try rig.history.count() == 0)
    }

    /// A version-1 database (no video column) opens migrated, its rows intact; a database from
    /// a newer library is refused.
    @Test func migrationsAndNewerSchemas() throws {
        let old = try CallHistory(path: path, busyTimeout: 1, durability: .processCrash, schemaVersion: 1)
        #expect(try old.storedSchemaVersion() == 1)
        try raw(path, "INSERT INTO calls (id, handle_kind, handle, outgoing, started, missed) VALUES ('\(UUID().uuidString)', 2, '+1555', 0, 10, 1)")
        let migrated = try CallHistory(path: path)
        #expect(try migrated.storedSchemaVersion() == CallHistory.schemaVersion && CallHistory.schemaVersion == 2)
        let entry = try #require(try migrated.missed().first)
        #expect(entry.handle?.value == "+1555" && !entry.hasVideo && entry.startDate == Date(timeIntervalSinceReferenceDate: 10))
        try raw(path, "PRAGMA user_version = 99")
        #expect(throws: CallHistoryError.newerSchema(found: 99, supported: 2)) { try CallHistory(path: path) }
    }

    @Test func damagedFileIsATypedError() throws {
        try Data(repeating: 0x5A, count: 8_192).write(to: URL(fileURLWithPath: path))
        #expect { try CallHistory(path: path) } throws: { error in
            guard case .corrupt = error as? CallHistoryError else { return false }
            return true
        }
        // A real database whose pages are overwritten part-way.
        let other = temporaryDatabase("damaged")
        let history = try CallHistory(path: other)
        try history.record((0..<500).map { CallHistoryEntry(id: UUID(), handle: nil, direction: .incoming, startDate: Date(timeIntervalSinceReferenceDate: Double($0))) })
        try raw(other, "PRAGMA wal_checkpoint(TRUNCATE)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: other))
        try handle.seek(toOffset: 4_096)
        handle.write(Data(repeating: 0xFF, count: 8_192))
        try handle.close()
        let reopened = Result { () throws(CallHistoryError) in try CallHistory(path: other).recent(limit: 1_000) }
        switch reopened {
        case .success: Issue.record("a database with overwritten pages read as sound")
        case let .failure(error): #expect({ if case .corrupt = error { true } else { false } }(), "\(error)")
        }
        #expect(throws: CallHistoryError.self) { try CallHistory(path: "/nonexistent-dir/history.sqlite") }
    }

    /// Another connection holding the write lock: writes fail `locked` after the busy
    /// timeout; reads go on (WAL).
    @Test func lockedDatabaseIsATypedError() throws {
        let history = try CallHistory(path: path, busyTimeout: 0.01)
        try history.record(CallHistoryEntry(id: UUID(), handle: nil, direction: .outgoing, startDate: Date()))
        var other: OpaquePointer?
        #expect(sqlite3_open(path, &other) == SQLITE_OK)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        #expect { try history.record(CallHistoryEntry(id: UUID(), handle: nil, direction: .outgoing, startDate: Date())) } throws: { error in
            guard case .locked = error as? CallHistoryError else { return false }
            return true
        }
        #expect(try history.count() == 1, "readers are not blocked by the writer in WAL mode")
        #expect(sqlite3_exec(other, "COMMIT", nil, nil, nil) == SQLITE_OK)
        try history.record(CallHistoryEntry(id: UUID(), handle: nil, direction: .outgoing, startDate: Date()))
        #expect(try history.count() == 2)
    }

    /// A child writing batches of 50 calls is killed with SIGKILL part-way: every batch it
    /// reported committed is there, no batch is there in part, the file is sound.
    @Test func historySurvivesAKilledWriter() throws {
        let lines = try KilledChild.run("calls-crash-writer", arguments: ["history", path]) { line in
            line.hasPrefix("committed ") && Int(line.dropFirst(10))! >= 1_000
        }
        let committed = Int(lines.last!.dropFirst(10))!
        let history = try CallHistory(path: path)
        let count = try history.count()
        #expect(count >= committed, "committed before the kill: \(committed)")
        #expect(count % 50 == 0, "a batch is all or nothing")
        #expect(try history.integrityCheck() == "ok")
        #expect(try history.recent(limit: count).count == count)
    }
}

/// Runs `sql` on its own connection to `path`.
func raw(_ path: String, _ sql: String) throws {
    var connection: OpaquePointer?
    guard sqlite3_open(path, &connection) == SQLITE_OK else { throw CallHistoryError.sqlite(code: 0, message: "open") }
    defer { sqlite3_close(connection) }
    let code = sqlite3_exec(connection, sql, nil, nil, nil)
    guard code == SQLITE_OK else { throw CallHistoryError.sqlite(code: code, message: String(cString: sqlite3_errmsg(connection))) }
}
