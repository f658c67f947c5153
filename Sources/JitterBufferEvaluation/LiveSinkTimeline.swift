// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What a live audio sink plays of a GStreamer pipeline's output, rebuilt from the file the
/// pipeline wrote and each buffer's timestamp (an `identity silent=false` element's
/// messages, printed by `gst-launch-1.0 -v`).
///
/// A file sink writes every buffer as it comes, one after another, whenever it comes; a live
/// sink plays each at its timestamp on the clock. Where rtpjitterbuffer moves its playout later
/// (after a delay spike its clock is re-based and every later packet is stamped that much
/// later), the live sink plays nothing until the next buffer is due: the timeline gets that
/// silence, which the file had closed up as if the pause cost nothing. A buffer stamped
/// earlier than what is already played cannot be played early: it follows at once, later than
/// its stamp (nothing is dropped).
public enum LiveSinkTimeline {
    /// One buffer at the sink: its timestamp in ns and its length in samples.
    public struct Buffer: Equatable, Sendable {
        /// The buffer's presentation timestamp, in ns.
        public var ptsNanoseconds: Int64
        /// Its length, in samples.
        public var samples: Int

        /// A buffer stamped `ptsNanoseconds` holding `samples` samples.
        public init(ptsNanoseconds: Int64, samples: Int) {
            self.ptsNanoseconds = ptsNanoseconds
            self.samples = samples
        }
    }

    /// Gaps between buffers shorter than this many samples are the stamps' rounding, not a
    /// pause: 1 ms at 48 kHz.
    public static let toleranceSamples = 48

    /// A buffer's largest size read from a message, in bytes: an hour of 48 kHz 16-bit audio
    /// (a message outside it is not GStreamer's, and is skipped before any arithmetic).
    static let maximumBufferBytes: Int64 = 3_600 * 48_000 * 2

    /// The buffers of `identity`'s chain messages in `log`, in order (16-bit mono samples).
    /// A line whose size or timestamp is malformed or out of range is skipped.
    public static func buffers(inLog log: String) -> [Buffer] {
        var buffers: [Buffer] = []
        for line in log.split(separator: "\n") where line.contains("chain") {
            guard let bytes = Self.number(after: "(", before: " bytes", in: line), (0...maximumBufferBytes).contains(bytes),
                  let ptsRange = line.range(of: "pts: "),
                  let pts = Self.nanoseconds(String(line[ptsRange.upperBound...].prefix { $0 != "," })) else { continue }
            buffers.append(Buffer(ptsNanoseconds: pts, samples: Int(bytes / 2)))
        }
        return buffers
    }

    /// `samples` (the file: every buffer's samples in order) laid out at `buffers`' timestamps
    /// at `sampleRate`, from the first buffer on; nil when the buffers do not account for the
    /// file. (How much delay a pause added is not in the stamps: a hole where the decoder made
    /// no audio for a lost packet looks the same, and it adds none.)
    public static func play(_ samples: [Int16], buffers: [Buffer], sampleRate: Int = 48_000) -> [Int16]? {
        guard let first = buffers.first, buffers.reduce(0, { $0 + $1.samples }) == samples.count, !samples.isEmpty else { return nil }
        var timeline: [Int16] = []
        timeline.reserveCapacity(samples.count + sampleRate)
        var read = 0
        for buffer in buffers {
            let due = Int((Double(buffer.ptsNanoseconds - first.ptsNanoseconds) * Double(sampleRate) / 1e9).rounded())
            if due - timeline.count > toleranceSamples {
                timeline.append(contentsOf: repeatElement(0, count: due - timeline.count))
            }
            timeline.append(contentsOf: samples[read..<(read + buffer.samples)])
            read += buffer.samples
        }
        return timeline
    }

    private static func number(after open: String, before close: String, in line: Substring) -> Int64? {
        guard let end = line.range(of: close) else { return nil }
        let head = line[..<end.lowerBound]
        guard let start = head.range(of: open, options: .backwards) else { return nil }
        return Int64(head[start.upperBound...])
    }

    /// "H:MM:SS.NNNNNNNNN" in ns; nil for "none", anything else, or a field out of range (hours
    /// beyond a million, minutes or seconds beyond 59, a sign anywhere).
    private static func nanoseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let hours = Int64(parts[0]), let minutes = Int64(parts[1]),
              (0..<1_000_000).contains(hours), (0..<60).contains(minutes) else { return nil }
        let seconds = parts[2].split(separator: ".")
        guard seconds.count == 2, let whole = Int64(seconds[0]), let fraction = Int64(seconds[1].prefix(9)),
              (0..<60).contains(whole), fraction >= 0, seconds[1].allSatisfy(\.isNumber) else { return nil }
        let scale = Int64(pow(10, Double(9 - min(9, seconds[1].count))))
        return ((hours * 60 + minutes) * 60 + whole) * 1_000_000_000 + fraction * scale
    }
}
