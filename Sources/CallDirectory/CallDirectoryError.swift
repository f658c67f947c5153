// SPDX-License-Identifier: Apache-2.0
import SystemErrors

/// Why a call directory reload failed (CXErrorCodeCallDirectoryManagerError). After any
/// failure the entries loaded before stay in force, untouched.
public enum CallDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// CXErrorCodeCallDirectoryManagerError's names and raw values.
    public enum Code: Int, Sendable, CaseIterable {
        case unknown = 0
        case noExtensionFound = 1
        case loadingInterrupted = 2
        case entriesOutOfOrder = 3
        case duplicateEntries = 4
        case maximumEntriesExceeded = 5
        case extensionDisabled = 6
        case currentlyLoading = 7
        case unexpectedIncrementalRemoval = 8
    }

    /// Which list an entry belongs to.
    public enum List: String, Sendable, Hashable {
        /// Blocking entries.
        case blocking
        /// Identification entries.
        case identification
    }

    /// The provider did not complete the request: it cancelled it (`reason`), or returned
    /// without `completeRequest()`.
    case loadingInterrupted(reason: String)
    /// `number` came after `previous` although it is smaller: additions must be in strictly
    /// ascending order.
    case entriesOutOfOrder(List, previous: Int64, number: Int64)
    /// `number` was added twice, or added while already in the list.
    case duplicateEntries(List, number: Int64)
    /// The directory would hold more than `maximum` entries (blocking + identification).
    case maximumEntriesExceeded(maximum: Int)
    /// A removal in a request that is not incremental (`context.isIncremental` false).
    case unexpectedIncrementalRemoval(List)
    /// The user has not enabled the directory (`CallDirectoryManager.setEnabled`).
    case extensionDisabled
    /// A reload is running already.
    case currentlyLoading
    /// No extension is registered under `identifier` (`CallDirectoryExtensions`).
    case noExtensionFound(identifier: String)
    /// `identifier` cannot name an extension: letters, digits, `.`, `-`, `_`, 1–200
    /// characters, not starting with `.` (code `unknown`).
    case invalidExtensionIdentifier(String)
    /// The store could not be written or read (code `unknown`).
    case store(CallDirectoryStoreError)

    /// CallKit's code for this error.
    public var code: Code {
        switch self {
        case .loadingInterrupted: .loadingInterrupted
        case .entriesOutOfOrder: .entriesOutOfOrder
        case .duplicateEntries: .duplicateEntries
        case .maximumEntriesExceeded: .maximumEntriesExceeded
        case .unexpectedIncrementalRemoval: .unexpectedIncrementalRemoval
        case .extensionDisabled: .extensionDisabled
        case .currentlyLoading: .currentlyLoading
        case .noExtensionFound: .noExtensionFound
        case .store, .invalidExtensionIdentifier: .unknown
        }
    }

    public var description: String {
        switch self {
        case let .loadingInterrupted(reason): "loading interrupted: \(reason)"
        case let .entriesOutOfOrder(list, previous, number): "\(list) entries out of order: \(number) after \(previous)"
        case let .duplicateEntries(list, number): "duplicate \(list) entry \(number)"
        case let .maximumEntriesExceeded(maximum): "more than \(maximum) entries"
        case let .unexpectedIncrementalRemoval(list): "\(list) removal in a request that is not incremental"
        case .extensionDisabled: "the call directory is disabled"
        case .currentlyLoading: "a reload is running already"
        case let .noExtensionFound(identifier): "no call directory extension \(identifier) is registered"
        case let .invalidExtensionIdentifier(identifier): "\(identifier.debugDescription) cannot name an extension (letters, digits, '.', '-', '_'; 1-200 characters; no leading '.')"
        case let .store(error): "store: \(error)"
        }
    }
}

/// Why the on-disk store could not be written or read.
public enum CallDirectoryStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed: `operation` on `path`.
    case system(operation: String, path: String, Errno)
    /// The file is not a store this library wrote, or is cut short: `reason` says how.
    case corrupt(path: String, reason: String)
    /// The header claims `claimed` entries, more than the directory's `maximum`
    /// (`CallDirectoryManager.maximumEntries`): refused before anything else is read.
    case tooManyEntries(path: String, claimed: UInt64, maximum: Int)

    public var description: String {
        switch self {
        case let .system(operation, path, errno): "\(operation) \(path): \(errno)"
        case let .corrupt(path, reason): "\(path) is not a call directory store: \(reason)"
        case let .tooManyEntries(path, claimed, maximum): "\(path) claims \(claimed) entries, more than the maximum \(maximum)"
        }
    }
}
