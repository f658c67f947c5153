// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Calls
import Locking
import SystemErrors

/// The process's call directory extensions by identifier, as iOS code reaches them through
/// `CXCallDirectoryManager.sharedInstance` (`CallDirectoryManager.sharedInstance` here):
///
/// ```swift
/// try CallDirectoryManager.sharedInstance.register(SpamList(), withIdentifier: "org.example.phone.spam")
/// CallDirectoryManager.sharedInstance.reloadExtension(withIdentifier: "org.example.phone.spam") { error in … }
/// ```
///
/// What Linux forces: there are no extension bundles for the system to find, so the app
/// registers its provider under the identifier it would give its extension (once, at launch),
/// and registering enables it — no Settings app exists to switch it on; the app's own settings
/// call `setEnabled` on its manager. Each extension's store is `<storeDirectory>/<identifier>.store`.
public final class CallDirectoryExtensions: Sendable {
    /// Where the extensions' stores live.
    public let storeDirectory: String
    private let managers = Locked<[String: CallDirectoryManager]>([:])
    /// Reloads run here, one at a time, off the caller's thread (iOS runs them in the extension).
    private let reloads = DispatchQueue(label: "CallDirectory.CallDirectoryExtensions.reloads")

    /// Extensions whose stores go in `storeDirectory` (made when the first one registers).
    public init(storeDirectory: String) {
        self.storeDirectory = storeDirectory
    }

    /// The per-user directory for stores: `$XDG_DATA_HOME/voiceengine/call-directory`, or
    /// `$HOME/.local/share/voiceengine/call-directory` (the XDG base directory default), or the
    /// temporary directory's when neither is set.
    public static func defaultStoreDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = UserDataDirectory.path(environment: environment) ?? String(NSTemporaryDirectory().dropLast(NSTemporaryDirectory().hasSuffix("/") ? 1 : 0))
        return base + "/voiceengine/call-directory"
    }

    /// Registers `provider` as the extension `identifier` (letters, digits, `.`, `-` and `_`,
    /// 1–200 characters, not starting with `.`: it names the store file), enabled unless
    /// `isEnabled` is false, and returns its manager (for `isBlocked`, `label(for:)`, the
    /// incoming-call filter). Registering an identifier again replaces its provider; the
    /// entries its store holds stay in force until the next reload.
    /// - Throws: `invalidExtensionIdentifier`, `store` (the directory or store cannot be made or read).
    @discardableResult
    public func register(_ provider: any CallDirectoryProvider, withIdentifier identifier: String,
                         isEnabled: Bool = true) throws(CallDirectoryError) -> CallDirectoryManager {
        guard Self.isValid(identifier) else { throw .invalidExtensionIdentifier(identifier) }
        try Self.makeDirectory(storeDirectory)
        let manager = try CallDirectoryManager(storePath: storeDirectory + "/" + identifier + ".store", provider: provider,
                                               isEnabled: isEnabled)
        managers.withLock { $0[identifier] = manager }
        return manager
    }

    /// The manager of extension `identifier`, nil when none registered under it.
    public func manager(forExtensionWithIdentifier identifier: String) -> CallDirectoryManager? {
        managers.withLock { $0[identifier] }
    }

    /// Reloads extension `identifier` (its provider fills a request, the store is rewritten),
    /// then calls `completionHandler` with nil or the reason it failed — on a queue of the
    /// registry's, never on the caller's thread.
    public func reloadExtension(withIdentifier identifier: String,
                                completionHandler: @escaping @Sendable (CallDirectoryError?) -> Void) {
        let manager = manager(forExtensionWithIdentifier: identifier)
        reloads.async {
            guard let manager else { return completionHandler(.noExtensionFound(identifier: identifier)) }
            do throws(CallDirectoryError) {
                try manager.reload()
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    /// Calls `completionHandler` with whether extension `identifier` is enabled, or
    /// `noExtensionFound` (and `.unknown`) when none registered under it.
    public func getEnabledStatusForExtension(withIdentifier identifier: String,
                                             completionHandler: @escaping @Sendable (CallDirectoryManager.EnabledStatus, CallDirectoryError?) -> Void) {
        let manager = manager(forExtensionWithIdentifier: identifier)
        reloads.async {
            guard let manager else { return completionHandler(.unknown, .noExtensionFound(identifier: identifier)) }
            completionHandler(manager.enabledStatus, nil)
        }
    }

    /// Makes `path` and its missing parents (owner only: the stores say whom the user blocks).
    private static func makeDirectory(_ path: String) throws(CallDirectoryError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .store(.system(operation: "mkdir", path: prefix, .current))
            }
        }
    }

    private static func isValid(_ identifier: String) -> Bool {
        guard (1...200).contains(identifier.utf8.count), !identifier.hasPrefix(".") else { return false }
        return identifier.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
    }
}

extension CallDirectoryManager {
    /// The process's extensions (CXCallDirectoryManager's `sharedInstance`), stored in
    /// `CallDirectoryExtensions.defaultStoreDirectory()`.
    public static let sharedInstance = CallDirectoryExtensions(storeDirectory: CallDirectoryExtensions.defaultStoreDirectory())
}
