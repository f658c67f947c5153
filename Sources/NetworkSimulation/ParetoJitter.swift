// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Heavy-tailed queueing delay: a Pareto variable shifted to start at zero (a Lomax
/// distribution), so most packets see little extra delay and a few see a lot.
///
/// A sample is `scaleMs · (U^(−1/shape) − 1)` for uniform `U` in (0, 1]; its mean is
/// `scaleMs / (shape − 1)` when `shape > 1`.
public struct ParetoJitter: Sendable, Hashable {
    /// The tail index α; smaller is heavier (the variance is infinite for α ≤ 2).
    public var shape: Double
    /// The scale in milliseconds.
    public var scaleMs: Double

    /// Jitter with the given shape and scale.
    public init(shape: Double, scaleMs: Double) {
        self.shape = shape
        self.scaleMs = scaleMs
    }

    /// Jitter with the given shape (> 1) whose mean extra delay is `meanMs`.
    public init(meanMs: Double, shape: Double = 2.5) {
        self.init(shape: shape, scaleMs: meanMs * (shape - 1))
    }

    /// The mean extra delay in milliseconds (infinite for shape ≤ 1).
    public var meanMs: Double { shape > 1 ? scaleMs / (shape - 1) : .infinity }

    /// The extra delay in milliseconds that a fraction `probability` of samples stays under.
    public func quantileMs(_ probability: Double) -> Double {
        scaleMs * (pow(1 - probability, -1 / shape) - 1)
    }

    /// One extra delay in milliseconds (≥ 0).
    public func sampleMs<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Double {
        guard scaleMs > 0 else { return 0 }
        let uniform = 1 - Double.random(in: 0..<1, using: &generator)  // (0, 1]
        return scaleMs * (pow(uniform, -1 / shape) - 1)
    }
}
