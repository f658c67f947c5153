// SPDX-License-Identifier: Apache-2.0
import RTP

/// `RTPPacketView` over any bytes: every accessor of a parsed view stays inside the buffer,
/// the RFC 8285 elements tile the extension, and a copied header writes back to the same bytes.
enum RTPPacketTarget {
    static let target = FuzzTarget(name: "rtp", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let packet = try? RTPPacketView(bytes) else { return }
        check(packet.version == 2, "version \(packet.version)")
        check(packet.headerLength >= RTPPacketView.fixedHeaderLength && packet.headerLength + packet.paddingCount <= bytes.count,
              "header \(packet.headerLength) + padding \(packet.paddingCount) in \(bytes.count) bytes")
        check(packet.payloadRange.lowerBound <= packet.payloadRange.upperBound && packet.payloadRange.upperBound <= bytes.count,
              "payload range \(packet.payloadRange) of \(bytes.count)")
        var sum = 0
        for index in 0..<packet.csrcCount { sum &+= Int(packet.csrc(at: index)) }
        if let headerExtension = packet.headerExtension {
            let start = headerExtension.data.baseAddress.map { $0 - bytes.baseAddress! } ?? 0
            check(start >= 0 && start + headerExtension.data.count <= packet.headerLength,
                  "extension data at \(start)+\(headerExtension.data.count) outside the header of \(packet.headerLength)")
            for element in headerExtension.elements {
                let elementStart = element.data.baseAddress.map { $0 - bytes.baseAddress! } ?? start
                check(elementStart >= start && elementStart + element.data.count <= start + headerExtension.data.count,
                      "element \(element.id) outside its extension")
                sum &+= element.data.reduce(0) { $0 &+ Int($1) }
                _ = headerExtension.element(id: element.id)
            }
        }
        sum &+= packet.payload.reduce(0) { $0 &+ Int($1) }
        // Copy the header and write it again: the same header fields come back.
        guard let header = try? RTPHeader(packet) else { return }
        var rewritten = [UInt8](repeating: 0, count: header.encodedLength + packet.payload.count + 255)
        let length = rewritten.withUnsafeMutableBytes { buffer in
            (try? header.write(payload: packet.payload, into: buffer)) ?? -1
        }
        check(length > 0, "a header copied from a parsed packet could not be written")
        rewritten.withUnsafeBytes { buffer in
            guard let again = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) else {
                check(false, "a rewritten header does not parse")
                return
            }
            check(again.sequenceNumber == packet.sequenceNumber && again.timestamp == packet.timestamp
                  && again.ssrc == packet.ssrc && again.payloadType == packet.payloadType && again.marker == packet.marker
                  && again.csrcCount == packet.csrcCount && again.payload.count == packet.payload.count,
                  "rewritten header differs")
        }
        blackHole(sum)
    }

    static func seeds() throws -> [[UInt8]] {
        var headerExtension = RTPHeaderExtension(form: .oneByte)
        try headerExtension.append(id: 1, data: [0x42])
        try headerExtension.append(id: 3, data: [1, 2, 3])
        var twoByte = RTPHeaderExtension(form: .twoByte(appBits: 0))
        try twoByte.append(id: 200, data: [9, 9])
        return [
            try packet(RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 960, ssrc: 0x1234_5678), payload: [0xF8, 0xFF, 0xFE]),
            try packet(RTPHeader(marker: true, payloadType: 101, sequenceNumber: 65535, timestamp: 0, ssrc: 1,
                                 csrcs: [7, 8], headerExtension: headerExtension), payload: [5, 0x8A, 3, 0x20], padding: 4),
            try packet(RTPHeader(payloadType: 0, sequenceNumber: 2, timestamp: 3, ssrc: 4, headerExtension: twoByte), payload: []),
        ]
    }

    static func packet(_ header: RTPHeader, payload: [UInt8], padding: Int = 0) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: header.encodedLength + payload.count + padding)
        _ = try bytes.withUnsafeMutableBytes { buffer in
            try payload.withUnsafeBytes { try header.write(payload: $0, paddingCount: padding, into: buffer) }
        }
        return bytes
    }
}

/// Keeps a value alive so the optimizer cannot drop the reads that produced it.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
