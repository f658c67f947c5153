// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus

/// Invalid input gets the right typed error and never crashes.
@Suite struct ErrorTests {
    @Test("Unsupported sample rates are rejected before libopus", arguments: [0, 44100, 96000, -8000])
    func badSampleRate(_ rate: Int) {
        let encoderError = opusError { try OpusEncoder(sampleRate: rate, channels: 1, application: .voip) }
        #expect(encoderError?.code == .badArgument)
        #expect(encoderError?.function == "OpusEncoder.init")
        #expect(encoderError?.detail?.contains("\(rate)") == true)
        #expect(opusError { try OpusDecoder(sampleRate: rate, channels: 1) }?.code == .badArgument)
    }

    @Test("Unsupported channel counts are rejected", arguments: [0, 3, 8])
    func badChannelCount(_ channels: Int) {
        let error = opusError { try OpusEncoder(sampleRate: 48000, channels: channels, application: .voip) }
        #expect(error?.code == .badArgument)
        #expect(error?.detail?.contains("channel") == true)
        #expect(opusError { try OpusDecoder(sampleRate: 48000, channels: channels) }?.code == .badArgument)
    }

    @Test func outOfRangeSettings() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        let complexity = opusError { try encoder.setComplexity(11) }
        #expect(complexity?.code == .badArgument)
        #expect(complexity?.function == "opus_encoder_ctl(OPUS_SET_COMPLEXITY)")
        #expect(opusError { try encoder.setComplexity(-1) }?.code == .badArgument)
        let loss = opusError { try encoder.setExpectedPacketLoss(percent: 101) }
        #expect(loss?.code == .badArgument)
        #expect(loss?.function == "opus_encoder_ctl(OPUS_SET_PACKET_LOSS_PERC)")
        #expect(opusError { try encoder.setExpectedPacketLoss(percent: -1) }?.code == .badArgument)
        #expect(opusError { try encoder.setBitrate(.bitsPerSecond(0)) }?.code == .badArgument)
        #expect(opusError { try encoder.setMaxBandwidth(.auto) }?.code == .badArgument)
        // Failed settings leave the old values in place.
        #expect(try encoder.complexity == 9)
        #expect(try encoder.expectedPacketLossPercent == 0)
    }

    @Test func wrongFrameSizes() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 2, application: .voip)
        for count in [0, 1, 959 * 2, 960, 961 * 2, 48000 * 2] {  // 960 samples = 10 ms stereo is fine…
            let pcm = [Int16](repeating: 0, count: count)
            let error = opusError { try encoder.encode(pcm[...]) }
            if count == 960 {
                #expect(error == nil)
            } else {
                #expect(error?.code == .badArgument, "\(count) samples")
            }
        }
        let odd = [Int16](repeating: 0, count: 1921)  // not a whole number of stereo frames
        #expect(opusError { try encoder.encode(odd[...]) }?.code == .badArgument)
    }

    @Test func outputBuffersTooSmall() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(64000))
        let input = Signals.voice(sampleRate: 48000, sampleCount: 960)
        #expect(opusError { try encoder.encode(input[...], capacity: 0) }?.code == .bufferTooSmall)
        // libopus never reports a small (non-empty) packet buffer: it lowers the bitrate to
        // fit, and below 3 bytes emits a TOC-only packet with no audio.
        #expect(try encoder.encode(input[...], capacity: 10).count == 10)
        #expect(try encoder.encode(input[...], capacity: 2).count == 1)

        let packet = try encoder.encode(input[...])
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)
        let small = opusError { try decoder.decode(packet, capacity: 480) }  // 10 ms for a 20 ms packet
        #expect(small?.code == .bufferTooSmall)
        #expect(small?.function == "opus_decode")
        #expect(opusError { try decoder.decode(packet, capacity: 0) }?.code == .bufferTooSmall)
        #expect(try decoder.decode(packet, capacity: 960).count == 960)
    }

    @Test func concealmentNeedsWholeQuarterFrames() throws {
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)
        #expect(opusError { try decoder.conceal(frameSize: 100) }?.code == .badArgument)
        #expect(try decoder.conceal(frameSize: 480).count == 480)
        #expect(try decoder.lastPacketDuration == 480)
    }

    @Test func emptyPacketsAreInvalid() throws {
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)
        #expect(opusError { try decoder.decode([]) }?.code == .invalidPacket)
        #expect(opusError { try decoder.decodeFEC(from: [], frameSize: 960) }?.code == .invalidPacket)
    }

    @Test func errorDescriptionNamesEverything() {
        let error = OpusError(code: .invalidPacket, function: "opus_decode")
        #expect(error.name == "OPUS_INVALID_PACKET")
        #expect(error.code.rawValue == -4)
        #expect(error.description == "opus_decode failed: OPUS_INVALID_PACKET (-4), corrupted stream")
        #expect(OpusError.Code(rawValue: -99).name == "OPUS_UNKNOWN_ERROR(-99)")
        #expect(OpusError(code: .badArgument, function: "x") != OpusError(code: .badArgument, function: "y"))
    }
}
