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
    /// values: positive when `b` is newer than `a`. Exactly half the circle is reported
    /// as negative.
    @inlinable
    public static func distance<Value: FixedWidthInteger & UnsignedInteger>(from a: Value, to b: Value) -> Int64 {
        let forward = UInt64(b &- a)  // wrapping difference, zero-extended
        let half = UInt64(1) << (Value.bitWidth - 1)
        return forward < half ? Int64(forward) : Int64(forward) - Int64(half << 1)
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
