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
/// race in the handoff would be reported; here, the call goes on carrying audio (every packet
/// Alice's send queue took reaches Bob) and ends on the last codec switched to.
@Suite struct CodecSwitchAcrossThreadsTests {
    /// Hands every datagram `from` has queued to `to`, stamped `nowMs`.
    static func carry(_ from: CallMedia, to: CallMedia, nowMs: Double) {
        var buffer = [UInt8](repeating: 0, count: 1_500)
        from.sendDatagrams(nowMs: nowMs) { datagram in
            buffer.withUnsafeMutableBytes { bytes in
                bytes.copyMemory(from: datagram)
                _ = to.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<datagram.count]), arrivalTimeMs: nowMs)
            }
        }
    }

    @Test func switchesRaceNothingOnTheCallsThreads() async throws {
        try await offCooperativePool {
            let alice = try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xA)
            let bob = try CallMedia(configuration: CodecSwitchTests.configuration(.pcmu), sendingKey: nil, receivingKey: nil, ssrc: 0xB)
            let frames = 1_500
            let audioTick = Atomic<Int>(0), done = Atomic<Bool>(false), networkDone = Atomic<Bool>(false)
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
                // A last pass once the audio side is done: nothing it queued is left behind.
                while true {
                    let finished = done.load(ordering: .acquiring)
                    let now = Double(audioTick.load(ordering: .acquiring)) * 20
                    Self.carry(alice, to: bob, nowMs: now)
                    Self.carry(bob, to: alice, nowMs: now)
                    if finished { break }
                    usleep(100)
                }
                networkDone.store(true, ordering: .releasing)
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
            // Both threads' last writes happen before this thread takes over their sides (the
            // atomics' release and acquire order them; `Thread.isFinished` alone does not).
            while !done.load(ordering: .acquiring) || !networkDone.load(ordering: .acquiring) { usleep(1_000) }
            #expect(alice.configuration.codec == .pcma && bob.configuration.codec == .pcma)
            // A loaded machine may hold the network thread back long enough for Alice's 16-slot
            // send queue to fill and drop (and count) packets, and a publish of her counters is
            // skipped while another thread reads them. One more frame, sent and carried on this
            // thread alone, publishes her final counters and follows any drop with a packet.
            CallLoop.frame(frames, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { alice.send(microphone: $0) }
            Self.carry(alice, to: bob, nowMs: Double(frames) * 20)
            let dropped = alice.statistics.outbound.packetsDroppedQueueFull
            let inbound = bob.statistics.inbound
            // A packet a frame: Bob has every one the queue took, and counts the drops lost.
            #expect(inbound.packetsReceived == frames + 1 - dropped, "\(inbound.packetsReceived) received, \(dropped) dropped by Alice's queue")
            #expect(inbound.packetsLost == dropped)
            // Far more than the queue holds (16 slots): the network side carried packets while
            // the audio ran, not only in its last pass.
            #expect(inbound.packetsReceived > 64, "\(inbound.packetsReceived) received")
            #expect(inbound.unknownPayloadTypePackets == 0, "Bob switched first, so everything Alice sent was playable")
        }
    }
}
