// SPDX-License-Identifier: Apache-2.0
/// An `a=rtpmap:<payload type> <encoding>/<clock rate>[/<channels>]` attribute (RFC 8866 §6.6).
public struct RTPMap: Sendable, Equatable {
    /// The dynamic or static payload type (0…127).
    public var payloadType: UInt8
    /// The encoding name as written (compare case-insensitively: `opus`, `telephone-event`).
    public var encoding: String
    /// The RTP clock rate in Hz.
    public var clockRate: Int
    /// The channel count, when given.
    public var channels: Int?

    /// A mapping for `payloadType`.
    public init(payloadType: UInt8, encoding: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Whether this is Opus as RFC 7587 registers it (`opus/48000/2`).
    public var isOpus: Bool { encoding.lowercased() == "opus" && clockRate == 48_000 }
    /// The codec this maps to, when it is one we code (by name and clock rate).
    public var codec: AudioCodec? { AudioCodec(encodingName: encoding, clockRate: clockRate) }
    /// Whether this is RFC 4733 telephone events (DTMF), at any clock rate.
    public var isTelephoneEvent: Bool { encoding.lowercased() == "telephone-event" }

    /// The attribute value, `111 opus/48000/2`.
    public var attributeValue: String {
        "\(payloadType) \(encoding)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Parses the attribute value (after `a=rtpmap:`); nil when it is not one.
    init?(value: Substring) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let payloadType = UInt8(parts[0]), payloadType < 128 else { return nil }
        let fields = parts[1].trimmingSpaces().split(separator: "/", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, !fields[0].isEmpty,
              let clockRate = Int(fields[1]), (1...1_000_000).contains(clockRate) else { return nil }
        var channels: Int?
        if fields.count == 3 {
            guard let count = Int(fields[2]), (1...255).contains(count) else { return nil }
            channels = count
        }
        self.init(payloadType: payloadType, encoding: String(fields[0]), clockRate: clockRate, channels: channels)
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingSpaces() -> Substring {
        var text = self.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}
