// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 26, "Hardening, round 2", rows 21 and 22: a recording past 2^31 samples (12.4 h at
/// 48 kHz) trapped computing RIFF's 32-bit size, and every recording (and `send`'s input)
/// was held whole in memory. Sizes beyond RIFF's now go to RF64 (EBU Tech 3306), and files
/// are streamed to and from disk through buffers of fixed size.
@Suite struct WAVStreamingTests {
    private func le32(_ bytes: [UInt8], _ at: Int) -> UInt32 { bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    private func le64(_ bytes: [UInt8], _ at: Int) -> UInt64 { UInt64(le32(bytes, at)) | UInt64(le32(bytes, at + 4)) << 32 }
    private func text(_ bytes: [UInt8], _ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }

    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wav-streaming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func samples(_ count: Int, seed: UInt64) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int16.random(in: .min ... .max, using: &generator) }
    }

    /// The boundary, without writing 4 GiB: the last frame count RIFF can size stays RIFF,
    /// one more frame is RF64 with the true sizes in ds64, and the 2^31 samples (which
    /// trapped in `UInt32(36 + dataBytes)`) get a header too.
    @Test(arguments: [WAVHeader.Layout.compact, .reservingDS64])
    func headerSwitchesToRF64ExactlyWhereRIFFsSizeStopsFitting(layout: WAVHeader.Layout) throws {
        let largest = WAVHeader.largestRIFFFrameCount(channelCount: 1, layout: layout)
        let riff = try WAVHeader(sampleRate: 48_000, channelCount: 1, frameCount: largest, layout: layout)
        #expect(!riff.isRF64)
        #expect(riff.riffSize <= UInt64(UInt32.max) && riff.riffSize + 2 > UInt64(UInt32.max))
        let riffBytes = riff.bytes
        #expect(riffBytes.count == riff.byteCount && riff.byteCount == (layout == .compact ? 44 : 80))
        #expect(text(riffBytes, 0) == "RIFF" && UInt64(le32(riffBytes, 4)) == riff.riffSize)
        #expect(UInt64(le32(riffBytes, riff.byteCount - 4)) == riff.dataByteCount)

        for frames in [largest + 1, 1 << 31, 36_000 * 48_000 * 2] as [UInt64] {
            let rf64 = try WAVHeader(sampleRate: 48_000, channelCount: 1, frameCount: frames, layout: layout)
            #expect(rf64.isRF64)
            let bytes = rf64.bytes
            #expect(bytes.count == 80)
            #expect(text(bytes, 0) == "RF64" && le32(bytes, 4) == .max && text(bytes, 8) == "WAVE")
            #expect(text(bytes, 12) == "ds64" && le32(bytes, 16) == 28)
            #expect(le64(bytes, 20) == 72 + frames * 2)  // RIFF size: the file after its first 8 bytes
            #expect(le64(bytes, 28) == frames * 2)       // data size
            #expect(le64(bytes, 36) == frames)           // sample count (frames)
            #expect(text(bytes, 72) == "data" && le32(bytes, 76) == .max)
        }
        #expect(throws: WAVError.self) { try WAVHeader(sampleRate: 48_000, channelCount: 1, frameCount: .max) }
    }

    /// An RF64 file reads back, in memory and streamed: the data size comes from ds64.
    @Test func rf64FilesReadBack() throws {
        let samples = Self.samples(4_801, seed: 21)
        let header = try WAVHeader(sampleRate: 16_000, channelCount: 1, frameCount: UInt64(samples.count))
        // A small file in RF64 form, as a writer that did not know its size would leave it:
        // the 32-bit sizes 0xFFFFFFFF, the true ones in ds64, and a chunk after the data that
        // the 64-bit size keeps out of the samples.
        var bytes = Array("RF64".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVE".utf8)
        bytes += Array("ds64".utf8) + [28, 0, 0, 0]
        for value in [UInt64(72 + samples.count * 2 + 12), UInt64(samples.count * 2), UInt64(samples.count)] {
            bytes += withUnsafeBytes(of: value.littleEndian, Array.init)
        }
        bytes += [0, 0, 0, 0]
        bytes += header.bytes[12..<36]  // fmt
        bytes += Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
        for sample in samples { bytes += withUnsafeBytes(of: sample.littleEndian, Array.init) }
        bytes += [0x4C, 0x49, 0x53, 0x54, 4, 0, 0, 0, 9, 9, 9, 9]  // LIST, after the data
        let audio = try WAVAudio(wavData: Data(bytes))
        #expect(audio.samples == samples && audio.sampleRate == 16_000)

        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("rf64.wav")
        try Data(bytes).write(to: url)
        let reader = try WAVFileReader(path: url.path, chunkSampleCapacity: 1_000)
        #expect(reader.frameCount == samples.count)
        #expect(try readAll(reader) == samples)
    }

    /// The writer's memory is its buffer, whose capacity never changes however much is
    /// written; every full buffer is one write to the file; the file reads back equal, in
    /// memory and through the reader, which never decodes more than one chunk per read.
    @Test func writerAndReaderStreamInFixedBuffersAndRoundTrip() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("stream.wav").path
        let writer = try WAVFileWriter(path: path, sampleRate: 48_000, channelCount: 2, bufferSampleCapacity: 1_024)
        #expect(writer.bufferSampleCapacity == 1_024)
        let samples = Self.samples(960 * 200, seed: 22)
        for chunk in 0..<200 {
            samples[chunk * 960..<(chunk + 1) * 960].withUnsafeBufferPointer { try? writer.write($0) }
            #expect(writer.bufferSampleCapacity == 1_024 && writer.bufferedSampleCount < 1_024)
            // What is not buffered is on disk already.
            let onDisk = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(onDisk == 80 + 2 * ((chunk + 1) * 960 - writer.bufferedSampleCount))
        }
        #expect(writer.fileWrites == 1 + samples.count / 1_024)  // the header, then one per full buffer
        try writer.close()
        try writer.close()  // a second close does nothing
        #expect(throws: WAVError.self) { try [Int16(1)].withUnsafeBufferPointer { try writer.write($0) } }

        let audio = try WAVAudio(contentsOf: URL(fileURLWithPath: path))
        #expect(audio.samples == samples && audio.channelCount == 2 && audio.sampleRate == 48_000)
        let reader = try WAVFileReader(path: path, chunkSampleCapacity: 1_001)
        #expect(reader.chunkSampleCapacity == 1_000)  // whole frames
        #expect(reader.frameCount == samples.count / 2)
        #expect(try readAll(reader) == samples)
    }

    /// A recording's tail can be cut before closing; and a file the writer never closed (the
    /// process died) still reads back as every sample that reached the disk.
    @Test func writerCutsTheTailAndAnUnclosedFileStillReads() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cut.wav").path
        let samples = Self.samples(10_000, seed: 23)
        let writer = try WAVFileWriter(path: path, sampleRate: 8_000, channelCount: 1, bufferSampleCapacity: 4_096)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        let unclosed = try WAVAudio(contentsOf: URL(fileURLWithPath: path))
        #expect(unclosed.samples == Array(samples[..<8_192]))  // two full buffers on disk
        #expect(throws: WAVError.self) { try writer.truncate(toFrameCount: 10_001) }
        try writer.truncate(toFrameCount: 9_000)
        try writer.close()
        #expect(try WAVAudio(contentsOf: URL(fileURLWithPath: path)).samples == Array(samples[..<9_000]))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 80 + 18_000)
    }

    /// A recording goes only into a regular file: a symbolic link and a FIFO are refused and
    /// left as they were (a FIFO without a reader would otherwise hang the open).
    @Test func writerRefusesWhatIsNotARegularFile() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.txt")
        try Data("keep".utf8).write(to: target)
        let link = directory.appendingPathComponent("link.wav")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect(throws: WAVError.self) { try WAVFileWriter(path: link.path, sampleRate: 48_000, channelCount: 1) }
        #expect(try Data(contentsOf: target) == Data("keep".utf8))
        let fifo = directory.appendingPathComponent("fifo.wav").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: WAVError.io(path: fifo, reason: "not a regular file")) {
            try WAVFileWriter(path: fifo, sampleRate: 48_000, channelCount: 1)
        }
        #expect(throws: WAVError.io(path: fifo, reason: "not a regular file")) { try WAVFileReader(path: fifo) }
    }

    /// The reader refuses what `WAVAudio` refuses, with the same typed errors.
    @Test func readerRefusesMalformedFilesLikeWAVAudio() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("bad.wav")
        for bytes in [[1, 2, 3], Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)] as [[UInt8]] {
            try Data(bytes).write(to: url)
            var expected: WAVError?
            do { _ = try WAVAudio(wavData: Data(bytes)) } catch { expected = error }
            #expect(throws: try #require(expected)) { try WAVFileReader(path: url.path) }
        }
    }

    private func readAll(_ reader: WAVFileReader) throws -> [Int16] {
        var all: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 4_096)
        while true {
            let count = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            #expect(count <= reader.chunkSampleCapacity)
            if count == 0 { break }
            all += buffer[..<count]
        }
        #expect(reader.samplesRemaining == 0)
        return all
    }
}
