// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import Foundation
import MediaEngine
import SRTP
import Testing
import Transport
@testable import voicecall

/// Issue 26, "Hardening, round 2", rows 10, 11 and 22, as `voicecall` users meet them:
///
/// - A key with an SDES lifetime of 2^4: `send` stopped sending after 16 packets yet said
///   "402 sent" and exited 0; `receive` recorded 0.4 s of 8 and exited 0. Now both end at
///   once, exit 1 naming the key that ran out, and `sent` counts what reached the wire.
/// - Packets keyed with another MKI (2:4 against our 1:4): "0 failed SRTP authentication
///   (wrong key or suite?)" while every packet was refused. Now the refusal is named.
/// - A 1-hour `receive` held its whole recording in memory, `send` its whole input. Both are
///   now streamed through buffers whose size does not depend on the length.
@Suite(.serialized) struct KeyAndRecordingTests {
    static let keyAndSalt = RealCallSupport.keyAndSalt(seed: 26)
    static let inline = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(keyAndSalt)

    static func key(mki: [UInt8]? = nil, lifetime: UInt64? = nil) throws -> SRTPKeyingMaterial {
        try SRTPKeyingMaterial(profile: .aesCM128HmacSha1_80, keyAndSalt: keyAndSalt, masterKeyIdentifier: mki, lifetimePackets: lifetime)
    }

    static func socket() throws -> UDPSocket {
        try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
    }

    /// Datagrams waiting on `socket` (loopback delivers a datagram before `sendto` returns).
    static func drain(_ socket: UDPSocket) throws -> (rtp: Int, all: Int) {
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var counts = (rtp: 0, all: 0)
        while let datagram = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
            counts.all += 1
            let isRTCP = buffer.withUnsafeBytes { CallMedia.isRTCP(UnsafeRawBufferPointer(rebasing: $0[0..<min(datagram.length, 2)])) }
            if !isRTCP { counts.rtp += 1 }
        }
        return counts
    }

    /// A peer sending silence as SRTP with `key`, one frame per call.
    final class PeerSender {
        let media: CallMedia
        let socket: UDPSocket
        let target: PeerAddress
        var frames = 0

        init(key: SRTPKeyingMaterial, to endpoint: UDPEndpoint) throws {
            media = try CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: .random(profile: key.profile),
                                  ssrc: 0x2626, rtcpSeed: 26)
            socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
            target = try PeerAddress(endpoint)
        }

        func sendFrame() {
            let silence = [Int16](repeating: 0, count: media.samplesPerFrame)
            silence.withUnsafeBufferPointer { media.send(microphone: $0) }
            media.sendDatagrams(nowMs: Double(frames) * 20) { datagram in _ = try? socket.send(datagram, to: target) }
            frames += 1
        }
    }

    // MARK: Row 10: a key's lifetime

    /// In process, on a virtual clock: the loop ends on the 17th packet, says why, and counts
    /// only the 16 datagrams the peer's socket got.
    @Test func aSendingKeyThatRunsOutEndsTheCallAndSentCountsTheWire() throws {
        let socket = try Self.socket()
        let peer = try Self.socket()
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: try Self.key(lifetime: 16),
                                  receivingKey: .random(profile: .aesCM128HmacSha1_80), ssrc: 1, rtcpSeed: 1)
        var plan = RealTimeMediaLoop.Plan()
        plan.source = [Int16](repeating: 0, count: 48_000 * 2)
        plan.endsWhenSourceEnds = true
        var now = 1_000.0
        let loop = RealTimeMediaLoop(media: media, socket: socket, remote: try PeerAddress(peer.localEndpoint), plan: plan, clock: { now })
        var steps = 0
        while try !loop.step().ended && steps < 200 {
            now += 20
            steps += 1
        }
        let outcome = loop.finish()
        #expect(steps < 30, "the call ended when the key ran out, not when the 2 s source did")
        let failure = try #require(outcome.failure)
        #expect(failure.exitStatus == 1)
        #expect("\(failure)".contains("our sending SRTP key (AES_CM_128_HMAC_SHA1_80) reached its lifetime after 16 packets (a=crypto |2^4|)"), "\(failure)")
        let wire = try Self.drain(peer)
        #expect(wire.all == 16 && outcome.sent == 16)
        #expect(outcome.rtpSent == wire.rtp)
        #expect(outcome.statistics.outbound.packetsSent > outcome.rtpSent, "the encoder made one more that was never sent")
        var events: [CallMediaEvent] = []
        media.drainEvents { events.append($0) }
        #expect(events.contains(.srtpKeyLifetimeExpired(.outbound)))
    }

    /// The binary: `voicecall send` with `|2^4` exits 1 naming the key; "sent N packets" is
    /// what our socket received. The lifetime counts SRTP and SRTCP together, so exactly 16
    /// datagrams leave under the key even when a stall made an RTCP report due among them
    /// (15 RTP packets then, and "sent 15 packets").
    @Test func sendWithAShortLifetimeExitsNamingTheKeyAndCountsTheWire() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 2, in: directory)
        let receiver = try Self.socket()
        let result = try VoiceCallProcess.run(["send", "--to", "127.0.0.1:\(receiver.localEndpoint.port)", "--crypto", Self.inline + "|2^4",
                                               "--input", input.path])
        let wire = try Self.drain(receiver)
        #expect(result.exited && result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("our sending SRTP key (AES_CM_128_HMAC_SHA1_80) reached its lifetime after 16 packets"), "\(result.standardError)")
        #expect(wire.all == 16)
        #expect(result.standardError.contains("sent \(wire.rtp) packets"), "\(result.standardError)")
        #expect(!result.standardError.contains(RealCallSupport.base64(Self.keyAndSalt).prefix(12)))
    }

    /// In process: the peer's key runs out after 16 packets; the loop ends at the first
    /// refusal, the recording keeps what was played, and the failure names the key.
    @Test func aReceivingKeyThatRunsOutEndsTheCallAndKeepsTheRecording() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = try Self.socket()
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: .random(profile: .aesCM128HmacSha1_80),
                                  receivingKey: try Self.key(lifetime: 16), ssrc: 1, rtcpSeed: 1)
        let peer = try PeerSender(key: try Self.key(), to: socket.localEndpoint)
        let output = directory.appendingPathComponent("out.wav").path
        var plan = RealTimeMediaLoop.Plan()
        plan.records = true
        plan.recording = try RealCallRecording(path: output)
        plan.expectsMedia = true
        plan.endsAfterPeerSilenceSeconds = 2
        var now = 1_000.0
        let loop = RealTimeMediaLoop(media: media, socket: socket, remote: nil, plan: plan, clock: { now })
        var steps = 0
        while steps < 200 {
            peer.sendFrame()
            if try loop.step().ended { break }
            now += 20
            steps += 1
        }
        let outcome = loop.finish()
        #expect(steps == 16, "ended on the 17th packet")
        let failure = try #require(outcome.failure)
        #expect("\(failure)".contains("the sender's SRTP key (AES_CM_128_HMAC_SHA1_80) reached its lifetime after 16 packets (a=crypto |2^4|)"), "\(failure)")
        #expect(outcome.statistics.transport.srtp.keyLifetimeExpired == 1)
        let samples = try #require(plan.recording).finish(keepingSamples: outcome.recordingFrames * media.samplesPerFrame)
        #expect(outcome.recordingFrames > 0)
        #expect(try WAVAudio(contentsOf: URL(fileURLWithPath: output)).samples.count == samples)
    }

    /// Frames a receiving loop records on a virtual clock: 50 frames from the peer, then its
    /// silence, with the process held back for `stallMs` 200 ms after the last packet.
    static func recordedFrames(stallMs: Double) throws -> Int {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = try Self.socket()
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: .random(profile: .aesCM128HmacSha1_80),
                                  receivingKey: try Self.key(), ssrc: 1, rtcpSeed: 1)
        let peer = try PeerSender(key: try Self.key(), to: socket.localEndpoint)
        var plan = RealTimeMediaLoop.Plan()
        plan.records = true
        plan.recording = try RealCallRecording(path: directory.appendingPathComponent("out.wav").path)
        plan.expectsMedia = true
        plan.endsAfterPeerSilenceSeconds = 2
        var now = 1_000.0
        let loop = RealTimeMediaLoop(media: media, socket: socket, remote: nil, plan: plan, clock: { now })
        var steps = 0
        while steps < 400 {
            if steps < 50 { peer.sendFrame() }
            if try loop.step().ended { break }
            now += steps == 59 ? stallMs : 20
            steps += 1
        }
        let outcome = loop.finish()
        _ = try #require(plan.recording).finish(keepingSamples: outcome.recordingFrames * media.samplesPerFrame)
        return outcome.recordingFrames
    }

    /// The recording's concealed tail is cut by the frames played after the peer's last packet,
    /// not by the time since: a process held back 1.5 s while the peer was silent played fewer
    /// frames than the clock moved, and the clock's difference cut the whole call's speech.
    @Test func aProcessHeldBackKeepsTheSpeechItPlayed() throws {
        let steady = try Self.recordedFrames(stallMs: 20)
        #expect((50...55).contains(steady), "the 50 frames the peer sent and at most 100 ms after: \(steady)")
        #expect(try Self.recordedFrames(stallMs: 1_500) == steady)
    }

    /// Runs `voicecall receive --crypto crypto` on a port of its own, and a peer keyed with
    /// `key` sending a frame every 20 ms until it ends (bounded for a stuck child).
    static func receive(crypto: String, giveUpSeconds: Int, output: URL, from key: SRTPKeyingMaterial) throws
        -> (status: Int32, standardError: String) {
        let receiver = try BackgroundProcess(VoiceCallProcess.executable, ["receive", "--listen", "127.0.0.1:0", "--crypto", crypto,
                                                                         "--output", output.path, "--give-up", "\(giveUpSeconds)"])
        let port = try RealCallSupport.listeningPort(of: receiver)
        let peer = try PeerSender(key: key, to: UDPEndpoint(host: "127.0.0.1", port: port))
        let deadline = Date().addingTimeInterval(60)
        while receiver.process.isRunning && Date() < deadline {
            peer.sendFrame()
            usleep(20_000)
        }
        return receiver.wait(timeoutSeconds: 10)
    }

    /// The binary: `voicecall receive` with `|2^4` exits 1 at the 17th packet, naming the key,
    /// and still writes what it received.
    @Test func receiveWithAShortLifetimeExitsNamingTheKey() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.wav")
        let result = try Self.receive(crypto: Self.inline + "|2^4", giveUpSeconds: 20, output: output, from: try Self.key())
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("the sender's SRTP key (AES_CM_128_HMAC_SHA1_80) reached its lifetime after 16 packets"), "\(result.standardError)")
        #expect(result.standardError.contains("came after the sender's key reached its lifetime"), "\(result.standardError)")
        #expect(try WAVAudio(contentsOf: output).frameCount > 0)
    }

    // MARK: Row 11: MKI mismatch

    @Test func theSummaryNamesEveryReasonARefusalHad() {
        var srtp = SRTPTransportStatistics()
        #expect(SRTPRefusals.summary(srtp) == "0 failed SRTP authentication (wrong key or suite?)")
        srtp.unknownMasterKeyIdentifier = 400
        srtp.replays = 2
        let summary = SRTPRefusals.summary(srtp)
        #expect(summary.hasPrefix("0 failed SRTP authentication (wrong key or suite?), 400 carried an unknown master key identifier (MKI"))
        #expect(summary.hasSuffix(", 2 replayed"))
    }

    /// The binary: a sender keyed with MKI 2:4 against our 1:4 — `receive` gives up (exit 6)
    /// saying the packets carried an unknown MKI, not "0 failed SRTP authentication" alone.
    @Test func receiveNamesAnUnknownMasterKeyIdentifier() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.wav")
        let result = try Self.receive(crypto: Self.inline + "|2^31|1:4", giveUpSeconds: 2, output: output, from: try Self.key(mki: [0, 0, 0, 2]))
        #expect(result.status == 6, "\(result.standardError)")
        #expect(result.standardError.contains("carried an unknown master key identifier (MKI"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "a call that received nothing leaves no recording")
    }

    // MARK: Row 22: recordings streamed

    /// A minute of frames through a small ring: the ring and the writer's buffer keep the
    /// capacity they started with (memory does not grow with the length), and the file holds
    /// every frame handed over, its tail cut where asked.
    @Test func aRecordingStreamsThroughFixedBuffersAndReadsBackEqual() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("long.wav").path
        let recording = try RealCallRecording(path: path, ringSamples: 1 << 16)
        let ringCapacity = recording.ringCapacity
        func frame(_ index: Int) -> [Int16] { (0..<960).map { Int16(truncatingIfNeeded: index &* 31 &+ $0) } }
        let frames = 3_000  // a minute of 20 ms frames: 44 times what the ring holds
        for index in 0..<frames {
            frame(index).withUnsafeBufferPointer { recording.append($0) }
            #expect(recording.ringCapacity == ringCapacity)
            // A test hands frames over far faster than a call's one per 20 ms: it waits for
            // the writer thread when the ring is nearly full.
            while recording.ringCapacity - recording.pendingSamples < 960 * 2 { usleep(1_000) }
        }
        #expect(recording.droppedSamples == 0)
        let kept = try recording.finish(keepingSamples: (frames - 50) * 960)
        #expect(kept == (frames - 50) * 960)
        #expect(recording.writerBufferCapacity == RealCallRecording.chunkSamples)
        let reader = try WAVFileReader(path: path, chunkSampleCapacity: 960)
        #expect(reader.frameCount == kept)
        var read = [Int16](repeating: 0, count: 960)
        for index in 0..<(frames - 50) {
            let count = try read.withUnsafeMutableBufferPointer { try reader.read(into: $0) }
            guard count == 960, read == frame(index) else {
                Issue.record("frame \(index) differs")
                break
            }
        }
        #expect(reader.samplesRemaining == 0)
    }

    /// `send`'s input: an 8 kHz stereo file is mixed and resampled chunk by chunk into the
    /// same samples one pass over the whole file gives; the reader's chunk and the ring are
    /// the same size for a 1-second and a 60-second file.
    @Test func theInputStreamsInFixedChunksAndMatchesAOnePassResample() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var capacities: [[Int]] = []
        for seconds in [1, 60] {
            let stereo = (0..<(8_000 * seconds * 2)).map { Int16(truncatingIfNeeded: ($0 / 2) &* 97 &+ ($0 % 2) * 1_000) }
            let url = directory.appendingPathComponent("in-\(seconds).wav")
            try WAVAudio(sampleRate: 8_000, channelCount: 2, samples: stereo).write(to: url)
            let input = try RealCallInput(path: url.path, ringSamples: 1 << 17)
            capacities.append([input.ringCapacity, input.readerChunkCapacity])
            #expect(input.durationSeconds == Double(seconds))
            var streamed: [Int16] = []
            var frame = [Int16](repeating: 0, count: 960)
            while let count = frame.withUnsafeMutableBufferPointer({ input.read(into: $0) }) {
                streamed += frame[..<count]
                if count == 0 { usleep(1_000) }  // the reading thread is behind this test's pace
            }
            #expect(!input.hasFailed)
            #expect(streamed == (try Self.onePass(stereo, from: 8_000)))
        }
        #expect(capacities[0] == capacities[1])
    }

    /// What `send` did before: the whole file mixed to mono, then resampled in one pass.
    static func onePass(_ stereo: [Int16], from rate: Int) throws -> [Int16] {
        let mono = stride(from: 0, to: stereo.count, by: 2).map { Int16((Int(stereo[$0]) + Int(stereo[$0 + 1])) / 2) }
        let resampler = try Resampler(inputRate: rate, outputRate: 48_000)
        var output = [Int16](repeating: 0, count: mono.count * 48_000 / rate + 1_024)
        var consumed = 0
        var written = 0
        mono.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                while consumed < source.count && written < target.count {
                    let step = resampler.process(UnsafeBufferPointer(rebasing: source[consumed...]),
                                                 into: UnsafeMutableBufferPointer(rebasing: target[written...]))
                    if step.consumed == 0 && step.written == 0 { break }
                    consumed += step.consumed
                    written += step.written
                }
            }
        }
        return Array(output[..<written])
    }
}
