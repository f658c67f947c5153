// SPDX-License-Identifier: Apache-2.0
/// A received RTP header extension: its profile value and data, borrowed from the packet
/// (see ``RTPPacketView/headerExtension``).
///
/// For the RFC 8285 forms, ``elements`` iterates the `(id, data)` elements without
/// allocating; padding bytes are skipped and, in the one-byte form, iteration stops at the
/// reserved id 15 as RFC 8285 §4.2 requires.
public struct RTPHeaderExtensionView {
    /// The 16-bit "defined by profile" field.
    public let profile: UInt16
    /// The extension data after the 4-byte extension header (a multiple of 4 bytes).
    public let data: UnsafeRawBufferPointer

    /// The layout given by ``profile``.
    public var form: RTPHeaderExtensionForm { RTPHeaderExtensionForm(profile: profile) }

    /// The RFC 8285 elements (empty for a generic extension).
    public var elements: RTPHeaderExtensionElements {
        switch form {
        case .oneByte: RTPHeaderExtensionElements(data: data, twoByte: false)
        case .twoByte: RTPHeaderExtensionElements(data: data, twoByte: true)
        case .generic: RTPHeaderExtensionElements(data: UnsafeRawBufferPointer(start: nil, count: 0), twoByte: false)
        }
    }

    /// The data of the first element with identifier `id`, or `nil` if there is none.
    public func element(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in elements where element.id == id { return element.data }
        return nil
    }

    /// Checks that every RFC 8285 element of an extension with `profile` fits in `data`.
    static func validateElements(profile: UInt16, data: UnsafeRawBufferPointer) throws(RTPParseError) {
        let twoByte: Bool
        switch RTPHeaderExtensionForm(profile: profile) {
        case .oneByte: twoByte = false
        case .twoByte: twoByte = true
        case .generic: return
        }
        var offset = 0
        while offset < data.count {
            switch RTPHeaderExtensionElements.step(data: data, offset: offset, twoByte: twoByte) {
            case .padding(let next): offset = next
            case .element(_, _, let next): offset = next
            case .stop: return
            case .malformed: throw .malformedExtensionElement(offset: offset)
            }
        }
    }
}
