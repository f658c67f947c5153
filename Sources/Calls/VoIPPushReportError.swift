// SPDX-License-Identifier: Apache-2.0
/// Why `CallProvider.reportNewIncomingVoIPPushPayload` did not end in a reported call.
public enum VoIPPushReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `PushRegistry` is attached to this provider: there is no app delegate to wake.
    case noPushRegistry
    /// The dictionary is not a JSON object of at most 5 KB (every key a string, every value
    /// a string, number, boolean, null, array or dictionary of them).
    case invalidPayload
    /// The registry dropped the push (not registered for VoIP, delivery stopped, expired).
    case notDelivered
    /// The app's delegate did not report the call before its completion handler (a violation).
    case notReported

    public var description: String {
        switch self {
        case .noPushRegistry: "no PushRegistry is attached to the provider"
        case .invalidPayload: "the payload is not a JSON object of at most 5 KB"
        case .notDelivered: "the push registry dropped the push"
        case .notReported: "the app did not report the call"
        }
    }
}
