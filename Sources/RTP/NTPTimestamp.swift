// SPDX-License-Identifier: Apache-2.0
/// A 64-bit NTP timestamp (RFC 5905 / RFC 3550 §4): seconds since 1 January 1900 and a
/// 32-bit binary fraction of a second. RTCP sender reports carry it whole; LSR/DLSR use its
/// middle 32 bits (``compact``, units of 1/65536 s).
public struct NTPTimestamp: Sendable, Hashable, Comparable {
    /// Whole seconds since 1900-01-01 00:00 UTC (wraps in 2036).
    public var seconds: UInt32
    /// Fraction of a second in units of 2⁻³² s.
    public var fraction: UInt32

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    public static let unixEpochOffset: UInt32 = 2_208_988_800

    /// A timestamp from its two halves.
    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    /// A timestamp from its 64-bit wire value (seconds in the high half).
    public init(rawValue: UInt64) {
        self.init(seconds: UInt32(truncatingIfNeeded: rawValue >> 32), fraction: UInt32(truncatingIfNeeded: rawValue))
    }

    /// A timestamp `secondsSince1900` seconds after the NTP epoch (negative values and values
    /// past the 32-bit era are clamped).
    public init(secondsSince1900: Double) {
        // Integer conversions truncate; adding 0.5 first rounds (values are non-negative).
        // (No `rounded()`: it needs libm, which this module does not link.)
        let clamped = secondsSince1900.isNaN ? 0 : min(max(secondsSince1900, 0), Double(UInt32.max))
        let whole = UInt32(clamped)
        let fraction = min((clamped - Double(whole)) * 4_294_967_296 + 0.5, Double(UInt32.max))
        self.init(seconds: whole, fraction: UInt32(fraction))
    }

    /// A timestamp from Unix time (seconds since 1970-01-01 00:00 UTC).
    public init(unixTime: Double) {
        self.init(secondsSince1900: unixTime + Double(Self.unixEpochOffset))
    }

    /// The 64-bit wire value.
    public var rawValue: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// Seconds since the NTP epoch.
    public var secondsSince1900: Double { Double(seconds) + Double(fraction) / 4_294_967_296 }

    /// Seconds since the Unix epoch.
    public var unixTime: Double { secondsSince1900 - Double(Self.unixEpochOffset) }

    /// The middle 32 bits (16 bits of seconds, 16 of fraction) as used by RTCP LSR and DLSR.
    public var compact: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// Converts a compact (1/65536 s) duration to seconds.
    public static func seconds(fromCompact compact: UInt32) -> Double { Double(compact) / 65_536 }

    /// Converts a duration in seconds to compact (1/65536 s) units, clamped to 0…UInt32.max.
    public static func compact(fromSeconds seconds: Double) -> UInt32 {
        guard !seconds.isNaN else { return 0 }
        return UInt32(min(max(seconds * 65_536 + 0.5, 0), Double(UInt32.max)))
    }

    /// Orders by wire value (within one NTP era).
    public static func < (lhs: NTPTimestamp, rhs: NTPTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }
}
