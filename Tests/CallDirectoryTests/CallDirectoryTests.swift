// SPDX-License-Identifier: Apache-2.0
@testable import CallDirectory
import Foundation
import Locking
import Testing
import TestSupport

/// The directory: every error code from a real request sequence (and the entries before it
/// kept), lookups against a brute-force model on seeded random data, incremental reloads.
@Suite(.timeLimit(.minutes(2))) struct CallDirectoryTests {
    let path = temporaryDirectory("dir") + "/directory.store"
    let provider = ScriptedProvider()

    func manager(maximumEntries: Int = 1_000_000) throws -> CallDirectoryManager {
        try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true, maximumEntries: maximumEntries)
    }

    /// Loads blocking 100, 200 and identification 150 "Pizza".
    func loadBase(_ directory: CallDirectoryManager) throws {
        provider.then { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 100)
            context.addBlockingEntry(withNextSequentialPhoneNumber: 200)
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 150, label: "Pizza")
            context.completeRequest()
        }
        try directory.reload()
    }

    func expectBase(_ directory: CallDirectoryManager, _ comment: Comment? = nil) {
        #expect(directory.store.entries.blocking == [100, 200], comment)
        #expect(directory.store.entries.identification.map(\.number) == [150], comment)
        #expect(directory.label(for: 150) == "Pizza", comment)
    }

    /// Runs a reload with `body`, expects `code`, and that the base entries are still in force.
    func expectFailure(_ code: CallDirectoryError.Code, _ directory: CallDirectoryManager,
                       _ body: @escaping @Sendable (CallDirectoryContext) -> Void) {
        provider.then(body)
        #expect { try directory.reload() } throws: { error in (error as? CallDirectoryError)?.code == code }
        expectBase(directory, "after \(code)")
    }

    @Test func firstLoadIsFullThenIncremental() throws {
        let directory = try manager()
        provider.then { context in
            #expect(!context.isIncremental, "nothing loaded yet")
            context.completeRequest()
        }
        try directory.reload()
        try loadBase(directory)
        expectBase(directory)
        #expect(directory.enabledStatus == .enabled)
        #expect(directory.isBlocked(100) && !directory.isBlocked(150) && directory.label(for: 100) == nil)
    }

    @Test func everyErrorCodeKeepsTheEntriesBefore() throws {
        let directory = try manager(maximumEntries: 5)
        // unexpectedIncrementalRemoval: a removal in the first (full) request.
        provider.then { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 1)
            context.removeBlockingEntry(withPhoneNumber: 1)
            context.completeRequest()
        }
        #expect(throws: CallDirectoryError.unexpectedIncrementalRemoval(.blocking)) { try directory.reload() }
        #expect(directory.store.blockingCount == 0 && !FileManager.default.fileExists(atPath: path))
        provider.then { context in
            context.removeAllIdentificationEntries()
            context.completeRequest()
        }
        #expect(throws: CallDirectoryError.unexpectedIncrementalRemoval(.identification)) { try directory.reload() }

        try loadBase(directory)
        expectFailure(.entriesOutOfOrder, directory) { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 50)
            context.addBlockingEntry(withNextSequentialPhoneNumber: 40)
            context.completeRequest()
        }
        expectFailure(.duplicateEntries, directory) { context in
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 7, label: "a")
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 7, label: "b")
            context.completeRequest()
        }
        expectFailure(.duplicateEntries, directory) { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 200)  // loaded before
            context.completeRequest()
        }
        expectFailure(.maximumEntriesExceeded, directory) { context in
            context.addBlockingEntries([1, 2, 3])  // 3 + the 3 loaded > 5, found when merged
            context.completeRequest()
        }
        expectFailure(.maximumEntriesExceeded, directory) { context in
            context.addBlockingEntries(1...6)  // 6 additions alone: refused while adding
            context.completeRequest()
        }
        expectFailure(.loadingInterrupted, directory) { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 300)
            context.cancelRequest(reason: "feed unreachable")
        }
        expectFailure(.loadingInterrupted, directory) { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 300)  // and returns without completing
        }
        // currentlyLoading: a reload asked while one runs.
        let inner = ErrorBox()
        // Weakly: the provider keeps this closure and the directory keeps the provider.
        expectFailure(.loadingInterrupted, directory) { [weak directory] context in
            do throws(CallDirectoryError) { try directory?.reload() } catch { inner.set(error) }
            context.cancelRequest(reason: "test")
        }
        #expect(inner.get()?.code == .currentlyLoading)
        #expect(inner.get() == .currentlyLoading)

        directory.setEnabled(false)
        #expect(directory.enabledStatus == .disabled)
        #expect(throws: CallDirectoryError.extensionDisabled) { try directory.reload() }
        #expect(!directory.isBlocked(100) && directory.label(for: 150) == nil, "a disabled directory answers nothing")
        directory.setEnabled(true)
        expectBase(directory)
        #expect(Set(CallDirectoryError.Code.allCases.map(\.rawValue)) == Set(0...8))
        #expect(CallDirectoryError.Code.unexpectedIncrementalRemoval.rawValue == 8 && CallDirectoryError.Code.currentlyLoading.rawValue == 7)
    }

    /// Seeded random full loads and incremental rounds against a Set and a Dictionary: every
    /// number loaded and as many absent ones answer as the model does.
    @Test func lookupsMatchBruteForce() throws {
        var generator = SeededGenerator(seed: 2026)
        let directory = try manager()
        var blocked = Set<Int64>(), labels = [Int64: String]()
        let names = (0..<50).map { "Caller \($0) ☎︎" }
        func randomNumber() -> Int64 { Int64.random(in: 1_000_000_000...1_000_200_000, using: &generator) }
        for _ in 0..<20_000 { blocked.insert(randomNumber()) }
        for _ in 0..<10_000 { labels[randomNumber()] = names.randomElement(using: &generator)! }
        let (fullBlocking, fullLabels) = (blocked.sorted(), labels.sorted { $0.key < $1.key })
        provider.then { context in
            context.addBlockingEntries(fullBlocking)
            for (number, label) in fullLabels { context.addIdentificationEntry(withNextSequentialPhoneNumber: number, label: label) }
            context.completeRequest()
        }
        try directory.reload()
        func check(_ round: Int) {
            let store = directory.store
            #expect(store.entries.blocking == blocked.sorted(), "round \(round)")
            var mismatches = 0
            for number in Int64(999_999_990)...Int64(1_000_200_010) {
                if store.isBlocked(number) != blocked.contains(number) { mismatches += 1 }
                if store.label(for: number) != labels[number] { mismatches += 1 }
            }
            #expect(mismatches == 0, "round \(round)")
        }
        check(0)
        for round in 1...4 {
            let removals = blocked.shuffled(using: &generator).prefix(2_000)
            let labelRemovals = labels.keys.shuffled(using: &generator).prefix(1_000)
            blocked.subtract(removals)
            for number in labelRemovals { labels[number] = nil }
            var additions = Set<Int64>(), labelAdditions = [Int64: String]()
            while additions.count < 3_000 { let n = randomNumber(); if !blocked.contains(n) { additions.insert(n) } }
            while labelAdditions.count < 1_500 {
                let n = randomNumber()
                if labels[n] == nil { labelAdditions[n] = round == 2 ? "New \(n % 7)" : names.randomElement(using: &generator)! }
            }
            blocked.formUnion(additions)
            labels.merge(labelAdditions) { $1 }
            let (add, addLabels) = (additions.sorted(), labelAdditions.sorted { $0.key < $1.key })
            let (remove, removeLabels) = (Array(removals), Array(labelRemovals))
            let clearAll = round == 4
            if clearAll {
                blocked = Set(add)
                labels = Dictionary(uniqueKeysWithValues: addLabels.map { ($0.key, $0.value) })
            }
            provider.then { context in
                #expect(context.isIncremental)
                if clearAll { context.removeAllBlockingEntries(); context.removeAllIdentificationEntries() }
                for number in remove { context.removeBlockingEntry(withPhoneNumber: number) }
                for number in removeLabels { context.removeIdentificationEntry(withPhoneNumber: number) }
                context.addBlockingEntries(add)
                for (number, label) in addLabels { context.addIdentificationEntry(withNextSequentialPhoneNumber: number, label: label) }
                context.completeRequest()
            }
            try directory.reload()
            check(round)
        }
        // A new manager maps the same file: the entries persist.
        let reopened = try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true)
        #expect(reopened.store.entries.blocking == blocked.sorted())
        #expect(reopened.store.labelCount <= names.count + 7, "labels are stored once each")
    }

    /// A write stopped part-way (as a crash would stop it) leaves the old store in force,
    /// now and for the next process, which also drops the half-written file.
    @Test func interruptedReloadKeepsTheOldData() throws {
        let directory = try manager()
        try loadBase(directory)
        let big = (1...100_000).map { Int64($0) * 1_000 }
        provider.then { context in
            context.removeAllBlockingEntries()
            context.addBlockingEntries(big)
            context.completeRequest()
        }
        directory.nextWriteHooks.withLock { $0.failAfterBytes = 300_000 }
        #expect { try directory.reload() } throws: { error in (error as? CallDirectoryError)?.code == .unknown }
        expectBase(directory)
        let temporary = CallDirectoryStore.temporaryPath(for: path)
        #expect(FileManager.default.fileExists(atPath: temporary), "the half-written file is left as a crash would leave it")
        let next = try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true)
        expectBase(next, "the next process")
        #expect(!FileManager.default.fileExists(atPath: temporary))
        try next.reload()
        #expect(next.store.blockingCount == big.count && next.isBlocked(5_000) && !next.isBlocked(100))
    }

    @Test func damagedStoreIsATypedError() throws {
        let directory = try manager()
        try loadBase(directory)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: path))
        #expect { try manager() } throws: { error in
            guard case .store(.corrupt) = error as? CallDirectoryError else { return false }
            return true
        }
        bytes[0] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect { try manager() } throws: { error in
            guard case .store(.corrupt(_, "wrong magic")) = error as? CallDirectoryError else { return false }
            return true
        }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect { try manager() } throws: { error in
            guard case .store(.corrupt) = error as? CallDirectoryError else { return false }
            return true
        }
    }
}

/// An error handed out of a provider's closure.
final class ErrorBox: Sendable {
    private let value = Locked<CallDirectoryError?>(nil)
    func set(_ error: CallDirectoryError) { value.withLock { $0 = error } }
    func get() -> CallDirectoryError? { value.withLock { $0 } }
}

/// A child reloading a 400,000-entry directory over and over, killed with SIGKILL part-way:
/// the store is one whole data set (evens or odds, with its own label), never a mixture.
@Suite(.timeLimit(.minutes(2))) struct KilledReloadTests {
    @Test func killedReloadLeavesAWholeStore() throws {
        let path = temporaryDirectory("killed") + "/directory.store"
        let lines = try KilledChild.run("calls-crash-writer", arguments: ["directory", path]) { $0 == "reloaded 3" }
        #expect(lines.last == "reloaded 3")
        let directory = try CallDirectoryManager(storePath: path, provider: ClosureProvider { $0.completeRequest() }, isEnabled: true)
        let store = directory.store
        #expect(store.blockingCount == 400_000)
        let blocking = store.entries.blocking
        let parity = blocking.first! % 2
        #expect(blocking.allSatisfy { $0 % 2 == parity } && blocking.last! == blocking.first! + 2 * 399_999)
        #expect(store.label(for: 5) == "round parity \(parity)")
        #expect(!FileManager.default.fileExists(atPath: CallDirectoryStore.temporaryPath(for: path)))
    }
}

/// Lookups from other threads while reloads swap the store: each reader's snapshot stays
/// alive and whole (one data set, never a mixture) however many reloads pass meanwhile.
@Suite(.timeLimit(.minutes(2))) struct ConcurrentReloadTests {
    @Test func readersKeepAWholeSnapshotDuringReloads() throws {
        let path = temporaryDirectory("concurrent") + "/directory.store"
        let provider = ScriptedProvider()
        let directory = try CallDirectoryManager(storePath: path, provider: provider, isEnabled: true)
        func load(parity: Int64) throws {
            provider.then { context in
                if context.isIncremental { context.removeAllBlockingEntries() }
                context.addBlockingEntries((0..<Int64(20_000)).lazy.map { 2 * $0 + parity })
                context.completeRequest()
            }
            try directory.reload()
        }
        try load(parity: 0)
        final class Flags: Sendable {
            let mixtures = Locked(0), reads = Locked(0), stop = Locked(false)
        }
        let flags = Flags()
        let readers = (0..<2).map { _ in
            Thread {
                while !flags.stop.withLock({ $0 }) {
                    let store = directory.store
                    let even = store.isBlocked(10_000), odd = store.isBlocked(10_001)
                    // Every number of the snapshot has the parity of its first.
                    let parity = store.isBlocked(0) ? 0 : 1
                    if even == odd || (even ? 0 : 1) != parity || store.blockingCount != 20_000 { flags.mixtures.withLock { $0 += 1 } }
                    flags.reads.withLock { $0 += 1 }
                }
            }
        }
        readers.forEach { $0.start() }
        while flags.reads.withLock({ $0 }) < 2 { usleep(100) }  // the readers run before the reloads start
        for round in 1...30 { try load(parity: Int64(round % 2)) }
        flags.stop.withLock { $0 = true }
        while readers.contains(where: { !$0.isFinished }) { usleep(1_000) }
        #expect(flags.mixtures.withLock { $0 } == 0)
        #expect(flags.reads.withLock { $0 } > 0)
        #expect(directory.isBlocked(0) && !directory.isBlocked(1), "the last round (30) loaded the evens")
    }
}
