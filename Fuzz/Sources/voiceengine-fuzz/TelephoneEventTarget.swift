// SPDX-License-Identifier: Apache-2.0
import RTP

/// `TelephoneEvent(decoding:)` (RFC 4733) over any bytes: a decoded event encodes back to the
/// same four bytes, except the reserved bit, which is dropped.
enum TelephoneEventTarget {
    static let target = FuzzTarget(name: "telephone-event", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let event = try? TelephoneEvent(decoding: bytes) else { return }
        check(bytes.count >= TelephoneEvent.encodedLength, "decoded from \(bytes.count) bytes")
        check(event.volume <= 63, "volume \(event.volume)")
        let encoded = event.encoded
        check(encoded == [bytes[0], bytes[1] & 0xBF, bytes[2], bytes[3]], "re-encoded \(encoded)")
        var buffer = [UInt8](repeating: 0, count: 4)
        let written = buffer.withUnsafeMutableBytes { (try? event.encode(into: $0)) ?? -1 }
        check(written == 4 && buffer == encoded, "encode(into:) differs from encoded")
        check((try? TelephoneEvent(decoding: encoded)) == event, "re-decoded event differs")
    }

    static func seeds() throws -> [[UInt8]] {
        [[0x05, 0x8A, 0x03, 0x20], [0x0B, 0x00, 0x00, 0xA0], [0x0F, 0x3F, 0xFF, 0xFF, 0x01]]
    }
}
