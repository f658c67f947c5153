// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// A VoIP push's payload, parsed (`PushPayloadParser`): the call it announces.
///
/// The JSON the app's server sends (keys and types):
/// ```json
/// { "callId": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",   // UUID string, required
///   "handle": "+4930123456",                           // string, required
///   "handleType": "phoneNumber",                       // generic | phoneNumber | emailAddress (default generic)
///   "callerName": "Alice",                             // string, optional
///   "sentAt": 1764571200.25,                           // seconds since 1970, when the server sent it
///   "expiresAt": 1764571230,                           // seconds since 1970, optional: dropped after
///   "cancelled": false,                                // the caller already hung up (optional)
///   "video": false }                                   // optional
/// ```
/// Strings are at most `PushPayloadParser.maximumStringLength` characters, the whole payload at
/// most `PushPayloadParser.maximumSize` bytes; times are finite and between 1970 and 2200.
public struct VoIPPushPayload: Sendable, Hashable {
    /// The call's identity, used as the CallKit call UUID.
    public var callUUID: UUID
    /// Who calls.
    public var handle: CallHandle
    /// The caller's name, when the server sent one.
    public var callerName: String?
    /// When the server sent the push; nil when the payload did not say (age unknown).
    public var sentAt: Date?
    /// After this the push is dropped, not delivered; nil: no expiry.
    public var expiresAt: Date?
    /// The caller hung up before the push arrived.
    public var isCancelled: Bool
    /// The call has video.
    public var hasVideo: Bool
    /// Problems with optional fields, which were ignored (a `sentAt` that is not a number, …).
    public var ignoredFields: [PushPayloadError]

    /// A payload with these values.
    public init(callUUID: UUID, handle: CallHandle, callerName: String? = nil, sentAt: Date? = nil, expiresAt: Date? = nil,
                isCancelled: Bool = false, hasVideo: Bool = false, ignoredFields: [PushPayloadError] = []) {
        self.callUUID = callUUID
        self.handle = handle
        self.callerName = callerName
        self.sentAt = sentAt
        self.expiresAt = expiresAt
        self.isCancelled = isCancelled
        self.hasVideo = hasVideo
        self.ignoredFields = ignoredFields
    }

    /// The call update to report this call with.
    public var callUpdate: CallUpdate {
        CallUpdate(remoteHandle: handle, localizedCallerName: callerName, hasVideo: hasVideo)
    }

    /// The JSON for this payload (what a server sends; tests and the in-process channel).
    public var jsonData: Data {
        var object: [String: Any] = [
            "callId": callUUID.uuidString, "handle": handle.value, "handleType": PushPayloadParser.name(of: handle.kind),
            "cancelled": isCancelled, "video": hasVideo,
        ]
        if let callerName { object["callerName"] = callerName }
        if let sentAt { object["sentAt"] = sentAt.timeIntervalSince1970 }
        if let expiresAt { object["expiresAt"] = expiresAt.timeIntervalSince1970 }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}

/// Whatever a payload held that can be used, each field on its own: what a bad payload's
/// call is still reported with.
public struct PushPayloadFields: Sendable, Hashable {
    /// The call id, when present and a valid UUID.
    public var callUUID: UUID?
    /// The handle, when present and usable.
    public var handle: CallHandle?
    /// The caller's name, when present and usable.
    public var callerName: String?
    /// The send time, when present and usable.
    public var sentAt: Date?
    /// The expiry, when present and usable.
    public var expiresAt: Date?
    /// Whether the payload said the call was cancelled (false when absent or unusable).
    public var isCancelled = false
    /// Whether the payload said the call has video.
    public var hasVideo = false

    /// No fields.
    public init() {}

    /// The update to report a call with what is known.
    public var callUpdate: CallUpdate {
        CallUpdate(remoteHandle: handle, localizedCallerName: callerName, hasVideo: hasVideo)
    }
}
