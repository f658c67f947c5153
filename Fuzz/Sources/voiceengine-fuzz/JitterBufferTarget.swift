// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import RTP

/// `AdaptiveJitterBuffer` driven by a program of packets and ticks: the input picks the
/// configuration, then inserts packets with chosen sequence steps (reorder, duplicates, gaps,
/// wraps), timestamps (jumps), SSRC changes, payloads (real Opus, garbage, empty) and arrival
/// times (including out of order and non-finite), and plays frames at chosen clock steps.
/// Invariants: every frame is exactly samplesPerFrame samples (the sentinel after it is
/// untouched), counters never go negative, delays stay finite and non-negative.
enum JitterBufferTarget {
    static let target = FuzzTarget(name: "jitter-buffer", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        var configuration = JitterBufferConfiguration()
        let setup = input.byte()
        configuration.frameDurationMs = setup & 1 == 0 ? 20 : 10
        configuration.latePacketPolicy = setup & 2 == 0 ? .recoverFromFECFirst : .waitForPacket
        configuration.sampleRate = [48_000, 16_000, 8_000, 24_000][Int(setup >> 2) & 3]
        configuration.capacityPackets = setup & 0x10 == 0 ? 256 : 4
        configuration.maximumDelayMs = setup & 0x20 == 0 ? 1_000 : 120
        guard let buffer = try? AdaptiveJitterBuffer(configuration: configuration) else { return }
        let samples = buffer.samplesPerFrame
        let opus = OpusPackets.frames(durationMs: configuration.frameDurationMs)
        let ticksPerFrame = UInt32(48 * configuration.frameDurationMs)
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: samples + 1)
        defer { pcm.deallocate() }
        var packet = [UInt8](repeating: 0, count: 12 + 1_500)
        var sequence: UInt16 = input.uint16()
        var timestamp: UInt32 = input.uint32()
        var ssrc: UInt32 = 0x5EED
        var nowMs = 0.0
        var steps = 0
        while !input.isAtEnd && steps < 2_000 {
            steps += 1
            let op = input.byte()
            switch op & 3 {
            case 0, 1:
                // Insert: sequence step −8…+7 (0 = duplicate), timestamp step, arrival offset.
                let control = input.byte()
                let step = Int(control & 0x0F) - 8
                sequence &+= UInt16(bitPattern: Int16(step))
                timestamp &+= UInt32(bitPattern: Int32(step)) &* ticksPerFrame
                if control & 0x10 != 0 { timestamp &+= input.uint32() }
                if control & 0x20 != 0 { ssrc &+= 1 }
                let payload: [UInt8]
                switch input.byte() & 3 {
                case 0, 1: payload = opus[input.choice(opus.count)]
                case 2: payload = Array(input.bytes(maximum: 400))
                default: payload = []
                }
                let arrival: Double
                switch control >> 6 {
                case 0: arrival = nowMs
                case 1: arrival = nowMs - Double(input.byte()) * 4
                case 2: arrival = nowMs + Double(input.byte())
                default: arrival = nowMs + Double(Int16(bitPattern: input.uint16())) * 100  // jumps of up to ±55 min
                }
                let header = RTPHeader(marker: control & 0x80 != 0, payloadType: 111, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc)
                packet.withUnsafeMutableBytes { bytes in
                    payload.withUnsafeBytes { payload in
                        guard let length = try? header.write(payload: payload, into: bytes),
                              let view = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: bytes[0..<length])) else {
                            check(false, "could not build an RTP packet")
                            return
                        }
                        buffer.insert(view, arrivalTimeMs: arrival)
                    }
                }
            default:
                // Play: the clock advances 0…3 frames (or jumps), then one frame is taken.
                let advance = input.byte()
                if advance == 0xFF {
                    nowMs += Double(input.uint16()) * 10
                } else {
                    nowMs += Double(configuration.frameDurationMs) * Double(advance & 3)
                }
                pcm[samples] = 0x7A5A
                let event = buffer.nextFrame(into: pcm, nowMs: nowMs)
                check(pcm[samples] == 0x7A5A, "nextFrame wrote past samplesPerFrame")
                blackHole(event)
                checkStatistics(buffer)
            }
        }
        checkStatistics(buffer)
    }

    static func checkStatistics(_ buffer: AdaptiveJitterBuffer) {
        let s = buffer.statistics
        let counts = [s.packetsReceived, s.jitterBufferEmittedCount, s.concealedSamples, s.silentConcealedSamples,
                      s.concealmentEvents, s.insertedSamplesForDeceleration, s.removedSamplesForAcceleration,
                      s.packetsDiscarded, s.packetsDuplicated, s.fecPacketsReceived, s.fecPacketsRecovered, s.flushes]
        check(counts.allSatisfy { $0 >= 0 }, "a negative counter in \(s)")
        check(s.silentConcealedSamples <= s.concealedSamples, "silent concealed \(s.silentConcealedSamples) > concealed \(s.concealedSamples)")
        check(s.jitterBufferDelay.isFinite && s.jitterBufferDelay >= 0, "jitterBufferDelay \(s.jitterBufferDelay)")
        check(s.jitterBufferTargetDelay.isFinite && s.jitterBufferTargetDelay >= 0, "jitterBufferTargetDelay \(s.jitterBufferTargetDelay)")
        check(buffer.targetDelayMs.isFinite && buffer.targetDelayMs >= 0, "targetDelayMs \(buffer.targetDelayMs)")
    }

    static func seeds() throws -> [[UInt8]] {
        // setup, sequence, timestamp, then a run of (insert opus k at "now", play one frame).
        var program: [UInt8] = [0, 0xFF, 0xF0, 0, 0, 0, 0]
        for k in 0..<10 {
            program += [0, 0x09, 0, 0, UInt8(k)]  // insert: step +1, Opus packet k
            program += [2, 1]                     // play after one frame
        }
        var reordered: [UInt8] = [2, 0, 1, 0, 0, 0x10, 0]
        reordered += [0, 0x09, 0, 0, 0, 0, 0x0A, 0, 0, 2, 0, 0x06, 0, 0, 1, 0, 0x08, 0, 0, 1]  // +1, +2, −2, duplicate
        reordered += [2, 1, 2, 1, 2, 1, 2, 0xFF, 0, 50, 2, 1]
        return [program, reordered]
    }
}
