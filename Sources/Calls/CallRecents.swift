// SPDX-License-Identifier: Apache-2.0
/// Where a provider records its calls when its configuration includes them in recents
/// (`ProviderConfiguration.includesCallsInRecents`) — what iOS's system does for a CallKit app,
/// with no code of the app's. The store lives in CallHistory (SQLite), a module built on this
/// one, so Calls cannot make it: the store comes in through `CallAudioSystem.recents` and
/// CallHistory fills that hook (`CallHistoryRecents`, per app under `$XDG_DATA_HOME`).
public protocol CallRecents: Sendable {
    /// Where the recents are kept (a database path), for errors and diagnostics.
    var location: String { get }
    /// Starts recording every call of `provider` from now on; the provider keeps what is
    /// returned for as long as it lives.
    /// - Throws: `CallProviderError.recents` when the store cannot be opened.
    func startRecording(_ provider: CallProvider) throws(CallProviderError) -> any CallRecentsRecording
}

/// A running recorder of a provider's calls into its recents (`CallProvider.recents`).
public protocol CallRecentsRecording: Sendable {
    /// Waits until every call change seen so far is written (or has failed and waits to be
    /// written again).
    func flush()
}
