// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
import Testing

/// `EchoMeter`: ERL and ERLE over frames that carry echo alone.
@Suite struct EchoMeterTests {
    /// A 20 ms frame at 48 kHz of a square wave at `amplitude`.
    static func frame(_ amplitude: Int16) -> [Int16] { (0..<960).map { $0 % 48 < 24 ? amplitude : -amplitude } }

    static func measure(_ meter: inout EchoMeter, played: [Int16], microphone: [Int16], processed: [Int16], echoOnly: Bool) {
        played.withUnsafeBufferPointer { played in
            microphone.withUnsafeBufferPointer { microphone in
                processed.withUnsafeBufferPointer {
                    meter.measure(played: played, microphone: microphone, processed: $0, echoDelayMs: 0, echoOnly: echoOnly)
                }
            }
        }
    }

    /// The far end at 8 000, its echo 15 dB down (1 423), 30 dB taken off it (45): ERL 15 dB,
    /// ERLE 30 dB. Then the near end talks (microphone and output at 8 000, kept as they are):
    /// those frames stay out, and the figures do not move toward 0 dB.
    @Test func nearEndSpeechIsNotEchoLeftOver() {
        var meter = EchoMeter(frameDurationMs: 20, maximumDelayMs: 600)
        defer { meter.deallocate() }
        let far = Self.frame(8_000)
        for _ in 0..<50 { Self.measure(&meter, played: far, microphone: Self.frame(1_423), processed: Self.frame(45), echoOnly: true) }
        let erle = try? #require(meter.echoReturnLossEnhancement)
        #expect(abs((erle ?? 0) - 30) < 0.1, "\(String(describing: erle))")
        #expect(abs((meter.echoReturnLoss ?? 0) - 15) < 0.1)
        for _ in 0..<200 { Self.measure(&meter, played: far, microphone: Self.frame(8_000), processed: Self.frame(8_000), echoOnly: false) }
        #expect(abs((meter.echoReturnLossEnhancement ?? 0) - 30) < 0.1)
        // Counted, the same frames would have read the talker as echo: ERLE near 0 dB.
        var counting = EchoMeter(frameDurationMs: 20, maximumDelayMs: 600)
        defer { counting.deallocate() }
        for _ in 0..<50 { Self.measure(&counting, played: far, microphone: Self.frame(1_423), processed: Self.frame(45), echoOnly: true) }
        for _ in 0..<200 { Self.measure(&counting, played: far, microphone: Self.frame(8_000), processed: Self.frame(8_000), echoOnly: true) }
        #expect((counting.echoReturnLossEnhancement ?? 99) < 1)
    }

    /// Nothing is reported before 25 echo-only frames.
    @Test func noFigureBeforeTwentyFiveFrames() {
        var meter = EchoMeter(frameDurationMs: 20, maximumDelayMs: 600)
        defer { meter.deallocate() }
        for _ in 0..<100 { Self.measure(&meter, played: Self.frame(8_000), microphone: Self.frame(8_000), processed: Self.frame(8_000), echoOnly: false) }
        #expect(meter.echoReturnLossEnhancement == nil)
    }
}
