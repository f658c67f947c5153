// SPDX-License-Identifier: Apache-2.0
internal import CSpanDSP

/// Owns one spandsp G.722 encoder or decoder state (64 kb/s, 16 kHz linear PCM).
final class G722CodecState {
    private let encoder: OpaquePointer?
    private let decoder: OpaquePointer?

    init(encoding: Bool) throws(AudioCodecError) {
        if encoding {
            guard let state = g722_encode_init(nil, 64_000, 0) else { throw .library(.g722, function: "g722_encode_init") }
            encoder = state
            decoder = nil
        } else {
            guard let state = g722_decode_init(nil, 64_000, 0) else { throw .library(.g722, function: "g722_decode_init") }
            decoder = state
            encoder = nil
        }
    }

    deinit {
        if let encoder { g722_encode_free(encoder) }
        if let decoder { g722_decode_free(decoder) }
    }

    /// Encodes `pcm` (an even count of samples); returns the bytes written (`pcm.count / 2`).
    func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) -> Int {
        let output = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return Int(g722_encode(encoder, output, pcm.baseAddress!, Int32(pcm.count)))
    }

    /// Decodes `payload`; returns the samples written (`2 × payload.count`).
    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) -> Int {
        let input = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return Int(g722_decode(decoder, pcm.baseAddress!, input, Int32(payload.count)))
    }

    /// Back to the freshly initialised state (spandsp re-initialises in place).
    func reset() {
        if let encoder { _ = g722_encode_init(encoder, 64_000, 0) }
        if let decoder { _ = g722_decode_init(decoder, 64_000, 0) }
    }
}
