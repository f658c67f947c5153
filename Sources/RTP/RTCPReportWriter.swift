// SPDX-License-Identifier: Apache-2.0
/// Writes the compound packets an RTP session sends (RFC 3550 §6.1) straight into a buffer,
/// packet by packet: a sender or receiver report with at most one report block, the SDES
/// CNAME, an RFC 3611 VoIP Metrics block, a BYE. The bytes are those
/// ``RTCPCompoundPacket/write(into:)`` writes for the same packets; no array is built, so a
/// call's periodic report allocates nothing.
///
/// ```swift
/// var writer = RTCPReportWriter(into: buffer)
/// try writer.receiverReport(ssrc: ssrc, reportBlock: block)
/// try writer.canonicalName(cname, ssrc: ssrc)
/// send(UnsafeRawBufferPointer(rebasing: buffer[0..<writer.length]))
/// ```
///
/// Each call checks its packet first and throws ``RTCPBuildError`` without writing anything.
public struct RTCPReportWriter {
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes written so far: the compound packet is `buffer[0..<length]`.
    public private(set) var length = 0

    /// A writer that starts at the beginning of `buffer`.
    public init(into buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    /// A sender report (PT 200) with `reportBlock` about the stream received, if any.
    public mutating func senderReport(ssrc: UInt32, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32,
                                      octetCount: UInt32, reportBlock: RTCPReportBlock?) throws(RTCPBuildError) {
        let blocks = reportBlock == nil ? 0 : 1
        let start = try header(type: .senderReport, count: blocks,
                               length: 4 + RTCPSenderReport.fixedLength + blocks * RTCPReportBlock.encodedLength)
        RTCPSenderReport.writeSenderInfo(ssrc: ssrc, ntpTimestamp: ntpTimestamp, rtpTimestamp: rtpTimestamp, packetCount: packetCount,
                                         octetCount: octetCount, into: buffer, at: start)
        reportBlock?.write(into: buffer, at: start + RTCPSenderReport.fixedLength)
    }

    /// A receiver report (PT 201) with `reportBlock` about the stream received, if any.
    public mutating func receiverReport(ssrc: UInt32, reportBlock: RTCPReportBlock?) throws(RTCPBuildError) {
        let blocks = reportBlock == nil ? 0 : 1
        let start = try header(type: .receiverReport, count: blocks, length: 8 + blocks * RTCPReportBlock.encodedLength)
        buffer.storeBigEndian(ssrc, at: start)
        reportBlock?.write(into: buffer, at: start + 4)
    }

    /// A source description (PT 202) of one chunk: `ssrc`'s CNAME item.
    public mutating func canonicalName(_ name: String, ssrc: UInt32) throws(RTCPBuildError) {
        let nameLength = name.utf8.count
        guard nameLength <= 255 else { throw .itemTooLong(length: nameLength) }
        // SSRC, the item, at least one null octet, padding to 32 bits.
        let chunkLength = (4 + 2 + nameLength + 1 + 3) & ~3
        let start = try header(type: .sourceDescription, count: 1, length: 4 + chunkLength)
        buffer.storeBigEndian(ssrc, at: start)
        buffer[start + 4] = RTCPSourceDescription.ItemType.canonicalName.rawValue
        buffer[start + 5] = UInt8(nameLength)
        var offset = start + 6
        for byte in name.utf8 {
            buffer[offset] = byte
            offset += 1
        }
        while offset < start + chunkLength {
            buffer[offset] = 0
            offset += 1
        }
    }

    /// An extended report (PT 207) from `ssrc` carrying one VoIP Metrics block.
    public mutating func voipMetrics(_ block: RTCPVoIPMetricsBlock, ssrc: UInt32) throws(RTCPBuildError) {
        try block.validate()
        let start = try header(type: .extendedReport, count: 0, length: 8 + RTCPVoIPMetricsBlock.encodedLength)
        buffer.storeBigEndian(ssrc, at: start)
        block.write(into: buffer, at: start + 4)
    }

    /// A BYE (PT 203) for `ssrc`, with `reason` if given.
    public mutating func bye(ssrc: UInt32, reason: String?) throws(RTCPBuildError) {
        let reasonLength = reason?.utf8.count ?? 0
        guard reasonLength <= 255 else { throw .reasonTooLong(length: reasonLength) }
        let reasonBytes = reason == nil ? 0 : (1 + reasonLength + 3) & ~3
        let start = try header(type: .bye, count: 1, length: 8 + reasonBytes)
        buffer.storeBigEndian(ssrc, at: start)
        guard let reason else { return }
        buffer[start + 4] = UInt8(reasonLength)
        var offset = start + 5
        for byte in reason.utf8 {
            buffer[offset] = byte
            offset += 1
        }
        while offset < start + 4 + reasonBytes {
            buffer[offset] = 0
            offset += 1
        }
    }

    /// Claims `length` bytes (header included) for a packet and writes its header; returns
    /// where its body starts.
    private mutating func header(type: RTCPPacketType, count: Int, length packetLength: Int) throws(RTCPBuildError) -> Int {
        guard length + packetLength <= buffer.count else {
            throw .bufferTooSmall(required: length + packetLength, available: buffer.count)
        }
        let offset = length
        buffer[offset] = 2 << 6 | UInt8(count)
        buffer[offset + 1] = type.rawValue
        buffer.storeBigEndian(UInt16(packetLength / 4 - 1), at: offset + 2)
        length += packetLength
        return offset + 4
    }
}
