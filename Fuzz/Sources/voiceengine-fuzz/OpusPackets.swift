// SPDX-License-Identifier: Apache-2.0
import Glibc
import Opus

/// Real Opus packets (a 440 Hz tone then silence, 48 kHz mono, in-band FEC at 20 % expected
/// loss) for the programs to put in RTP packets, so the decoder, FEC recovery and DTX paths
/// are reached as well as the garbage paths. Index: 10 ms and 20 ms frames.
enum OpusPackets {
    static let frames10ms = encode(frameDurationMs: 10)
    static let frames20ms = encode(frameDurationMs: 20)

    static func frames(durationMs: Int) -> [[UInt8]] { durationMs == 10 ? frames10ms : frames20ms }

    private static func encode(frameDurationMs: Int) -> [[UInt8]] {
        let encoder = try! OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try! encoder.setInbandFEC(true)
        try! encoder.setExpectedPacketLoss(percent: 20)
        let count = 48 * frameDurationMs
        var packets: [[UInt8]] = []
        var phase = 0.0
        for index in 0..<12 {
            let pcm: [Int16] = (0..<count).map { _ in
                phase += 2 * Double.pi * 440 / 48_000
                return index < 8 ? Int16(8_000 * sin(phase)) : 0
            }
            var packet = [UInt8](repeating: 0, count: 1_275)
            let length = pcm.withUnsafeBufferPointer { pcm in
                packet.withUnsafeMutableBytes { try! encoder.encode(pcm, into: $0) }
            }
            packets.append(Array(packet[0..<length]))
        }
        return packets
    }
}
