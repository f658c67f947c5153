import Foundation
import SystemErrors

/// One version of the directory on disk, memory-mapped read-only: blocking numbers and
/// identification numbers as sorted Int64 arrays, a label index per identification entry and
/// a table of distinct labels. Lookups are binary searches straight in the mapping, so a
/// 5-million-entry store opens in the time of one `mmap` and costs 8 bytes per blocking entry,
/// 12 per identification entry plus each distinct label once.
///
/// A store never changes: a reload writes a new file and maps it; readers holding the old
/// store keep its mapping alive until they let go of it.
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
    // @unchecked: every stored property is immutable after init and the mapping is read-only.

    static let magic = UInt64(littleEndian: 0x3230_5249_4443_4556)  // "VECDIR02"
    /// Every how many numbers the index holds one.
    static let indexStride = 64

    /// How many index entries a list of `count` numbers has.
    static func indexCount(_ count: Int) -> Int { (count + indexStride - 1) / indexStride }
    static let headerSize = 64

    /// The file it maps, or nil for the empty store.
    public let path: String?
    /// How many numbers are blocked.
    public let blockingCount: Int
    /// How many numbers have a label.
    public let identificationCount: Int
    /// How many distinct labels there are.
    public let labelCount: Int
    /// The file's size in bytes (0 for the empty store).
    public let byteCount: Int

    private let mapping: UnsafeMutableRawPointer?
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
        mapping = nil; blockingIndex = nil; identificationIndex = nil; blocking = nil; identification = nil; labelIndexes = nil; labelOffsets = nil; labelBytes = nil
    }

    /// Maps the store at `path`, checking that its header and size agree.
    /// - Throws: `system` when it cannot be opened or mapped, `corrupt` when it is not a
    ///   store or is cut short.
    public init(contentsOf path: String) throws(CallDirectoryStoreError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(operation: "open", path: path, .current) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(operation: "fstat", path: path, .current) }
        let size = Int(info.st_size)
        guard size >= Self.headerSize else { throw .corrupt(path: path, reason: "\(size) bytes, shorter than the header") }
        guard let base = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), base != MAP_FAILED else {
            throw .system(operation: "mmap", path: path, .current)
        }
        let header = base.assumingMemoryBound(to: UInt64.self)
        let counts = (1...4).map { header[$0] }
        // Every count is bounded before any arithmetic, so a damaged header cannot overflow.
        guard header[0] == Self.magic else {
            munmap(base, size)
            throw .corrupt(path: path, reason: "wrong magic")
        }
        guard counts.allSatisfy({ $0 <= UInt64(size) }) else {
            munmap(base, size)
            throw .corrupt(path: path, reason: "counts larger than the file")
        }
        let (b, i, l, lb) = (Int(counts[0]), Int(counts[1]), Int(counts[2]), Int(counts[3]))
        let expected = Self.headerSize + 8 * (Self.indexCount(b) + Self.indexCount(i)) + 8 * b + 8 * i + 4 * i + 4 * (l + 1) + lb
        guard expected == size else {
            munmap(base, size)
            throw .corrupt(path: path, reason: "\(size) bytes where the header needs \(expected)")
        }
        var offset = Self.headerSize
        func section<T>(_ type: T.Type, _ count: Int) -> UnsafePointer<T> {
            defer { offset += MemoryLayout<T>.stride * count }
            return UnsafePointer((base + offset).assumingMemoryBound(to: T.self))
        }
        mapping = base
        byteCount = size
        blockingCount = b; identificationCount = i; labelCount = l
        blockingIndex = section(Int64.self, Self.indexCount(b))
        identificationIndex = section(Int64.self, Self.indexCount(i))
        blocking = section(Int64.self, b)
        identification = section(Int64.self, i)
        labelIndexes = section(UInt32.self, i)
        labelOffsets = section(UInt32.self, l + 1)
        labelBytes = section(UInt8.self, lb)
        // Label references are checked once here, so `label(for:)` can trust them.
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

    deinit {
        if let mapping { munmap(mapping, byteCount) }
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
