// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemErrors

/// What a store holds, in memory, before it is written.
struct StoreContents {
    var blocking: [Int64] = []
    var identification: [Int64] = []
    var labelIndexes: [UInt32] = []
    var labels: [String] = []

    var entryCount: Int { blocking.count + identification.count }
}

/// What a test does to the next store write (every field nil: nothing).
struct StoreWriteHooks: Sendable {
    /// Stop the write after this many bytes, as a crash would.
    var failAfterBytes: Int?
    /// Run `body` once `afterBytes` bytes are written, then go on writing.
    var pause: (afterBytes: Int, body: @Sendable () -> Void)?
    /// Run before waiting for another writer's lock (`StoreWriterLock`).
    var lockWait: (@Sendable () -> Void)?
}

extension CallDirectoryStore {
    /// Where the next version is written before it replaces the store at `path` (only under
    /// `StoreWriterLock`, so one writer at a time).
    static func temporaryPath(for path: String) -> String { path + ".new" }

    /// Writes `contents` as the store at `path` so that a reader — or this process after a
    /// crash — sees either the old store or the whole new one: into `path.new`, fsync, rename
    /// over `path`, fsync the directory. The caller holds `StoreWriterLock`. `hooks` stop or
    /// pause the write part-way (tests); a stopped write leaves the temporary file behind.
    static func write(_ contents: StoreContents, to path: String, hooks: StoreWriteHooks = StoreWriteHooks()) throws(CallDirectoryStoreError) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(operation: "open", path: temporary, .current) }
        var closed = false
        defer { if !closed { close(fd) } }

        var labelBytes: [UInt8] = []
        var labelOffsets: [UInt32] = [0]
        labelOffsets.reserveCapacity(contents.labels.count + 1)
        for label in contents.labels {
            labelBytes.append(contentsOf: label.utf8)
            labelOffsets.append(UInt32(labelBytes.count))
        }
        let header: [UInt64] = [magic, UInt64(contents.blocking.count), UInt64(contents.identification.count),
                                UInt64(contents.labels.count), UInt64(labelBytes.count), 0, 0, 0]
        var budget = hooks.failAfterBytes ?? Int.max
        var pause = hooks.pause
        var total = 0
        func put(_ bytes: UnsafeRawBufferPointer) throws(CallDirectoryStoreError) {
            var done = 0
            while done < bytes.count {
                if let hook = pause, total >= hook.afterBytes { pause = nil; hook.body() }
                let limit = pause.map { max(1, $0.afterBytes - total) } ?? Int.max
                let wanted = min(bytes.count - done, budget, 1 << 24, limit)
                guard wanted > 0 else { throw .system(operation: "write (interrupted for a test)", path: temporary, .ioError) }
                let written = Glibc.write(fd, bytes.baseAddress! + done, wanted)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw .system(operation: "write", path: temporary, .current)
                }
                done += written
                total += written
                budget -= written
            }
        }
        // withUnsafeBytes rethrows untyped errors: carry ours out by hand.
        func putArray<T>(_ array: [T]) throws(CallDirectoryStoreError) {
            var failure: CallDirectoryStoreError?
            array.withUnsafeBytes { bytes in
                do throws(CallDirectoryStoreError) { try put(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try putArray(header)
        try putArray(Swift.stride(from: 0, to: contents.blocking.count, by: indexStride).map { contents.blocking[$0] })
        try putArray(Swift.stride(from: 0, to: contents.identification.count, by: indexStride).map { contents.identification[$0] })
        try putArray(contents.blocking)
        try putArray(contents.identification)
        try putArray(contents.labelIndexes)
        try putArray(labelOffsets)
        try putArray(labelBytes)
        guard fsync(fd) == 0 else { throw .system(operation: "fsync", path: temporary, .current) }
        closed = true
        guard close(fd) == 0 else { throw .system(operation: "close", path: temporary, .current) }
        guard rename(temporary, path) == 0 else { throw .system(operation: "rename", path: temporary, .current) }
        // The rename itself is durable only once the directory is.
        let directory = (path as NSString).deletingLastPathComponent
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            defer { close(directoryFD) }
            guard fsync(directoryFD) == 0 else { throw .system(operation: "fsync", path: directory, .current) }
        }
    }
}
