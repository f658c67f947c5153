// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Writes a 16-bit PCM WAV file as the audio comes, in bounded memory however long the
/// recording: samples collect in a buffer of fixed capacity, each full buffer goes to the
/// file in one write, and `close()` rewrites the header for the final size — RIFF, or RF64
/// (EBU Tech 3306) once the data outgrows RIFF's 32-bit sizes, which the 80-byte header
/// reserves room for from the start (`WAVHeader.Layout.reservingDS64`).
///
/// Until `close()` the header's sizes are 0xFFFFFFFF ("unknown"): a file left by a crash
/// still reads back, as `WAVAudio` and `WAVFileReader` take a data chunk that claims more
/// than the file holds as what is there.
///
/// File I/O: keep it off a real-time thread (hand samples over through a `SampleRing`). Not
/// thread-safe: one thread at a time.
public final class WAVFileWriter {
    /// Frames per second.
    public let sampleRate: Int
    /// Interleaved channels per frame.
    public let channelCount: Int
    /// Samples the buffer holds before it is written out: fixed for the writer's life.
    public let bufferSampleCapacity: Int
    /// Interleaved samples taken so far (written or buffered).
    public private(set) var sampleCount: UInt64 = 0
    /// Samples waiting in the buffer.
    public private(set) var bufferedSampleCount = 0
    /// Writes to the file so far, header included.
    public private(set) var fileWrites = 0
    /// Whether `close()` has run.
    public private(set) var isClosed = false

    /// Whole frames taken so far.
    public var frameCount: UInt64 { sampleCount / UInt64(channelCount) }

    private let path: String
    private let descriptor: Int32
    private let buffer: UnsafeMutableBufferPointer<Int16>

    /// Creates (or empties) the regular file at `path` and writes a header for no samples.
    ///
    /// Only a regular file is written: a symbolic link (which may point at another user's
    /// file) and anything that is not a regular file (a FIFO, a device, a directory) are
    /// refused, untouched, before anything is written.
    ///
    /// - Throws: `WAVError.io` when the file cannot be created or written, or is not a regular
    ///   file; `.unsupportedFormat` as `WAVHeader` does.
    public init(path: String, sampleRate: Int, channelCount: Int, bufferSampleCapacity: Int = 32_768) throws(WAVError) {
        let header = try WAVHeader(sampleRate: sampleRate, channelCount: channelCount, frameCount: 0, layout: .reservingDS64)
        // O_NONBLOCK: opening a FIFO for writing would otherwise wait for a reader. No O_TRUNC
        // yet: only a regular file may be emptied.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            // ENXIO: a FIFO nobody reads (O_NONBLOCK), or a device that is not there.
            let reason = switch errno {
            case ELOOP: "a symbolic link; name the file itself"
            case ENXIO: "not a regular file"
            default: String(cString: strerror(errno))
            }
            throw .io(path: path, reason: reason)
        }
        var status = stat()
        let statted = fstat(descriptor, &status) == 0
        guard statted, (status.st_mode & S_IFMT) == S_IFREG,
              fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) == 0,
              ftruncate(descriptor, 0) == 0 else {
            let reason = statted && (status.st_mode & S_IFMT) != S_IFREG ? "not a regular file" : String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw .io(path: path, reason: reason)
        }
        self.path = path
        self.descriptor = descriptor
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bufferSampleCapacity = max(bufferSampleCapacity / channelCount, 1) * channelCount
        buffer = .allocate(capacity: self.bufferSampleCapacity)
        buffer.initialize(repeating: 0)
        // Until close the sizes say "unknown" (0xFFFFFFFF): a recording cut short by a crash
        // still reads back as every sample written, where sizes of 0 would hide them all.
        var bytes = header.bytes
        bytes.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        bytes.replaceSubrange(header.byteCount - 4..<header.byteCount, with: [0xFF, 0xFF, 0xFF, 0xFF])
        do {
            try writeHeader(bytes)
        } catch {
            buffer.deallocate()
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit {
        if !isClosed { try? close() }
        buffer.deallocate()
    }

    /// Takes `samples` (interleaved); each time the buffer fills it goes to the file.
    ///
    /// - Throws: `WAVError.io` when a write fails (the disk is full), or after `close()`.
    public func write(_ samples: UnsafeBufferPointer<Int16>) throws(WAVError) {
        guard !isClosed else { throw .io(path: path, reason: "written after close") }
        var taken = 0
        while taken < samples.count {
            let count = min(samples.count - taken, bufferSampleCapacity - bufferedSampleCount)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[bufferedSampleCount..<bufferedSampleCount + count])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: samples[taken..<taken + count]))
            bufferedSampleCount += count
            taken += count
            sampleCount += UInt64(count)
            if bufferedSampleCount == bufferSampleCapacity { try flush() }
        }
    }

    /// Drops every frame after the first `frameCount` (a recording's tail that turned out to
    /// be concealment); more than were taken is an error.
    ///
    /// - Throws: `WAVError.io` when truncating fails, after `close()`, or for more frames than
    ///   were taken.
    public func truncate(toFrameCount frames: UInt64) throws(WAVError) {
        guard !isClosed else { throw .io(path: path, reason: "truncated after close") }
        guard frames <= frameCount else { throw .io(path: path, reason: "cannot keep \(frames) frames of \(frameCount)") }
        try flush()
        sampleCount = frames * UInt64(channelCount)
        guard ftruncate(descriptor, off_t(UInt64(80) + sampleCount * 2)) == 0 else {
            throw .io(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Writes what is buffered and the header for the final size, and closes the file. A
    /// second call does nothing.
    ///
    /// - Throws: `WAVError.io` when a write fails; the file is closed all the same.
    public func close() throws(WAVError) {
        guard !isClosed else { return }
        isClosed = true
        defer { Glibc.close(descriptor) }
        try flush()
        try writeHeader(WAVHeader(sampleRate: sampleRate, channelCount: channelCount, frameCount: frameCount, layout: .reservingDS64).bytes)
    }

    private func flush() throws(WAVError) {
        guard bufferedSampleCount > 0 else { return }
        // The buffer's Int16s go out as they are in memory: little-endian, as WAV is, on
        // every platform this package builds for (x86-64, ARM64).
        let offset = UInt64(80) + (sampleCount - UInt64(bufferedSampleCount)) * 2
        try put(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[0..<bufferedSampleCount])), at: offset)
        bufferedSampleCount = 0
    }

    private func writeHeader(_ bytes: [UInt8]) throws(WAVError) {
        var failure: WAVError?
        bytes.withUnsafeBytes { raw in
            do throws(WAVError) {
                try put(raw, at: 0)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` at `offset`, retrying short writes and EINTR.
    private func put(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws(WAVError) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .io(path: path, reason: count == 0 ? "nothing written" : String(cString: strerror(errno))) }
            done += count
        }
        fileWrites += 1
    }
}
