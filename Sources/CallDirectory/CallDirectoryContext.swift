// SPDX-License-Identifier: Apache-2.0
/// What a provider fills on a reload (CXCallDirectoryExtensionContext). Additions of each
/// list must come in strictly ascending order of number; removals are allowed only in an
/// incremental request. The first mistake is kept (`error`), everything after it is ignored,
/// and the reload fails with it — the entries loaded before stay in force.
///
/// Numbers are country code + national digits as one integer (`PhoneNumber.value`), e.g.
/// +44 20 7946 0000 is 442079460000.
public final class CallDirectoryContext {
    /// Whether this request changes the entries loaded before (true once a load succeeded)
    /// rather than replacing them all.
    public let isIncremental: Bool
    /// The most entries the directory may hold.
    public let maximumEntries: Int

    /// The first mistake of the request, if any.
    public private(set) var error: CallDirectoryError?
    /// Whether `completeRequest()` was called.
    public private(set) var isCompleted = false
    /// Why the provider cancelled, if it did.
    public private(set) var cancellation: String?

    var contents = StoreContents()
    var blockingRemovals: [Int64] = []
    var identificationRemovals: [Int64] = []
    var removesAllBlocking = false
    var removesAllIdentification = false
    private var labelTable: [String: UInt32] = [:]

    init(isIncremental: Bool, maximumEntries: Int) {
        self.isIncremental = isIncremental
        self.maximumEntries = maximumEntries
    }

    private var isOpen: Bool { error == nil && !isCompleted && cancellation == nil }

    /// Checks `number` against the last addition to `list` and the entry limit.
    private func admits(_ number: Int64, after last: Int64?, _ list: CallDirectoryError.List) -> Bool {
        guard isOpen else { return false }
        if let last {
            if number == last { error = .duplicateEntries(list, number: number); return false }
            if number < last { error = .entriesOutOfOrder(list, previous: last, number: number); return false }
        }
        // Additions alone over the limit fail now, before they take memory; an incremental
        // request's total is checked once merged.
        if contents.entryCount >= maximumEntries { error = .maximumEntriesExceeded(maximum: maximumEntries); return false }
        return true
    }

    /// Blocks `number`, which must be larger than the last blocking number added.
    public func addBlockingEntry(withNextSequentialPhoneNumber number: Int64) {
        guard admits(number, after: contents.blocking.last, .blocking) else { return }
        contents.blocking.append(number)
    }

    /// Blocks each of `numbers`, ascending (the same rules as one at a time).
    public func addBlockingEntries(_ numbers: some Sequence<Int64>) {
        contents.blocking.reserveCapacity(contents.blocking.count + numbers.underestimatedCount)
        for number in numbers { addBlockingEntry(withNextSequentialPhoneNumber: number) }
    }

    /// Labels `number` with `label`; `number` must be larger than the last identified number added.
    /// A label longer than `CallDirectoryStore.maximumLabelByteCount` UTF-8 bytes is cut to
    /// the whole characters that fit (the bound that lets a store's header be checked).
    public func addIdentificationEntry(withNextSequentialPhoneNumber number: Int64, label: String) {
        guard admits(number, after: contents.identification.last, .identification) else { return }
        contents.identification.append(number)
        contents.labelIndexes.append(labelIndex(Self.bounded(label)))
    }

    /// `label` cut to the whole characters within `CallDirectoryStore.maximumLabelByteCount` bytes.
    static func bounded(_ label: String) -> String {
        guard label.utf8.count > CallDirectoryStore.maximumLabelByteCount else { return label }
        var bytes = 0
        var end = label.startIndex
        for index in label.indices {
            let next = label.index(after: index)
            bytes += label.utf8.distance(from: index, to: next)
            guard bytes <= CallDirectoryStore.maximumLabelByteCount else { break }
            end = next
        }
        return String(label[..<end])
    }

    /// Unblocks `number` (incremental requests only; a number not blocked is ignored).
    public func removeBlockingEntry(withPhoneNumber number: Int64) {
        guard removalAllowed(.blocking) else { return }
        blockingRemovals.append(number)
    }

    /// Removes the label of `number` (incremental requests only; an unknown number is ignored).
    public func removeIdentificationEntry(withPhoneNumber number: Int64) {
        guard removalAllowed(.identification) else { return }
        identificationRemovals.append(number)
    }

    /// Unblocks every number loaded before (incremental requests only).
    public func removeAllBlockingEntries() {
        guard removalAllowed(.blocking) else { return }
        removesAllBlocking = true
    }

    /// Removes every label loaded before (incremental requests only).
    public func removeAllIdentificationEntries() {
        guard removalAllowed(.identification) else { return }
        removesAllIdentification = true
    }

    /// Ends the request: the reload applies it.
    public func completeRequest() {
        guard isOpen else { return }
        isCompleted = true
    }

    /// Gives up: the reload fails with `loadingInterrupted` and nothing changes.
    public func cancelRequest(reason: String) {
        guard isOpen else { return }
        cancellation = reason
    }

    private func removalAllowed(_ list: CallDirectoryError.List) -> Bool {
        guard isOpen else { return false }
        guard isIncremental else { error = .unexpectedIncrementalRemoval(list); return false }
        return true
    }

    private func labelIndex(_ label: String) -> UInt32 {
        if let index = labelTable[label] { return index }
        let index = UInt32(contents.labels.count)
        contents.labels.append(label)
        labelTable[label] = index
        return index
    }

    /// The outcome: the additions and removals, or why the request failed.
    func outcome() throws(CallDirectoryError) {
        if let error { throw error }
        if let cancellation { throw .loadingInterrupted(reason: cancellation) }
        guard isCompleted else { throw .loadingInterrupted(reason: "the provider returned without completing the request") }
    }
}
