// SPDX-License-Identifier: Apache-2.0
/// A synthetic loudspeaker-room-microphone path for echo tests and benchmarks: an optional
/// soft-clipping loudspeaker (tanh), a bulk delay (device latency) and a decaying random
/// impulse response (exponential decay reaching −60 dB at RT60), scaled to an echo gain.
///
/// The room response is sparse — one random tap per millisecond after a dense first
/// millisecond — which keeps the convolution fast enough for debug-build tests while still
/// being a long, diffuse, decaying path that a short adaptive filter cannot model by luck.
public struct EchoPath: Sendable {
    /// Taps of the room response: (offset in samples after the bulk delay, gain).
    public var taps: [(offset: Int, gain: Float)]
    /// Bulk delay in samples.
    public var bulkDelaySamples: Int
    /// Drive of the tanh loudspeaker (`nil`: linear loudspeaker). Larger clips harder.
    public var softClipDrive: Float?

    /// A seeded room: `rt60Ms` decay, `bulkDelayMs` latency, overall echo gain `gainDb`
    /// (echo energy relative to the far-end energy through a flat path).
    public init(sampleRate: Int, rt60Ms: Int, bulkDelayMs: Int, gainDb: Double, softClipDrive: Float? = nil, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let length = sampleRate * rt60Ms / 1_000
        let step = max(1, sampleRate / 1_000)
        var taps: [(offset: Int, gain: Float)] = []
        var offset = 0
        while offset < length {
            let decay = Float(pow(10.0, -3.0 * Double(offset) / Double(length)))  // −60 dB at RT60
            let gain = Float.random(in: -1...1, using: &generator) * decay
            taps.append((offset, offset == 0 ? 1 : gain))
            offset += offset < step ? 1 : Int.random(in: step / 2...(3 * step / 2), using: &generator)
        }
        let energy = taps.reduce(Float(0)) { $0 + $1.gain * $1.gain }
        let scale = Float(pow(10.0, gainDb / 20.0)) / energy.squareRoot()
        self.taps = taps.map { ($0.offset, $0.gain * scale) }
        bulkDelaySamples = sampleRate * bulkDelayMs / 1_000
        self.softClipDrive = softClipDrive
    }

    /// The echo of `farEnd` as the microphone hears it (same length as `farEnd`).
    public func echo(of farEnd: [Int16]) -> [Int16] {
        var played = farEnd.map { Float($0) / 32_768 }
        if let drive = softClipDrive {
            played = played.map { tanh($0 * drive) / drive }
        }
        var output = [Float](repeating: 0, count: farEnd.count)
        played.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                for tap in taps {
                    let shift = tap.offset + bulkDelaySamples
                    guard shift < input.count else { continue }
                    let gain = tap.gain
                    for index in shift..<input.count { out[index] += gain * input[index - shift] }
                }
            }
        }
        return output.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
    }

    /// The echo the microphone hears at samples `range` when `played` holds everything the
    /// loudspeaker has played so far (sample 0 first): for a call in a loop, where the
    /// microphone of frame n depends on what was played before it. Samples not yet played
    /// count as silence.
    public func echo(of played: [Int16], at range: Range<Int>) -> [Int16] {
        var output = [Float](repeating: 0, count: range.count)
        played.withUnsafeBufferPointer { input in
            for tap in taps {
                let shift = tap.offset + bulkDelaySamples
                for index in range {
                    let source = index - shift
                    guard source >= 0, source < input.count else { continue }
                    var sample = Float(input[source]) / 32_768
                    if let drive = softClipDrive { sample = tanh(sample * drive) / drive }
                    output[index - range.lowerBound] += tap.gain * sample
                }
            }
        }
        return output.map { Int16(max(-32_768, min(32_767, ($0 * 32_768).rounded()))) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
