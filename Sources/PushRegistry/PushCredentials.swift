// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The channel a push arrives on.
public enum PushChannel: String, Sendable, Hashable, CaseIterable {
    /// The app's own signalling connection hands pushes in (`PushRegistry.deliver(jsonPayload:)`).
    case inProcess
    /// A UnifiedPush distributor on the D-Bus session bus (`UnifiedPushConnector`).
    case unifiedPush
}

/// What the app's server needs to push to this app (PKPushCredentials): a token, re-sent to
/// the server at every `didUpdate` (a new start or a rotation may change it).
public struct PushCredentials: Sendable, Hashable {
    /// The push type the credentials are for.
    public let type: PushType
    /// The channel they belong to.
    public let channel: PushChannel
    /// The token: 32 random bytes for the in-process channel; the endpoint URL's UTF-8 bytes
    /// for UnifiedPush (the URL the app server POSTs pushes to).
    public let token: Data

    /// Credentials of `type` on `channel` with `token`.
    public init(type: PushType, channel: PushChannel, token: Data) {
        self.type = type
        self.channel = channel
        self.token = token
    }

    /// The token as lowercase hex (what apps send to their server for a binary token).
    public var hexToken: String { token.map { String(format: "%02x", $0) }.joined() }

    /// The UnifiedPush endpoint URL, or nil for other channels.
    public var endpoint: String? { channel == .unifiedPush ? String(decoding: token, as: UTF8.self) : nil }
}
