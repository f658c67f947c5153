// SPDX-License-Identifier: Apache-2.0
/// The standard synthetic rooms of the echo tests and `benchmarks aec`, so that a test about
/// "every room" runs the rooms the benchmark reports: four linear rooms with bulk delays of
/// 20–400 ms and two with a soft-clipping loudspeaker.
public struct EchoRoom: Sendable, CustomStringConvertible {
    /// Bulk delay (device latency) in milliseconds.
    public var bulkDelayMs: Int
    /// Echo gain in dB (echo energy relative to the far end through a flat path).
    public var gainDb: Double
    /// Reverberation time in milliseconds.
    public var rt60Ms: Int
    /// Drive of the tanh loudspeaker (`nil`: linear).
    public var softClipDrive: Float?

    /// A room with these properties.
    public init(bulkDelayMs: Int, gainDb: Double, rt60Ms: Int, softClipDrive: Float? = nil) {
        self.bulkDelayMs = bulkDelayMs
        self.gainDb = gainDb
        self.rt60Ms = rt60Ms
        self.softClipDrive = softClipDrive
    }

    /// The rooms the benchmark reports, in its order.
    public static let standard: [EchoRoom] = [
        EchoRoom(bulkDelayMs: 20, gainDb: -3, rt60Ms: 200),
        EchoRoom(bulkDelayMs: 120, gainDb: -6, rt60Ms: 300),
        EchoRoom(bulkDelayMs: 250, gainDb: -9, rt60Ms: 250),
        EchoRoom(bulkDelayMs: 400, gainDb: -12, rt60Ms: 300),
        EchoRoom(bulkDelayMs: 120, gainDb: -6, rt60Ms: 250, softClipDrive: 3),
        EchoRoom(bulkDelayMs: 250, gainDb: -6, rt60Ms: 250, softClipDrive: 3),
    ]

    /// Seed offsets of the draws each room is tried on: 0 is the benchmark's main draw (seed =
    /// the bulk delay), the others draw other random responses of the same shape (seed =
    /// offset + bulk delay).
    public static let seedOffsets: [UInt64] = [0, 101, 202, 303]

    /// "120 ms", "120 ms soft-clip": how the benchmark names the room.
    public var description: String { "\(bulkDelayMs) ms\(softClipDrive == nil ? "" : " soft-clip")" }

    /// The room's echo path at `sampleRate`, drawn with seed `seedOffset` + the bulk delay.
    public func path(sampleRate: Int, seedOffset: UInt64 = 0) -> EchoPath {
        EchoPath(sampleRate: sampleRate, rt60Ms: rt60Ms, bulkDelayMs: bulkDelayMs, gainDb: gainDb,
                 softClipDrive: softClipDrive, seed: seedOffset + UInt64(bulkDelayMs))
    }
}
