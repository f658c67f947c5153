// SPDX-License-Identifier: Apache-2.0
internal import COpus
internal import COpusShims

/// Owns one libopus `OpusEncoder` (created in `init`, destroyed in `deinit`) and turns every
/// libopus status into an `OpusError`. Internal: the public face is `OpusEncoder`.
struct EncoderHandle: ~Copyable {
    /// The C encoder; never shared outside this handle's owner.
    let pointer: OpaquePointer

    init(sampleRate: Int, channels: Int, application: OpusApplication) throws(OpusError) {
        var status = OPUS_OK
        let created = opus_encoder_create(
            Int32(sampleRate), Int32(channels), application.cValue, &status)
        guard let created, status == OPUS_OK else {
            if let created { opus_encoder_destroy(created) }
            throw OpusError(status: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, function: "opus_encoder_create")
        }
        pointer = created
    }

    deinit { opus_encoder_destroy(pointer) }

    /// Runs a `ve_opus_encoder_set_*` shim.
    func set(_ value: Int32, request: String, _ shim: (OpaquePointer?, Int32) -> Int32) throws(OpusError) {
        try OpusControl.set(value, on: pointer, request: request, shim)
    }

    /// Runs a `ve_opus_encoder_get_*` shim and returns the value it read.
    func get(request: String, _ shim: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32) throws(OpusError) -> Int32 {
        try OpusControl.get(from: pointer, request: request, shim)
    }

    /// `opus_encode`; returns the packet length in bytes.
    func encode(
        _ pcm: UnsafePointer<Int16>, frameSize: Int32,
        into packet: UnsafeMutablePointer<UInt8>, capacity: Int32
    ) throws(OpusError) -> Int {
        let result = opus_encode(pointer, pcm, frameSize, packet, capacity)
        guard result >= 0 else { throw OpusError(status: result, function: "opus_encode") }
        return Int(result)
    }

    /// `opus_encode_float`; returns the packet length in bytes.
    func encode(
        _ pcm: UnsafePointer<Float>, frameSize: Int32,
        into packet: UnsafeMutablePointer<UInt8>, capacity: Int32
    ) throws(OpusError) -> Int {
        let result = opus_encode_float(pointer, pcm, frameSize, packet, capacity)
        guard result >= 0 else { throw OpusError(status: result, function: "opus_encode_float") }
        return Int(result)
    }
}
