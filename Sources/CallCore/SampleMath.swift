// SPDX-License-Identifier: Apache-2.0
/// Sample arithmetic of the mixer and bridge: saturating, allocation-free.
enum SampleMath {
    /// `destination[i] += source[i]`, saturated to 16 bits.
    static func add(_ source: UnsafeBufferPointer<Int16>, into destination: UnsafeMutableBufferPointer<Int16>) {
        for index in 0..<min(source.count, destination.count) {
            destination[index] = saturate(Int32(destination[index]) + Int32(source[index]))
        }
    }

    /// `destination[i] += source[i] × gain` in 32 bits (no saturation: the caller saturates
    /// once after summing every source).
    static func accumulate(_ source: UnsafeBufferPointer<Int16>, gain: Float, into destination: UnsafeMutableBufferPointer<Int32>) {
        if gain == 1 {
            for index in 0..<min(source.count, destination.count) { destination[index] &+= Int32(source[index]) }
        } else {
            for index in 0..<min(source.count, destination.count) {
                destination[index] &+= Int32((Float(source[index]) * gain).rounded())
            }
        }
    }

    /// `destination[i] = sum[i] − source[i] × gain`, saturated: a mix less one of its parts
    /// (rounded exactly as `accumulate` added it).
    static func subtract(_ source: UnsafeBufferPointer<Int16>, gain: Float, from sum: UnsafeBufferPointer<Int32>,
                         into destination: UnsafeMutableBufferPointer<Int16>) {
        for index in 0..<min(source.count, sum.count, destination.count) {
            let part = gain == 1 ? Int32(source[index]) : Int32((Float(source[index]) * gain).rounded())
            destination[index] = saturate(sum[index] &- part)
        }
    }

    /// Writes `source` saturated to 16 bits.
    static func saturate(_ source: UnsafeBufferPointer<Int32>, into destination: UnsafeMutableBufferPointer<Int16>) {
        for index in 0..<min(source.count, destination.count) { destination[index] = saturate(source[index]) }
    }

    @inline(__always)
    static func saturate(_ value: Int32) -> Int16 {
        Int16(clamping: value)
    }
}
