// SPDX-License-Identifier: Apache-2.0
extension UnsafeMutablePointer {
    /// Allocates `capacity` values, each initialized to `value`: the per-bin and per-sample
    /// state of the real-time stages is allocated this way in `init`, never per frame.
    static func allocate(capacity: Int, filledWith value: Pointee) -> UnsafeMutablePointer<Pointee> {
        let pointer = UnsafeMutablePointer<Pointee>.allocate(capacity: capacity)
        pointer.initialize(repeating: value, count: capacity)
        return pointer
    }
}
