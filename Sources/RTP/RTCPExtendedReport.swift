// SPDX-License-Identifier: Apache-2.0
/// An RTCP extended report (XR, RFC 3611 §2): report blocks from one participant, each framed
/// by its type and length so a receiver skips the types it does not know.
///
/// VoIP Metrics blocks (§4.7) are decoded (``RTCPVoIPMetricsBlock``); every other block type is
/// kept as an ``RTCPOpaqueReportBlock``. A block whose length runs past the packet, or a VoIP
/// Metrics block of the wrong length, is an ``RTCPParseError``. The header's 5-bit count field
/// is reserved by RFC 3611: ignored when parsed, written as 0.
public struct RTCPExtendedReport: Sendable, Hashable {
    /// The reporter's SSRC.
    public var ssrc: UInt32
    /// The report blocks, in packet order.
    public var blocks: [RTCPExtendedReportBlock]

    /// An extended report with the given blocks.
    public init(ssrc: UInt32, blocks: [RTCPExtendedReportBlock]) {
        self.ssrc = ssrc
        self.blocks = blocks
    }

    /// The VoIP Metrics blocks, in packet order.
    public var voipMetrics: [RTCPVoIPMetricsBlock] {
        blocks.compactMap { if case .voipMetrics(let block) = $0 { block } else { nil } }
    }

    /// Decodes the body (after the 4-byte header, padding removed) of the packet at `offset`.
    init(body: UnsafeRawBufferPointer, offset: Int) throws(RTCPParseError) {
        guard body.count >= 4 else { throw .malformedExtendedReport(offset: offset) }
        var blocks: [RTCPExtendedReportBlock] = []
        var position = 4
        while position < body.count {
            let blockOffset = offset + 4 + position
            guard position + 4 <= body.count else { throw .reportBlockPastEnd(offset: offset, blockOffset: blockOffset) }
            let type = body[position]
            let length = (Int(body.bigEndianUInt16(at: position + 2)) + 1) * 4
            let end = position + length
            guard end <= body.count else { throw .reportBlockPastEnd(offset: offset, blockOffset: blockOffset) }
            let contents = UnsafeRawBufferPointer(rebasing: body[(position + 4)..<end])
            switch type {
            case RTCPVoIPMetricsBlock.blockType:
                guard length == RTCPVoIPMetricsBlock.encodedLength else {
                    throw .invalidReportBlockLength(blockType: type, length: length, blockOffset: blockOffset)
                }
                blocks.append(.voipMetrics(RTCPVoIPMetricsBlock(parsing: contents)))
            default:
                blocks.append(.opaque(RTCPOpaqueReportBlock(blockType: type, typeSpecific: body[position + 1], contents: Array(contents))))
            }
            position = end
        }
        self.init(ssrc: body.bigEndianUInt32(at: 0), blocks: blocks)
    }

    func validate() throws(RTCPBuildError) {
        for block in blocks { try block.validate() }
    }

    var bodyLength: Int { blocks.reduce(4) { $0 + $1.encodedLength } }

    func writeBody(into buffer: UnsafeMutableRawBufferPointer, at start: Int) {
        buffer.storeBigEndian(ssrc, at: start)
        var offset = start + 4
        for block in blocks {
            block.write(into: buffer, at: offset)
            offset += block.encodedLength
        }
    }
}
