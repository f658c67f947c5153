// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import Foundation
import Locking
import Synchronization

/// What a call sends (`--input`), streamed from disk in bounded memory however long the file:
/// a thread of its own reads the WAV chunk by chunk (`WAVFileReader`), mixes it to mono,
/// resamples it to 48 kHz chunk by chunk (the same speexdsp stream as one pass over the
/// whole file), and keeps a preallocated `SampleRing` ahead of the media loop, which takes
/// one frame at a time from it (no allocation, no lock, no file I/O on its side).
///
/// The ring is filled before the call starts, so the first seconds never wait on the disk.
final class RealCallInput: @unchecked Sendable {
    /// Samples the ring holds ahead of the loop: about 2.7 s at 48 kHz.
    static let ringSamples = 131_072
    /// Frames read from the file per chunk.
    static let chunkFrames = 4_096

    /// The file's rate, channels and length.
    let sampleRate: Int
    let channelCount: Int
    let frameCount: Int

    /// Seconds of audio in the file.
    var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    private let path: String
    private let reader: WAVFileReader
    private let resampler: Resampler?
    private let ring: SampleRing
    /// The largest number of 48 kHz samples one chunk can become.
    private let chunkOutputCapacity: Int
    // The reading side's buffers, allocated once: one chunk of the file, mixed, resampled.
    private let interleaved: UnsafeMutableBufferPointer<Int16>
    private let mono: UnsafeMutableBufferPointer<Int16>
    private let converted: UnsafeMutableBufferPointer<Int16>
    private let ended = Atomic<Bool>(false)
    private let failed = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private var failure: WAVError?
    private var thread: JoinableThread?

    /// Opens `path`, checks its format, fills the ring and starts the reading thread.
    ///
    /// - Throws: `.file` when the WAV cannot be read, has no audio, or has a rate outside
    ///   8000…192000 Hz.
    init(path: String, ringSamples: Int = RealCallInput.ringSamples) throws(RealCallFailure) {
        do {
            reader = try WAVFileReader(path: path, chunkSampleCapacity: Self.chunkFrames * 8)
        } catch {
            throw .file("cannot read --input \(path): \(error)")
        }
        guard reader.frameCount > 0 else { throw .file("--input \(path) has no audio") }
        if reader.sampleRate == RealCallAudio.sampleRate {
            resampler = nil
        } else {
            guard (8_000...192_000).contains(reader.sampleRate) else {
                throw .file("--input \(path) is at \(reader.sampleRate) Hz; 8000…192000 Hz can be resampled")
            }
            do {
                resampler = try Resampler(inputRate: reader.sampleRate, outputRate: RealCallAudio.sampleRate)
            } catch {
                throw .failed("resampler: \(error)")
            }
        }
        self.path = path
        sampleRate = reader.sampleRate
        channelCount = reader.channelCount
        frameCount = reader.frameCount
        chunkOutputCapacity = Self.chunkFrames * RealCallAudio.sampleRate / 8_000 + 1_024
        ring = SampleRing(minimumCapacity: max(ringSamples, 2 * chunkOutputCapacity))
        interleaved = .allocate(capacity: Self.chunkFrames * reader.channelCount)
        mono = .allocate(capacity: Self.chunkFrames)
        converted = .allocate(capacity: chunkOutputCapacity)
        while ring.availableToWrite >= chunkOutputCapacity && !ended.load(ordering: .relaxed) { readChunk() }
        if let failure { throw .file("cannot read --input \(path): \(failure)") }
        if !ended.load(ordering: .relaxed) {
            guard let thread = JoinableThread.spawn({ [self] in fill() }) else {
                throw .failed("cannot start the input's reading thread")
            }
            self.thread = thread
        }
    }

    deinit {
        stop()
        interleaved.deallocate()
        mono.deallocate()
        converted.deallocate()
    }

    /// The ring's capacity in samples: fixed, whatever the file's length.
    var ringCapacity: Int { ring.capacity }
    /// The file reader's chunk, in samples: the most of the file held at once.
    var readerChunkCapacity: Int { reader.chunkSampleCapacity }

    /// Whether reading the file failed midway (the loop ends the call; `failureDescription` says why).
    var hasFailed: Bool { failed.load(ordering: .acquiring) }

    /// Why reading failed, once `hasFailed`.
    var failureDescription: String {
        hasFailed ? "cannot read --input \(path): \(failure.map { "\($0)" } ?? "unknown error")" : ""
    }

    /// The next 48 kHz mono samples for one frame: copies up to `frame.count` into `frame` and
    /// returns how many (fewer only at the end, or when the disk fell behind the ring); nil
    /// once every sample has been taken. Real-time safe.
    func read(into frame: UnsafeMutableBufferPointer<Int16>) -> Int? {
        // `ended` first: set after the last write, so an empty ring after it is the end.
        let finished = ended.load(ordering: .acquiring)
        let count = ring.read(into: frame)
        return count == 0 && finished ? nil : count
    }

    /// Stops the reading thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        thread?.join()
        thread = nil
    }

    /// The reading thread: tops the ring up a chunk at a time.
    private func fill() {
        while !stopping.load(ordering: .acquiring) && !ended.load(ordering: .relaxed) {
            if ring.availableToWrite >= chunkOutputCapacity {
                readChunk()
            } else {
                usleep(20_000)
            }
        }
    }

    /// Reads, mixes and resamples one chunk into the ring (which has room for it); at the end
    /// of the file (or on a read error), marks the input ended.
    private func readChunk() {
        let count: Int
        do throws(WAVError) {
            count = try reader.read(into: interleaved)
        } catch {
            failure = error
            failed.store(true, ordering: .releasing)
            ended.store(true, ordering: .releasing)
            return
        }
        guard count > 0 else {
            ended.store(true, ordering: .releasing)
            return
        }
        let frames = count / channelCount
        for frame in 0..<frames {
            var sum = 0
            for channel in 0..<channelCount { sum += Int(interleaved[frame * channelCount + channel]) }
            mono[frame] = Int16(sum / channelCount)
        }
        let input = UnsafeBufferPointer(rebasing: mono[0..<frames])
        guard let resampler else {
            ring.write(input)
            return
        }
        var consumed = 0
        var written = 0
        while consumed < frames && written < converted.count {
            let step = resampler.process(UnsafeBufferPointer(rebasing: input[consumed...]),
                                         into: UnsafeMutableBufferPointer(rebasing: converted[written...]))
            if step.consumed == 0 && step.written == 0 { break }
            consumed += step.consumed
            written += step.written
        }
        ring.write(UnsafeBufferPointer(rebasing: converted[0..<written]))
    }
}
