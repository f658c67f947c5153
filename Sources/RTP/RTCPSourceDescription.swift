// SPDX-License-Identifier: Apache-2.0
/// An RTCP source description packet (RFC 3550 §6.5): for each source, a list of items
/// such as its CNAME.
public struct RTCPSourceDescription: Sendable, Hashable {
    /// The chunks, one per described source (at most 31).
    public var chunks: [Chunk]

    /// A source description with the given chunks.
    public init(chunks: [Chunk]) { self.chunks = chunks }

    /// The items describing one SSRC or CSRC.
    public struct Chunk: Sendable, Hashable {
        /// The described source.
        public var source: UInt32
        /// Its items, in order.
        public var items: [Item]

        /// A chunk with the given items.
        public init(source: UInt32, items: [Item]) {
            self.source = source
            self.items = items
        }

        /// The text of the first CNAME item, if any.
        public var canonicalName: String? { items.first { $0.type == .canonicalName }?.text }

        var encodedLength: Int {
            // SSRC, items, at least one null octet, padding to 32 bits.
            (4 + items.reduce(0) { $0 + 2 + $1.value.count } + 1 + 3) & ~3
        }
    }

    /// One SDES item: a type and up to 255 bytes of (normally UTF-8) value.
    public struct Item: Sendable, Hashable {
        /// The item type.
        public var type: ItemType
        /// The raw value bytes.
        public var value: [UInt8]

        /// An item with a raw value.
        public init(type: ItemType, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        /// An item with a text value (stored as UTF-8).
        public init(type: ItemType, text: String) {
            self.init(type: type, value: Array(text.utf8))
        }

        /// The value decoded as UTF-8 (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    /// An SDES item type (RFC 3550 §6.5; 0 is the END marker and never appears as an item).
    public struct ItemType: RawRepresentable, Sendable, Hashable {
        /// The wire value.
        public let rawValue: UInt8
        /// An item type from its wire value.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// CNAME, 1: canonical end-point identifier (required in every compound packet).
        public static let canonicalName = ItemType(rawValue: 1)
        /// NAME, 2: user name.
        public static let name = ItemType(rawValue: 2)
        /// EMAIL, 3.
        public static let email = ItemType(rawValue: 3)
        /// PHONE, 4.
        public static let phone = ItemType(rawValue: 4)
        /// LOC, 5: geographic location.
        public static let location = ItemType(rawValue: 5)
        /// TOOL, 6: application or tool name.
        public static let tool = ItemType(rawValue: 6)
        /// NOTE, 7: notice or status.
        public static let note = ItemType(rawValue: 7)
        /// PRIV, 8: private extension (value holds prefix length, prefix and value).
        public static let privateExtension = ItemType(rawValue: 8)
    }

    init(body: UnsafeRawBufferPointer, count: Int, offset: Int) throws(RTCPParseError) {
        var chunks: [Chunk] = []
        var position = 0
        for _ in 0..<count {
            guard position + 4 <= body.count else { throw .malformedSourceDescription(offset: offset) }
            var chunk = Chunk(source: body.bigEndianUInt32(at: position), items: [])
            position += 4
            while true {
                guard position < body.count else { throw .malformedSourceDescription(offset: offset) }
                let type = body[position]
                if type == 0 {
                    // END: skip the null octet(s) to the next 32-bit boundary.
                    position = (position + 4) & ~3
                    break
                }
                guard position + 2 <= body.count else { throw .malformedSourceDescription(offset: offset) }
                let end = position + 2 + Int(body[position + 1])
                guard end <= body.count else { throw .malformedSourceDescription(offset: offset) }
                chunk.items.append(Item(type: ItemType(rawValue: type), value: Array(body[(position + 2)..<end])))
                position = end
            }
            chunks.append(chunk)
        }
        self.init(chunks: chunks)
    }

    func validate() throws(RTCPBuildError) {
        guard chunks.count <= 31 else { throw .tooManyEntries(.sourceDescription, count: chunks.count) }
        for chunk in chunks {
            for item in chunk.items where item.value.count > 255 {
                throw .itemTooLong(length: item.value.count)
            }
        }
    }

    var bodyLength: Int { chunks.reduce(0) { $0 + $1.encodedLength } }

    func writeBody(into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        var offset = start
        for chunk in chunks {
            let end = offset + chunk.encodedLength
            buffer.storeBigEndian(chunk.source, at: offset)
            offset += 4
            for item in chunk.items {
                buffer[offset] = item.type.rawValue
                buffer[offset + 1] = UInt8(item.value.count)
                offset += 2
                for byte in item.value { buffer[offset] = byte; offset += 1 }
            }
            while offset < end { buffer[offset] = 0; offset += 1 }
        }
    }
}
