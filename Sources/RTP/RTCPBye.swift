// SPDX-License-Identifier: Apache-2.0
/// An RTCP BYE packet (RFC 3550 §6.6): the listed sources are leaving, optionally with a
/// reason.
public struct RTCPBye: Sendable, Hashable {
    /// The departing SSRCs/CSRCs (at most 31).
    public var sources: [UInt32]
    /// Reason for leaving (at most 255 UTF-8 bytes), if given.
    public var reason: String?

    /// A BYE for the given sources.
    public init(sources: [UInt32], reason: String? = nil) {
        self.sources = sources
        self.reason = reason
    }

    init(body: UnsafeRawBufferPointer, count: Int, offset: Int) throws(RTCPParseError) {
        let listEnd = 4 * count
        guard listEnd <= body.count else { throw .malformedBye(offset: offset) }
        let sources = (0..<count).map { body.bigEndianUInt32(at: 4 * $0) }
        var reason: String? = nil
        if listEnd < body.count {
            let end = listEnd + 1 + Int(body[listEnd])
            guard end <= body.count else { throw .malformedBye(offset: offset) }
            // A zero-length reason is what padding after the list looks like: treat as none.
            if end > listEnd + 1 {
                reason = Self.reason(decoding: UnsafeRawBufferPointer(rebasing: body[(listEnd + 1)..<end]))
            }
        }
        self.init(sources: sources, reason: reason)
    }

    /// The reason's bytes as text. Bytes that are not UTF-8 become U+FFFD, three bytes each,
    /// so 255 of them would not fit the length byte again: characters past 255 UTF-8 bytes are
    /// dropped, and what parses can always be written back (found by the `rtcp` fuzz target).
    static func reason(decoding bytes: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count > 255 else { return text }
        var fitting = ""
        for character in text {
            guard fitting.utf8.count + character.utf8.count <= 255 else { break }
            fitting.append(character)
        }
        return fitting
    }

    func validate() throws(RTCPBuildError) {
        guard sources.count <= 31 else { throw .tooManyEntries(.bye, count: sources.count) }
        if let reason, reason.utf8.count > 255 { throw .reasonTooLong(length: reason.utf8.count) }
    }

    var bodyLength: Int {
        4 * sources.count + (reason.map { (1 + $0.utf8.count + 3) & ~3 } ?? 0)
    }

    func writeBody(into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        var offset = start
        for source in sources {
            buffer.storeBigEndian(source, at: offset)
            offset += 4
        }
        guard let reason else { return }
        let end = start + bodyLength
        buffer[offset] = UInt8(reason.utf8.count)
        offset += 1
        for byte in reason.utf8 { buffer[offset] = byte; offset += 1 }
        while offset < end { buffer[offset] = 0; offset += 1 }
    }
}
