// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// What the system knows about a VoIP push besides its payload (PushKit's metadata).
public struct VoIPPushMetadata: Sendable, Hashable {
    /// The push must be reported as an incoming call (`CallProvider.reportNewIncomingCall`)
    /// before the app calls the delegate's completion handler (or returns, in the returning
    /// form). False when the app already has a call, or when the
    /// push is stale (older than `PushRegistryConfiguration.freshnessLimit`): the app may then
    /// check with its server first and report only a call that still exists.
    public let mustReport: Bool
    /// Seconds from the server's send time to delivery (0 when the sender's clock is ahead);
    /// nil when the payload gave no send time.
    public let age: Double?
    /// Older than the freshness limit.
    public let isStale: Bool
    /// The app had a call when the push arrived.
    public let appHadCall: Bool
    /// The channel it came on.
    public let channel: PushChannel

    /// Metadata with these values.
    public init(mustReport: Bool, age: Double?, isStale: Bool, appHadCall: Bool, channel: PushChannel) {
        self.mustReport = mustReport
        self.age = age
        self.isStale = isStale
        self.appHadCall = appHadCall
        self.channel = channel
    }
}

/// A push the registry reported and ended itself, without the delegate's
/// `didReceiveIncomingVoIPPush` (there is nothing for the app to ring).
public struct HandledVoIPPush: Sendable, Equatable {
    /// Why the registry handled it.
    public enum Reason: Sendable, Equatable {
        /// The signalling says the caller hung up before the push arrived: reported and ended
        /// `remoteEnded` at once (no ghost ringing).
        case cancelled
        /// The bytes are not a JSON object of at most 5 KB (nothing for the app to read):
        /// reported with nothing known, ended `failed`.
        case unusablePayload(PushPayloadError)
    }

    /// Why.
    public let reason: Reason
    /// The call the push named (the payload's id, or a new UUID when it had none); the
    /// registry reported it itself unless the app had reported it under its own UUIDs.
    public let callUUID: UUID
    /// What was known of the call.
    public let fields: PushPayloadFields
    /// The provider's answer to the report: nil when it took the call, else its refusal.
    public let reportError: IncomingCallError?
    /// The channel it came on.
    public let channel: PushChannel
    /// The calls the registry ended for this push: `callUUID`, or for a cancel of a push the
    /// app reported under UUIDs of its own, those (so no call rings on after its push was
    /// cancelled; the app ends its signalling for them here).
    public let endedCallUUIDs: [UUID]
}
