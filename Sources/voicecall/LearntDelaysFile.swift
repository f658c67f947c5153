// SPDX-License-Identifier: Apache-2.0
import Foundation
import JitterBuffer

/// `--learnt-delays FILE`: what the jitter buffer of the last call on a path learnt of it
/// (`LearntDelays`, as JSON), read when a call starts so it plays at the path's delay from its
/// first words, and written when it ends for the next call. A file that does not exist yet
/// means nothing was learnt: the call starts at the initial delay and creates it.
enum LearntDelaysFile {
    /// Largest file read, in bytes: 5 002 weights written in full stay under 150 kB.
    static let maximumBytes = 1 << 20

    /// The learnt delays in `path`; nil when there is no such file.
    /// - Throws: `.file` when it cannot be read or is larger than `maximumBytes`;
    ///   `.badDescription` when it is not learnt delays a call can start from.
    static func read(_ path: String) throws(RealCallFailure) -> LearntDelays? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw .file("\(path): \(error.localizedDescription)")
        }
        guard data.count <= maximumBytes else { throw .file("\(path): larger than \(maximumBytes) bytes: not learnt delays") }
        let learnt: LearntDelays
        do {
            learnt = try JSONDecoder().decode(LearntDelays.self, from: data)
        } catch {
            throw .badDescription("--learnt-delays \(path): not learnt delays (JSON with bucketMs, weights, lossWasRecent)")
        }
        guard learnt.isValid else {
            throw .badDescription("--learnt-delays \(path): no call can start from it: its bucketMs is not 2, it holds no weight or more "
                + "than \(LearntDelays.maximumBucketCount), or a weight is negative or not finite, or they sum to zero")
        }
        return learnt
    }

    /// Writes `learnt` to `path` whole (nil, when the call played nothing: the file is left as
    /// it was, so what an earlier call learnt is kept).
    /// - Throws: `.file` when it cannot be written.
    static func write(_ learnt: LearntDelays?, to path: String) throws(RealCallFailure) {
        guard let learnt else { return }
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(learnt)
        } catch {
            throw .failed("encoding the learnt delays: \(error)")
        }
        if let failure = OwnerOnlyFile.write(Array(bytes), to: path) { throw .file("\(path): \(failure)") }
    }
}
