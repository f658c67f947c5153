// SPDX-License-Identifier: Apache-2.0
import Testing
import Opus

/// Discontinuous transmission: digital silence shrinks packets to "nothing to send".
@Suite struct DTXTests {
    @Test func silenceShrinksToDTXPackets() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        try encoder.setDTX(true)
        #expect(try encoder.isDTXEnabled)
        let silence = [Int16](repeating: 0, count: 960)
        let sizes = try (0..<60).map { _ in try encoder.encode(silence[...]).count }
        // A few frames to settle, then (almost) only DTX packets; libopus refreshes the
        // comfort noise with a real packet about every 400 ms.
        let firstDTX = try #require(sizes.firstIndex { OpusEncoder.isDTXPacket(byteCount: $0) }, "sizes \(sizes)")
        #expect(firstDTX <= 15, "sizes \(sizes)")
        let tail = sizes[20...]
        #expect(tail.filter { OpusEncoder.isDTXPacket(byteCount: $0) }.count >= tail.count * 3 / 4, "sizes \(sizes)")
        #expect(try encoder.isInDTX)

        // The DTX packets are valid Opus packets a decoder accepts.
        let decoder = try OpusDecoder(sampleRate: 48000, channels: 1)
        let dtxPacket = try encoder.encode(silence[...])
        #expect(dtxPacket.count <= OpusEncoder.dtxMaximumByteCount)
        #expect(try decoder.decode(dtxPacket).count == 960)
    }

    @Test func withoutDTXSilenceStillProducesPackets() throws {
        let encoder = try OpusEncoder(sampleRate: 48000, channels: 1, application: .voip)
        #expect(try encoder.isDTXEnabled == false)
        let silence = [Int16](repeating: 0, count: 960)
        let sizes = try (0..<30).map { _ in try encoder.encode(silence[...]).count }
        #expect(sizes[10...].allSatisfy { $0 >= 3 }, "sizes \(sizes)")
        #expect(try encoder.isInDTX == false)
    }
}
