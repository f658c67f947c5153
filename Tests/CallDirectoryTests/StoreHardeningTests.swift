// SPDX-License-Identifier: Apache-2.0
@testable import CallDirectory
import Foundation
import Locking
import Testing

/// The store against what others on the machine do to its file: a second writer of the same
/// path, the file rewritten in place while it is open, a header that claims more than the
/// file holds or the directory allows.
@Suite(.timeLimit(.minutes(2))) final class StoreHardeningTests {
    let directory = temporaryDirectory("hardening")
    var path: String { directory + "/directory.store" }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A provider that loads the evens (parity 0) or the odds (1) of 0..<40,000, with a label naming the parity.
    static func alternating(parity: Int64) -> ClosureProvider {
        ClosureProvider { context in
            if context.isIncremental { context.removeAllBlockingEntries(); context.removeAllIdentificationEntries() }
            context.addBlockingEntries((0..<Int64(20_000)).lazy.map { 2 * $0 + parity })
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 1_000_000, label: "parity \(parity)")
            context.completeRequest()
        }
    }

    /// Whether `store` is one whole data set of `parity`.
    static func isWhole(_ store: CallDirectoryStore, parity: Int64) -> Bool {
        let blocking = store.entries.blocking
        return blocking.count == 20_000 && blocking.enumerated().allSatisfy { $0.element == 2 * Int64($0.offset) + parity }
            && store.label(for: 1_000_000) == "parity \(parity)"
    }

    /// What the second writer's thread reports.
    final class SecondWriter: Sendable {
        let result = Locked<Result<Void, CallDirectoryError>?>(nil)
        let waitedForTheLock = Locked(false)
        /// Signalled when the second writer waits for the lock, or has finished without waiting.
        let blockedOrDone = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    /// Two managers of one path (two processes: each opens the lock file itself, and `flock`
    /// locks belong to the open file, so two opens in one process exclude each other as two
    /// processes do): the second reloads while the first is part-way through its write. It
    /// waits for the first; both reloads succeed and the file holds the second's whole set.
    /// Before the lock, the second truncated and renamed the first's `path.new` under it,
    /// whose rest then went into the store in place.
    @Test func twoWritersOfOneStoreTakeTurns() throws {
        let first = try CallDirectoryManager(storePath: path, provider: Self.alternating(parity: 0), isEnabled: true)
        let second = try CallDirectoryManager(storePath: path, provider: Self.alternating(parity: 1), isEnabled: true)
        let writer = SecondWriter()
        second.nextWriteHooks.withLock { hooks in
            hooks.lockWait = {
                writer.waitedForTheLock.withLock { $0 = true }
                writer.blockedOrDone.signal()
            }
        }
        first.nextWriteHooks.withLock { hooks in
            hooks.pause = (afterBytes: 4_096, body: {
                Thread {
                    let result = Result { () throws(CallDirectoryError) in try second.reload() }
                    writer.result.withLock { $0 = result }
                    writer.blockedOrDone.signal()
                    writer.finished.signal()
                }.start()
                writer.blockedOrDone.wait()
            })
        }
        try first.reload()
        writer.finished.wait()
        #expect(writer.waitedForTheLock.withLock { $0 }, "the second writer met the first's lock")
        let secondResult = try #require(writer.result.withLock { $0 })
        #expect(throws: Never.self) { try secondResult.get() }
        #expect(Self.isWhole(first.store, parity: 0) && Self.isWhole(second.store, parity: 1), "each reads back what it wrote")
        let next = try CallDirectoryManager(storePath: path, provider: ClosureProvider { $0.completeRequest() }, isEnabled: true)
        #expect(Self.isWhole(next.store, parity: 1), "the store on disk is the last writer's, whole")
        #expect(!FileManager.default.fileExists(atPath: CallDirectoryStore.temporaryPath(for: path)))
    }

    /// `cp backup store` while the store is open: the same inode is truncated, then rewritten.
    /// Lookups go on answering from the store as it was opened (a mapping used to fault with
    /// SIGBUS on the next lookup), and the next open reads the rewritten file.
    @Test func aStoreRewrittenInPlaceKeepsAnswering() throws {
        let directory = try CallDirectoryManager(storePath: path, provider: Self.alternating(parity: 0), isEnabled: true)
        try directory.reload()
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        let fd = open(path, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        #expect(directory.isBlocked(0) && directory.isBlocked(39_998) && !directory.isBlocked(1), "truncated to 0 bytes")
        #expect(directory.label(for: 1_000_000) == "parity 0")
        let half = backup.count / 2
        #expect(backup.prefix(half).withUnsafeBytes { write(fd, $0.baseAddress, half) } == half)
        #expect(Self.isWhole(directory.store, parity: 0), "half rewritten")
        #expect { try CallDirectoryStore(contentsOf: path) } throws: { error in
            if case .corrupt = error as? CallDirectoryStoreError { true } else { false }
        }
        #expect(backup.dropFirst(half).withUnsafeBytes { write(fd, $0.baseAddress, backup.count - half) } == backup.count - half)
        close(fd)
        #expect(Self.isWhole(directory.store, parity: 0))
        #expect(Self.isWhole(try CallDirectoryStore(contentsOf: path), parity: 0), "the rewritten file opens")
    }

    /// A sparse file of the exact size a header claiming `identification` entries needs (a few
    /// KB on disk).
    func sparseStore(blocking: UInt64 = 0, identification: UInt64, labels: UInt64 = 1, labelBytes: UInt64 = 0, size: Int? = nil) throws {
        let header: [UInt64] = [CallDirectoryStore.magic, blocking, identification, labels, labelBytes, 0, 0, 0]
        let needed = size ?? StoreHeader.byteCount(blocking: Int(blocking), identification: Int(identification), labels: Int(labels),
                                                   labelBytes: Int(labelBytes))!
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        #expect(header.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == 64)
        #expect(ftruncate(fd, off_t(needed)) == 0)
    }

    /// Headers claiming 2^26 or 2^33 entries (a 4 KB sparse file), too many label bytes, or
    /// counts whose sizes overflow: refused from the header, before anything it claims is read
    /// (the first used to be accepted after reading 2^26 label indexes; the second read 21 GB).
    @Test func aHeaderIsCheckedAgainstTheMaximumAndTheSizeFirst() throws {
        try sparseStore(identification: 1 << 26)
        #expect(throws: CallDirectoryStoreError.tooManyEntries(path: path, claimed: 1 << 26, maximum: 1_000_000)) {
            try CallDirectoryStore(contentsOf: path, maximumEntries: 1_000_000)
        }
        #expect(throws: CallDirectoryError.store(.tooManyEntries(path: path, claimed: 1 << 26, maximum: 1_000_000))) {
            try CallDirectoryManager(storePath: path, provider: ClosureProvider { $0.completeRequest() }, maximumEntries: 1_000_000)
        }
        try sparseStore(identification: 1 << 33, size: 4_096)
        #expect(throws: CallDirectoryStoreError.tooManyEntries(path: path, claimed: 1 << 33, maximum: CallDirectoryManager.defaultMaximumEntries)) {
            try CallDirectoryStore(contentsOf: path)
        }
        try sparseStore(blocking: .max, identification: .max, size: 4_096)
        #expect(throws: CallDirectoryStoreError.tooManyEntries(path: path, claimed: .max - 1, maximum: .max)) {
            try CallDirectoryStore(contentsOf: path, maximumEntries: .max)
        }
        // Within any maximum, but sizes that do not fit an Int: refused, no overflow trap.
        try sparseStore(blocking: 1 << 61, identification: 1 << 61, labels: 0, size: 4_096)
        #expect { try CallDirectoryStore(contentsOf: path, maximumEntries: .max) } throws: { error in
            (error as? CallDirectoryStoreError) == .corrupt(path: path, reason: "counts overflow")
        }
        // More labels than identified numbers; 2 GB of label bytes for one label.
        try sparseStore(identification: 1, labels: 2)
        #expect { try CallDirectoryStore(contentsOf: path) } throws: { error in
            if case .corrupt(_, "2 labels for 1 identified numbers") = error as? CallDirectoryStoreError { true } else { false }
        }
        try sparseStore(identification: 1, labels: 1, labelBytes: 1 << 31)
        #expect { try CallDirectoryStore(contentsOf: path) } throws: { error in
            if case .corrupt(_, "2147483648 label bytes for 1 labels") = error as? CallDirectoryStoreError { true } else { false }
        }
        // The same header, but the file a few bytes short of what it claims.
        let size = StoreHeader.byteCount(blocking: 0, identification: 1_000, labels: 1, labelBytes: 0)!
        try sparseStore(identification: 1_000, size: size - 8)
        #expect { try CallDirectoryStore(contentsOf: path) } throws: { error in
            if case .corrupt(_, "\(size - 8) bytes where the header needs \(size)") = error as? CallDirectoryStoreError { true } else { false }
        }
    }

    /// A label longer than `maximumLabelByteCount` is cut to whole characters, so every store
    /// written passes the header's label bound.
    @Test func longLabelsAreCutToTheBound() throws {
        let long = String(repeating: "☎︎a", count: 400)  // 7 bytes each: 2,800 bytes
        let directory = try CallDirectoryManager(storePath: path, provider: ClosureProvider { context in
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 5, label: long)
            context.completeRequest()
        }, isEnabled: true)
        try directory.reload()
        let label = try #require(directory.label(for: 5))
        #expect(label.utf8.count <= CallDirectoryStore.maximumLabelByteCount && label.utf8.count > CallDirectoryStore.maximumLabelByteCount - 7)
        #expect(long.hasPrefix(label) && label.hasSuffix("a"))
        #expect(try CallDirectoryStore(contentsOf: path).label(for: 5) == label)
    }
}
