// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import MediaEngine
import RTP
import SRTP
import Transport

/// A two-party call inside one process over real UDP sockets on loopback, built from the
/// library's own parts: each side is a `CallMixer` (voiceChat processing) with one
/// `CallMedia` (SRTP keys generated now and exchanged as SDES `a=crypto` lines, Opus, RTP,
/// the adaptive jitter buffer). Alice's input is her microphone, Bob's his; each side
/// records what its loudspeaker plays. `voicecall demo --fast` runs its media on this, on
/// the virtual clock, with `network` between the sides and an echo path on each
/// (`echoes`); the real-time demo runs `VoiceEngine`s instead (`DemoRealtimeRun`).
struct DemoCall {
    /// How ticks are paced.
    enum Pacing: Equatable {
        /// One frame per frame duration of wall-clock time, as a real call runs.
        case realTime
        /// Frames as fast as the machine goes, on a virtual clock (tests, offline runs).
        case asFastAsPossible
    }

    /// Media parameters both sides use.
    var configuration: MediaConfiguration
    /// What Alice says (mono, at `configuration.sampleRate`).
    var aliceInput: WAVAudio
    /// What Bob says (mono, at `configuration.sampleRate`).
    var bobInput: WAVAudio
    /// Call length in seconds; the longer input's length when nil.
    var durationSeconds: Double?
    /// Tick pacing.
    var pacing: Pacing
    /// Numeric loopback host both endpoints bind to.
    var host: String
    /// The simulated network between the endpoints (nil: a clean loopback). On the virtual
    /// clock a datagram is handed to its receiver stamped with its due time.
    var network: (aliceToBob: SimulatedNetworkPath, bobToAlice: SimulatedNetworkPath)?
    /// Called every `sampleIntervalMs` of call time (and at the end) with the media time in ms
    /// and both sides' figures: the live status and the plots.
    var onSample: ((Double, DemoSnapshot) -> Void)?
    /// Spacing of `onSample` calls, in ms of call time.
    var sampleIntervalMs = 500.0
    /// Whether each side's loudspeaker echoes into its microphone (`DemoEchoPath`).
    var echoes = false
    /// Seeds each side's SSRC and RTCP report timer (nil: random, as a real call). On the
    /// virtual clock a seed makes the call repeat bit for bit: RTCP's randomised timing decides
    /// which reports the simulated network drops.
    var seed: UInt64?

    /// The longest call `run` records, in seconds (10 hours): the recording is preallocated.
    static let maximumSeconds = 36_000.0

    init(aliceInput: WAVAudio, bobInput: WAVAudio, configuration: MediaConfiguration = MediaConfiguration(),
         durationSeconds: Double? = nil, pacing: Pacing = .realTime, host: String = "127.0.0.1") {
        self.configuration = configuration
        self.aliceInput = aliceInput
        self.bobInput = bobInput
        self.durationSeconds = durationSeconds
        self.pacing = pacing
        self.host = host
    }

    /// Runs the call to its end and returns what each side sent and received.
    func run() throws(DemoCallError) -> DemoCallResult {
        for (name, input) in [("alice", aliceInput), ("bob", bobInput)] {
            guard input.channelCount == 1, input.sampleRate == configuration.sampleRate else {
                throw .unsupportedInput(
                    "\(name)'s input is \(input.channelCount) channel(s) at \(input.sampleRate) Hz; "
                        + "the demo needs mono at \(configuration.sampleRate) Hz")
            }
        }
        let seconds = durationSeconds ?? max(aliceInput.durationSeconds, bobInput.durationSeconds)
        guard seconds.isFinite, seconds > 0, seconds <= Self.maximumSeconds else {
            throw .unsupportedInput("a call of \(seconds) s: give 0 < seconds ≤ \(Int(Self.maximumSeconds))")
        }
        let frameSamples = configuration.samplesPerFrame
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

        // Two independent streams from one seed (SplitMix64 steps apart).
        var seeds = seed.map { DemoRandom(seed: $0) }
        let alice = try Endpoint(host: host, configuration: configuration, sendKey: aliceKey, receiveKey: keyFromAnswer,
                                 input: aliceInput, recordingCapacity: frameCount * frameSamples, echo: echoes ? DemoEchoPath() : nil,
                                 seed: seeds?.next())
        let bob = try Endpoint(host: host, configuration: configuration, sendKey: bobKey, receiveKey: keyFromOffer,
                               input: bobInput, recordingCapacity: frameCount * frameSamples, echo: echoes ? DemoEchoPath() : nil,
                               seed: seeds?.next())
        do {
            try alice.socket.setRemote(bob.socket.localEndpoint)
            try bob.socket.setRemote(alice.socket.localEndpoint)
        } catch {
            throw .socket(error)
        }

        let start = MonotonicClock.nanoseconds
        let frameMs = Double(configuration.frameDurationMs)
        var link = network.map { VirtualLink(aliceToBob: $0.aliceToBob, bobToAlice: $0.bobToAlice) }
        var nextSampleMs = sampleIntervalMs
        func snapshot() -> DemoSnapshot {
            DemoSnapshot(alice: alice.call.statistics, bob: bob.call.statistics,
                         aliceSource: alice.mixer.mediaSourceStatistics, bobSource: bob.mixer.mediaSourceStatistics)
        }
        // On the virtual clock every datagram on the wire is waited for where it is taken in:
        // loopback UDP usually delivers during `sendto`, but a loaded machine can defer it to
        // the kernel's softirq thread, and a datagram taken one tick late would change the
        // jitter buffer's decisions (the same seed must give the same call).
        let waitsForTheWire = pacing == .asFastAsPossible
        for tick in 0..<frameCount {
            let now = pacing == .realTime ? Double(MonotonicClock.nanoseconds - start) / 1e6 : Double(tick) * frameMs
            if link != nil { try link!.release(untilMs: now, alice: alice, bob: bob, waitsForTheWire: waitsForTheWire) }
            try alice.receive(arrivalTimeMs: now, waitsForTheWire: waitsForTheWire)
            try bob.receive(arrivalTimeMs: now, waitsForTheWire: waitsForTheWire)
            if link != nil {
                try alice.tick(tick, nowMs: now, peer: bob) { link!.carry($0, sendMs: now, towardBob: true) }
                try bob.tick(tick, nowMs: now, peer: alice) { link!.carry($0, sendMs: now, towardBob: false) }
            } else {
                try alice.tick(tick, nowMs: now, peer: bob, through: nil)
                try bob.tick(tick, nowMs: now, peer: alice, through: nil)
            }
            if let onSample, now + frameMs >= nextSampleMs {
                onSample(now + frameMs, snapshot())
                nextSampleMs += sampleIntervalMs
            }
            if pacing == .realTime {
                MonotonicClock.sleep(untilNanoseconds: start + Int64(tick + 1) * Int64(configuration.frameDurationMs) * 1_000_000)
            }
        }
        let elapsed = Double(MonotonicClock.nanoseconds - start) / 1e9
        let callSeconds = Double(frameCount * frameSamples) / Double(configuration.sampleRate)
        let aliceStatistics = alice.call.statistics, bobStatistics = bob.call.statistics
        return DemoCallResult(
            offer: offer, answer: answer, callSeconds: callSeconds, elapsedSeconds: elapsed,
            paths: link.map { ($0.aliceToBob, $0.bobToAlice) },
            aliceSource: alice.mixer.mediaSourceStatistics, bobSource: bob.mixer.mediaSourceStatistics,
            aliceToBob: DirectionSummary(from: "alice", to: "bob", sender: aliceStatistics, receiver: bobStatistics, callSeconds: callSeconds),
            bobToAlice: DirectionSummary(from: "bob", to: "alice", sender: bobStatistics, receiver: aliceStatistics, callSeconds: callSeconds),
            receivedByBob: WAVAudio(sampleRate: configuration.sampleRate, channelCount: 1, samples: bob.recording),
            receivedByAlice: WAVAudio(sampleRate: configuration.sampleRate, channelCount: 1, samples: alice.recording)
        )
    }

    /// One side of the call: its socket, mixer, call, input and recording.
    typealias EndpointAccess = Endpoint

    final class Endpoint {
        let socket: UDPSocket
        let mixer: CallMixer
        let call: CallMedia
        let input: [Int16]
        var recording: [Int16] = []
        /// The loudspeaker-to-microphone path, if any.
        let echo: DemoEchoPath?
        private let frame: UnsafeMutableBufferPointer<Int16>
        /// The largest UDP payload, so no datagram is ever truncated: `CallMedia` judges size.
        private let datagram: UnsafeMutableRawBufferPointer
        /// Datagrams the peer put on the wire toward this side that it has not taken in yet.
        var inFlight = 0
        /// How long a datagram on loopback is waited for before it counts as lost there.
        static let wireTimeoutMs = 5_000

        init(host: String, configuration: MediaConfiguration, sendKey: SRTPKeyingMaterial, receiveKey: SRTPKeyingMaterial,
             input: WAVAudio, recordingCapacity: Int, echo: DemoEchoPath? = nil, seed: UInt64? = nil) throws(DemoCallError) {
            self.echo = echo
            do {
                socket = try UDPSocket(bindingTo: UDPEndpoint(host: host, port: 0))
            } catch {
                throw .socket(error)
            }
            do {
                if let seed {
                    call = try CallMedia(configuration: configuration, sendingKey: sendKey, receivingKey: receiveKey,
                                         ssrc: UInt32(truncatingIfNeeded: seed >> 32), rtcpSeed: seed)
                } else {
                    call = try CallMedia(configuration: configuration, sendingKey: sendKey, receivingKey: receiveKey)
                }
            } catch {
                throw .media("\(error)")
            }
            do {
                var mixing = MixerConfiguration()
                mixing.sampleRate = configuration.sampleRate
                mixing.frameDurationMs = configuration.frameDurationMs  // the mixer refuses a call of another frame
                mixing.deviceSampleRate = configuration.sampleRate
                // No device: the input and the recording share the call's clock.
                mixing.compensatesDeviceDrift = false
                mixer = try CallMixer(configuration: mixing)
                try mixer.add(call)
            } catch {
                throw .media("\(error)")
            }
            self.input = input.samples
            recording.reserveCapacity(recordingCapacity)
            // Raw buffers last, after everything that can throw: a throwing init runs no deinit.
            frame = .allocate(capacity: configuration.samplesPerFrame)
            datagram = .allocate(byteCount: 65_536, alignment: 16)
        }

        deinit {
            frame.deallocate()
            datagram.deallocate()
        }

        /// Plays frame `tick` to the recording and captures frame `tick` of the input (silence
        /// past its end), then sends what the call queued to `peer` (or into `network`).
        func tick(_ tick: Int, nowMs: Double, peer: Endpoint, through network: ((UnsafeRawBufferPointer) -> Void)?) throws(DemoCallError) {
            mixer.render(into: frame, nowMs: nowMs)
            recording.append(contentsOf: frame)
            echo?.play(UnsafeBufferPointer(frame))
            let start = tick * frame.count
            for index in 0..<frame.count {
                frame[index] = start + index < input.count ? input[start + index] : 0
            }
            echo?.addEcho(into: frame)
            mixer.capture(UnsafeBufferPointer(frame))
            var failure: SocketError?
            call.sendDatagrams(nowMs: nowMs) { datagram in
                if let network { network(datagram); return }
                do throws(SocketError) {
                    if try socket.send(datagram) { peer.inFlight += 1 }
                } catch {
                    failure = error
                }
            }
            if let failure { throw .socket(failure) }
        }

        /// Sends `bytes` to `peer` now (the simulated network decided when).
        func forward(_ bytes: [UInt8], to peer: Endpoint) throws(DemoCallError) {
            let failure: SocketError? = bytes.withUnsafeBytes { raw in
                do throws(SocketError) {
                    if try socket.send(raw) { peer.inFlight += 1 }
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw .socket(failure) }
        }

        /// Hands every waiting datagram to the call, stamped `arrivalTimeMs`; with
        /// `waitsForTheWire`, first waits for every datagram the peer sent (up to
        /// `wireTimeoutMs` each: one the loopback lost is given up).
        func receive(arrivalTimeMs: Double, waitsForTheWire: Bool = false) throws(DemoCallError) {
            do {
                while true {
                    while let received = try socket.receive(into: datagram) {
                        inFlight = max(0, inFlight - 1)
                        call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: datagram[0..<min(received.length, datagram.count)]),
                                             arrivalTimeMs: arrivalTimeMs)
                    }
                    guard waitsForTheWire, inFlight > 0 else { return }
                    guard try socket.waitForData(timeoutMs: Self.wireTimeoutMs) else {
                        inFlight = 0
                        return
                    }
                }
            } catch {
                throw .socket(error)
            }
        }
    }
}

/// The simulated network on the virtual clock: datagrams held until their due time, then
/// sent over the real sockets and taken in by the receiver stamped with that time (loopback
/// UDP delivers during `sendto`, and a late one is taken at the next tick).
private struct VirtualLink {
    var aliceToBob: SimulatedNetworkPath
    var bobToAlice: SimulatedNetworkPath
    private var held: [(dueMs: Double, order: Int, towardBob: Bool, bytes: [UInt8])] = []
    private var order = 0

    init(aliceToBob: SimulatedNetworkPath, bobToAlice: SimulatedNetworkPath) {
        self.aliceToBob = aliceToBob
        self.bobToAlice = bobToAlice
    }

    /// Takes a datagram sent at `sendMs`: dropped, or held until its delay passed.
    mutating func carry(_ datagram: UnsafeRawBufferPointer, sendMs: Double, towardBob: Bool) {
        let fate = towardBob ? aliceToBob.fate(sendMs: sendMs) : bobToAlice.fate(sendMs: sendMs)
        guard let delay = fate else { return }
        held.append((sendMs + delay, order, towardBob, Array(datagram)))
        order += 1
    }

    /// Delivers every held datagram due by `untilMs`, in due order, each stamped with its due time.
    mutating func release(untilMs: Double, alice: DemoCall.EndpointAccess, bob: DemoCall.EndpointAccess,
                          waitsForTheWire: Bool) throws(DemoCallError) {
        held.sort { ($0.dueMs, $0.order) < ($1.dueMs, $1.order) }
        var count = 0
        for item in held {
            guard item.dueMs <= untilMs else { break }
            count += 1
            let (sender, receiver) = item.towardBob ? (alice, bob) : (bob, alice)
            try sender.forward(item.bytes, to: receiver)
            try receiver.receive(arrivalTimeMs: item.dueMs, waitsForTheWire: waitsForTheWire)
        }
        held.removeFirst(count)
    }
}

/// Both sides' figures at one moment of the call.
struct DemoSnapshot {
    /// Alice's call counters (her sending and her receiving).
    var alice: CallMediaStatistics
    /// Bob's call counters.
    var bob: CallMediaStatistics
    /// Alice's microphone side: levels and echo cancellation.
    var aliceSource: MediaSourceStatistics
    /// Bob's microphone side.
    var bobSource: MediaSourceStatistics
}

/// What one direction of the demo call carried.
struct DirectionSummary {
    /// Sender's name.
    var from: String
    /// Receiver's name.
    var to: String
    /// The sender's counters.
    var sender: CallMediaStatistics
    /// The receiver's counters.
    var receiver: CallMediaStatistics
    /// Media time of the call, in seconds.
    var callSeconds: Double

    /// Average SRTP bitrate on the wire (RTP header, payload, tag; no UDP/IP), in kb/s.
    var bitrateKbps: Double { callSeconds > 0 ? Double(sender.transport.bytesSent) * 8 / callSeconds / 1_000 : 0 }
}

/// What the demo call did.
struct DemoCallResult {
    /// Alice's SDES offer line.
    var offer: String
    /// Bob's SDES answer line.
    var answer: String
    /// Media time of the call, in seconds.
    var callSeconds: Double
    /// Wall-clock time the call took, in seconds.
    var elapsedSeconds: Double
    /// The simulated network's two directions as they ended (nil: clean loopback).
    var paths: (aliceToBob: SimulatedNetworkPath, bobToAlice: SimulatedNetworkPath)?
    /// Alice's microphone side at the end.
    var aliceSource: MediaSourceStatistics
    /// Bob's microphone side at the end.
    var bobSource: MediaSourceStatistics
    /// Alice's audio as Bob's side saw it.
    var aliceToBob: DirectionSummary
    /// Bob's audio as Alice's side saw it.
    var bobToAlice: DirectionSummary
    /// What Bob heard.
    var receivedByBob: WAVAudio
    /// What Alice heard.
    var receivedByAlice: WAVAudio
}

/// Why the demo call could not run.
enum DemoCallError: Error, CustomStringConvertible {
    /// An input file or the call length cannot be used.
    case unsupportedInput(String)
    /// An SDES line could not be parsed back.
    case keyExchange(String)
    /// A socket call failed.
    case socket(SocketError)
    /// The call's media could not be set up.
    case media(String)

    var description: String {
        switch self {
        case let .unsupportedInput(detail): return "unsupported input: \(detail)"
        case let .keyExchange(detail): return "SDES key exchange failed: \(detail)"
        case let .socket(error): return "socket: \(error)"
        case let .media(detail): return "media: \(detail)"
        }
    }
}
