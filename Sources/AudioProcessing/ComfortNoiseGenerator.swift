// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fills what the suppression gain removed with noise at the near end's noise floor, so the
/// listener does not hear the near end's background switch off whenever the far end talks.
///
/// Each bin of the gained spectrum gets noise of the floor's power with a random phase, scaled
/// by √(1 − gain²) (as WebRTC's AEC3 does): where the gain is 1 nothing is added; where it
/// removes everything, the noise replaces the floor; in between, a bin that holds only noise
/// keeps its expected power: gain² × floor + (1 − gain²) × floor = floor. A noise-free
/// microphone has a floor near zero and gets none.
///
/// Phases come from a seeded xorshift64 generator (deterministic output, nothing allocated,
/// no system randomness on the audio path) indexing a table of 256 angles.
final class ComfortNoiseGenerator {
    /// The generator's state after `init` and `reset`.
    static let seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Number of bins.
    let binCount: Int
    /// Power factor from the analysis spectrum to a random-phase synthesis spectrum of the same
    /// time-domain power: 2 × transform size / block. The analysis window's energy is
    /// block / 2, while a random-phase spectrum spreads over the whole zero-padded transform.
    let scale: Float

    private let phaseCosine: UnsafeMutablePointer<Float>
    private let phaseSine: UnsafeMutablePointer<Float>
    private var state = ComfortNoiseGenerator.seed

    /// A generator for spectra of `binCount` bins from `STFTFraming` blocks of `blockCount`
    /// samples zero-padded to `transformSize`.
    init(binCount: Int, blockCount: Int, transformSize: Int) {
        self.binCount = binCount
        scale = 2 * Float(transformSize) / Float(blockCount)
        phaseCosine = .allocate(capacity: 256, filledWith: 0)
        phaseSine = .allocate(capacity: 256, filledWith: 0)
        for index in 0..<256 {
            phaseCosine[index] = Float(cos(2 * Double.pi * Double(index) / 256))
            phaseSine[index] = Float(sin(2 * Double.pi * Double(index) / 256))
        }
    }

    deinit {
        phaseCosine.deallocate()
        phaseSine.deallocate()
    }

    /// Restarts the phase sequence.
    func reset() { state = Self.seed }

    /// Adds to each bin of `spectrum` (already multiplied by `gain`) random-phase noise of
    /// power (1 − gain²) × `scale` × `noiseFloor` in that bin.
    func add(to spectrum: Spectrum, gain: UnsafePointer<Float>, noiseFloor: UnsafePointer<Float>) {
        var state = self.state
        for bin in 0..<binCount {
            let g = gain[bin]
            let share = 1 - g * g
            guard share > 0, noiseFloor[bin] > 0 else { continue }
            let magnitude = (share * scale * noiseFloor[bin]).squareRoot()
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let phase = Int(truncatingIfNeeded: state >> 56)
            spectrum.real[bin] += magnitude * phaseCosine[phase]
            spectrum.imaginary[bin] += magnitude * phaseSine[phase]
        }
        self.state = state
    }
}
