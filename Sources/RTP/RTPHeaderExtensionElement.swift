// SPDX-License-Identifier: Apache-2.0
/// One RFC 8285 header extension element: its local identifier and its data, borrowed from
/// the packet.
public struct RTPHeaderExtensionElement {
    /// The local identifier (1–14 in the one-byte form, 1–255 in the two-byte form).
    public let id: UInt8
    /// The element's data bytes.
    public let data: UnsafeRawBufferPointer
}
