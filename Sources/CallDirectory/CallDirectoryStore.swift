// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemErrors

/// One version of the directory on disk, read into memory: blocking numbers and
/// identification numbers as sorted Int64 arrays, a label index per identification entry and
/// a table of distinct labels. Lookups are binary searches straight in that copy; it costs
/// 8 bytes per blocking entry, 12 per identification entry plus each distinct label once.
///
/// The file is read, not mapped: a mapping faults (SIGBUS) on the next lookup once anyone
/// truncates the file in place (`cp backup store` rewrites the same inode), and no check
/// before a lookup can close that race. A copy of our own cannot change under us; opening a
/// store costs one sequential read of the file (the reload that wrote it wrote as much).
///
/// A store never changes: a reload writes a new file and opens it; readers holding the old
/// store keep its copy alive until they let go of it.
///
/// A lookup first searches a small index of every 64th number (kept in cache: 1/64 of the
/// list), then one 512-byte block of the list — a few cache misses instead of one per
/// halving of a 40 MB array.
///
/// Layout (native byte order, 64-bit aligned sections):
/// ```
/// header (64 bytes): magic "VECDIR02", blocking count, identification count, label count,
///                    label byte count, 3 reserved words
/// Int64  blockingIndex[ceil(blockingCount / 64)]               every 64th blocking number
/// Int64  identificationIndex[ceil(identificationCount / 64)]   every 64th identified number
/// Int64  blocking[blockingCount]                 ascending
/// Int64  identification[identificationCount]     ascending
/// UInt32 labelIndex[identificationCount]         into the label table
/// UInt32 labelOffset[labelCount + 1]             into the label bytes
/// UInt8  labelBytes[labelByteCount]              UTF-8, not terminated
/// ```
public final class CallDirectoryStore: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init, and so is the memory they point into.

    static let magic = UInt64(littleEndian: 0x3230_5249_4443_4556)  // "VECDIR02"
    /// Every how many numbers the index holds one.
    static let indexStride = 64

    /// How many index entries a list of `count` numbers has (without overflow for any count).
    static func indexCount(_ count: Int) -> Int { count / indexStride + (count % indexStride == 0 ? 0 : 1) }
    static let headerSize = 64
    /// The longest label a store holds, in UTF-8 bytes (`CallDirectoryContext` cuts longer ones):
    /// what bounds the label bytes a header may claim.
    public static let maximumLabelByteCount = 1_024

    /// The file it was read from, or nil for the empty store.
    public let path: String?
    /// How many numbers are blocked.
    public let blockingCount: Int
    /// How many numbers have a label.
    public let identificationCount: Int
    /// How many distinct labels there are.
    public let labelCount: Int
    /// The file's size in bytes (0 for the empty store).
    public let byteCount: Int

    private let storage: UnsafeMutableRawPointer?
    private let blockingIndex: UnsafePointer<Int64>?
    private let identificationIndex: UnsafePointer<Int64>?
    private let blocking: UnsafePointer<Int64>?
    private let identification: UnsafePointer<Int64>?
    private let labelIndexes: UnsafePointer<UInt32>?
    private let labelOffsets: UnsafePointer<UInt32>?
    private let labelBytes: UnsafePointer<UInt8>?

    /// The store with no entries (nothing loaded yet).
    public init() {
        path = nil
        blockingCount = 0; identificationCount = 0; labelCount = 0; byteCount = 0
        storage = nil; blockingIndex = nil; identificationIndex = nil; blocking = nil; identification = nil; labelIndexes = nil; labelOffsets = nil; labelBytes = nil
    }

    /// Reads the store at `path` into memory. Its header is checked first — at most
    /// `maximumEntries` entries, and exactly the file's size — so nothing a damaged header
    /// claims is read or allocated; then its label references.
    /// - Throws: `system` when it cannot be opened or read, `tooManyEntries` when its header
    ///   claims more than `maximumEntries`, `corrupt` when it is not a store, is cut short, or
    ///   changed while it was read.
    public init(contentsOf path: String, maximumEntries: Int = CallDirectoryManager.defaultMaximumEntries) throws(CallDirectoryStoreError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(operation: "open", path: path, .current) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(operation: "fstat", path: path, .current) }
        let size = Int(info.st_size)
        guard size >= Self.headerSize else { throw .corrupt(path: path, reason: "\(size) bytes, shorter than the header") }
        // (withUnsafeMutableBytes rethrows untyped errors: a buffer of our own instead.)
        let headerBytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.headerSize, alignment: 8)
        defer { headerBytes.deallocate() }
        try Self.read(fd, into: headerBytes, path: path)
        let words = Array(headerBytes.bindMemory(to: UInt64.self))
        let header = try StoreHeader(words: words, fileSize: size, maximumEntries: maximumEntries, path: path)

        let base = UnsafeMutableRawPointer.allocate(byteCount: header.byteCount, alignment: 8)
        do throws(CallDirectoryStoreError) {
            try Self.read(fd, into: UnsafeMutableRawBufferPointer(start: base, count: header.byteCount), path: path)
            // The file may have been rewritten between the header and the rest: what counts is our copy's header.
            let copied = Array(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt64.self), count: 5))
            guard try StoreHeader(words: copied, fileSize: size, maximumEntries: maximumEntries, path: path) == header else {
                throw .corrupt(path: path, reason: "changed while it was read")
            }
        } catch {
            base.deallocate()
            throw error
        }
        let (b, i, l, lb) = (header.blockingCount, header.identificationCount, header.labelCount, header.labelByteCount)
        var offset = Self.headerSize
        func section<T>(_ type: T.Type, _ count: Int) -> UnsafePointer<T> {
            defer { offset += MemoryLayout<T>.stride * count }
            return UnsafePointer((base + offset).assumingMemoryBound(to: T.self))
        }
        storage = base
        byteCount = size
        blockingCount = b; identificationCount = i; labelCount = l
        blockingIndex = section(Int64.self, Self.indexCount(b))
        identificationIndex = section(Int64.self, Self.indexCount(i))
        blocking = section(Int64.self, b)
        identification = section(Int64.self, i)
        labelIndexes = section(UInt32.self, i)
        labelOffsets = section(UInt32.self, l + 1)
        labelBytes = section(UInt8.self, lb)
        // Label references are checked once here (in our own copy, which nobody else can
        // change), so `label(for:)` can trust them. deinit frees the copy on a throw.
        let offsets = UnsafeBufferPointer(start: labelOffsets, count: l + 1)
        var previous: UInt32 = 0
        for value in offsets {
            guard value >= previous, Int(value) <= lb else { throw .corrupt(path: path, reason: "label table out of range") }
            previous = value
        }
        for index in UnsafeBufferPointer(start: labelIndexes, count: i) where Int(index) >= l {
            throw .corrupt(path: path, reason: "label index \(index) of \(l)")
        }
    }

    /// Fills `buffer` from `fd` at offset 0 (pread: the descriptor's offset is not used).
    /// - Throws: `system` on a read error, `corrupt` when the file ends first (it shrank).
    private static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(CallDirectoryStoreError) {
        var done = 0
        while done < buffer.count {
            let count = pread(fd, buffer.baseAddress! + done, min(buffer.count - done, 1 << 30), off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "read", path: path, .current)
            }
            guard count > 0 else { throw .corrupt(path: path, reason: "cut short while it was read (\(done) of \(buffer.count) bytes)") }
            done += count
        }
    }

    deinit {
        storage?.deallocate()
    }

    /// Whether `number` is blocked.
    public func isBlocked(_ number: Int64) -> Bool {
        guard let blocking else { return false }
        return Self.find(number, in: blocking, count: blockingCount, index: blockingIndex!) != nil
    }

    /// The label of `number`, or nil when it has none.
    public func label(for number: Int64) -> String? {
        guard let identification,
              let position = Self.find(number, in: identification, count: identificationCount, index: identificationIndex!) else { return nil }
        return label(at: Int(labelIndexes![position]))
    }

    /// The blocked numbers, ascending (valid while the store lives).
    var blockingNumbers: UnsafeBufferPointer<Int64> { UnsafeBufferPointer(start: blocking, count: blockingCount) }
    /// The identified numbers, ascending (valid while the store lives).
    var identificationNumbers: UnsafeBufferPointer<Int64> { UnsafeBufferPointer(start: identification, count: identificationCount) }
    /// The label index of each identified number.
    var identificationLabels: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: labelIndexes, count: identificationCount) }

    /// Label `index` of the table.
    func label(at index: Int) -> String {
        let start = Int(labelOffsets![index]), end = Int(labelOffsets![index + 1])
        return String(decoding: UnsafeBufferPointer(start: labelBytes! + start, count: end - start), as: UTF8.self)
    }

    /// Every entry of the store (for tests and tools; a full store is millions of values).
    public var entries: (blocking: [Int64], identification: [(number: Int64, label: String)]) {
        (Array(blockingNumbers), zip(identificationNumbers, identificationLabels).map { ($0, label(at: Int($1))) })
    }

    /// The position of `number` in `base[0..<count]` (ascending) through its `index`, or nil.
    @inline(__always)
    static func find(_ number: Int64, in base: UnsafePointer<Int64>, count: Int, index: UnsafePointer<Int64>) -> Int? {
        guard count > 0, index[0] <= number else { return nil }
        let block = floor(number, in: index, count: indexCount(count))
        let start = block * indexStride
        return find(number, in: base + start, count: min(indexStride, count - start)).map { $0 + start }
    }

    /// The position of the last of `base[0..<count]` (ascending, `base[0] <= number`) not above `number`.
    @inline(__always)
    static func floor(_ number: Int64, in base: UnsafePointer<Int64>, count: Int) -> Int {
        var low = 0, length = count
        while length > 1 {
            let half = length / 2
            low = base[low + half] <= number ? low + half : low
            length -= half
        }
        return low
    }

    /// The position of `number` in `base[0..<count]` (ascending), or nil. Branch-free halving:
    /// the comparison becomes a conditional move, so the search costs log2(n) dependent loads.
    @inline(__always)
    static func find(_ number: Int64, in base: UnsafePointer<Int64>, count: Int) -> Int? {
        guard count > 0 else { return nil }
        var low = 0, length = count
        while length > 1 {
            let half = length / 2
            low = base[low + half] <= number ? low + half : low
            length -= half
        }
        return base[low] == number ? low : nil
    }
}
