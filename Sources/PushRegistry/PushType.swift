// SPDX-License-Identifier: Apache-2.0
/// A kind of push an app asks for (PKPushType). Only VoIP pushes exist here: they carry
/// incoming calls, nothing else (APPLE-MODEL, PushKit).
public struct PushType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// PKPushType's string for the kind.
    public let rawValue: String

    /// A push type with `rawValue` (PKPushType's strings).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Pushes that announce incoming calls: each must be reported as an incoming call.
    public static let voIP = PushType(rawValue: "PKPushTypeVoIP")

    public var description: String { rawValue }
}
