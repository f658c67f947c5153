// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport
import Opus

/// `OpusPacketInfo` on hand-made packets (RFC 6716 §3), malformed packets and random bytes.
@Suite struct PacketInfoTests {
    // TOC byte = config << 3 | stereo << 2 | code.
    static func toc(config: UInt8, stereo: Bool = false, code: UInt8) -> UInt8 {
        config << 3 | (stereo ? 4 : 0) | code
    }

    @Test func tocOnlyPacketIsOneEmptyFrame() throws {
        // What the encoder emits in DTX: config 15 (hybrid fullband 20 ms), code 0, no data.
        let info = try OpusPacketInfo([Self.toc(config: 15, code: 0)])
        #expect(info.frameCount == 1)
        #expect(info.samplesPerFrame == 960)
        #expect(info.sampleCount == 960)
        #expect(info.bandwidth == .fullband)
        #expect(info.channelCount == 1)
        #expect(info.mode == .hybrid)
        #expect(info.hasFEC == false)
    }

    @Test func twoEqualFramesAtEveryRate() throws {
        // Config 1: SILK narrowband 20 ms; code 1: two frames of equal size; stereo.
        let packet = [Self.toc(config: 1, stereo: true, code: 1), 0, 0, 0, 0]
        for rate in [8000, 12000, 16000, 24000, 48000] {
            let info = try OpusPacketInfo(packet, sampleRate: rate)
            #expect(info.frameCount == 2)
            #expect(info.samplesPerFrame == rate / 50)
            #expect(info.sampleCount == rate / 25)
            #expect(info.bandwidth == .narrowband)
            #expect(info.channelCount == 2)
            #expect(info.mode == .silk)
        }
    }

    @Test func code3ConstantBitrateFrames() throws {
        // Config 31: CELT fullband 20 ms; code 3, 3 frames, CBR, no padding; 2 bytes each.
        let info = try OpusPacketInfo([Self.toc(config: 31, code: 3), 0x03, 1, 2, 3, 4, 5, 6])
        #expect(info.frameCount == 3)
        #expect(info.sampleCount == 2880)
        #expect(info.mode == .celt)
        #expect(info.hasFEC == false)
        // Config 16: CELT narrowband 2.5 ms.
        let short = try OpusPacketInfo([Self.toc(config: 16, code: 0), 0xAA], sampleRate: 8000)
        #expect(short.samplesPerFrame == 20)
        #expect(short.bandwidth == .narrowband)
    }

    @Test func lbrrFlagIsReadFromTheFirstFrame() throws {
        // SILK wideband 20 ms (config 9), mono: first frame header bits = VAD, LBRR.
        #expect(try OpusPacketInfo([Self.toc(config: 9, code: 0), 0b0100_0000, 0]).hasFEC)
        #expect(try OpusPacketInfo([Self.toc(config: 9, code: 0), 0b1000_0000, 0]).hasFEC == false)
        // SILK 60 ms (config 11): three VAD flags, then LBRR.
        #expect(try OpusPacketInfo([Self.toc(config: 11, code: 0), 0b0001_0000, 0]).hasFEC)
        #expect(try OpusPacketInfo([Self.toc(config: 11, code: 0), 0b1110_0000, 0]).hasFEC == false)
        // Stereo 20 ms: mid VAD, mid LBRR, side VAD, side LBRR.
        #expect(try OpusPacketInfo([Self.toc(config: 9, stereo: true, code: 0), 0b0001_0000, 0]).hasFEC)
        #expect(try OpusPacketInfo([Self.toc(config: 9, stereo: true, code: 0), 0b1010_0000, 0]).hasFEC == false)
        // CELT never carries LBRR, whatever its bits.
        #expect(try OpusPacketInfo([Self.toc(config: 31, code: 0), 0xFF, 0xFF]).hasFEC == false)
    }

    @Test("Malformed packets are rejected", arguments: [
        [],                                             // empty
        [toc(config: 1, code: 2)],                      // code 2 without its length byte
        [toc(config: 1, code: 3)],                      // code 3 without its count byte
        [toc(config: 1, code: 1), 0, 0, 0],             // code 1: odd payload for 2 equal frames
        [toc(config: 1, code: 2), 250, 1, 2, 3],        // code 2: first length past the end
        [toc(config: 31, code: 3), 0x00],               // code 3: zero frames
        [toc(config: 31, code: 3), 0x05, 1, 2, 3],      // code 3: 5 CBR frames, 3 bytes
        [toc(config: 31, code: 3), 0x07, 0, 0, 0, 0, 0, 0, 0],  // code 3: 140 ms > 120 ms
        [toc(config: 31, code: 3), 0x83, 200, 200, 1],  // code 3 VBR: lengths past the end
        [toc(config: 31, code: 3), 0x43, 255, 255, 255], // code 3: padding past the end
    ] as [[UInt8]])
    func malformed(_ packet: [UInt8]) {
        #expect(opusError { try OpusPacketInfo(packet) }?.code == .invalidPacket, "\(packet)")
    }

    @Test func unsupportedRateIsRejected() {
        #expect(opusError { try OpusPacketInfo([Self.toc(config: 1, code: 0)], sampleRate: 44100) }?.code == .badArgument)
    }

    /// Random bytes: every packet is either described or rejected with an `OpusError`, and
    /// never crashes the parser or the decoder; when described, the decoder agrees on its length.
    @Test func randomBytesNeverCrash() throws {
        var rng = SeededGenerator(seed: 0x0B05)
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 2)
        var described = 0, decoded = 0
        for _ in 0..<2000 {
            let length = Int.random(in: 1...80, using: &rng)
            let packet = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let info: OpusPacketInfo
            do {
                info = try OpusPacketInfo(packet)
                described += 1
            } catch {
                #expect((error as? OpusError)?.code == .invalidPacket)
                #expect(opusError { try decoder.decode(packet) }?.code == .invalidPacket)
                continue
            }
            if let samples = try? decoder.decode(packet) {
                decoded += 1
                #expect(samples.count == info.sampleCount * 2)
            }
        }
        #expect(described > 100)  // the generator does hit valid framings
        #expect(decoded > 100)
    }
}
