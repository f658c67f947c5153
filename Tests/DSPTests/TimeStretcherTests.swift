// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import DSP
import TestSupport

/// Time-stretching by one pitch period: the pitch stays, no clicks, the rest is untouched.
@Suite struct TimeStretcherTests {
    static let sampleRate = 48_000
    static let frameCount = 960

    static func tone(frequency: Double, count: Int, amplitude: Double = 12_000) -> [Int16] {
        (0..<count).map { n in Int16(amplitude * sin(2 * .pi * frequency * Double(n) / Double(sampleRate))) }
    }

    /// Frequency from the mean distance between upward zero crossings (linearly interpolated).
    static func frequency(of samples: [Int16]) -> Double {
        var crossings: [Double] = []
        for n in 1..<samples.count where samples[n - 1] < 0 && samples[n] >= 0 {
            let a = Double(samples[n - 1]), b = Double(samples[n])
            crossings.append(Double(n - 1) + (-a) / (b - a))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(sampleRate) * Double(crossings.count - 1) / (last - first)
    }

    static func maxStep(_ samples: [Int16]) -> Int {
        zip(samples, samples.dropFirst()).map { abs(Int($1) - Int($0)) }.max() ?? 0
    }

    /// Runs every 20 ms frame of `input` through `stretch`, concatenating the outputs.
    static func stretchFrames(_ input: [Int16], accelerate: Bool) -> (output: [Int16], changed: Int) {
        let stretcher = TimeStretcher(sampleRate: sampleRate, maximumFrameCount: frameCount)
        var output: [Int16] = []
        var scratch = [Int16](repeating: 0, count: frameCount + stretcher.maximumPeriod)
        var changed = 0
        for start in stride(from: 0, to: input.count - frameCount + 1, by: frameCount) {
            let written = input[start..<(start + frameCount)].withUnsafeBufferPointer { frame in
                scratch.withUnsafeMutableBufferPointer { out in
                    accelerate ? stretcher.accelerate(frame, into: out) : stretcher.preemptiveExpand(frame, into: out)
                }
            }
            changed += abs(written - frameCount)
            output += scratch[0..<written]
        }
        return (output, changed)
    }

    @Test("tone pitch within 1 % and no click", arguments: [110.0, 220.0, 317.0])
    func toneKeepsPitch(frequency: Double) {
        let input = Self.tone(frequency: frequency, count: Self.sampleRate)  // 1 s
        for accelerate in [true, false] {
            let (output, changed) = Self.stretchFrames(input, accelerate: accelerate)
            // A pure tone is periodic: every one of the 50 frames is stretched.
            #expect(changed >= 50 * 100)
            #expect(output.count == (accelerate ? input.count - changed : input.count + changed))
            let measured = Self.frequency(of: output)
            #expect(abs(measured / frequency - 1) < 0.01, "\(accelerate ? "accelerate" : "expand"): \(measured) Hz")
            #expect(Self.maxStep(output) <= Self.maxStep(input) + 2)  // 2 LSB: rounding in the crossfade
        }
    }

    /// A voice whose second harmonic is stronger than its fundamental (100 Hz, a 480-sample
    /// period at 48 kHz) correlates at half its period too. In 20 ms frames the search sees the
    /// whole period and a whole one goes; a 10 ms frame cannot hold two periods, and it used to
    /// lose half of one (a jump in the waveform): now it is left alone, while a quiet 10 ms
    /// frame still stretches. What is left of a 20 ms frame after one period went may lose
    /// another (`continuing`, the jitter buffer's fast accelerate).
    @Test func aFrameTooShortForTwoPeriodsStretchesOnlyWhenQuiet() {
        let period = Self.sampleRate / 100
        let voice = (0..<(4 * period)).map { n in
            let phase = 2 * Double.pi * Double(n) / Double(period)
            return Int16(3_000 * sin(phase) + 10_000 * sin(2 * phase))
        }
        let stretcher = TimeStretcher(sampleRate: Self.sampleRate, maximumFrameCount: Self.frameCount)
        var out = [Int16](repeating: 0, count: Self.frameCount + stretcher.maximumPeriod)
        func accelerate(_ samples: ArraySlice<Int16>, continuing: Bool = false) -> Int {
            samples.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { stretcher.accelerate(input, into: $0, continuing: continuing) }
            }
        }
        func expand(_ samples: ArraySlice<Int16>) -> Int {
            samples.withUnsafeBufferPointer { input in out.withUnsafeMutableBufferPointer { stretcher.preemptiveExpand(input, into: $0) } }
        }
        // (The search reaches a sample under two periods: 479 of 480.)
        #expect(((period - 1)...period).contains(2 * period - accelerate(voice[0..<(2 * period)])), "20 ms: one whole period removed")
        #expect(((period - 1)...period).contains(expand(voice[0..<(2 * period)]) - 2 * period), "20 ms: one whole period inserted")
        #expect(accelerate(voice[0..<period]) == period, "10 ms of voice: untouched")
        #expect(expand(voice[0..<period]) == period, "10 ms of voice: untouched")
        #expect(accelerate(voice[0..<(3 * period / 2)], continuing: true) < 3 * period / 2, "what is left of a frame may go on")
        let quiet = [Int16](repeating: 0, count: period)
        #expect(accelerate(quiet[...]) < period && expand(quiet[...]) > period, "10 ms of silence: stretched")
    }

    @Test func noiseIsLeftAlone() {
        var generator = SeededGenerator(seed: 7)
        let noise = (0..<Self.frameCount * 10).map { _ in Int16.random(in: -8_000...8_000, using: &generator) }
        for accelerate in [true, false] {
            let (output, changed) = Self.stretchFrames(noise, accelerate: accelerate)
            #expect(changed == 0)
            #expect(output == noise)
        }
    }

    @Test func silenceMayBeStretched() {
        let silence = [Int16](repeating: 0, count: Self.frameCount * 4)
        #expect(Self.stretchFrames(silence, accelerate: true).changed > 0)
        #expect(Self.stretchFrames(silence, accelerate: false).changed > 0)
    }

    @Test func speechStretchedFramesStaySimilar() throws {
        let speech = try Self.readWAV(VectorFiles.url("speech/alice-en-us-48k.wav"))
        let stretcher = TimeStretcher(sampleRate: Self.sampleRate, maximumFrameCount: Self.frameCount)
        var out = [Int16](repeating: 0, count: Self.frameCount + stretcher.maximumPeriod)
        var frames = 0, accelerated = 0, expanded = 0
        for start in stride(from: 0, to: speech.count - Self.frameCount + 1, by: Self.frameCount) {
            let frame = Array(speech[start..<(start + Self.frameCount)])
            frames += 1
            for accelerate in [true, false] {
                let written = frame.withUnsafeBufferPointer { input in
                    out.withUnsafeMutableBufferPointer { output in
                        accelerate ? stretcher.accelerate(input, into: output) : stretcher.preemptiveExpand(input, into: output)
                    }
                }
                let period = abs(written - Self.frameCount)
                guard period > 0 else { #expect(Array(out[0..<written]) == frame); continue }
                if accelerate { accelerated += 1 } else { expanded += 1 }
                // Untouched parts are bit-exact, the seam stays close to the original.
                if accelerate {
                    #expect(Array(out[period..<written]) == Array(frame[(2 * period)...]))
                    let seam = SignalComparison.bestCorrelation(reference: Array(frame[0..<period]), signal: Array(out[0..<period]), maxLag: 0)
                    #expect(seam.correlation > 0.8 || SignalComparison.rmsDecibels(frame) < -45)
                } else {
                    #expect(Array(out[0..<period]) == Array(frame[0..<period]))
                    #expect(Array(out[(2 * period)..<written]) == Array(frame[period...]))
                    let seam = SignalComparison.bestCorrelation(reference: Array(frame[period..<(2 * period)]), signal: Array(out[period..<(2 * period)]), maxLag: 0)
                    #expect(seam.correlation > 0.8 || SignalComparison.rmsDecibels(frame) < -45)
                }
                #expect(out[0] == frame[0] && out[written - 1] == frame[Self.frameCount - 1])
            }
        }
        // Voiced speech and pauses are stretchable; fricatives and onsets are not.
        #expect(accelerated > frames / 3 && expanded > frames / 3, "\(accelerated) / \(expanded) of \(frames)")
        #expect(accelerated < frames)
    }

    @Test func noAllocationPerFrame() {
        let stretcher = TimeStretcher(sampleRate: Self.sampleRate, maximumFrameCount: Self.frameCount)
        let input = Self.tone(frequency: 200, count: Self.frameCount)
        var out = [Int16](repeating: 0, count: Self.frameCount + stretcher.maximumPeriod)
        input.withUnsafeBufferPointer { frame in
            out.withUnsafeMutableBufferPointer { output in
                _ = stretcher.accelerate(frame, into: output)
                let (_, allocations) = AllocationCounter.measure {
                    for _ in 0..<10 {
                        _ = stretcher.accelerate(frame, into: output)
                        _ = stretcher.preemptiveExpand(frame, into: output)
                    }
                }
                #expect(allocations == 0)
            }
        }
    }

    /// 16-bit PCM samples of a mono WAV file (the `data` chunk).
    static func readWAV(_ url: URL) throws -> [Int16] {
        let data = try Data(contentsOf: url)
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            if id == "data" {
                let body = data[(offset + 8)..<min(data.count, offset + 8 + size)]
                return stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { index in
                    Int16(bitPattern: UInt16(body[index]) | UInt16(body[index + 1]) << 8)
                }
            }
            offset += 8 + size + (size & 1)
        }
        return []
    }
}
