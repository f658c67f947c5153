// SPDX-License-Identifier: Apache-2.0
import EchoEvaluation
import Testing

/// The one ERLE and convergence definition, on signals whose answer is known.
@Suite struct EchoMeasurementTests {
    static let rate = 16_000

    /// One second of a steady tone (`amplitude`), `seconds` long in all.
    static func tone(seconds: Double, amplitude: Double) -> [Int16] {
        (0..<Int(seconds * Double(rate))).map { Int16(amplitude * sin(Double($0) * 0.3)) }
    }

    /// A residual at a tenth of the microphone's amplitude is 20 dB below it.
    @Test func erleIsTheEnergyRatio() {
        let microphone = Self.tone(seconds: 1, amplitude: 10_000)
        let residual = microphone.map { $0 / 10 }
        let erle = EchoMeasurement.erle(microphone: microphone, residual: residual, sampleRate: Self.rate, range: 0..<microphone.count)
        #expect(abs(erle - 20) < 0.01, "ERLE \(erle) dB")
    }

    /// Frames more than 40 dB below the loudest in the range carry no echo and do not count,
    /// whatever the residual does there (a pause in which the canceller adds a little noise).
    @Test func framesWithoutEchoDoNotCount() {
        let loud = Self.tone(seconds: 1, amplitude: 10_000)
        let pause = [Int16](repeating: 1, count: Self.rate)
        let microphone = loud + pause
        let residual = loud.map { $0 / 10 } + [Int16](repeating: 100, count: Self.rate)
        let erle = EchoMeasurement.erle(microphone: microphone, residual: residual, sampleRate: Self.rate, range: 0..<microphone.count)
        #expect(abs(erle - 20) < 0.01, "ERLE \(erle) dB")
    }

    /// Steady state is from 4 s on: what happens before does not count, and a recording that
    /// does not reach past 4 s has no steady-state figure.
    @Test func steadyStateStartsAtFourSeconds() {
        #expect(EchoMeasurement.steadyStateStartSeconds == 4)
        let microphone = Self.tone(seconds: 6, amplitude: 10_000)
        let residual = microphone.enumerated().map { $0.offset < 4 * Self.rate ? $0.element : $0.element / 100 }
        let erle = EchoMeasurement.steadyStateERLE(microphone: microphone, residual: residual, sampleRate: Self.rate)
        #expect(abs((erle ?? 0) - 40) < 0.1, "ERLE \(String(describing: erle)) dB")
        #expect(EchoMeasurement.steadyStateERLE(microphone: Array(microphone.prefix(4 * Self.rate)),
                                                residual: residual, sampleRate: Self.rate) == nil)
    }

    /// Convergence is the end of the last 500 ms window below 20 dB: a residual that drops
    /// 30 dB at 1.25 s converges at 1.5 s (the window 1.0–1.5 s still misses); one that is at
    /// 30 dB from the start converges at 0; one that misses in the last window never does.
    @Test func convergenceIsTheEndOfTheLastMissingWindow() {
        let microphone = Self.tone(seconds: 4, amplitude: 10_000)
        let late = microphone.enumerated().map { Int16(Double($0.element) * ($0.offset < 20_000 ? 1 : 0.0316)) }
        #expect(EchoMeasurement.convergenceSeconds(microphone: microphone, residual: late, sampleRate: Self.rate) == 1.5)
        let early = microphone.map { Int16(Double($0) * 0.0316) }
        #expect(EchoMeasurement.convergenceSeconds(microphone: microphone, residual: early, sampleRate: Self.rate) == 0)
        let relapse = early.enumerated().map { $0.offset >= 3 * Self.rate + 9_000 ? microphone[$0.offset] : $0.element }
        #expect(EchoMeasurement.convergenceSeconds(microphone: microphone, residual: relapse, sampleRate: Self.rate) == nil)
    }

    /// Windows more than 30 dB below the loudest (pauses) do not count against convergence.
    @Test func pausesDoNotCountAgainstConvergence() {
        let microphone = Self.tone(seconds: 2, amplitude: 10_000) + [Int16](repeating: 10, count: Self.rate)
            + Self.tone(seconds: 1, amplitude: 10_000)
        let residual = microphone.enumerated().map { $0.offset < 2 * Self.rate || $0.offset >= 3 * Self.rate ? $0.element / 100 : $0.element }
        #expect(EchoMeasurement.convergenceSeconds(microphone: microphone, residual: residual, sampleRate: Self.rate) == 0)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
