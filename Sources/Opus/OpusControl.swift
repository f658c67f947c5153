// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// Runs the `ve_opus_*_set_*` / `ve_opus_*_get_*` shims (one C function per ctl request) on an
/// encoder or decoder, turning the status into `OpusError` named after the request.
enum OpusControl {
    /// Calls a setter shim with `value`.
    static func set(
        _ value: Int32, on object: OpaquePointer, request: String, _ shim: (OpaquePointer?, Int32) -> Int32
    ) throws(OpusError) {
        let status = shim(object, value)
        guard status == OPUS_OK else { throw OpusError(status: status, function: request) }
    }

    /// Calls a getter shim and returns the value it read.
    static func get(
        from object: OpaquePointer, request: String, _ shim: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32
    ) throws(OpusError) -> Int32 {
        var value: Int32 = 0
        let status = shim(object, &value)
        guard status == OPUS_OK else { throw OpusError(status: status, function: request) }
        return value
    }
}
