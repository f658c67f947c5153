// SPDX-License-Identifier: Apache-2.0
/// The counts a store's 64-byte header claims, checked before anything else is read: against
/// the entry limit, the label rules and the file's size, in that order, so a damaged or
/// hostile header (a sparse file claiming 2^33 entries) is refused from its first 64 bytes —
/// without arithmetic that could overflow and without reading or allocating what it claims.
struct StoreHeader: Equatable {
    let blockingCount: Int
    let identificationCount: Int
    let labelCount: Int
    let labelByteCount: Int
    /// The file size these counts need.
    let byteCount: Int

    /// The header in `words` (its first five words: magic and the four counts), for a store
    /// that may hold at most `maximumEntries` entries and is `fileSize` bytes long.
    init(words: [UInt64], fileSize: Int, maximumEntries: Int, path: String) throws(CallDirectoryStoreError) {
        guard words.count >= 5, words[0] == CallDirectoryStore.magic else { throw .corrupt(path: path, reason: "wrong magic") }
        let (b, i, l, lb) = (words[1], words[2], words[3], words[4])
        let maximum = UInt64(max(0, maximumEntries))
        // Each count is at most `maximum` (or the file size) before they are added or multiplied.
        guard b <= maximum, i <= maximum, b + i <= maximum else {
            throw .tooManyEntries(path: path, claimed: b.addingReportingOverflow(i).partialValue, maximum: maximumEntries)
        }
        // Every label is some identified number's (the writer keeps no unused label) and at
        // most `maximumLabelByteCount` long (the context cuts longer ones).
        guard l <= i else { throw .corrupt(path: path, reason: "\(l) labels for \(i) identified numbers") }
        guard lb / UInt64(CallDirectoryStore.maximumLabelByteCount) <= l, lb <= UInt64(UInt32.max) else {
            throw .corrupt(path: path, reason: "\(lb) label bytes for \(l) labels")
        }
        guard let needed = Self.byteCount(blocking: Int(b), identification: Int(i), labels: Int(l), labelBytes: Int(lb)) else {
            throw .corrupt(path: path, reason: "counts overflow")
        }
        guard needed == fileSize else { throw .corrupt(path: path, reason: "\(fileSize) bytes where the header needs \(needed)") }
        blockingCount = Int(b); identificationCount = Int(i); labelCount = Int(l); labelByteCount = Int(lb)
        byteCount = needed
    }

    /// The size of a store with these counts (see `CallDirectoryStore`'s layout), nil when it
    /// does not fit an `Int`.
    static func byteCount(blocking b: Int, identification i: Int, labels l: Int, labelBytes lb: Int) -> Int? {
        let sections = [(CallDirectoryStore.indexCount(b), 8), (CallDirectoryStore.indexCount(i), 8), (b, 8), (i, 8), (i, 4), (l + 1, 4), (lb, 1)]
        var total = CallDirectoryStore.headerSize
        for (count, width) in sections {
            let (bytes, overflow) = count.multipliedReportingOverflow(by: width)
            let (sum, overflowSum) = total.addingReportingOverflow(bytes)
            guard !overflow, !overflowSum else { return nil }
            total = sum
        }
        return total
    }
}
