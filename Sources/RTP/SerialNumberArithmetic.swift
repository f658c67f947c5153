// SPDX-License-Identifier: Apache-2.0
/// Wrapping arithmetic on RTP sequence numbers (16-bit) and timestamps (32-bit), after
/// RFC 1982 serial-number arithmetic: values are points on a circle, and of two values the
/// "newer" is the one reached by going forward less than half the circle.
///
/// ```swift
/// SerialNumberArithmetic.distance(from: 65_535 as UInt16, to: 2)      // 3
/// SerialNumberArithmetic.isNewer(10 as UInt32, than: 4_294_967_000)   // true
/// ```
public enum SerialNumberArithmetic {
    /// The signed forward distance from `a` to `b`, in `-2^(n-1) ..< 2^(n-1)` for n-bit
    /// values (n ≤ 64): positive when `b` is newer than `a`. Exactly half the circle is
    /// reported as negative. Wider values (`UInt128`), whose distances do not fit `Int64`,
    /// saturate at `Int64.min` / `Int64.max`. Never traps.
    @inlinable
    public static func distance<Value: FixedWidthInteger & UnsignedInteger>(from a: Value, to b: Value) -> Int64 {
        let forward = b &- a  // the wrapping difference, in 0 ..< 2^n
        if Value.bitWidth <= 64 {
            // Reading the n-bit difference as two's complement is the serial-number distance:
            // move it to the top of 64 bits and shift back arithmetically (sign extension).
            // For 64-bit values the difference itself may exceed Int64.max, so no conversion
            // that checks its range may be used here.
            let shift = UInt64(64 - Value.bitWidth)
            return Int64(truncatingIfNeeded: UInt64(truncatingIfNeeded: forward) << shift) >> shift
        }
        let half = Value(1) << (Value.bitWidth - 1)
        if forward < half { return forward > Value(Int64.max) ? .max : Int64(forward) }
        let backward = 0 &- forward  // in 1 ... 2^(n-1)
        return backward > Value(Int64.max) ? .min : -Int64(backward)
    }

    /// Whether `a` comes after `b` (strictly) in serial-number order.
    @inlinable
    public static func isNewer<Value: FixedWidthInteger & UnsignedInteger>(_ a: Value, than b: Value) -> Bool {
        distance(from: b, to: a) > 0
    }

    /// The newer of two values in serial-number order.
    @inlinable
    public static func newer<Value: FixedWidthInteger & UnsignedInteger>(_ a: Value, _ b: Value) -> Value {
        isNewer(b, than: a) ? b : a
    }

    /// `value` moved by `delta` steps with wrapping (negative moves backwards).
    @inlinable
    public static func advance<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value, by delta: Int64) -> Value {
        value &+ Value(truncatingIfNeeded: delta)
    }
}
