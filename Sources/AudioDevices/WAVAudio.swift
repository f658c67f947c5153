// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Interleaved 16-bit PCM audio read from or written to a WAV file (RIFF/WAVE, or RF64 beyond
/// RIFF's 4 GiB), all of it in memory: for recordings of unbounded length, `WAVFileWriter`
/// and `WAVFileReader` stream to and from disk instead.
///
/// Reading accepts PCM 16-bit and IEEE float 32-bit (converted to 16-bit with clipping),
/// skips unknown chunks, and tolerates a data chunk whose declared size overruns the file
/// (common in files written by streaming recorders) by reading what is there.
public struct WAVAudio: Sendable, Equatable {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame.
    public var channelCount: Int
    /// Interleaved samples, `frameCount * channelCount` of them.
    public var samples: [Int16]

    /// Frames (samples per channel).
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }

    /// Duration in seconds.
    public var durationSeconds: Double { sampleRate == 0 ? 0 : Double(frameCount) / Double(sampleRate) }

    /// Audio from interleaved samples.
    public init(sampleRate: Int, channelCount: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.samples = samples
    }

    /// Reads a WAV file.
    public init(contentsOf url: URL) throws(WAVError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .io(path: url.path, reason: error.localizedDescription)
        }
        try self.init(wavData: data)
    }

    /// Parses the bytes of a WAV file (RIFF, or RF64 as EBU Tech 3306 defines it).
    public init(wavData data: Data) throws(WAVError) {
        let bytes = [UInt8](data)
        let layout = try WAVLayout.parse(length: bytes.count) { offset, count in Array(bytes[offset..<offset + count]) }
        let sampleCount = layout.frameCount * layout.channelCount
        var samples = [Int16](repeating: 0, count: sampleCount)
        bytes.withUnsafeBytes { raw in
            samples.withUnsafeMutableBufferPointer { output in
                let end = layout.dataOffset + sampleCount * layout.encoding.bytesPerSample
                _ = layout.decode(UnsafeRawBufferPointer(rebasing: raw[layout.dataOffset..<end]), into: output)
            }
        }
        self.init(sampleRate: layout.sampleRate, channelCount: layout.channelCount, samples: samples)
    }

    /// The file's bytes: a canonical 44-byte header (RF64's 80 bytes when the data exceeds
    /// what RIFF's 32-bit sizes can count, see `WAVHeader`) and 16-bit PCM data.
    public func wavData() -> Data {
        // A format WAVHeader refuses (no channels, a rate beyond 32 bits) is not audio a
        // reader would take: it is written as a header for no frames rather than trapping.
        let header = (try? WAVHeader(sampleRate: sampleRate, channelCount: channelCount, frameCount: UInt64(max(0, frameCount))))
            ?? (try? WAVHeader(sampleRate: max(1, min(sampleRate, 768_000)), channelCount: max(1, min(channelCount, 8)), frameCount: 0))
        var out = header?.bytes ?? []
        let written = header.map { Int($0.dataByteCount) / 2 } ?? 0
        out.reserveCapacity(out.count + written * 2)
        for sample in samples.prefix(written) { withUnsafeBytes(of: UInt16(bitPattern: sample).littleEndian) { out.append(contentsOf: $0) } }
        return Data(out)
    }

    /// Writes the audio as a 16-bit PCM WAV file, replacing any file at `url`.
    public func write(to url: URL) throws(WAVError) {
        do {
            try wavData().write(to: url, options: .atomic)
        } catch {
            throw .io(path: url.path, reason: error.localizedDescription)
        }
    }
}
