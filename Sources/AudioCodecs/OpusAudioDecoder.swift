// SPDX-License-Identifier: Apache-2.0
import Opus

/// Opus behind the `AudioDecoder` interface: libopus's own concealment and in-band FEC.
public final class OpusAudioDecoder: AudioDecoder {
    /// The libopus decoder (mono).
    public let opus: OpusDecoder

    /// Creates a mono decoder writing PCM at `sampleRate` (8, 12, 16, 24 or 48 kHz).
    public init(sampleRate: Int) throws(AudioCodecError) {
        do {
            opus = try OpusDecoder(sampleRate: sampleRate, channels: 1)
        } catch {
            throw .opus(error)
        }
    }

    public var codec: AudioCodec { .opus }
    public var sampleRate: Int { opus.sampleRate }

    public func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo {
        do {
            let info = try OpusPacketInfo(packet: payload, sampleRate: opus.sampleRate)
            return AudioPacketInfo(sampleCount: info.sampleCount, hasFEC: info.hasFEC)
        } catch {
            throw .opus(error)
        }
    }

    public func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        do {
            return try opus.decode(payload, into: pcm)
        } catch {
            throw .opus(error)
        }
    }

    public func decodeFEC(from nextPayload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        do {
            return try opus.decodeFEC(from: nextPayload, into: pcm)
        } catch {
            throw .opus(error)
        }
    }

    public func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        do {
            return try opus.conceal(into: pcm)
        } catch {
            throw .opus(error)
        }
    }

    public func isComfortNoisePayload(byteCount: Int) -> Bool { OpusEncoder.isDTXPacket(byteCount: byteCount) }

    public func reset() { try? opus.reset() }
}
