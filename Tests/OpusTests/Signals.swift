// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import Opus
import TestSupport


/// Synthetic test signals, as interleaved Int16 PCM.
enum Signals {
    /// A sum of tones (Hz) per channel, total peak `amplitude` (full scale = 1), with seeded
    /// random phases. Channel `c` uses `tones[c]`.
    static func tones(_ tones: [[Double]], sampleRate: Int, sampleCount: Int, amplitude: Double = 0.25, seed: UInt64 = 1) -> [Int16] {
        var rng = SeededGenerator(seed: seed)
        let channels = tones.count
        let phases = tones.map { $0.map { _ in Double.random(in: 0..<(2 * .pi), using: &rng) } }
        var pcm = [Int16](repeating: 0, count: sampleCount * channels)
        for c in 0..<channels {
            let perTone = amplitude / Double(tones[c].count)
            for n in 0..<sampleCount {
                let t = Double(n) / Double(sampleRate)
                var x = 0.0
                for (k, f) in tones[c].enumerated() { x += perTone * sin(2 * .pi * f * t + phases[c][k]) }
                pcm[n * channels + c] = Int16((x * 32767).rounded())
            }
        }
        return pcm
    }

    /// A voice-like mono signal: harmonics of a gliding pitch (110–190 Hz) shaped by three
    /// formants, in 125 ms syllables separated by 125 ms pauses (peaks at 62.5 ms + k × 250 ms),
    /// over a little seeded breath noise.
    static func voice(sampleRate: Int, sampleCount: Int, seed: UInt64 = 7) -> [Int16] {
        var rng = SeededGenerator(seed: seed)
        let formants: [(center: Double, width: Double)] = [(600, 150), (1400, 250), (2600, 400)]
        var pcm = [Int16](repeating: 0, count: sampleCount)
        var phase = 0.0
        let rate = Double(sampleRate)
        let maxHarmonicFrequency = min(rate / 2, 4000)
        var gains = [Double](repeating: 0, count: 64)
        let block = max(1, sampleRate / 1000)  // harmonic gains are updated every 1 ms
        for n in 0..<sampleCount {
            let t = Double(n) / rate
            let f0 = 150 + 40 * sin(2 * .pi * 1.3 * t)
            let harmonics = min(gains.count - 1, Int(maxHarmonicFrequency / f0))
            if n % block == 0 {
                for h in 1...harmonics {
                    let fh = Double(h) * f0
                    var gain = 0.15
                    for formant in formants {
                        let d = (fh - formant.center) / formant.width
                        gain += exp(-0.5 * d * d)
                    }
                    gains[h] = gain / Double(h).squareRoot()
                }
            }
            phase += 2 * .pi * f0 / rate
            if phase > 2 * .pi * 1000 { phase -= 2 * .pi * 1000 }
            var x = 0.0
            for h in 1...harmonics { x += gains[h] * sin(Double(h) * phase) }
            let syllable = max(0, sin(2 * .pi * 4 * t)).squareRoot()  // 125 ms voiced, 125 ms pause
            let noise = Double.random(in: -1...1, using: &rng) * 0.02
            pcm[n] = Int16(clamping: Int((0.08 * syllable * x + noise) * 32767))
        }
        return pcm
    }

    /// Channel `channel` of interleaved `pcm`, as Double.
    static func channel(_ channel: Int, of pcm: [Int16], channels: Int) -> [Double] {
        stride(from: channel, to: pcm.count, by: channels).map { Double(pcm[$0]) }
    }

    /// The largest normalised cross-correlation between `input[start..<start+window]` and
    /// `output` delayed by a lag in `lags`, with that lag.
    static func bestCorrelation(input: [Double], output: [Double], start: Int, window: Int, lags: ClosedRange<Int>) -> (correlation: Double, lag: Int) {
        var best = (correlation: -Double.infinity, lag: 0)
        input.withUnsafeBufferPointer { x in
            output.withUnsafeBufferPointer { y in
                var xx = 0.0
                for n in start..<(start + window) { xx += x[n] * x[n] }
                for lag in lags where start + lag + window <= y.count {
                    var xy = 0.0, yy = 0.0
                    for n in start..<(start + window) {
                        let v = y[n + lag]
                        xy += x[n] * v
                        yy += v * v
                    }
                    let r = xy / (xx * yy).squareRoot()
                    if r > best.correlation { best = (r, lag) }
                }
            }
        }
        return best
    }

    /// Energy of `a − b` relative to the energy of `b`, in dB (lower is closer).
    static func errorDecibels(_ a: ArraySlice<Int16>, reference b: ArraySlice<Int16>) -> Double {
        var error = 0.0, energy = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            error += d * d
            energy += Double(y) * Double(y)
        }
        return 10 * log10(max(error, 1e-9) / max(energy, 1e-9))
    }
}

/// Runs `body` and returns the `OpusError` it threw, or nil (recording an issue if it threw
/// anything else). Closures infer untyped `throws`, hence the cast.
func opusError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> OpusError? {
    do {
        _ = try body()
        return nil
    } catch let error as OpusError {
        return error
    } catch {
        Issue.record("expected an OpusError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension OpusEncoder {
    /// Encodes an interleaved array frame into a fresh array (test convenience, allocates).
    func encode(_ pcm: ArraySlice<Int16>, capacity: Int = 1500) throws -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: capacity)
        let count = try pcm.withUnsafeBufferPointer { (input) throws -> Int in
            try packet.withUnsafeMutableBytes { (output) throws -> Int in
                try self.encode(input, into: output)
            }
        }
        return Array(packet.prefix(count))
    }
}

extension OpusDecoder {
    /// Decodes a packet into a fresh array of `capacity` samples per channel, trimmed to the
    /// decoded length (test convenience, allocates).
    func decode(_ packet: [UInt8], capacity: Int = 5760) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: capacity * channels)
        let count = try packet.withUnsafeBytes { (input) throws -> Int in
            try pcm.withUnsafeMutableBufferPointer { (output) throws -> Int in
                try self.decode(input, into: output)
            }
        }
        return Array(pcm.prefix(count * channels))
    }

    /// Recovers the frame before `nextPacket` (`frameSize` samples per channel) from FEC.
    func decodeFEC(from nextPacket: [UInt8], frameSize: Int) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: frameSize * channels)
        _ = try nextPacket.withUnsafeBytes { (input) throws -> Int in
            try pcm.withUnsafeMutableBufferPointer { (output) throws -> Int in
                try self.decodeFEC(from: input, into: output)
            }
        }
        return pcm
    }

    /// Conceals `frameSize` samples per channel.
    func conceal(frameSize: Int) throws -> [Int16] {
        var pcm = [Int16](repeating: 0, count: frameSize * channels)
        _ = try pcm.withUnsafeMutableBufferPointer { (output) throws -> Int in
            try self.conceal(into: output)
        }
        return pcm
    }
}

extension OpusPacketInfo {
    /// Describes an array packet.
    init(_ packet: [UInt8], sampleRate: Int = 48000) throws {
        self = try packet.withUnsafeBytes { (bytes) throws -> OpusPacketInfo in
            try OpusPacketInfo(packet: bytes, sampleRate: sampleRate)
        }
    }
}
