// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus

/// Encode → packet info → decode at every rate and frame duration; the decoded audio must
/// match the input once the codec delay is allowed for.
@Suite struct RoundTripTests {
    static let rates = [8000, 12000, 16000, 24000, 48000]

    @Test("Mono round trip at every rate and frame duration (audio)",
          arguments: rates, OpusFrameDuration.allCases)
    func monoRoundTrip(sampleRate: Int, duration: OpusFrameDuration) throws {
        try roundTrip(sampleRate: sampleRate, channels: 1, duration: duration, application: .audio, lagTolerance: 4)
    }

    @Test("Stereo round trip at 48 kHz at every frame duration (audio)", arguments: OpusFrameDuration.allCases)
    func stereoRoundTrip(duration: OpusFrameDuration) throws {
        try roundTrip(sampleRate: 48000, channels: 2, duration: duration, application: .audio, lagTolerance: 4)
    }

    /// VoIP mode codes these tones with SILK or hybrid, whose output lags the input by a few
    /// samples less than the reported lookahead (308 vs 312 at 48 kHz), hence the wider tolerance.
    @Test("Mono VoIP round trip at every rate and frame duration (SILK/hybrid)",
          arguments: rates, OpusFrameDuration.allCases)
    func voipRoundTrip(sampleRate: Int, duration: OpusFrameDuration) throws {
        try roundTrip(sampleRate: sampleRate, channels: 1, duration: duration, application: .voip, lagTolerance: 8)
    }

    func roundTrip(sampleRate: Int, channels: Int, duration: OpusFrameDuration, application: OpusApplication, lagTolerance: Int) throws {
        let frameSize = duration.sampleCount(atSampleRate: sampleRate)
        let frameCount = (480_000 + duration.rawValue - 1) / duration.rawValue  // ≥ 480 ms
        let totalSamples = frameSize * frameCount
        // Left 440 + 1000 Hz, right 660 + 1500 Hz (so a channel swap would show), −12 dBFS peak.
        let toneSets: [[Double]] = [[440, 1000], [660, 1500]]
        let input = Signals.tones(Array(toneSets.prefix(channels)), sampleRate: sampleRate, sampleCount: totalSamples, seed: UInt64(sampleRate + channels))

        let encoder = try OpusEncoder(sampleRate: sampleRate, channels: channels, application: application)
        // Frames under 10 ms are CELT-only with a fixed per-packet overhead: 32 kb/s leaves
        // 10 bytes per 2.5 ms packet and a seed-dependent correlation of 0.75–0.81. Such
        // short frames are used at 64 kb/s and up.
        let bitsPerChannel = duration.sampleCount(atSampleRate: sampleRate) * 100 < sampleRate ? 64000 : 32000
        try encoder.setBitrate(.bitsPerSecond(bitsPerChannel * channels))
        let decoder = try OpusDecoder(sampleRate: sampleRate, channels: channels)

        var output: [Int16] = []
        output.reserveCapacity(input.count)
        for frame in 0..<frameCount {
            let range = (frame * frameSize * channels)..<((frame + 1) * frameSize * channels)
            let packet = try encoder.encode(input[range])
            let info = try OpusPacketInfo(packet, sampleRate: sampleRate)
            #expect(info.sampleCount == frameSize)
            #expect(info.frameCount * info.samplesPerFrame == frameSize)
            let decoded = try decoder.decode(packet)
            #expect(decoded.count == frameSize * channels)
            output += decoded
        }
        #expect(try decoder.lastPacketDuration == frameSize)

        // Compare 100 ms after a 200 ms warm-up, searching lags 0…2 × lookahead.
        let start = sampleRate / 5
        let window = sampleRate / 10
        for c in 0..<channels {
            let x = Signals.channel(c, of: input, channels: channels)
            let y = Signals.channel(c, of: output, channels: channels)
            let best = Signals.bestCorrelation(input: x, output: y, start: start, window: window, lags: 0...(2 * encoder.lookahead))
            #expect(best.correlation > 0.9, "\(application) rate \(sampleRate) ch \(c)/\(channels) \(duration): r = \(best.correlation) at lag \(best.lag), lookahead \(encoder.lookahead)")
            #expect(abs(best.lag - encoder.lookahead) <= lagTolerance, "\(application) rate \(sampleRate) ch \(c)/\(channels) \(duration): best lag \(best.lag), lookahead \(encoder.lookahead)")
        }
    }
}
