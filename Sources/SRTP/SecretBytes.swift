// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Key bytes in memory this module owns: one allocation that the Swift runtime never moves or
/// copies (an `Array`'s buffer may be duplicated by copy-on-write, and each copy would keep the
/// key), overwritten with zeros when the last reference goes.
///
/// The zeroing uses `explicit_bzero`, which the compiler may not remove as a dead store.
final class SecretBytes: @unchecked Sendable {
    // Unchecked: the bytes are written only while `init` runs and only read afterwards.
    private let storage: UnsafeMutableRawBufferPointer

    /// `count` bytes, filled by `initialize` (which must write every byte).
    init(count: Int, initializingWith initialize: (UnsafeMutableRawBufferPointer) -> Void) {
        storage = .allocate(byteCount: count, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        initialize(storage)
    }

    deinit {
        Self.wipe(storage)
        storage.deallocate()
    }

    /// The number of bytes.
    var count: Int { storage.count }

    /// Calls `body` with the bytes (valid only during the call; do not copy them out).
    func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Whether both hold the same bytes, in time that does not depend on where they differ.
    func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage[index] ^ other.storage[index] }
        return difference == 0
    }

    /// Overwrites `buffer` with zeros.
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        explicit_bzero(base, buffer.count)
    }

    /// Overwrites the array's bytes with zeros, in place. Only this array's own buffer is
    /// cleared: copies the runtime made earlier (copy-on-write) are out of reach.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
