// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Locking
import Synchronization

/// What a call records (`--output`), streamed to disk in bounded memory however long the call:
/// the media loop hands each played-out frame over through a preallocated `SampleRing`
/// (no allocation, no lock, no file I/O on its side), and a thread of its own moves what
/// collects there into a `WAVFileWriter`, chunk by chunk. Memory stays at the ring's and the
/// writer's fixed buffers: an hour is the same few hundred kilobytes as a second.
///
/// The file is created only when the first frame arrives (or at `finish` for a call that
/// recorded nothing), so a call that fails before any media leaves no file behind.
final class RealCallRecording: @unchecked Sendable {
    /// Samples the ring holds: 4 s at 48 kHz, what the writer thread may fall behind (a slow
    /// disk) before frames are dropped (and counted).
    static let ringSamples = 4 * RealCallAudio.sampleRate
    /// Samples the writer thread moves per file write at most.
    static let chunkSamples = 32_768

    /// Interleaved (mono) samples handed to `append` that did not fit in the ring: lost.
    private(set) var droppedSamples = 0
    /// Samples handed over (into the ring) so far.
    private(set) var appendedSamples = 0

    let path: String
    private let ring: SampleRing
    private let stopping = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    /// The writer thread's state: touched by it alone until `finish` has joined it.
    private var writer: WAVFileWriter?
    private var failure: WAVError?
    private var thread: JoinableThread?

    /// A recording to `path` at the call's rate, its writer thread started.
    init(path: String, ringSamples: Int = RealCallRecording.ringSamples) throws(RealCallFailure) {
        self.path = path
        ring = SampleRing(minimumCapacity: ringSamples)
        guard let thread = JoinableThread.spawn({ [self] in drain() }) else {
            throw .failed("cannot start the recording's writer thread")
        }
        self.thread = thread
    }

    deinit {
        stopping.store(true, ordering: .releasing)
        thread?.join()
    }

    /// The ring's capacity in samples: fixed, whatever the recording's length.
    var ringCapacity: Int { ring.capacity }

    /// The writer's buffer capacity in samples (0 before the file is open).
    var writerBufferCapacity: Int { writer?.bufferSampleCapacity ?? 0 }

    /// Samples handed over that the writer thread has not taken yet.
    var pendingSamples: Int { ring.availableToRead }

    /// Whether writing the file has failed (the loop ends the call and `finish` says why).
    var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Hands one frame to the writer thread: copies it into the ring (real-time safe). A
    /// frame that does not fit (the disk fell 4 s behind) is dropped and counted.
    func append(_ frame: UnsafeBufferPointer<Int16>) {
        let written = ring.write(frame)
        appendedSamples += written
        droppedSamples += frame.count - written
    }

    /// Stops the writer thread once it has written everything handed over, keeps the first
    /// `keptSamples` (the tail after them is cut: concealment after the peer's last packet),
    /// and closes the file with its final header. Returns the samples in the file.
    @discardableResult
    func finish(keepingSamples keptSamples: Int? = nil) throws(RealCallFailure) -> Int {
        stopping.store(true, ordering: .releasing)
        thread?.join()
        thread = nil
        do throws(WAVError) {
            if let failure { throw failure }
            let writer = try openedWriter()
            if let keptSamples, UInt64(keptSamples) < writer.sampleCount {
                try writer.truncate(toFrameCount: UInt64(max(0, keptSamples)))
            }
            try writer.close()
            return Int(writer.sampleCount)
        } catch {
            throw .file("cannot write --output \(path): \(error)")
        }
    }

    /// The writer thread: waits for samples, writes them in chunks, drains the ring at the end.
    private func drain() {
        let chunk = UnsafeMutableBufferPointer<Int16>.allocate(capacity: Self.chunkSamples)
        defer { chunk.deallocate() }
        while true {
            let stop = stopping.load(ordering: .acquiring)
            let count = ring.read(into: chunk)
            if count > 0 && failure == nil {
                do throws(WAVError) {
                    try openedWriter().write(UnsafeBufferPointer(rebasing: chunk[0..<count]))
                } catch {
                    failure = error
                    failed.store(true, ordering: .releasing)
                }
            }
            if count == 0 {
                if stop { return }
                // 20 ms: one frame; the ring holds 4 s, so this never makes the loop drop.
                usleep(20_000)
            }
        }
    }

    /// The file's writer, the file created on first use.
    private func openedWriter() throws(WAVError) -> WAVFileWriter {
        if let writer { return writer }
        let writer = try WAVFileWriter(path: path, sampleRate: RealCallAudio.sampleRate, channelCount: 1,
                                       bufferSampleCapacity: Self.chunkSamples)
        self.writer = writer
        return writer
    }
}
