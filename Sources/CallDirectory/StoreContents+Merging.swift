// SPDX-License-Identifier: Apache-2.0
extension StoreContents {
    /// What an incremental request makes of `base`: remove-alls first, then removals, then
    /// additions merged in order (O(n) in the store's size; nothing is sorted again).
    /// - Throws: `duplicateEntries` for an addition already in `base`,
    ///   `maximumEntriesExceeded` when the result is over `maximum`.
    static func merging(_ context: CallDirectoryContext, into base: CallDirectoryStore, maximum: Int) throws(CallDirectoryError) -> StoreContents {
        var result = StoreContents()
        let blockingBase = context.removesAllBlocking ? UnsafeBufferPointer(start: nil, count: 0) : base.blockingNumbers
        result.blocking.reserveCapacity(blockingBase.count + context.contents.blocking.count)
        try merge(blockingBase, removing: context.blockingRemovals, adding: context.contents.blocking, list: .blocking) { number, _ in
            result.blocking.append(number)
        }

        // Labels: the request's own table first, the base's labels appended as they are met.
        result.labels = context.contents.labels
        var table: [String: UInt32] = [:]
        for (index, label) in result.labels.enumerated() { table[label] = UInt32(index) }
        var baseMap = [UInt32?](repeating: nil, count: base.labelCount)
        let identificationBase = context.removesAllIdentification ? UnsafeBufferPointer(start: nil, count: 0) : base.identificationNumbers
        let baseLabels = base.identificationLabels
        var added = 0
        try merge(identificationBase, removing: context.identificationRemovals, adding: context.contents.identification,
                  list: .identification) { number, baseIndex in
            result.identification.append(number)
            if let baseIndex {
                let old = Int(baseLabels[baseIndex])
                if let mapped = baseMap[old] {
                    result.labelIndexes.append(mapped)
                } else {
                    let label = base.label(at: old)
                    let mapped = table[label] ?? {
                        let index = UInt32(result.labels.count)
                        result.labels.append(label)
                        table[label] = index
                        return index
                    }()
                    baseMap[old] = mapped
                    result.labelIndexes.append(mapped)
                }
            } else {
                result.labelIndexes.append(context.contents.labelIndexes[added])
                added += 1
            }
        }
        guard result.entryCount <= maximum else { throw .maximumEntriesExceeded(maximum: maximum) }
        return result
    }

    /// Walks `base` minus `removals` merged with `additions` (both ascending), handing each
    /// number to `emit` with its index in `base` (nil for an addition).
    private static func merge(_ base: UnsafeBufferPointer<Int64>, removing removals: [Int64], adding additions: [Int64],
                              list: CallDirectoryError.List,
                              _ emit: (Int64, Int?) -> Void) throws(CallDirectoryError) {
        let removed = removals.sorted()
        var b = 0, r = 0, a = 0
        while b < base.count || a < additions.count {
            if b < base.count {
                let number = base[b]
                while r < removed.count && removed[r] < number { r += 1 }
                if r < removed.count && removed[r] == number { b += 1; continue }
                if a < additions.count && additions[a] <= number {
                    if additions[a] == number { throw .duplicateEntries(list, number: number) }
                    emit(additions[a], nil); a += 1
                } else {
                    emit(number, b); b += 1
                }
            } else {
                emit(additions[a], nil); a += 1
            }
        }
    }
}
