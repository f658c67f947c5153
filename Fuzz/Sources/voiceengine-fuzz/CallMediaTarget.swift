// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import RTP
import SRTP

/// `CallMedia` driven by a program of datagrams and ticks, plain RTP or SRTP (the peer's
/// outbound session protects what the program builds, or the raw bytes go in as they are):
/// well-formed Opus and telephone-event packets with chosen steps, garbage, RTCP, oversized
/// datagrams, renders at chosen clock steps, microphone frames, mute and hold.
/// Invariants: render writes exactly samplesPerFrame samples (a sentinel after the frame is
/// untouched), counters never go negative, every datagram is counted once.
enum CallMediaTarget {
    static let plain = FuzzTarget(name: "call-media", run: { run($0, srtp: false) }, seeds: { seeds(srtp: false) })
    static let srtp = FuzzTarget(name: "call-media-srtp", run: { run($0, srtp: true) }, seeds: { seeds(srtp: true) })

    static let peerKey = SRTPUnprotectTarget.keyingMaterial(.aesCM128HmacSha1_80, mki: false)
    static let ourKey = SRTPUnprotectTarget.keyingMaterial(.aeadAES128GCM, mki: false)

    static func run(_ bytes: UnsafeRawBufferPointer, srtp: Bool) {
        var input = FuzzInput(bytes)
        var configuration = MediaConfiguration()
        let setup = input.byte()
        configuration.frameDurationMs = setup & 1 == 0 ? 20 : 10
        configuration.sampleRate = [48_000, 16_000, 8_000, 24_000][Int(setup >> 1) & 3]
        configuration.discontinuousTransmission = setup & 8 != 0
        configuration.receiveQueuePackets = setup & 0x10 == 0 ? 128 : 2
        configuration.telephoneEventClockRate = setup & 0x20 == 0 ? 48_000 : 8_000
        guard let call = try? CallMedia(configuration: configuration, sendingKey: srtp ? ourKey : nil,
                                        receivingKey: srtp ? peerKey : nil, ssrc: 0x0123_4567) else {
            check(false, "CallMedia refused a valid configuration")
            return
        }
        let peer = srtp ? try! SRTPSession(direction: .outbound, keyingMaterial: peerKey) : nil
        let samples = call.samplesPerFrame
        let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: samples + 1)
        defer { frame.deallocate() }
        let microphone = [Int16]((0..<samples).map { Int16(truncatingIfNeeded: $0 &* 97) })
        let opus = OpusPackets.frames(durationMs: configuration.frameDurationMs)
        let ticksPerFrame = UInt32(48 * configuration.frameDurationMs)
        var sequence: UInt16 = input.uint16()
        var timestamp: UInt32 = input.uint32()
        var ssrc: UInt32 = 0xFEED
        var nowMs = 0.0
        var datagrams = 0
        var steps = 0
        var wire = [UInt8](repeating: 0, count: 2_000)
        while !input.isAtEnd && steps < 1_500 {
            steps += 1
            switch input.byte() & 7 {
            case 0, 1, 2:
                // A well-formed RTP packet (protected by the peer under SRTP).
                let control = input.byte()
                let step = Int(control & 0x0F) - 6
                sequence &+= UInt16(bitPattern: Int16(step))
                timestamp &+= UInt32(bitPattern: Int32(step)) &* ticksPerFrame
                if control & 0x10 != 0 { ssrc &+= 1 }
                let dtmf = control & 0x20 != 0
                let payload: [UInt8]
                switch input.byte() & 3 {
                case 0, 1: payload = dtmf ? Array(input.bytes(maximum: 8)) : opus[input.choice(opus.count)]
                case 2: payload = Array(input.bytes(maximum: 300))
                default: payload = []
                }
                let payloadType: UInt8 = dtmf ? 101 : (control & 0x40 != 0 ? input.byte() & 0x7F : 111)
                let header = RTPHeader(marker: control & 0x80 != 0, payloadType: payloadType, sequenceNumber: sequence,
                                       timestamp: timestamp, ssrc: ssrc)
                var length = wire.withUnsafeMutableBytes { buffer in
                    payload.withUnsafeBytes { (try? header.write(payload: $0, into: buffer)) ?? 0 }
                }
                if let peer {
                    length = wire.withUnsafeMutableBytes { (try? peer.protect($0, length: length)) ?? 0 }
                }
                guard length > 0 else { continue }
                deliver(call, &wire, length: length, at: nowMs + Double(input.byte() & 0x3F) - 32)
                datagrams += 1
            case 3:
                // Raw bytes as a datagram (up to 1,600: some over the 1,500 limit).
                let raw = input.bytes(maximum: 1_600)
                wire.withUnsafeMutableBytes { $0.copyMemory(from: raw) }
                deliver(call, &wire, length: raw.count, at: nowMs)
                datagrams += 1
            case 4, 5:
                let advance = input.byte()
                nowMs += advance == 0xFF ? Double(input.uint16()) * 10 : Double(configuration.frameDurationMs) * Double(advance & 3)
                frame[samples] = 0x7A5A
                _ = call.render(into: UnsafeMutableBufferPointer(rebasing: frame[0..<samples]), nowMs: nowMs)
                check(frame[samples] == 0x7A5A, "render wrote past samplesPerFrame")
            case 6:
                microphone.withUnsafeBufferPointer { call.send(microphone: $0) }
                var sent = 0
                call.sendDatagrams(nowMs: nowMs) { datagram in
                    sent += 1
                    check(datagram.count >= 12 && datagram.count <= 1_500, "sent a datagram of \(datagram.count) bytes")
                }
            default:
                let control = input.byte()
                call.isMuted = control & 1 != 0
                call.isHeld = control & 2 != 0 && control & 4 != 0
                call.playbackGain = Float(control >> 3) / 4
            }
        }
        let statistics = call.statistics
        check(statistics.transport.datagramsReceived == datagrams, "\(statistics.transport.datagramsReceived) datagrams counted, \(datagrams) delivered")
        let inbound = statistics.inbound
        let counts = [inbound.packetsReceived, inbound.bytesReceived, inbound.headerBytesReceived, inbound.packetsDiscarded,
                      inbound.packetsDuplicated, inbound.packetsReordered, inbound.fecPacketsReceived, inbound.fecPacketsRecovered,
                      inbound.jitterBufferEmittedCount, inbound.totalSamplesReceived, inbound.concealedSamples,
                      inbound.silentConcealedSamples, inbound.concealmentEvents, inbound.insertedSamplesForDeceleration,
                      inbound.removedSamplesForAcceleration, inbound.telephoneEventsReceived, inbound.malformedPackets,
                      inbound.unknownPayloadTypePackets, inbound.ssrcChanges, inbound.packetsReceivedWhileHeld,
                      inbound.packetsDroppedQueueFull, statistics.transport.srtp.authFailures, statistics.transport.srtp.replays,
                      statistics.transport.srtp.malformed, statistics.eventsDropped]
        check(counts.allSatisfy { $0 >= 0 }, "a negative counter in \(statistics)")
        for value in [inbound.jitter, inbound.jitterBufferDelay, inbound.jitterBufferTargetDelay, inbound.totalAudioEnergy,
                      inbound.totalSamplesDuration, inbound.audioLevel] {
            check(value.isFinite && value >= 0, "a negative or non-finite measure in \(inbound)")
        }
        check(inbound.silentConcealedSamples <= inbound.concealedSamples, "silent concealed > concealed")
        call.drainEvents { blackHole($0) }
    }

    static func deliver(_ call: CallMedia, _ wire: inout [UInt8], length: Int, at arrivalMs: Double) {
        wire.withUnsafeMutableBytes { call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), arrivalTimeMs: arrivalMs) }
    }

    static func seeds(srtp: Bool) -> [[UInt8]] {
        // setup, sequence, timestamp, then (packet opus k, render one frame, send a frame) × 10.
        var program: [UInt8] = [0, 0x10, 0x00, 0, 0, 0x10, 0]
        for k in 0..<10 {
            program += [0, 0x07, 0, 0, UInt8(k), 32]  // RTP: step +1, Opus packet k, arrival now
            program += [4, 1, 6]                      // render after one frame; send
        }
        var dtmf: [UInt8] = [1, 0, 1, 0, 0, 0, 0]
        dtmf += [0, 0x27, 0, 0, 4, 0x05, 0x0A, 0x03, 0x20, 32, 4, 1]  // telephone event, 4 bytes
        dtmf += [3, 0, 4, 0x81, 0xC9, 0, 0, 4, 2, 7, 0x03, 4, 0xFF, 0, 10]  // garbage, hold, long gap
        return [program, dtmf]
    }
}
