#if canImport(Glibc)
internal import Glibc
#endif
import AudioDevices
import RTP
import SRTP
import Transport

/// A two-party call inside one process, over real UDP sockets on loopback, with SRTP keys
/// freshly generated and exchanged as SDES `a=crypto` lines, Opus and RTP: the smallest
/// honest end-to-end run of the media stack. Alice speaks her input to Bob while Bob speaks
/// his to Alice; each side records what it receives.
public struct DemoCall: Sendable {
    /// How ticks are paced.
    public enum Pacing: Sendable, Equatable {
        /// One frame per frame duration of wall-clock time, as a real call runs.
        case realTime
        /// Frames as fast as the machine goes (tests, offline runs).
        case asFastAsPossible
    }

    /// Media parameters both sides use.
    public var configuration: MediaConfiguration
    /// What Alice says (mono, at `configuration.sampleRate`).
    public var aliceInput: WAVAudio
    /// What Bob says (mono, at `configuration.sampleRate`).
    public var bobInput: WAVAudio
    /// Call length; the longer input's length when nil.
    public var durationSeconds: Double?
    /// Tick pacing.
    public var pacing: Pacing
    /// Numeric loopback host both endpoints bind to.
    public var host: String

    /// A call on the given inputs with built-in defaults for everything else.
    public init(
        aliceInput: WAVAudio, bobInput: WAVAudio, configuration: MediaConfiguration = MediaConfiguration(),
        durationSeconds: Double? = nil, pacing: Pacing = .realTime, host: String = "127.0.0.1"
    ) {
        self.configuration = configuration
        self.aliceInput = aliceInput
        self.bobInput = bobInput
        self.durationSeconds = durationSeconds
        self.pacing = pacing
        self.host = host
    }

    /// Runs the call to its end and returns what each side sent and received.
    public func run() throws(DemoCallError) -> DemoCallResult {
        for (name, input) in [("alice", aliceInput), ("bob", bobInput)] {
            guard input.channelCount == 1, input.sampleRate == configuration.sampleRate else {
                throw .unsupportedInput(
                    "\(name)'s input is \(input.channelCount) channel(s) at \(input.sampleRate) Hz; "
                        + "the demo needs mono at \(configuration.sampleRate) Hz")
            }
        }
        let frameSamples = configuration.samplesPerFrame
        let seconds = durationSeconds ?? max(aliceInput.durationSeconds, bobInput.durationSeconds)
        let frameCount = max(1, Int((seconds * Double(configuration.sampleRate) / Double(frameSamples)).rounded(.up)))

        // Offer/answer: each side generates its own sending key and tells the other in SDES.
        let aliceKey = SRTPKeyingMaterial.random(profile: configuration.srtpProfile)
        let bobKey = SRTPKeyingMaterial.random(profile: configuration.srtpProfile)
        let offer: String, answer: String
        let keyFromOffer: SRTPKeyingMaterial, keyFromAnswer: SRTPKeyingMaterial
        do {
            offer = try SDESCryptoAttribute(tag: 1, keyingMaterial: aliceKey).attributeLine
            answer = try SDESCryptoAttribute(tag: 1, keyingMaterial: bobKey).attributeLine
            keyFromOffer = try SDESCryptoAttribute(parsing: offer).keyingMaterial
            keyFromAnswer = try SDESCryptoAttribute(parsing: answer).keyingMaterial
        } catch {
            throw .keyExchange("\(error)")
        }

        let alice = try Endpoint(name: "alice", host: host, configuration: configuration, sendKey: aliceKey,
                                 receiveKey: keyFromAnswer, input: aliceInput, recordingCapacity: frameCount * frameSamples)
        let bob = try Endpoint(name: "bob", host: host, configuration: configuration, sendKey: bobKey,
                               receiveKey: keyFromOffer, input: bobInput, recordingCapacity: frameCount * frameSamples)
        do {
            try alice.socket.setRemote(bob.socket.localEndpoint)
            try bob.socket.setRemote(alice.socket.localEndpoint)
        } catch {
            throw .socket(error)
        }

        let start = MonotonicClock.nanoseconds()
        let tickNanoseconds = UInt64(configuration.frameDurationMs) * 1_000_000
        for tick in 0..<frameCount {
            try alice.sendFrame(tick)
            try bob.sendFrame(tick)
            if pacing == .realTime {
                MonotonicClock.sleep(until: start + UInt64(tick + 1) * tickNanoseconds)
            }
            try alice.drain()
            try bob.drain()
        }
        // Let the last datagrams in flight arrive.
        try alice.drain(waitingMs: 100)
        try bob.drain(waitingMs: 100)
        let elapsed = Double(MonotonicClock.nanoseconds() - start) / 1e9
        let callSeconds = Double(frameCount * frameSamples) / Double(configuration.sampleRate)

        return DemoCallResult(
            offer: offer, answer: answer, callSeconds: callSeconds, elapsedSeconds: elapsed,
            aliceToBob: DirectionSummary(from: "alice", to: "bob", uplink: alice.uplink.statistics, senderSRTP: alice.srtp.statistics,
                                         receiverSRTP: bob.srtp.statistics, downlink: bob.downlink.statistics, callSeconds: callSeconds),
            bobToAlice: DirectionSummary(from: "bob", to: "alice", uplink: bob.uplink.statistics, senderSRTP: bob.srtp.statistics,
                                         receiverSRTP: alice.srtp.statistics, downlink: alice.downlink.statistics, callSeconds: callSeconds),
            receivedByBob: WAVAudio(sampleRate: configuration.sampleRate, channelCount: 1, samples: bob.recording),
            receivedByAlice: WAVAudio(sampleRate: configuration.sampleRate, channelCount: 1, samples: alice.recording)
        )
    }

    /// One side of the call: its socket, pipelines, input and recording.
    private final class Endpoint {
        let socket: UDPSocket
        let srtp: SRTPTransportStage
        let uplink: UplinkPipeline
        let downlink: DownlinkPipeline
        let input: [Int16]
        var recording: [Int16] = []
        private let frame: UnsafeMutableBufferPointer<Int16>
        private let datagram: UnsafeMutableRawBufferPointer

        init(name: String, host: String, configuration: MediaConfiguration, sendKey: SRTPKeyingMaterial,
             receiveKey: SRTPKeyingMaterial, input: WAVAudio, recordingCapacity: Int) throws(DemoCallError) {
            do {
                socket = try UDPSocket(bindingTo: UDPEndpoint(host: host, port: 0))
            } catch {
                throw .socket(error)
            }
            do {
                srtp = try SRTPTransportStage(sendingKey: sendKey, receivingKey: receiveKey)
            } catch {
                throw .srtp(error)
            }
            do {
                uplink = try UplinkPipeline(configuration: configuration)
                downlink = try DownlinkPipeline(configuration: configuration)
            } catch {
                throw .pipeline(error)
            }
            self.input = input.samples
            recording.reserveCapacity(recordingCapacity + configuration.samplesPerFrame * DownlinkPipeline.maximumConcealedFrames)
            frame = .allocate(capacity: configuration.samplesPerFrame)
            datagram = .allocate(byteCount: 2_048, alignment: 8)
        }

        deinit {
            frame.deallocate()
            datagram.deallocate()
        }

        /// Encodes and sends frame `tick` of the input (silence past its end).
        func sendFrame(_ tick: Int) throws(DemoCallError) {
            let start = tick * frame.count
            for index in 0..<frame.count {
                frame[index] = start + index < input.count ? input[start + index] : 0
            }
            let packet: (buffer: UnsafeMutableRawBufferPointer, length: Int)?
            do {
                packet = try uplink.process(UnsafeBufferPointer(frame))
            } catch {
                throw .pipeline(error)
            }
            guard let packet else { return }
            let datagram: UnsafeRawBufferPointer
            do {
                datagram = try srtp.protect(packet.buffer, length: packet.length)
            } catch {
                throw .srtp(error)
            }
            do {
                try socket.send(datagram)
            } catch {
                throw .socket(error)
            }
        }

        /// Feeds every waiting datagram to the downlink, waiting up to `waitingMs` for each
        /// next one.
        func drain(waitingMs: Int = 0) throws(DemoCallError) {
            do {
                while true {
                    if waitingMs > 0, try !socket.waitForData(timeoutMs: waitingMs) { return }
                    guard let length = try socket.receive(into: datagram) else {
                        if waitingMs > 0 { continue }
                        return
                    }
                    guard let packet = srtp.unprotect(UnsafeMutableRawBufferPointer(rebasing: datagram[0..<length])) else { continue }
                    downlink.receive(packet) { samples in
                        recording.append(contentsOf: samples)
                    }
                }
            } catch {
                throw .socket(error)
            }
        }
    }
}

/// What one direction of the demo call carried.
public struct DirectionSummary: Sendable, Equatable {
    /// Sender's name.
    public var from: String
    /// Receiver's name.
    public var to: String
    /// The sender's uplink counters.
    public var uplink: UplinkStatistics
    /// The sender's SRTP counters.
    public var senderSRTP: SRTPTransportStatistics
    /// The receiver's SRTP counters: failures, replays, malformed datagrams.
    public var receiverSRTP: SRTPTransportStatistics
    /// The receiver's downlink counters.
    public var downlink: DownlinkStatistics
    /// Media time of the call, in seconds.
    public var callSeconds: Double

    /// Average SRTP bitrate on the wire (RTP header, payload, tag; no UDP/IP), in kb/s.
    public var bitrateKbps: Double { callSeconds > 0 ? Double(senderSRTP.bytesProtected) * 8 / callSeconds / 1_000 : 0 }
}

/// What the demo call did.
public struct DemoCallResult: Sendable {
    /// Alice's SDES offer line.
    public var offer: String
    /// Bob's SDES answer line.
    public var answer: String
    /// Media time of the call, in seconds.
    public var callSeconds: Double
    /// Wall-clock time the call took, in seconds.
    public var elapsedSeconds: Double
    /// Alice's audio as Bob's side saw it.
    public var aliceToBob: DirectionSummary
    /// Bob's audio as Alice's side saw it.
    public var bobToAlice: DirectionSummary
    /// What Bob heard.
    public var receivedByBob: WAVAudio
    /// What Alice heard.
    public var receivedByAlice: WAVAudio
}

/// Why the demo call could not run.
public enum DemoCallError: Error, Sendable, CustomStringConvertible {
    /// An input file is not mono at the pipeline's rate.
    case unsupportedInput(String)
    /// An SDES line could not be parsed back.
    case keyExchange(String)
    /// A socket call failed.
    case socket(SocketError)
    /// A pipeline could not be built or could not send.
    case pipeline(MediaPipelineError)
    /// SRTP could not be set up or could not protect a packet.
    case srtp(SRTPError)

    public var description: String {
        switch self {
        case let .unsupportedInput(detail): return "unsupported input: \(detail)"
        case let .keyExchange(detail): return "SDES key exchange failed: \(detail)"
        case let .socket(error): return "socket: \(error)"
        case let .pipeline(error): return "pipeline: \(error)"
        case let .srtp(error): return "SRTP: \(error)"
        }
    }
}

/// Monotonic wall clock for real-time pacing.
enum MonotonicClock {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sleeps until the monotonic clock reads `deadline` (absolute, so pacing does not drift).
    static func sleep(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
