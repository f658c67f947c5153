// SPDX-License-Identifier: Apache-2.0
/// The layout of an RTP header extension, decided by its 16-bit "defined by profile" field.
public enum RTPHeaderExtensionForm: Sendable, Hashable {
    /// RFC 8285 one-byte header elements (profile `0xBEDE`): ids 1–14, 1–16 data bytes.
    case oneByte
    /// RFC 8285 two-byte header elements (profile `0x100` followed by 4 application bits):
    /// ids 1–255, 0–255 data bytes.
    case twoByte(appBits: UInt8)
    /// A plain RFC 3550 extension: a profile-defined value and opaque 32-bit words.
    case generic(profile: UInt16)

    /// The RFC 8285 one-byte form's profile value.
    public static let oneByteProfile: UInt16 = 0xBEDE
    /// The RFC 8285 two-byte form's profile value (low 4 bits are application bits).
    public static let twoByteProfile: UInt16 = 0x1000

    /// The form a received extension with this profile value uses.
    public init(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == Self.twoByteProfile {
            self = .twoByte(appBits: UInt8(profile & 0x0F))
        } else {
            self = .generic(profile: profile)
        }
    }

    /// The 16-bit profile value written on the wire.
    public var profile: UInt16 {
        switch self {
        case .oneByte: Self.oneByteProfile
        case .twoByte(let appBits): Self.twoByteProfile | UInt16(appBits & 0x0F)
        case .generic(let profile): profile
        }
    }
}
