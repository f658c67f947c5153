// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Reads a WAV file (RIFF or RF64; 16-bit PCM or 32-bit float) chunk by chunk, holding one
/// chunk of bytes at a time however long the file: for inputs hours long, where `WAVAudio`
/// would hold every sample.
///
/// The header is parsed when the reader opens (the same rules as `WAVAudio(wavData:)`);
/// `read(into:)` then decodes up to `chunkSampleCapacity` interleaved samples per call from
/// a buffer allocated once. Not thread-safe: one thread at a time.
public final class WAVFileReader {
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// Whole frames in the file's data chunk (as much as the file holds).
    public let frameCount: Int
    /// The most interleaved samples one `read(into:)` decodes: the reader's whole buffer.
    public let chunkSampleCapacity: Int
    /// Interleaved samples read so far.
    public private(set) var samplesRead = 0

    /// Duration in seconds.
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    private let path: String
    private let descriptor: Int32
    private let layout: WAVLayout
    private let chunk: UnsafeMutableRawBufferPointer

    /// Opens `path` and parses its header.
    ///
    /// - Parameters:
    ///   - path: the file to read.
    ///   - chunkSampleCapacity: samples decoded per read at most (rounded down to whole
    ///     frames, at least one frame).
    /// - Throws: `WAVError.io` when the file cannot be opened or read, `.malformed` and
    ///   `.unsupportedFormat` as `WAVAudio(wavData:)` does.
    public init(path: String, chunkSampleCapacity: Int = 16_384) throws(WAVError) {
        // O_NONBLOCK: opening a FIFO would otherwise wait for a writer (it is refused below);
        // on a regular file the flag changes nothing.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            let reason = (status.st_mode & S_IFMT) == S_IFREG ? String(cString: strerror(errno)) : "not a regular file"
            close(descriptor)
            throw .io(path: path, reason: reason)
        }
        let layout: WAVLayout
        do {
            layout = try WAVLayout.parse(length: Int(status.st_size)) { (offset, count) throws(WAVError) in
                try Self.read(descriptor, path: path, offset: offset, count: count)
            }
        } catch {
            close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
        self.layout = layout
        sampleRate = layout.sampleRate
        channelCount = layout.channelCount
        frameCount = layout.frameCount
        self.chunkSampleCapacity = max(chunkSampleCapacity / layout.channelCount, 1) * layout.channelCount
        chunk = .allocate(byteCount: self.chunkSampleCapacity * layout.encoding.bytesPerSample, alignment: 16)
    }

    deinit {
        chunk.deallocate()
        close(descriptor)
    }

    /// Interleaved samples not read yet.
    public var samplesRemaining: Int { frameCount * channelCount - samplesRead }

    /// Decodes the next whole frames into `buffer`: at most `chunkSampleCapacity` samples and
    /// what fits. Returns how many samples it wrote, a multiple of `channelCount`; 0 at the end
    /// (or when `buffer` holds less than a frame).
    ///
    /// - Throws: `WAVError.io` when reading fails or the file got shorter since it was opened.
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) throws(WAVError) -> Int {
        let wanted = min(buffer.count, chunkSampleCapacity, samplesRemaining) / channelCount * channelCount
        guard wanted > 0 else { return 0 }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<wanted * layout.encoding.bytesPerSample])
        try Self.fill(bytes, from: descriptor, path: path, offset: layout.dataOffset + samplesRead * layout.encoding.bytesPerSample)
        let written = layout.decode(UnsafeRawBufferPointer(bytes), into: buffer)
        samplesRead += written
        return written
    }

    /// `count` bytes at `offset` as an array (header parsing only: small reads).
    private static func read(_ descriptor: Int32, path: String, offset: Int, count: Int) throws(WAVError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var failure: WAVError?
        bytes.withUnsafeMutableBytes { raw in
            do throws(WAVError) {
                try fill(raw, from: descriptor, path: path, offset: offset)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Fills `bytes` from `offset`, retrying short reads and EINTR.
    private static func fill(_ bytes: UnsafeMutableRawBufferPointer, from descriptor: Int32, path: String, offset: Int) throws(WAVError) {
        var done = 0
        while done < bytes.count {
            let count = pread(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                throw .io(path: path, reason: count == 0 ? "the file ended early (truncated while open?)" : String(cString: strerror(errno)))
            }
            done += count
        }
    }
}
