// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import MediaEngine
import MediaEngineTesting
import Synchronization
import Testing
import TestSupport

/// Codec switches while the call runs on its three threads — the audio side (render, send),
/// the network side (datagrams in and out) and a control thread switching codecs and reading
/// statistics — with no ordering between them: run under ThreadSanitizer by `.ci/run`, where a
/// race in the handoff would be reported; here, the call goes on carrying audio and ends on
/// the last codec switched to.
@Suite struct CodecSwitchAcrossThreadsTests {
    @Test func switchesRaceNothingOnTheCallsThreads() async throws {
        try await offCooperativePool {
            let alice = try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xA)
            let bob = try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xB)
            let frames = 1_500
            let audioTick = Atomic<Int>(0), done = Atomic<Bool>(false)
            let audio = Thread {
                var frame = [Int16](repeating: 0, count: 960)
                for tick in 0..<frames {
                    let now = Double(tick) * 20
                    frame.withUnsafeMutableBufferPointer { _ = alice.render(into: $0, nowMs: now) }
                    CallLoop.frame(tick, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { alice.send(microphone: $0) }
                    frame.withUnsafeMutableBufferPointer { _ = bob.render(into: $0, nowMs: now) }
                    frame.withUnsafeBufferPointer { bob.send(microphone: $0) }
                    audioTick.store(tick, ordering: .releasing)
                    usleep(200)
                }
                done.store(true, ordering: .releasing)
            }
            let network = Thread {
                var buffer = [UInt8](repeating: 0, count: 1_500)
                func carry(_ from: CallMedia, to: CallMedia, nowMs: Double) {
                    from.sendDatagrams(nowMs: nowMs) { datagram in
                        buffer.withUnsafeMutableBytes { bytes in
                            bytes.copyMemory(from: datagram)
                            _ = to.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<datagram.count]), arrivalTimeMs: nowMs)
                        }
                    }
                }
                while !done.load(ordering: .acquiring) {
                    let now = Double(audioTick.load(ordering: .acquiring)) * 20
                    carry(alice, to: bob, nowMs: now)
                    carry(bob, to: alice, nowMs: now)
                    usleep(100)
                }
            }
            audio.start()
            network.start()
            let cycle: [AudioCodec] = [.pcma, .g722, .opus, .pcmu, .pcma]
            var switched = 0
            for codec in cycle {
                while audioTick.load(ordering: .acquiring) < (switched + 1) * frames / (cycle.count + 1) { usleep(500) }
                try bob.switchCodec(to: CodecSwitchTests.configuration(codec))
                try alice.switchCodec(to: CodecSwitchTests.configuration(codec))
                _ = alice.statistics
                _ = bob.configuration
                switched += 1
            }
            while !done.load(ordering: .acquiring) { usleep(1_000) }
            usleep(50_000)  // the network thread's last pass
            #expect(alice.configuration.codec == .pcma && bob.configuration.codec == .pcma)
            let inbound = bob.statistics.inbound
            #expect(inbound.packetsReceived > frames / 2, "\(inbound.packetsReceived) received")
            #expect(inbound.unknownPayloadTypePackets == 0, "Bob switched first, so everything Alice sent was playable")
        }
    }
}
