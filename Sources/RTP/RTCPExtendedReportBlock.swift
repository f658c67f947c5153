// SPDX-License-Identifier: Apache-2.0
/// One report block of an RTCP extended report (RFC 3611 §3).
public enum RTCPExtendedReportBlock: Sendable, Hashable {
    /// A VoIP Metrics block (BT=7).
    case voipMetrics(RTCPVoIPMetricsBlock)
    /// Any other block type, undecoded.
    case opaque(RTCPOpaqueReportBlock)

    /// The block type (BT).
    public var blockType: UInt8 {
        switch self {
        case .voipMetrics: RTCPVoIPMetricsBlock.blockType
        case .opaque(let block): block.blockType
        }
    }

    /// Bytes the block occupies, its header included.
    var encodedLength: Int {
        switch self {
        case .voipMetrics: RTCPVoIPMetricsBlock.encodedLength
        case .opaque(let block): 4 + block.contents.count
        }
    }

    func validate() throws(RTCPBuildError) {
        switch self {
        case .voipMetrics(let block): try block.validate()
        case .opaque(let block): try block.validate()
        }
    }

    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        switch self {
        case .voipMetrics(let block): block.write(into: buffer, at: offset)
        case .opaque(let block): block.write(into: buffer, at: offset)
        }
    }
}
