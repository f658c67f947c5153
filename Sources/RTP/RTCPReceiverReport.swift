// SPDX-License-Identifier: Apache-2.0
/// An RTCP receiver report (RR, RFC 3550 §6.4.2): reception report blocks from a
/// participant that is not sending.
public struct RTCPReceiverReport: Sendable, Hashable {
    /// The reporter's SSRC.
    public var ssrc: UInt32
    /// Reception report blocks (at most 31).
    public var reportBlocks: [RTCPReportBlock]
    /// Profile-specific extension bytes after the blocks (a multiple of 4; usually empty).
    public var profileExtension: [UInt8]

    /// A receiver report with the given fields.
    public init(ssrc: UInt32, reportBlocks: [RTCPReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }

    init(body: UnsafeRawBufferPointer, count: Int, offset: Int) throws(RTCPParseError) {
        let blocksEnd = 4 + count * RTCPReportBlock.encodedLength
        guard body.count >= blocksEnd else { throw .reportBlocksPastEnd(.receiverReport, offset: offset) }
        self.init(
            ssrc: body.bigEndianUInt32(at: 0),
            reportBlocks: (0..<count).map { RTCPReportBlock(parsing: body, at: 4 + $0 * RTCPReportBlock.encodedLength) },
            profileExtension: Array(body[blocksEnd...])
        )
    }

    func validate() throws(RTCPBuildError) {
        guard reportBlocks.count <= 31 else { throw .tooManyEntries(.receiverReport, count: reportBlocks.count) }
        guard profileExtension.count % 4 == 0 else {
            throw .notWordAligned(.receiverReport, length: profileExtension.count)
        }
    }

    var bodyLength: Int { 4 + reportBlocks.count * RTCPReportBlock.encodedLength + profileExtension.count }

    func writeBody(into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        buffer.storeBigEndian(ssrc, at: start)
        var offset = start + 4
        for block in reportBlocks {
            block.write(into: buffer, at: offset)
            offset += RTCPReportBlock.encodedLength
        }
        for byte in profileExtension { buffer[offset] = byte; offset += 1 }
    }
}
