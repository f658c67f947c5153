// SPDX-License-Identifier: Apache-2.0

/// A voice codec a call can carry, with the facts RTP and SDP need about it.
///
/// The RTP clock rate is the codec's, not its sample rate: G.722 samples at 16 kHz but its
/// RTP clock runs at 8,000 Hz (RFC 3551 §4.5.2, kept for historical reasons), and Opus's
/// clock is 48,000 Hz whatever rate it is decoded at (RFC 7587).
public enum AudioCodec: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Opus (RFC 6716, RTP payload RFC 7587): 6–510 kb/s, narrowband to fullband, in-band FEC, DTX.
    case opus
    /// G.711 μ-law (PCMU, static payload type 0): 64 kb/s narrowband, North America and Japan.
    case pcmu
    /// G.711 A-law (PCMA, static payload type 8): 64 kb/s narrowband, everywhere else.
    case pcma
    /// G.722 (static payload type 9): 64 kb/s wideband (50–7,000 Hz) sub-band ADPCM.
    case g722

    /// The encoding name in SDP's `a=rtpmap` (matched case-insensitively, RFC 4855).
    public var encodingName: String {
        switch self {
        case .opus: "opus"
        case .pcmu: "PCMU"
        case .pcma: "PCMA"
        case .g722: "G722"
        }
    }

    /// The RTP timestamp clock in Hz (what `a=rtpmap` carries after the name).
    public var rtpClockRate: Int {
        switch self {
        case .opus: 48_000
        case .pcmu, .pcma, .g722: 8_000
        }
    }

    /// The channel count `a=rtpmap` names (Opus is always signalled as 2, RFC 7587 §7).
    public var rtpChannels: Int? { self == .opus ? 2 : nil }

    /// The sample rate the codec itself works at, in Hz.
    public var nativeSampleRate: Int {
        switch self {
        case .opus: 48_000
        case .pcmu, .pcma: 8_000
        case .g722: 16_000
        }
    }

    /// The payload type RFC 3551 assigns, or `nil` for a codec that takes a dynamic one.
    public var staticPayloadType: UInt8? {
        switch self {
        case .opus: nil
        case .pcmu: 0
        case .pcma: 8
        case .g722: 9
        }
    }

    /// What the codec can do beyond encoding and decoding.
    public var capabilities: AudioCodecCapabilities {
        switch self {
        case .opus: [.nativeConcealment, .inbandFEC, .discontinuousTransmission, .adjustableBitrate]
        case .pcmu, .pcma, .g722: []
        }
    }

    /// The codec's bit rate in b/s where it is fixed (`nil` for Opus, whose rate is set).
    public var fixedBitrate: Int? { self == .opus ? nil : 64_000 }

    /// The codec whose SDP encoding name and clock rate these are (name case-insensitive).
    public init?(encodingName: String, clockRate: Int) {
        guard let codec = Self.allCases.first(where: {
            $0.encodingName.caseInsensitiveCompare(encodingName) && $0.rtpClockRate == clockRate
        }) else { return nil }
        self = codec
    }

    /// The codec a static payload type stands for when a description lists it without `a=rtpmap`.
    public init?(staticPayloadType: UInt8) {
        guard let codec = Self.allCases.first(where: { $0.staticPayloadType == staticPayloadType }) else { return nil }
        self = codec
    }

    public var description: String { encodingName }
}

extension String {
    /// ASCII case-insensitive equality (SDP names are ASCII tokens; no Foundation here).
    fileprivate func caseInsensitiveCompare(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in Self.lowercased(a) == Self.lowercased(b) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}
