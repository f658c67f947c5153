// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing
import TestSupport

/// `RTPPacketLayout`: what a parse found travels in 64 bits, and the view rebuilt from it over
/// a copy of the bytes reads exactly what the parse read.
@Suite struct RTPPacketLayoutTests {
    /// Every accessor of the view, for comparing two views.
    static func fields(_ packet: RTPPacketView) -> [String] {
        var fields = ["\(packet.marker) \(packet.payloadType) \(packet.sequenceNumber) \(packet.timestamp) \(packet.ssrc)"]
        fields.append("csrcs \((0..<packet.csrcCount).map { packet.csrc(at: $0) })")
        fields.append("payload \(Array(packet.payload)) padding \(packet.paddingCount)")
        if let headerExtension = packet.headerExtension {
            fields.append("extension \(headerExtension.profile) \(Array(headerExtension.data))")
        }
        return fields
    }

    @Test func theViewRebuiltFromTheLayoutReadsWhatTheParseRead() throws {
        var random = SeededGenerator(seed: 0x1A10_0751)
        let seeds = try FuzzTests.seedPackets()
        var rebuilt = 0
        for round in 0..<20_000 {
            let bytes = round < seeds.count ? seeds[round] : FuzzTests.mutate(seeds[round % seeds.count], using: &random)
            try bytes.withUnsafeBytes { buffer in
                guard let parsed = try? RTPPacketView(buffer) else { return }
                let packed = parsed.layout.bitPattern
                #expect(RTPPacketLayout(bitPattern: packed) == parsed.layout)
                // The copy a queue slot holds, read on another thread in the engine.
                let copy = Array(buffer)
                try copy.withUnsafeBytes { copied throws in
                    let view = RTPPacketView(validatedBytes: copied, layout: RTPPacketLayout(bitPattern: packed))
                    #expect(Self.fields(view) == Self.fields(parsed))
                    #expect(try RTPPacketView(copied).layout == view.layout)
                }
                rebuilt += 1
            }
        }
        #expect(rebuilt > 2_000, "mutations that still parse: every header feature among them")
    }

    /// The largest header the format allows (15 CSRCs, a 65,535-word extension) and the
    /// largest padding still pack exactly.
    @Test func theLargestLayoutsPackExactly() {
        let largest = RTPPacketLayout(headerLength: 12 + 60 + 4 + 4 * 65_535, paddingCount: 255, extensionOffset: 72)
        #expect(RTPPacketLayout(bitPattern: largest.bitPattern) == largest)
        let plain = RTPPacketLayout(headerLength: 12, paddingCount: 0, extensionOffset: -1)
        #expect(RTPPacketLayout(bitPattern: plain.bitPattern) == plain)
    }
}
