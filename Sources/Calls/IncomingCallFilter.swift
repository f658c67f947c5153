// SPDX-License-Identifier: Apache-2.0
/// What the system decides about an incoming call's caller before the call rings, from a
/// call directory (CXCallDirectoryProvider's blocking and identification entries).
public enum IncomingCallDecision: Sendable, Hashable {
    /// Nothing known: the call rings as reported.
    case allow
    /// The caller is identified: `callerName` is shown when the app gave no name.
    case identify(callerName: String)
    /// The caller is blocked: `reportNewIncomingCall` fails with `filteredByBlockList`.
    case block
}

/// Consulted by `CallProvider.reportNewIncomingCall` for the caller's handle (set with
/// `CallProvider.incomingCallFilter`). It runs on the reporting thread before the provider
/// takes its lock, so it may look things up but must not call back into the provider.
public protocol IncomingCallFilter: Sendable {
    /// The decision for a call from `handle`.
    func decision(for handle: CallHandle) -> IncomingCallDecision
}
