// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import AudioDevices
import Foundation
import JitterBufferEvaluation
import Locking
import NetworkSimulation
import TestSupport
import Transport

/// GStreamer's receiver (`rtpjitterbuffer ! rtpopusdepay ! opusdec plc=true
/// use-inband-fec=true` for Opus, the anchor a softphone team compares with; the stock
/// depayloader and decoder for G.711/G.722) fed a trace's packets over real UDP at the trace's
/// arrival times, from t = 0 on the monotonic clock: the same packets at the same times our
/// receiver gets on the virtual clock. The replay runs in real time, so a row takes the talk's
/// length; several run at once.
struct GStreamerReplay {
    /// What the receiver is told the packets are, and the elements that depayload and decode them.
    struct Decoding: Sendable {
        /// The RTP caps on `udpsrc`.
        var caps: String
        /// From the depayloader to the decoder's output, as gst-launch arguments.
        var elements: [String]
        /// Whether the result is what a live sink plays (`LiveSinkTimeline`: pauses of the
        /// jitter buffer become silence) rather than the file as written.
        var playsLive = false

        /// Opus with libopus's concealment and in-band FEC.
        static let opus = Decoding(
            caps: "application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=\(OpusPacketStream.payloadType)",
            elements: ["rtpopusdepay", "!", "opusdec", "plc=true", "use-inband-fec=true"], playsLive: true)

        /// GStreamer's stock receiver of a fixed-rate codec on its static payload type
        /// (`mulawdec`, `alawdec`, `avdec_g722`: none conceals a loss, and the file holds the
        /// frames of the packets received, one after another — a live sink would play silence
        /// in each hole).
        static func fixedRate(_ codec: AudioCodec) -> Decoding {
            let (depayloader, decoder) = switch codec {
            case .pcmu: ("rtppcmudepay", "mulawdec")
            case .pcma: ("rtppcmadepay", "alawdec")
            default: ("rtpg722depay", "avdec_g722")
            }
            return Decoding(caps: "application/x-rtp,media=audio,clock-rate=\(codec.rtpClockRate),encoding-name=\(codec.encodingName),"
                                + "payload=\(codec.staticPayloadType ?? 0)",
                            elements: [depayloader, "!", decoder])
        }
    }

    /// gst-launch-1.0's path, nil when GStreamer's tools are not installed.
    static let gstLaunch: String? = ["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What GStreamer played, and how faithfully the packets were sent.
    struct Result {
        /// The decoded audio from the first packet played on (48 kHz mono).
        var pcm: [Int16]
        /// The jitter buffer's latency, in ms.
        var latencyMs: Int
        /// The latest a packet left after its trace time, and the mean, in ms (the replay's own error).
        var maximumSendLateMs: Double
        var meanSendLateMs: Double
    }

    let trace: NetworkTrace
    /// The whole RTP packet of a trace sequence number.
    let packet: @Sendable (Int) -> [UInt8]
    let decoding: Decoding
    /// rtpjitterbuffer's `latency` property, in ms.
    let latencyMs: Int
    /// The WAV GStreamer writes.
    let output: URL

    /// Starts gst-launch-1.0 on a free port, replays the trace into it, waits for its end of
    /// stream (after the last packet that arrives) and reads what it wrote.
    func run() throws -> Result {
        guard let gst = Self.gstLaunch else { throw ReplayError.noGStreamer }
        let port = LoopbackUDPPort.free()
        let arriving = trace.packets.filter { $0.arrivalMs != nil }.sorted { $0.arrivalMs! < $1.arrivalMs! }
        let pipeline = [decoding.playsLive ? "-v" : "-q", "udpsrc", "address=127.0.0.1", "port=\(port)", "num-buffers=\(arriving.count)", "caps=\(decoding.caps)", "!",
                        "rtpjitterbuffer", "latency=\(latencyMs)", "do-lost=true", "!"] + decoding.elements
            + ["!", "audioconvert", "!", "audioresample", "!", "audio/x-raw,format=S16LE,channels=1,rate=48000"]
            + (decoding.playsLive ? ["!", "identity", "silent=false"] : [])
            + ["!", "wavenc", "!", "filesink", "location=\(output.path)"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gst)
        process.arguments = pipeline
        let errors = Pipe()
        process.standardError = errors
        // The buffers' timestamps (`-v`: a message per buffer, too many for a pipe nobody reads).
        let log = output.appendingPathExtension("log")
        if decoding.playsLive {
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: log)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        guard LoopbackUDPPort.waitUntilBound(port, timeoutSeconds: 30) else { throw ReplayError.neverBound(port) }

        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.setRemote(UDPEndpoint(host: "127.0.0.1", port: port))
        let start = MonotonicClock.nanoseconds + 100_000_000
        var late: [Double] = []
        late.reserveCapacity(arriving.count)
        for packet in arriving {
            let due = start + Int64(packet.arrivalMs! * 1_000_000)
            MonotonicClock.sleep(untilNanoseconds: due)
            late.append(Double(MonotonicClock.nanoseconds - due) / 1e6)
            let bytes = self.packet(packet.sequence)
            _ = try bytes.withUnsafeBytes { buffer throws(SocketError) in try socket.send(buffer) }
        }
        // End of stream comes with the last packet; the jitter buffer then drains.
        let deadline = Date().addingTimeInterval(Double(latencyMs) / 1_000 + 20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let finished = !process.isRunning
        if !finished {
            process.terminate()
            process.waitUntilExit()
        }
        guard finished, process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
            throw ReplayError.gstreamerFailed(status: finished ? process.terminationStatus : nil, text)
        }
        let audio = try WAVAudio(contentsOf: output)
        var pcm = audio.samples
        if decoding.playsLive {
            let buffers = LiveSinkTimeline.buffers(inLog: try String(contentsOf: log, encoding: .utf8))
            guard let live = LiveSinkTimeline.play(pcm, buffers: buffers) else {
                throw ReplayError.timestampsUnread(buffers: buffers.count, samples: pcm.count)
            }
            pcm = live
            try? FileManager.default.removeItem(at: log)
        }
        return Result(pcm: pcm, latencyMs: latencyMs, maximumSendLateMs: late.max() ?? 0,
                      meanSendLateMs: late.isEmpty ? 0 : late.reduce(0, +) / Double(late.count))
    }

    /// Runs `replays` at most `width` at a time; their results in order.
    static func runAll(_ replays: [GStreamerReplay], width: Int) throws -> [Result] {
        let results = Locked<[Int: Swift.Result<Result, any Error>]>([:])
        let slots = DispatchSemaphore(value: width)
        let group = DispatchGroup()
        for (index, replay) in replays.enumerated() {
            slots.wait()
            group.enter()
            Thread.detachNewThread {
                let outcome = Swift.Result { try replay.run() }
                results.withLock { $0[index] = outcome }
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        return try replays.indices.map { index in try results.withLock { $0[index]! }.get() }
    }

    enum ReplayError: Error, CustomStringConvertible {
        case noGStreamer
        case neverBound(UInt16)
        case gstreamerFailed(status: Int32?, String)
        case timestampsUnread(buffers: Int, samples: Int)

        var description: String {
            switch self {
            case .noGStreamer: "gst-launch-1.0 not found (scripts/install-deps --test installs GStreamer)"
            case let .neverBound(port): "gst-launch-1.0 never bound 127.0.0.1:\(port)"
            case let .gstreamerFailed(status, text): "gst-launch-1.0 " + (status.map { "exited \($0)" } ?? "did not finish") + ": \(text)"
            case let .timestampsUnread(buffers, samples):
                "gst-launch-1.0's \(buffers) buffer timestamps do not account for the \(samples) samples it wrote"
            }
        }
    }
}
