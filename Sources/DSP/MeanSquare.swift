// SPDX-License-Identifier: Apache-2.0
extension UnsafeBufferPointer where Element == Int16 {
    /// The mean of the squared samples (0 for an empty buffer): a frame's power, in squared
    /// sample units, for the level comparisons of the echo stages.
    package var meanSquare: Double {
        guard !isEmpty else { return 0 }
        var sum = 0.0
        for sample in self { sum += Double(sample) * Double(sample) }
        return sum / Double(count)
    }
}
