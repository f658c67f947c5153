// SPDX-License-Identifier: Apache-2.0
import Opus

/// Opus behind the `AudioEncoder` interface; `opus` is the encoder itself, for the settings
/// only Opus has (bit rate, FEC, expected loss, DTX).
public final class OpusAudioEncoder: AudioEncoder {
    /// The libopus encoder (mono, `.voip`).
    public let opus: OpusEncoder

    /// Creates a mono VoIP encoder at `sampleRate` (8, 12, 16, 24 or 48 kHz).
    public init(sampleRate: Int) throws(AudioCodecError) {
        do {
            opus = try OpusEncoder(sampleRate: sampleRate, channels: 1, application: .voip)
        } catch {
            throw .opus(error)
        }
    }

    public var codec: AudioCodec { .opus }
    public var sampleRate: Int { opus.sampleRate }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into payload: UnsafeMutableRawBufferPointer) throws(AudioCodecError) -> Int {
        do {
            return try opus.encode(pcm, into: payload)
        } catch {
            throw .opus(error)
        }
    }

    /// Whether the payload is a DTX frame (1–2 bytes): meaningful only with DTX switched on.
    public func isSilencePayload(byteCount: Int) -> Bool { OpusEncoder.isDTXPacket(byteCount: byteCount) }

    public func reset() { try? opus.reset() }
}
