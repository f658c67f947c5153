// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Tells a pause from talk in decoded frames, so a time-stretch can wait for a pause (where
/// nobody hears a pitch period removed or inserted).
///
/// It follows the stream's noise floor: the floor drops at once to any quieter frame and rises
/// by `floorRiseDbPerSecond` while frames stay above it, so it sits under the background a
/// pause has. A frame is quiet when its power is within `quietAboveFloorDb` of the floor, or
/// below `alwaysQuietDbfs`; never when above `neverQuietDbfs` (a steady loud signal such as
/// music or a tone is not a pause, however steady). No allocation; one pass over the frame.
final class QuietFrameDetector {
    /// How far above the noise floor a frame still counts as a pause, in dB.
    static let quietAboveFloorDb = 6.0
    /// Below this level (dB relative to full scale) every frame is a pause.
    static let alwaysQuietDbfs = -60.0
    /// Above this level no frame is a pause.
    static let neverQuietDbfs = -40.0
    /// How fast the floor climbs while every frame is above it, in dB per second.
    static let floorRiseDbPerSecond = 5.0

    /// Whether the frame last observed was quiet.
    private(set) var isQuiet = false
    /// The noise floor: the mean square of a pause, in squared sample units.
    private(set) var floorMeanSquare: Double
    private let riseFactor: Double
    private let quietFactor: Double
    private let alwaysQuietMeanSquare: Double
    private let neverQuietMeanSquare: Double

    /// A detector for frames of `frameDurationMs`.
    init(frameDurationMs: Int) {
        let fullScale = 32_768.0 * 32_768.0
        func power(_ decibels: Double) -> Double { pow(10, decibels / 10) }
        riseFactor = power(Self.floorRiseDbPerSecond * Double(frameDurationMs) / 1_000)
        quietFactor = power(Self.quietAboveFloorDb)
        alwaysQuietMeanSquare = fullScale * power(Self.alwaysQuietDbfs)
        neverQuietMeanSquare = fullScale * power(Self.neverQuietDbfs)
        floorMeanSquare = neverQuietMeanSquare
    }

    /// Measures `frame`, updates the floor and returns whether the frame is quiet.
    @discardableResult
    func observe(_ frame: UnsafeBufferPointer<Int16>) -> Bool {
        guard !frame.isEmpty else { return isQuiet }
        var sum = 0.0
        for sample in frame {
            let value = Double(sample)
            sum += value * value
        }
        let meanSquare = sum / Double(frame.count)
        if meanSquare < floorMeanSquare {
            floorMeanSquare = meanSquare
        } else {
            // Climb no higher than the frame itself; from digital silence, climb from one unit.
            floorMeanSquare = min(max(floorMeanSquare, 1) * riseFactor, meanSquare)
        }
        isQuiet = meanSquare <= neverQuietMeanSquare
            && (meanSquare < alwaysQuietMeanSquare || meanSquare <= floorMeanSquare * quietFactor)
        return isQuiet
    }

    /// Forgets the stream (a new one begins).
    func reset() {
        floorMeanSquare = neverQuietMeanSquare
        isQuiet = false
    }
}
