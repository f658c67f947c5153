// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// The recents store a provider records into when its configuration includes calls in recents
/// (`CallAudioSystem.recents`): one SQLite `CallHistory` per app, opened when the provider is
/// made, every call written by a `CallHistoryRecorder` the provider keeps (`provider.recents`).
///
/// ```swift
/// let recents = try CallHistoryRecents(appName: "org.example.phone")   // $XDG_DATA_HOME/org.example.phone/recents.sqlite
/// let provider = try CallProvider(configuration: ProviderConfiguration(),
///                                 audio: CallAudioSystem(center: center, media: engine, recents: recents))
/// let history = (provider.recents as? CallHistoryRecorder)?.history
/// ```
///
/// What Linux forces: iOS's system keeps recents for every CallKit app with no code of the
/// app's; here no system process does, and Calls cannot open this store (CallHistory is built
/// on it), so the app names its store once, here, where both modules are visible.
public struct CallHistoryRecents: CallRecents {
    /// The database file.
    public let path: String
    /// How the recorder keeps and retries writes that failed.
    public let retryPolicy: CallHistoryRecorder.RetryPolicy

    /// Recents in the database at `path` (its directory is made, owner only, if missing).
    public init(path: String, retryPolicy: CallHistoryRecorder.RetryPolicy = CallHistoryRecorder.RetryPolicy()) {
        self.path = path
        self.retryPolicy = retryPolicy
    }

    /// The app's own recents, at `defaultPath(appName:environment:)`.
    /// - Throws: `invalidAppName`, `noDataDirectory`.
    public init(appName: String = ProcessInfo.processInfo.processName,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(CallHistoryError) {
        self.init(path: try Self.defaultPath(appName: appName, environment: environment))
    }

    /// `$XDG_DATA_HOME/<appName>/recents.sqlite`, or `$HOME/.local/share/<appName>/recents.sqlite`
    /// (the XDG base directory default): per user and per app, as iOS keeps each app's calls.
    /// - Throws: `invalidAppName` for a name that is empty, starts with "." or holds "/";
    ///   `noDataDirectory` when neither variable holds an absolute path.
    public static func defaultPath(appName: String, environment: [String: String]) throws(CallHistoryError) -> String {
        guard !appName.isEmpty, !appName.hasPrefix("."), !appName.contains("/") else { throw .invalidAppName(appName) }
        guard let base = UserDataDirectory.path(environment: environment) else { throw .noDataDirectory }
        return base + "/" + appName + "/recents.sqlite"
    }

    public var location: String { path }

    public func startRecording(_ provider: CallProvider) throws(CallProviderError) -> any CallRecentsRecording {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            // Owner only: the list says whom the user talks to.
            try FileManager.default.createDirectory(atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .recents(location: path, reason: "cannot make \(directory): \(error.localizedDescription)")
        }
        let history: CallHistory
        do {
            history = try CallHistory(path: path)
        } catch {
            throw .recents(location: path, reason: error.description)
        }
        return CallHistoryRecorder(provider: provider, history: history, retryPolicy: retryPolicy)
    }
}

extension CallHistoryRecorder: CallRecentsRecording {}
