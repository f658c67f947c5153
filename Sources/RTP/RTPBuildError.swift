// SPDX-License-Identifier: Apache-2.0
/// Why an RTP header, header extension or CSRC list could not be built or written.
public enum RTPBuildError: Error, Sendable, Hashable {
    /// The destination buffer holds `available` bytes but `required` are needed.
    case bufferTooSmall(required: Int, available: Int)
    /// More than 15 CSRC identifiers.
    case tooManyCSRCs
    /// The payload type does not fit in 7 bits.
    case invalidPayloadType(UInt8)
    /// The padding count is outside 1...255 (0 means "no padding" and is always allowed).
    case invalidPaddingCount(Int)
    /// An extension element identifier outside 1...14 (one-byte form) or 1...255 (two-byte).
    case invalidExtensionElementID(UInt8)
    /// An extension element's data length is outside 1...16 (one-byte form) or 0...255
    /// (two-byte form).
    case invalidExtensionElementLength(Int)
    /// The extension's data would exceed ``RTPHeaderExtension/capacity`` bytes.
    case extensionTooLarge(Int)
    /// An element was appended to a generic (RFC 3550) extension, or raw data to an
    /// RFC 8285 one.
    case wrongExtensionForm
}
