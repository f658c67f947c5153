// SPDX-License-Identifier: Apache-2.0
/// An RTCP sender report (SR, RFC 3550 §6.4.1): the sender's clocks and counts, plus
/// reception report blocks about the sources it hears.
public struct RTCPSenderReport: Sendable, Hashable {
    /// The sender's SSRC.
    public var ssrc: UInt32
    /// Wall-clock time the report was sent.
    public var ntpTimestamp: NTPTimestamp
    /// The same instant in the sender's RTP timestamp units.
    public var rtpTimestamp: UInt32
    /// Packets sent since the sender started (wraps).
    public var packetCount: UInt32
    /// Payload octets sent since the sender started (wraps).
    public var octetCount: UInt32
    /// Reception report blocks (at most 31).
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the blocks (a multiple of 4; usually empty).
    public var profileExtension: [UInt8]

    /// A sender report with the given fields.
    public init(
        ssrc: UInt32,
        ntpTimestamp: NTPTimestamp,
        rtpTimestamp: UInt32,
        packetCount: UInt32,
        octetCount: UInt32,
        reportBlocks: [RTCPReportBlock] = [],
        profileExtension: [UInt8] = []
    ) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    static let fixedLength = 24

    init(body: UnsafeRawBufferPointer, count: Int, offset: Int) throws(RTCPParseError) {
        let blocksEnd = Self.fixedLength + count * RTCPReportBlock.encodedLength
        guard body.count >= blocksEnd else { throw .reportBlocksPastEnd(.senderReport, offset: offset) }
        self.init(
            ssrc: body.bigEndianUInt32(at: 0),
            ntpTimestamp: NTPTimestamp(seconds: body.bigEndianUInt32(at: 4), fraction: body.bigEndianUInt32(at: 8)),
            rtpTimestamp: body.bigEndianUInt32(at: 12),
            packetCount: body.bigEndianUInt32(at: 16),
            octetCount: body.bigEndianUInt32(at: 20),
            reportBlocks: (0..<count).map {
                RTCPReportBlock(parsing: body, at: Self.fixedLength + $0 * RTCPReportBlock.encodedLength)
            },
            profileExtension: Array(body[blocksEnd...])
        )
    }

    func validate() throws(RTCPBuildError) {
        guard reportBlocks.count <= 31 else { throw .tooManyEntries(.senderReport, count: reportBlocks.count) }
        guard profileExtension.count % 4 == 0 else {
            throw .notWordAligned(.senderReport, length: profileExtension.count)
        }
    }

    /// Writes the SSRC and sender info (RFC 3550 §6.4.1), `fixedLength` bytes, at `start`.
    static func writeSenderInfo(ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                                into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        buffer.storeBigEndian(ssrc, at: start)
        buffer.storeBigEndian(ntpTimestamp.seconds, at: start + 4)
        buffer.storeBigEndian(ntpTimestamp.fraction, at: start + 8)
        buffer.storeBigEndian(rtpTimestamp, at: start + 12)
        buffer.storeBigEndian(packetCount, at: start + 16)
        buffer.storeBigEndian(octetCount, at: start + 20)
    }

    var bodyLength: Int { Self.fixedLength + reportBlocks.count * RTCPReportBlock.encodedLength + profileExtension.count }

    func writeBody(into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        Self.writeSenderInfo(ssrc: ssrc, ntpTimestamp: ntpTimestamp, rtpTimestamp: rtpTimestamp, packetCount: packetCount,
                             octetCount: octetCount, into: buffer, at: start)
        var offset = start + Self.fixedLength
        for block in reportBlocks {
            block.write(into: buffer, at: offset)
            offset += RTCPReportBlock.encodedLength
        }
        for byte in profileExtension { buffer[offset] = byte; offset += 1 }
    }
}
