// SPDX-License-Identifier: Apache-2.0
internal import COpus
internal import COpusShims

/// Owns one libopus `OpusDecoder` (created in `init`, destroyed in `deinit`) and turns every
/// libopus status into an `OpusError`. Internal: the public face is `OpusDecoder`.
struct DecoderHandle: ~Copyable {
    /// The C decoder; never shared outside this handle's owner.
    let pointer: OpaquePointer

    init(sampleRate: Int, channels: Int) throws(OpusError) {
        var status = OPUS_OK
        let created = opus_decoder_create(Int32(sampleRate), Int32(channels), &status)
        guard let created, status == OPUS_OK else {
            if let created { opus_decoder_destroy(created) }
            throw OpusError(status: status == OPUS_OK ? OPUS_ALLOC_FAIL : status, function: "opus_decoder_create")
        }
        pointer = created
    }

    deinit { opus_decoder_destroy(pointer) }

    /// Runs a `ve_opus_decoder_set_*` shim.
    func set(_ value: Int32, request: String, _ shim: (OpaquePointer?, Int32) -> Int32) throws(OpusError) {
        try OpusControl.set(value, on: pointer, request: request, shim)
    }

    /// Runs a `ve_opus_decoder_get_*` shim and returns the value it read.
    func get(request: String, _ shim: (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32) throws(OpusError) -> Int32 {
        try OpusControl.get(from: pointer, request: request, shim)
    }

    /// `opus_decode`. A nil `data` with `length` 0 asks for concealment (PLC); `fec` asks for
    /// the in-band FEC of the frame before `data`. Returns samples per channel.
    func decode(
        _ data: UnsafePointer<UInt8>?, length: Int32,
        into pcm: UnsafeMutablePointer<Int16>, frameSize: Int32, fec: Bool
    ) throws(OpusError) -> Int {
        let result = opus_decode(pointer, data, length, pcm, frameSize, fec ? 1 : 0)
        guard result >= 0 else { throw OpusError(status: result, function: "opus_decode") }
        return Int(result)
    }

    /// `opus_decode_float`, as `decode` above.
    func decode(
        _ data: UnsafePointer<UInt8>?, length: Int32,
        into pcm: UnsafeMutablePointer<Float>, frameSize: Int32, fec: Bool
    ) throws(OpusError) -> Int {
        let result = opus_decode_float(pointer, data, length, pcm, frameSize, fec ? 1 : 0)
        guard result >= 0 else { throw OpusError(status: result, function: "opus_decode_float") }
        return Int(result)
    }
}
