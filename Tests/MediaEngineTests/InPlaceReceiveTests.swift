// SPDX-License-Identifier: Apache-2.0
import CallCore
import MediaEngineTesting
import SRTP
import Testing
import TestSupport

/// `CallMedia.receiveDatagram(reading:)`, the engine's receive path: the datagram is read
/// into the queue's slot and taken there. It must do exactly what the copying form does with
/// the same datagrams: the same dispositions, the same counters, the same audio, bit for bit.
@Suite struct InPlaceReceiveTests {
    /// What the peer sends, with a stranger's datagrams among it: garbage, a datagram longer
    /// than the call takes, and bursts that overflow a small receive queue.
    struct Traffic {
        /// Datagrams to deliver before each frame is rendered, with their length on the wire.
        var frames: [[(bytes: [UInt8], wireLength: Int)]] = []
    }

    static func traffic(keyed key: SRTPKeyingMaterial?, frames: Int) throws -> Traffic {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: key, ssrc: 7)
        var random = SeededGenerator(seed: 0x1_7ACE)
        var traffic = Traffic()
        var held: [(bytes: [UInt8], wireLength: Int)] = []
        for index in 0..<frames {
            var now: [(bytes: [UInt8], wireLength: Int)] = []
            CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: Double(index) * 20) { now.append((Array($0), $0.count)) }
            if index % 17 == 5 {
                now.append(((0..<Int.random(in: 0...80, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, 0))
                now[now.count - 1].wireLength = now[now.count - 1].bytes.count
            }
            if index % 29 == 11, let first = now.first {
                // A datagram cut by the socket: its first bytes are a real packet's.
                now.append((first.bytes, 1_600))
            }
            // Every 40th frame holds its packets back and delivers ten frames' worth at once.
            if index % 40 >= 30 {
                held += now
                now = []
            } else if !held.isEmpty {
                now = held + now
                held = []
            }
            traffic.frames.append(now)
        }
        return traffic
    }

    @Test(arguments: [false, true])
    func readingIntoTheQueueDoesWhatCopyingDoes(keyed: Bool) throws {
        let key = keyed ? SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80) : nil
        let traffic = try Self.traffic(keyed: key, frames: 300)
        var configuration = MediaConfiguration()
        configuration.receiveQueuePackets = 8
        let copying = try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 1)
        let inPlace = try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 1)
        var copyingFrame = [Int16](repeating: 0, count: 960)
        var inPlaceFrame = [Int16](repeating: 0, count: 960)
        var dispositions: [ReceivedDatagramDisposition: Int] = [:]
        var differingFrames: [Int] = []
        for (index, datagrams) in traffic.frames.enumerated() {
            let now = Double(index) * 20
            for datagram in datagrams {
                var copy = datagram.bytes
                let copied: ReceivedDatagramDisposition
                if datagram.wireLength > copy.count {
                    // The copying form judges the size by the buffer: give it the full length.
                    copy += [UInt8](repeating: 0, count: datagram.wireLength - copy.count)
                }
                copied = copy.withUnsafeMutableBytes { copying.receiveDatagram($0, arrivalTimeMs: now) }
                let read = inPlace.receiveDatagram { buffer -> (length: Int, arrivalTimeMs: Double)? in
                    let stored = min(datagram.bytes.count, buffer.count)
                    datagram.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: stored) }
                    return (datagram.wireLength, now)
                }
                #expect(read == copied, "frame \(index)")
                dispositions[copied, default: 0] += 1
            }
            copyingFrame.withUnsafeMutableBufferPointer { _ = copying.render(into: $0, nowMs: now) }
            inPlaceFrame.withUnsafeMutableBufferPointer { _ = inPlace.render(into: $0, nowMs: now) }
            if inPlaceFrame != copyingFrame { differingFrames.append(index) }
        }
        #expect(differingFrames.isEmpty, "frames that played differently: \(differingFrames.prefix(10))…")
        #expect(inPlace.statistics.transport == copying.statistics.transport)
        #expect(inPlace.statistics.inbound == copying.statistics.inbound)
        let transport = inPlace.statistics.transport
        #expect(transport.datagramsTooLarge > 5, "the cut datagrams were judged by their length on the wire")
        #expect(inPlace.statistics.inbound.packetsDroppedQueueFull > 0, "the bursts overflowed the queue")
        #expect(dispositions[.media(authenticated: keyed), default: 0] > 250)
        #expect(dispositions[.control(authenticated: keyed), default: 0] > 0, "RTCP taken in the slot too")
    }

    @Test func nothingReadIsNothingReceivedAndAFailedReadIsRethrown() throws {
        let call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        let before = call.statistics
        #expect(call.receiveDatagram { _ in nil } == nil)
        struct ReadFailed: Error {}
        #expect(throws: ReadFailed.self) {
            try call.receiveDatagram { _ throws(ReadFailed) -> (length: Int, arrivalTimeMs: Double)? in throw ReadFailed() }
        }
        #expect(call.statistics == before)
    }
}
