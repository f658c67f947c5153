// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus

/// Settings are read back from libopus, and invalid values are rejected with the right error.
@Suite struct EncoderSettingsTests {
    @Test func defaultsAsLibopusReportsThem() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        #expect(encoder.sampleRate == 48000)
        #expect(encoder.channels == 1)
        #expect(encoder.application == .voip)
        #expect(encoder.lookahead == 312)  // 2.5 ms + 4 ms at 48 kHz
        #expect(try encoder.complexity == 9)
        #expect(try encoder.bitrateMode == .constrainedVBR)
        #expect(try encoder.maxBandwidth == .fullband)
        #expect(try encoder.signal == .auto)
        #expect(try encoder.isInbandFECEnabled == false)
        #expect(try encoder.isDTXEnabled == false)
        #expect(try encoder.expectedPacketLossPercent == 0)
    }

    @Test func lookaheadDependsOnRateAndApplication() throws {
        #expect(try OpusEncoder(sampleRate: 16000, channels: 1, application: .voip).lookahead == 104)
        #expect(try OpusEncoder(sampleRate: 48000, channels: 2, application: .restrictedLowDelay).lookahead == 120)
    }

    @Test func settingsReadBack() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(24000))
        #expect(try encoder.bitrate == 24000)
        try encoder.setBitrate(.bitsPerSecond(100))  // libopus clamps to 500
        #expect(try encoder.bitrate == 500)
        try encoder.setBitrate(.bitsPerSecond(1_000_000))  // and to 300 kb/s per channel
        #expect(try encoder.bitrate == 300_000)

        for complexity in [0, 5, 10] {
            try encoder.setComplexity(complexity)
            #expect(try encoder.complexity == complexity)
        }
        for mode in OpusBitrateMode.allCases {
            try encoder.setBitrateMode(mode)
            #expect(try encoder.bitrateMode == mode)
        }
        for bandwidth in OpusBandwidth.allCases where bandwidth != .auto {
            try encoder.setMaxBandwidth(bandwidth)
            #expect(try encoder.maxBandwidth == bandwidth)
        }
        for signal in OpusSignal.allCases {
            try encoder.setSignal(signal)
            #expect(try encoder.signal == signal)
        }
        try encoder.setInbandFEC(true)
        #expect(try encoder.isInbandFECEnabled)
        try encoder.setInbandFEC(false)
        #expect(try encoder.isInbandFECEnabled == false)
        try encoder.setDTX(true)
        #expect(try encoder.isDTXEnabled)
        for percent in [0, 20, 100] {
            try encoder.setExpectedPacketLoss(percent: percent)
            #expect(try encoder.expectedPacketLossPercent == percent)
        }

        // Settings survive reset().
        try encoder.reset()
        #expect(try encoder.expectedPacketLossPercent == 100)
        #expect(try encoder.isDTXEnabled)
    }

    @Test func autoAndMaximumBitrateReadBackAsNumbers() throws {
        // libopus never reports OPUS_AUTO / OPUS_BITRATE_MAX: it reports what they mean.
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        let frame = [Int16](repeating: 0, count: 960)
        _ = try encoder.encode(frame[...])
        try encoder.setBitrate(.auto)
        #expect(try encoder.bitrate == 60 * 48000 / 960 + 48000)  // 51 000 b/s for 20 ms mono
        try encoder.setBitrate(.maximum)
        #expect(try encoder.bitrate > 300_000)
    }

    @Test("Forced bandwidth shows in the packets", arguments: [OpusBandwidth.narrowband, .wideband, .fullband])
    func forcedBandwidth(_ bandwidth: OpusBandwidth) throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(64000))
        try encoder.setForcedBandwidth(bandwidth)
        let input = Signals.voice(sampleRate: 48000, sampleCount: 960 * 5)
        var packet: [UInt8] = []
        for frame in 0..<5 { packet = try encoder.encode(input[(frame * 960)..<((frame + 1) * 960)]) }
        #expect(try OpusPacketInfo(packet).bandwidth == bandwidth)
        #expect(try encoder.codedBandwidth == bandwidth)
        try encoder.setForcedBandwidth(.auto)
    }

    @Test func maxBandwidthCapsThePackets() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .audio)
        try encoder.setBitrate(.bitsPerSecond(64000))
        try encoder.setMaxBandwidth(.wideband)
        let input = Signals.tones([[440, 1000, 9000]], sampleRate: 48000, sampleCount: 960 * 5)
        for frame in 0..<5 {
            let info = try OpusPacketInfo(try encoder.encode(input[(frame * 960)..<((frame + 1) * 960)]))
            #expect([OpusBandwidth.narrowband, .mediumband, .wideband].contains(info.bandwidth))
        }
    }

    /// A renderer's sample rate bounds the bandwidth worth coding: the widest passband under
    /// its Nyquist frequency (RFC 7587's `maxplaybackrate`).
    @Test func bandwidthFittingASampleRate() {
        let expected: [(Int, OpusBandwidth)] = [
            (0, .narrowband), (7_999, .narrowband), (8_000, .narrowband), (11_999, .narrowband), (12_000, .mediumband),
            (15_999, .mediumband), (16_000, .wideband), (22_050, .wideband), (24_000, .superwideband),
            (32_000, .superwideband), (39_999, .superwideband), (40_000, .fullband), (44_100, .fullband), (48_000, .fullband),
            (-1, .narrowband), (.max, .fullband), (.min, .narrowband),
        ]
        for (rate, bandwidth) in expected {
            #expect(OpusBandwidth(fittingSampleRate: rate) == bandwidth, "\(rate) Hz")
        }
        for bandwidth in OpusBandwidth.allCases where bandwidth != .auto {
            #expect(OpusBandwidth(fittingSampleRate: bandwidth.sampleRate) == bandwidth, "each bandwidth's own rate fits it")
        }
    }

    @Test func decoderGainReadsBack() throws {
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 2)
        #expect(try decoder.gainQ8Decibels == 0)
        try decoder.setGain(q8Decibels: -6 * 256)
        #expect(try decoder.gainQ8Decibels == -1536)
        #expect(opusError { try decoder.setGain(q8Decibels: 40000) }?.code == .badArgument)
    }
}
