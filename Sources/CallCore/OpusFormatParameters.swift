// SPDX-License-Identifier: Apache-2.0
/// The Opus format parameters of an SDP `a=fmtp:<pt> …` attribute (RFC 7587 §6.1): what the
/// side that wrote them prefers to receive (`maxplaybackrate`, `maxaveragebitrate`, `stereo`,
/// `cbr`, `useinbandfec`, `usedtx`, `ptime`/`minptime`/`maxptime`) and what it says about
/// what it sends (`sprop-maxcapturerate`, `sprop-stereo`).
///
/// ```swift
/// let peer = try OpusFormatParameters(parsing: "minptime=10; useinbandfec=1")  // after "a=fmtp:111 "
/// let sending = try configuration.applying(peer: peer, ptime: 20)            // what we send honours it
/// let answer = "a=fmtp:111 \(configuration.formatParameters.formatted)"      // what we want to receive
/// ```
///
/// A parameter that is absent is nil and takes RFC 7587's default where it is used (48 kHz,
/// no bitrate cap, mono, VBR, no FEC, no DTX). Keys are matched without regard to case;
/// parameters this type does not know are kept, in order, in `otherParameters` and written
/// back as they came. Numbers are checked as text before any arithmetic, so no value —
/// `maxaveragebitrate=1e300`, thirty digits — can trap.
public struct OpusFormatParameters: Sendable, Equatable {
    /// A parameter this type does not interpret, as it was written.
    public struct Parameter: Sendable, Equatable {
        /// The key, in the case it was written.
        public var name: String
        /// The value, or nil for a bare key (no `=`).
        public var value: String?

        /// `name=value`, or a bare `name`.
        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// `maxplaybackrate`: the highest output sample rate the receiver renders, in Hz
    /// (8 000–48 000; absent: 48 000).
    public var maxPlaybackRate: Int?
    /// `sprop-maxcapturerate`: the highest input sample rate the sender captures, in Hz
    /// (8 000–48 000; absent: 48 000).
    public var spropMaxCaptureRate: Int?
    /// `maxaveragebitrate`: the highest average bitrate the receiver wants, in bits per second
    /// (6 000–510 000; absent: no cap).
    public var maxAverageBitrate: Int?
    /// `stereo`: whether the receiver prefers stereo (absent: mono).
    public var stereo: Bool?
    /// `sprop-stereo`: whether the sender is likely to send stereo (absent: mono).
    public var spropStereo: Bool?
    /// `cbr`: whether the receiver prefers a constant bitrate (absent: variable).
    public var cbr: Bool?
    /// `useinbandfec`: whether the receiver can use Opus in-band FEC (absent: it cannot, so
    /// FEC would be bits spent for nothing).
    public var useInbandFEC: Bool?
    /// `usedtx`: whether the receiver prefers discontinuous transmission (absent: no).
    public var useDTX: Bool?
    /// `ptime`: the packet time the receiver prefers, in ms (1–120). Usually its own
    /// `a=ptime` attribute; some peers put it here.
    public var ptimeMs: Int?
    /// `minptime`: the shortest packet time the receiver wants, in ms (1–120).
    public var minPtimeMs: Int?
    /// `maxptime`: the longest packet time the receiver accepts, in ms (1–120; RFC 7587's
    /// packets hold at most 120 ms).
    public var maxPtimeMs: Int?
    /// Parameters not listed above, in the order they came.
    public var otherParameters: [Parameter] = []

    /// No parameter: every RFC 7587 default.
    public init() {}

    /// Parses the parameter list of an `a=fmtp` attribute — the text after the payload type,
    /// `key=value` pairs separated by `;`, whitespace around any of them ignored, empty
    /// segments (a trailing `;`) skipped.
    /// - Throws: `OpusFormatParametersError` naming the parameter: a known key without a
    ///   value, a number that is not decimal digits, a flag other than 0 or 1, a value outside
    ///   its range, or a known key given twice.
    public init(parsing text: String) throws(OpusFormatParametersError) {
        var seen: Set<String> = []
        for segment in text.split(separator: ";", omittingEmptySubsequences: false) {
            let trimmed = segment.trimmingSDPWhitespace()
            guard !trimmed.isEmpty else { continue }
            let name: Substring
            let value: Substring?
            if let equals = trimmed.firstIndex(of: "=") {
                name = trimmed[..<equals].trimmingSDPWhitespace()
                value = trimmed[trimmed.index(after: equals)...].trimmingSDPWhitespace()
            } else {
                name = trimmed
                value = nil
            }
            let key = name.lowercased()
            guard let known = Key(rawValue: key) else {
                otherParameters.append(Parameter(name: String(name), value: value.map(String.init)))
                continue
            }
            guard seen.insert(key).inserted else { throw .duplicate(parameter: key) }
            guard let value, !value.isEmpty else { throw .malformed(parameter: key, reason: "it has no value") }
            try set(known, from: value)
        }
    }

    /// The parameter list as an `a=fmtp` attribute carries it after the payload type, e.g.
    /// `maxplaybackrate=16000;useinbandfec=1`: the known parameters that are set, in RFC
    /// 7587's order, then `otherParameters` as they came. Empty when nothing is set.
    public var formatted: String {
        var parts: [String] = []
        func add(_ key: Key, _ number: Int?) { if let number { parts.append("\(key.rawValue)=\(number)") } }
        func add(_ key: Key, _ flag: Bool?) { if let flag { parts.append("\(key.rawValue)=\(flag ? 1 : 0)") } }
        add(.maxPlaybackRate, maxPlaybackRate)
        add(.spropMaxCaptureRate, spropMaxCaptureRate)
        add(.maxPtime, maxPtimeMs)
        add(.ptime, ptimeMs)
        add(.minPtime, minPtimeMs)
        add(.maxAverageBitrate, maxAverageBitrate)
        add(.stereo, stereo)
        add(.spropStereo, spropStereo)
        add(.cbr, cbr)
        add(.useInbandFEC, useInbandFEC)
        add(.useDTX, useDTX)
        for other in otherParameters {
            parts.append(other.value.map { "\(other.name)=\($0)" } ?? other.name)
        }
        return parts.joined(separator: ";")
    }

    /// The keys RFC 7587 §6.1 defines, lowercased.
    private enum Key: String {
        case maxPlaybackRate = "maxplaybackrate"
        case spropMaxCaptureRate = "sprop-maxcapturerate"
        case maxAverageBitrate = "maxaveragebitrate"
        case stereo
        case spropStereo = "sprop-stereo"
        case cbr
        case useInbandFEC = "useinbandfec"
        case useDTX = "usedtx"
        case ptime
        case minPtime = "minptime"
        case maxPtime = "maxptime"
    }

    /// Sample rates Opus's parameters may name, in Hz.
    static let sampleRateRange = 8_000...48_000
    /// Bitrates `maxaveragebitrate` may name, in b/s (RFC 7587 §6.1).
    static let bitrateRange = 6_000...510_000
    /// Packet times in ms: an Opus RTP packet holds at most 120 ms (RFC 7587 §4.2).
    static let packetTimeRange = 1...120

    private mutating func set(_ key: Key, from value: Substring) throws(OpusFormatParametersError) {
        switch key {
        case .maxPlaybackRate: maxPlaybackRate = try Self.integer(value, key: key, range: Self.sampleRateRange)
        case .spropMaxCaptureRate: spropMaxCaptureRate = try Self.integer(value, key: key, range: Self.sampleRateRange)
        case .maxAverageBitrate: maxAverageBitrate = try Self.integer(value, key: key, range: Self.bitrateRange)
        case .ptime: ptimeMs = try Self.integer(value, key: key, range: Self.packetTimeRange)
        case .minPtime: minPtimeMs = try Self.integer(value, key: key, range: Self.packetTimeRange)
        case .maxPtime: maxPtimeMs = try Self.integer(value, key: key, range: Self.packetTimeRange)
        case .stereo: stereo = try Self.flag(value, key: key)
        case .spropStereo: spropStereo = try Self.flag(value, key: key)
        case .cbr: cbr = try Self.flag(value, key: key)
        case .useInbandFEC: useInbandFEC = try Self.flag(value, key: key)
        case .useDTX: useDTX = try Self.flag(value, key: key)
        }
    }

    /// A decimal integer within `range`, judged on its digits before it becomes a number:
    /// more significant digits than the range's bound is out of range, whatever the count.
    private static func integer(_ value: Substring, key: Key, range: ClosedRange<Int>) throws(OpusFormatParametersError) -> Int {
        guard value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .malformed(parameter: key.rawValue, reason: "\(OpusFormatParametersError.quoted(value)) is not a decimal integer")
        }
        let significant = value.drop { $0 == "0" }
        guard significant.utf8.count <= String(range.upperBound).utf8.count, let number = Int(significant.isEmpty ? "0" : significant),
              range.contains(number) else {
            throw .outOfRange(parameter: key.rawValue, value: OpusFormatParametersError.truncated(value), range: range)
        }
        return number
    }

    private static func flag(_ value: Substring, key: Key) throws(OpusFormatParametersError) -> Bool {
        switch value {
        case "0": return false
        case "1": return true
        default: throw .malformed(parameter: key.rawValue, reason: "\(OpusFormatParametersError.quoted(value)) is not 0 or 1")
        }
    }
}

private extension Substring {
    /// Without the spaces, tabs and line ends SDP text may carry around a value.
    func trimmingSDPWhitespace() -> Substring {
        var text = drop(while: \.isWhitespace)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}
