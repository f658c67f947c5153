// SPDX-License-Identifier: Apache-2.0
/// A header extension to send: an RFC 8285 one-byte or two-byte element list, or a generic
/// RFC 3550 extension, encoded into fixed-capacity inline storage (no heap allocation).
///
/// ```swift
/// var ext = RTPHeaderExtension(form: .oneByte)
/// try ext.append(id: 1, data: CollectionOfOne(0x80 | 42))   // RFC 6464 audio level
/// header.headerExtension = ext
/// ```
public struct RTPHeaderExtension: Sendable, Hashable {
    /// Largest extension data (after the 4-byte extension header, before padding) this type
    /// stores. Larger extensions are valid RTP but rare for voice; they are rejected with
    /// ``RTPBuildError/extensionTooLarge(_:)``.
    public static let capacity = 256

    /// The extension's layout.
    public let form: RTPHeaderExtensionForm
    private var storage = InlineArray<256, UInt8>(repeating: 0)
    /// Bytes of element (or generic) data encoded so far, before padding to 32 bits.
    public private(set) var dataLength = 0

    /// An empty extension of the given form.
    public init(form: RTPHeaderExtensionForm) {
        self.form = form
    }

    /// Copies a received extension. RFC 8285 elements are re-encoded without their padding;
    /// generic data is copied as is.
    /// - Throws: ``RTPBuildError/extensionTooLarge(_:)`` if the data exceeds ``capacity``.
    public init(_ view: RTPHeaderExtensionView) throws(RTPBuildError) {
        self.init(form: view.form)
        switch form {
        case .oneByte, .twoByte:
            for element in view.elements { try append(id: element.id, data: element.data) }
        case .generic:
            try appendData(view.data)
        }
    }

    /// Whether the extension has no data.
    public var isEmpty: Bool { dataLength == 0 }

    /// Bytes this extension occupies in a packet: 4-byte header plus data padded to 32 bits.
    public var encodedLength: Int { 4 + (dataLength + 3) & ~3 }

    /// Appends an RFC 8285 element.
    /// - Throws: ``RTPBuildError`` if the form is generic, the id or length is out of range
    ///   for the form, or the data would exceed ``capacity``.
    public mutating func append(id: UInt8, data: some Collection<UInt8>) throws(RTPBuildError) {
        let length = data.count
        let headerBytes: Int
        switch form {
        case .generic:
            throw .wrongExtensionForm
        case .oneByte:
            guard id >= 1 && id <= 14 else { throw .invalidExtensionElementID(id) }
            guard length >= 1 && length <= 16 else { throw .invalidExtensionElementLength(length) }
            headerBytes = 1
        case .twoByte:
            guard id >= 1 else { throw .invalidExtensionElementID(id) }
            guard length <= 255 else { throw .invalidExtensionElementLength(length) }
            headerBytes = 2
        }
        let newLength = dataLength + headerBytes + length
        guard newLength <= Self.capacity else { throw .extensionTooLarge(newLength) }
        if headerBytes == 1 {
            storage[dataLength] = id << 4 | UInt8(length - 1)
        } else {
            storage[dataLength] = id
            storage[dataLength + 1] = UInt8(length)
        }
        var index = dataLength + headerBytes
        for byte in data { storage[index] = byte; index += 1 }
        dataLength = newLength
    }

    /// Appends an RFC 8285 element whose data is in a raw buffer.
    /// - Throws: as the collection overload.
    public mutating func append(id: UInt8, data: UnsafeRawBufferPointer) throws(RTPBuildError) {
        try append(id: id, data: UnsafeBufferPointer(start: data.baseAddress?.assumingMemoryBound(to: UInt8.self), count: data.count))
    }

    /// Appends raw data to a generic (RFC 3550) extension; it is zero-padded to 32 bits when
    /// written.
    /// - Throws: ``RTPBuildError/wrongExtensionForm`` for an RFC 8285 form, or
    ///   ``RTPBuildError/extensionTooLarge(_:)``.
    public mutating func appendData(_ data: some Collection<UInt8>) throws(RTPBuildError) {
        guard case .generic = form else { throw .wrongExtensionForm }
        let newLength = dataLength + data.count
        guard newLength <= Self.capacity else { throw .extensionTooLarge(newLength) }
        var index = dataLength
        for byte in data { storage[index] = byte; index += 1 }
        dataLength = newLength
    }

    /// Appends raw data from a buffer to a generic extension (see the collection overload).
    public mutating func appendData(_ data: UnsafeRawBufferPointer) throws(RTPBuildError) {
        try appendData(UnsafeBufferPointer(start: data.baseAddress?.assumingMemoryBound(to: UInt8.self), count: data.count))
    }

    /// Removes all data, keeping the form.
    public mutating func removeAll() { dataLength = 0 }

    /// Writes the extension (header, data, zero padding) at `offset`; the caller has checked
    /// that ``encodedLength`` bytes fit.
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let padded = (dataLength + 3) & ~3
        buffer.storeBigEndian(form.profile, at: offset)
        buffer.storeBigEndian(UInt16(padded / 4), at: offset + 2)
        for index in 0..<dataLength { buffer[offset + 4 + index] = storage[index] }
        for index in dataLength..<padded { buffer[offset + 4 + index] = 0 }
    }

    /// Extensions are equal when form and encoded data are equal.
    public static func == (lhs: RTPHeaderExtension, rhs: RTPHeaderExtension) -> Bool {
        guard lhs.form == rhs.form, lhs.dataLength == rhs.dataLength else { return false }
        for index in 0..<lhs.dataLength where lhs.storage[index] != rhs.storage[index] { return false }
        return true
    }

    /// Hashes form and encoded data.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(form)
        hasher.combine(dataLength)
        for index in 0..<dataLength { hasher.combine(storage[index]) }
    }
}
