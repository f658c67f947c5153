// SPDX-License-Identifier: Apache-2.0
/// The header of a 16-bit PCM WAV file holding a given number of frames: a plain RIFF header
/// while the sizes fit RIFF's 32-bit fields, RF64 (EBU Tech 3306: `RF64` form, a `ds64`
/// chunk with 64-bit sizes, 32-bit sizes set to 0xFFFFFFFF) beyond.
///
/// A RIFF file's size field counts the bytes after it in 32 bits, so 16-bit audio stops
/// fitting a little short of 4 GiB: 2^31 mono samples, 12.4 hours at 48 kHz. The size
/// computation lives here, apart from any file, so that boundary can be tested without
/// writing 4 GiB.
///
/// Two layouts: `.compact` is the canonical 44-byte header (80 bytes once RF64 is needed);
/// `.reservingDS64` always takes 80 bytes, a `JUNK` chunk standing where `ds64` would go,
/// as EBU Tech 3306 recommends for a recorder that learns the final size only at the end
/// (`WAVFileWriter` rewrites the header in place, RIFF or RF64, when it closes).
public struct WAVHeader: Sendable, Equatable {
    /// How the header is laid out.
    public enum Layout: Sendable, Equatable {
        /// 44 bytes while RIFF suffices, 80 (RF64 with `ds64`) beyond.
        case compact
        /// Always 80 bytes: a 28-byte `JUNK` chunk (RIFF) or `ds64` chunk (RF64) after `WAVE`.
        case reservingDS64
    }

    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// Frames of audio the data chunk holds.
    public let frameCount: UInt64
    /// The layout asked for.
    public let layout: Layout

    /// Bytes of the 16-bit PCM data chunk's body.
    public var dataByteCount: UInt64 { frameCount * UInt64(channelCount) * 2 }

    /// The header's length in bytes: where the samples start.
    public var byteCount: Int { layout == .compact && !isRF64 ? 44 : 80 }

    /// The value RIFF's size field would hold: every byte of the file after it.
    public var riffSize: UInt64 { UInt64(byteCount) - 8 + dataByteCount }

    /// Whether the sizes need RF64: the RIFF size does not fit 32 bits.
    public var isRF64: Bool { UInt64(layout == .compact ? 36 : 72) + dataByteCount > UInt64(UInt32.max) }

    /// The most frames a plain RIFF file of this format and layout can hold.
    public static func largestRIFFFrameCount(channelCount: Int, layout: Layout) -> UInt64 {
        (UInt64(UInt32.max) - (layout == .compact ? 36 : 72)) / (UInt64(max(channelCount, 1)) * 2)
    }

    /// A header for `frameCount` frames of `channelCount`-channel 16-bit audio at `sampleRate`.
    ///
    /// - Throws: `WAVError.unsupportedFormat` for 0 or more than 65,535 channels, a rate
    ///   outside 1…4,294,967,295 Hz, or a size beyond 64 bits.
    public init(sampleRate: Int, channelCount: Int, frameCount: UInt64, layout: Layout = .compact) throws(WAVError) {
        guard (1...Int(UInt16.max) / 2).contains(channelCount) else { throw .unsupportedFormat("\(channelCount) channels") }
        guard sampleRate > 0, UInt64(sampleRate) * UInt64(channelCount) * 2 <= UInt64(UInt32.max) else {
            throw .unsupportedFormat("sample rate \(sampleRate)")
        }
        guard frameCount <= (UInt64.max - 80) / (UInt64(channelCount) * 2) else {
            throw .unsupportedFormat("\(frameCount) frames: beyond RF64's 64-bit sizes")
        }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.layout = layout
    }

    /// The header's bytes; the samples follow them.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(byteCount)
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func put64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        let rf64 = isRF64
        out.append(contentsOf: Array((rf64 ? "RF64" : "RIFF").utf8))
        put32(rf64 ? .max : UInt32(riffSize))
        out.append(contentsOf: Array("WAVE".utf8))
        if rf64 {
            // ds64: RIFF size, data size, sample count (frames), and an empty table of other sizes.
            out.append(contentsOf: Array("ds64".utf8)); put32(28)
            put64(riffSize); put64(dataByteCount); put64(frameCount); put32(0)
        } else if layout == .reservingDS64 {
            out.append(contentsOf: Array("JUNK".utf8)); put32(28)
            out.append(contentsOf: [UInt8](repeating: 0, count: 28))
        }
        out.append(contentsOf: Array("fmt ".utf8)); put32(16)
        put16(1); put16(UInt16(channelCount)); put32(UInt32(sampleRate))
        put32(UInt32(sampleRate * channelCount * 2)); put16(UInt16(channelCount * 2)); put16(16)
        out.append(contentsOf: Array("data".utf8))
        put32(rf64 ? .max : UInt32(dataByteCount))
        return out
    }
}
