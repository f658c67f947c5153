// SPDX-License-Identifier: Apache-2.0
/// One packet of an RTCP compound packet.
public enum RTCPPacket: Sendable, Hashable {
    /// A sender report (SR).
    case senderReport(RTCPSenderReport)
    /// A receiver report (RR).
    case receiverReport(RTCPReceiverReport)
    /// A source description (SDES).
    case sourceDescription(RTCPSourceDescription)
    /// A goodbye (BYE).
    case bye(RTCPBye)
    /// An extended report (XR, RFC 3611).
    case extendedReport(RTCPExtendedReport)
    /// Any other packet type, undecoded.
    case opaque(RTCPOpaquePacket)

    /// The packet's type.
    public var packetType: RTCPPacketType {
        switch self {
        case .senderReport: .senderReport
        case .receiverReport: .receiverReport
        case .sourceDescription: .sourceDescription
        case .bye: .bye
        case .extendedReport: .extendedReport
        case .opaque(let packet): packet.packetType
        }
    }

    /// Decodes the body of one packet whose header has been checked.
    init(type: RTCPPacketType, count: Int, body: UnsafeRawBufferPointer, offset: Int) throws(RTCPParseError) {
        switch type {
        case .senderReport: self = .senderReport(try RTCPSenderReport(body: body, count: count, offset: offset))
        case .receiverReport: self = .receiverReport(try RTCPReceiverReport(body: body, count: count, offset: offset))
        case .sourceDescription:
            self = .sourceDescription(try RTCPSourceDescription(body: body, count: count, offset: offset))
        case .bye: self = .bye(try RTCPBye(body: body, count: count, offset: offset))
        case .extendedReport: self = .extendedReport(try RTCPExtendedReport(body: body, offset: offset))
        default: self = .opaque(RTCPOpaquePacket(packetType: type, count: UInt8(count), body: Array(body)))
        }
    }

    /// Checks the packet can be written.
    func validate() throws(RTCPBuildError) {
        switch self {
        case .senderReport(let packet): try packet.validate()
        case .receiverReport(let packet): try packet.validate()
        case .sourceDescription(let packet): try packet.validate()
        case .bye(let packet): try packet.validate()
        case .extendedReport(let packet): try packet.validate()
        case .opaque(let packet): try packet.validate()
        }
        guard encodedLength <= 4 * 65_536 else { throw .packetTooLong(length: encodedLength) }
    }

    /// The 5-bit count field (reserved, 0, in an XR).
    private var count: Int {
        switch self {
        case .senderReport(let packet): packet.reportBlocks.count
        case .receiverReport(let packet): packet.reportBlocks.count
        case .sourceDescription(let packet): packet.chunks.count
        case .bye(let packet): packet.sources.count
        case .extendedReport: 0
        case .opaque(let packet): Int(packet.count)
        }
    }

    /// Bytes the packet occupies, header included.
    var encodedLength: Int {
        switch self {
        case .senderReport(let packet): 4 + packet.bodyLength
        case .receiverReport(let packet): 4 + packet.bodyLength
        case .sourceDescription(let packet): 4 + packet.bodyLength
        case .bye(let packet): 4 + packet.bodyLength
        case .extendedReport(let packet): 4 + packet.bodyLength
        case .opaque(let packet): 4 + packet.body.count
        }
    }

    /// Writes the validated packet at `offset`; the caller has checked the space.
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let length = encodedLength
        buffer[offset] = 2 << 6 | UInt8(count)
        buffer[offset + 1] = packetType.rawValue
        buffer.storeBigEndian(UInt16(length / 4 - 1), at: offset + 2)
        switch self {
        case .senderReport(let packet): packet.writeBody(into: buffer, at: offset + 4)
        case .receiverReport(let packet): packet.writeBody(into: buffer, at: offset + 4)
        case .sourceDescription(let packet): packet.writeBody(into: buffer, at: offset + 4)
        case .bye(let packet): packet.writeBody(into: buffer, at: offset + 4)
        case .extendedReport(let packet): packet.writeBody(into: buffer, at: offset + 4)
        case .opaque(let packet):
            for (index, byte) in packet.body.enumerated() { buffer[offset + 4 + index] = byte }
        }
    }
}
