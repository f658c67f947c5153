// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking

/// The system's side of a call directory (CXCallDirectoryManager + what iOS does with an
/// extension's entries): the user enables it, `reload()` asks the provider for entries and
/// replaces the store on disk atomically (one writer at a time, across processes), and lookups
/// answer from the store read into memory.
///
/// ```swift
/// let directory = try CallDirectoryManager(storePath: dir + "/directory.store", provider: Spam())
/// directory.setEnabled(true)            // the user's switch in Settings
/// try directory.reload()
/// provider.incomingCallFilter = directory.filter()   // "18005551234" and "+1 800 555 1234" alike
/// // national numbers too: directory.filter(normalizer: PhoneNumberNormalizer(defaultPlan: .unitedKingdom))
/// ```
///
/// Not persisted: the enabled switch (give it to `init`). Persisted: the entries, which a
/// failed, cancelled or interrupted reload — even a killed process — never damages.
public final class CallDirectoryManager: Sendable {
    /// CXCallDirectoryManager.EnabledStatus's names and raw values.
    public enum EnabledStatus: Int, Sendable, CaseIterable {
        /// Not known (CallKit: the status could not be read; unused here).
        case unknown = 0
        /// The user has not enabled the directory: reloads fail, nothing is blocked or identified.
        case disabled = 1
        /// Enabled.
        case enabled = 2
    }

    /// The store file.
    public let storePath: String
    /// The most entries (blocking + identification) the directory holds.
    public let maximumEntries: Int
    /// `maximumEntries` unless an app gives another.
    public static let defaultMaximumEntries = 20_000_000
    private let provider: any CallDirectoryProvider

    private struct State {
        var store: CallDirectoryStore
        var isEnabled: Bool
        var isLoading = false
    }

    private let state: Locked<State>
    /// A test hook: what happens to the next store write (stopped as a crash would stop it,
    /// paused part-way, watched waiting for another writer).
    let nextWriteHooks = Locked(StoreWriteHooks())

    /// A directory stored at `storePath` (the entries of the last successful reload are
    /// read now), filled by `provider`.
    /// - Throws: `store` when an existing store cannot be read, is damaged, or claims more than
    ///   `maximumEntries` entries (`tooManyEntries`).
    public init(storePath: String, provider: any CallDirectoryProvider, isEnabled: Bool = false,
                maximumEntries: Int = defaultMaximumEntries) throws(CallDirectoryError) {
        self.storePath = storePath
        self.provider = provider
        self.maximumEntries = maximumEntries
        // What a reload killed part-way left behind is never read; drop it — unless another
        // writer (another process) holds the lock: then it is that writer's file being written.
        StoreWriterLock.ifFree(storePath) { unlink(CallDirectoryStore.temporaryPath(for: storePath)) }
        let store: CallDirectoryStore
        if access(storePath, F_OK) == 0 {
            do { store = try CallDirectoryStore(contentsOf: storePath, maximumEntries: maximumEntries) } catch { throw .store(error) }
        } else {
            store = CallDirectoryStore()
        }
        state = Locked(State(store: store, isEnabled: isEnabled))
    }

    /// Whether the user enabled the directory.
    public var enabledStatus: EnabledStatus { state.withLock { $0.isEnabled ? .enabled : .disabled } }

    /// The user's switch: a disabled directory blocks and identifies nobody and refuses reloads.
    public func setEnabled(_ enabled: Bool) { state.withLock { $0.isEnabled = enabled } }

    /// The entries in force now (a snapshot: a reload swaps in a new store, this one stays valid).
    public var store: CallDirectoryStore { state.withLock { $0.store } }

    /// Asks the provider for entries and, when its request is valid and complete, makes them
    /// the directory's: under the writers' lock of the store (another process reloading the
    /// same path waits), written to a new file, fsynced, renamed over the old one, read. The
    /// request is incremental once a load has succeeded (a store exists).
    /// - Throws: `extensionDisabled`, `currentlyLoading`, the request's first mistake
    ///   (`entriesOutOfOrder`, `duplicateEntries`, `maximumEntriesExceeded`,
    ///   `unexpectedIncrementalRemoval`), `loadingInterrupted`, `store`. The entries loaded
    ///   before stay in force after any of these.
    public func reload() throws(CallDirectoryError) {
        let base = try state.withLock { (state: inout State) throws(CallDirectoryError) -> CallDirectoryStore in
            guard state.isEnabled else { throw .extensionDisabled }
            guard !state.isLoading else { throw .currentlyLoading }
            state.isLoading = true
            return state.store
        }
        defer { state.withLock { $0.isLoading = false } }
        let context = CallDirectoryContext(isIncremental: base.path != nil, maximumEntries: maximumEntries)
        provider.beginRequest(with: context)
        try context.outcome()
        let contents = context.isIncremental
            ? try StoreContents.merging(context, into: base, maximum: maximumEntries)
            : context.contents
        let hooks = nextWriteHooks.withLock { hooks in defer { hooks = StoreWriteHooks() }; return hooks }
        let store: CallDirectoryStore
        do {
            // One writer of the file at a time, whichever process or manager it is; the store
            // is read back under the lock, so it is the one this reload wrote.
            store = try StoreWriterLock.holding(storePath, onWait: hooks.lockWait) { () throws(CallDirectoryStoreError) in
                try CallDirectoryStore.write(contents, to: storePath, hooks: hooks)
                return try CallDirectoryStore(contentsOf: storePath, maximumEntries: maximumEntries)
            }
        } catch {
            throw .store(error)
        }
        state.withLock { $0.store = store }
    }

    /// Whether `number` is blocked (false when the directory is disabled).
    public func isBlocked(_ number: Int64) -> Bool {
        guard let store = enabledStore else { return false }
        return store.isBlocked(number)
    }

    /// The label of `number` (nil when it has none or the directory is disabled).
    public func label(for number: Int64) -> String? { enabledStore?.label(for: number) }

    private var enabledStore: CallDirectoryStore? { state.withLock { $0.isEnabled ? $0.store : nil } }

    /// A filter for `CallProvider.incomingCallFilter` that reads callers' numbers with
    /// `normalizer`; by default as CallKit writes them (country code first, "+" optional), the
    /// form the provider's entries have.
    public func filter(normalizer: PhoneNumberNormalizer = PhoneNumberNormalizer()) -> CallDirectoryFilter {
        CallDirectoryFilter(directory: self, normalizer: normalizer)
    }
}
