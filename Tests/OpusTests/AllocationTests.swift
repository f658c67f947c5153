// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus
import TestSupport

/// The real-time rule: encode, decode, FEC, concealment and packet inspection allocate
/// nothing once running.
@Suite struct AllocationTests {
    @Test func steadyStateHotPathDoesNotAllocate() throws {
        let frameSize = 960
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(24000))
        try encoder.setInbandFEC(true)
        try encoder.setExpectedPacketLoss(percent: 20)
        try encoder.setDTX(true)
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)

        // Preallocated buffers, as the audio thread would hold them.
        let voice = Signals.voice(sampleRate: 48000, sampleCount: frameSize * 40)
        let pcm16 = UnsafeMutableBufferPointer<Int16>.allocate(capacity: voice.count)
        _ = pcm16.initialize(from: voice)
        let pcmFloat = UnsafeMutableBufferPointer<Float>.allocate(capacity: voice.count)
        for i in voice.indices { pcmFloat[i] = Float(voice[i]) / 32768 }
        let packetBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        let out16 = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frameSize)
        let outFloat = UnsafeMutableBufferPointer<Float>.allocate(capacity: frameSize)
        defer {
            pcm16.deallocate(); pcmFloat.deallocate(); packetBuffer.deallocate()
            out16.deallocate(); outFloat.deallocate()
        }

        // One tick: encode (Int16 and Float), inspect, and on the receive side a mix of
        // decode, FEC recovery and concealment, plus the RTCP-driven loss update.
        func tick(_ frame: Int) throws -> Int {
            let index = frame % 40
            let input16 = UnsafeBufferPointer(rebasing: pcm16[(index * frameSize)..<((index + 1) * frameSize)])
            let inputFloat = UnsafeBufferPointer(rebasing: pcmFloat[(index * frameSize)..<((index + 1) * frameSize)])
            try encoder.setExpectedPacketLoss(percent: 10 + frame % 10)
            let floatBytes = try encoder.encode(inputFloat, into: packetBuffer)
            let bytes = try encoder.encode(input16, into: packetBuffer)
            let packet = UnsafeRawBufferPointer(rebasing: packetBuffer[..<bytes])
            let info = try OpusPacketInfo(packet: packet, sampleRate: 48000)
            var samples = 0
            switch frame % 4 {
            case 0: samples = try decoder.conceal(into: out16)  // lost, nothing to go on
            case 1: samples = try decoder.decodeFEC(from: packet, into: out16)  // lost, recovered
            case 2: samples = try decoder.decode(packet, into: outFloat)
            default: samples = try decoder.decode(packet, into: out16)
            }
            samples += try decoder.conceal(into: outFloat)
            samples += try decoder.decodeFEC(from: packet, into: outFloat)
            return samples + info.sampleCount + floatBytes + (info.hasFEC ? 1 : 0)
        }

        for frame in 0..<50 { _ = try tick(frame) }  // warm-up
        let (total, allocations) = try AllocationCounter.measure {
            var total = 0
            for frame in 50..<250 { total += try tick(frame) }
            return total
        }
        #expect(total > 0)
        // The counter does see allocations (so the zero below means something), except in a
        // sanitizer build, where it counts nothing.
        if AllocationCounter.isCounting {
            #expect(AllocationCounter.measure { [Int](repeating: frameSize, count: 64) }.allocations > 0)
        }
        #expect(allocations == 0, "\(allocations) heap allocations in 200 steady-state ticks")
    }
}
