// SPDX-License-Identifier: Apache-2.0
import CallDirectory
import Foundation

/// `CallDirectoryStore(contentsOf:)` over any bytes as a store file: it never traps or reads
/// past the file (AddressSanitizer sees its copy, allocated at the file's size), and a store
/// it accepts is within the entry limit, as long as the file, and answers every lookup.
enum DirectoryStoreTarget {
    static let target = FuzzTarget(name: "directory-store", run: run, seeds: seeds)
    static let maximumEntries = 1 << 16

    /// The file each input is written to (one per process; in memory where /dev/shm exists).
    static let path: String = {
        let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
        atexit { unlink(DirectoryStoreTarget.path) }  // libFuzzer ends with exit()
        return directory + "voiceengine-fuzz-directory-\(getpid()).store"
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        check(fd >= 0, "cannot write \(path)")
        var done = 0
        while done < bytes.count {
            let written = write(fd, bytes.baseAddress! + done, bytes.count - done)
            check(written > 0, "cannot write \(path)")
            done += written
        }
        close(fd)
        guard let store = try? CallDirectoryStore(contentsOf: path, maximumEntries: maximumEntries) else { return }
        check(store.byteCount == bytes.count, "\(store.byteCount) bytes accepted from a file of \(bytes.count)")
        check(store.blockingCount + store.identificationCount <= maximumEntries, "more entries than the maximum accepted")
        check(store.labelCount <= store.identificationCount, "more labels than identified numbers accepted")
        let entries = store.entries
        check(entries.blocking.count == store.blockingCount && entries.identification.count == store.identificationCount,
              "entries disagree with the counts")
        // The numbers need not be sorted in a damaged file: lookups may miss, never fault.
        for number in entries.blocking.prefix(256) + entries.identification.prefix(256).map(\.number) + [.min, -1, 0, 1, .max] {
            _ = store.isBlocked(number)
            _ = store.label(for: number)
        }
    }

    /// Stores as a reload writes them: empty, blocking only, blocking and labels.
    static func seeds() throws -> [[UInt8]] {
        let directory = NSTemporaryDirectory() + "voiceengine-fuzz-seeds-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let requests: [@Sendable (CallDirectoryContext) -> Void] = [
            { $0.completeRequest() },
            { context in
                context.addBlockingEntries([442079460000, 442079460001, 447700900123])
                context.completeRequest()
            },
            { context in
                context.addBlockingEntries((0..<Int64(130)).map { 15_550_000 + 3 * $0 })
                context.addIdentificationEntry(withNextSequentialPhoneNumber: 18_005_550_100, label: "Pizza")
                context.addIdentificationEntry(withNextSequentialPhoneNumber: 18_005_550_101, label: "Caller ☎︎")
                context.addIdentificationEntry(withNextSequentialPhoneNumber: 18_005_550_199, label: "Pizza")
                context.completeRequest()
            },
        ]
        return try requests.enumerated().map { index, request in
            let path = directory + "/seed-\(index).store"
            let manager = try CallDirectoryManager(storePath: path, provider: SeedProvider(request: request), isEnabled: true)
            try manager.reload()
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
    }

    struct SeedProvider: CallDirectoryProvider {
        let request: @Sendable (CallDirectoryContext) -> Void
        func beginRequest(with context: CallDirectoryContext) { request(context) }
    }
}
