// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import SRTP
import Transport

/// One call's media run in real time on the calling thread, without a sound card: a WAV's
/// samples go out frame by frame on the wall clock, and what arrives is played out of the
/// jitter buffer into a recording. `CallMedia`'s network and audio sides both run here, one
/// frame (20 ms) at a time; between frames the thread waits on the socket.
///
/// Each wake-up (`step()`) sends the frame that is due first, then reads at most
/// `maximumDatagramsPerWakeUp` datagrams: anyone who can reach the port can flood it, and
/// sending never waits behind what arrives. The rest waits for the next wake-up, or the system
/// drops it once the socket's buffer is full.
final class RealTimeMediaLoop {
    /// The most datagrams one wake-up reads (a flood's share of one 20 ms frame: well under a
    /// millisecond of SRTP checks).
    static let maximumDatagramsPerWakeUp = 64

    /// When the loop ends and what it does.
    struct Plan {
        /// 48 kHz mono to send, or nil to send no audio.
        var source: [Int16]?
        /// 48 kHz mono to send streamed from its file (`--input`), instead of `source`.
        var input: RealCallInput?
        /// Whether to play out what arrives (and count it as received).
        var records = false
        /// Where what is played out goes (streamed to its file), from the first authenticated
        /// packet on.
        var recording: RealCallRecording?
        /// Ends this long after the first authenticated packet (receive) or the start (send, call).
        var maximumSeconds: Double?
        /// Ends once the source is sent (plus a moment for the last packets) and, when
        /// recording, the peer has stopped sending for 2 s.
        var endsWhenSourceEnds = false
        /// Ends when media, once it flowed, stops for this long.
        var endsAfterPeerSilenceSeconds: Double?
        /// Whether media must arrive within `giveUpSeconds` of the start.
        var expectsMedia = false
        /// How long refusals (or, with `expectsMedia`, silence) last before giving up.
        var giveUpSeconds = 10.0
        /// With no `remote`, RTCP goes back to where the latest authenticated RTP came from
        /// (symmetric RTP, RFC 4961): a receive-only leg still tells the sender its loss and
        /// jitter, which the sender's FEC and bitrate plans live on.
        var repliesToSender = false
    }

    /// What the loop did.
    struct Outcome {
        /// The call's statistics at the end.
        var statistics: CallMediaStatistics
        /// RTP datagrams put on the wire, and their bytes: what `sent N packets` reports
        /// (packets the encoder made but SRTP refused to protect never count).
        var rtpSent = 0
        var rtpBytesSent = 0
        /// What ended the call once its recording is written and its figures reported: a
        /// master key that reached its lifetime (`SRTPRefusals.keyExpired`).
        var failure: RealCallFailure?
        /// Datagrams sent, and refused by the peer's host (ICMP errors that quote one of them).
        var sent = 0
        var refused = 0
        /// ICMP errors that quote nothing we sent: forged, counted and otherwise ignored.
        var forgedRefusals = 0
        /// Wake-ups that read `maximumDatagramsPerWakeUp` datagrams: a flood, read in bounded bites.
        var wakeUpsAtReadLimit = 0
        /// Seconds of media received.
        var receivedSeconds: Double { Double(recordingFrames) * 0.02 }
        /// Frames played out from the first authenticated packet on (the recording's length,
        /// its concealed tail cut).
        var recordingFrames = 0
    }

    private let media: CallMedia
    private let socket: UDPSocket
    private let remote: PeerAddress?
    /// The sender's address, learnt from its authenticated RTP (`Plan.repliesToSender`).
    private var sender: PeerAddress?
    private let plan: Plan
    /// Milliseconds: the monotonic clock, or a test's virtual one.
    private let clock: () -> Double
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
    private var frame: [Int16]
    private var outcome: Outcome
    private let start: Double
    private var nextFrame: Double
    private var sourcePosition = 0
    private var sourceEndedAt: Double?
    private var firstMedia: Double?
    private var lastMedia: Double?
    private var reachability: PeerReachability
    private var recentlySent = RecentDatagrams()

    /// A loop for `media` on `socket`, sending to `remote` (nil: send nothing), its first frame
    /// due at once on `clock` (milliseconds; the monotonic clock unless a test gives another).
    init(media: CallMedia, socket: UDPSocket, remote: PeerAddress?, plan: Plan, clock: @escaping () -> Double = RealTimeMediaLoop.nowMs) {
        self.media = media
        self.socket = socket
        self.remote = remote
        self.plan = plan
        self.clock = clock
        frame = [Int16](repeating: 0, count: media.samplesPerFrame)
        outcome = Outcome(statistics: media.statistics)
        start = clock()
        nextFrame = start
        reachability = PeerReachability(giveUpMs: plan.giveUpSeconds * 1_000)
    }

    deinit { buffer.deallocate() }

    /// Milliseconds on the monotonic clock.
    static func nowMs() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }

    /// What one wake-up did.
    struct Step: Equatable {
        /// Whether the frame that was due was sent (and played).
        var sentFrame = false
        /// Datagrams read, at most `maximumDatagramsPerWakeUp`.
        var datagramsRead = 0
        /// Whether the plan says the call is over.
        var ended = false
        /// How long to wait on the socket before the next wake-up.
        var waitMs = 0
    }

    /// Runs until the plan says the call is over, or `stop()` returns true (e.g. after SIGINT).
    func run(stop: () -> Bool = { false }) throws(RealCallFailure) -> Outcome {
        while !stop() {
            let step = try step()
            if step.ended { break }
            do {
                _ = try socket.waitForData(timeoutMs: step.waitMs)
            } catch {
                throw .failed("receiving: \(error)")
            }
        }
        return finish()
    }

    /// One wake-up: the refusals queued, the frame that is due (sent and played), then at most
    /// `maximumDatagramsPerWakeUp` datagrams read; then whether the call is over.
    func step() throws(RealCallFailure) -> Step {
        var step = Step()
        var now = clock()
        takeRefusals(atMs: now)
        if now >= nextFrame {
            try sendFrame(atMs: now)
            step.sentFrame = true
        }
        step.datagramsRead = try receive(atMs: now)
        if step.datagramsRead == Self.maximumDatagramsPerWakeUp { outcome.wakeUpsAtReadLimit += 1 }
        step.ended = try isOver(atMs: now)
        now = clock()
        // More may be waiting after a full bite: no wait, but the next frame still comes first.
        step.waitMs = step.datagramsRead == Self.maximumDatagramsPerWakeUp ? 0 : max(0, Int((nextFrame - now).rounded(.up)))
        return step
    }

    /// The outcome once the loop ends.
    func finish() -> Outcome {
        let frameMs = Double(media.frameDurationMs)
        // The recording's tail after the last packet is the jitter buffer's concealment: cut it,
        // keeping 100 ms for the audio the buffer still held when that packet came.
        if plan.records, let last = lastMedia {
            let tailFrames = min(outcome.recordingFrames, max(0, Int(((clock() - last - 100) / frameMs).rounded(.down))))
            outcome.recordingFrames -= tailFrames
        }
        outcome.statistics = media.statistics
        return outcome
    }

    /// Takes the ICMP errors queued: those quoting a datagram we sent are refusals, the rest forged.
    private func takeRefusals(atMs now: Double) {
        let refusals = socket.takeRefusals { recentlySent.contains(quote: $0) }
        outcome.refused += refusals.recognised
        outcome.forgedRefusals += refusals.unrecognised
        reachability.noteRefusals(refusals.recognised, atMs: now)
    }

    /// Sends the frame due at `nextFrame` (and its RTCP), plays the next one, advances.
    private func sendFrame(atMs now: Double) throws(RealCallFailure) {
        let samplesPerFrame = media.samplesPerFrame
        let mediaTime = nextFrame - start
        if let source = plan.source {
            if sourcePosition < source.count {
                let count = min(samplesPerFrame, source.count - sourcePosition)
                for index in 0..<samplesPerFrame { frame[index] = index < count ? source[sourcePosition + index] : 0 }
                sourcePosition += samplesPerFrame
                frame.withUnsafeBufferPointer { media.send(microphone: $0) }
            } else if sourceEndedAt == nil {
                sourceEndedAt = now
            }
        } else if let input = plan.input, sourceEndedAt == nil {
            if let count = frame.withUnsafeMutableBufferPointer({ input.read(into: $0) }) {
                for index in count..<samplesPerFrame { frame[index] = 0 }
                frame.withUnsafeBufferPointer { media.send(microphone: $0) }
            } else {
                sourceEndedAt = now
            }
        }
        if let destination = remote ?? sender {
            var sendFailure: String?
            media.sendDatagrams(nowMs: mediaTime) { datagram in
                guard sendFailure == nil else { return }
                do {
                    try send(datagram, to: destination, atMs: now)
                } catch {
                    sendFailure = "\(error)"
                }
            }
            if let sendFailure { throw .failed("sending to \(destination): \(sendFailure)") }
        }
        if plan.records {
            frame.withUnsafeMutableBufferPointer { _ = media.render(into: $0, nowMs: mediaTime) }
            if firstMedia != nil {
                frame.withUnsafeBufferPointer { plan.recording?.append($0) }
                outcome.recordingFrames += 1
            }
        }
        nextFrame += Double(media.frameDurationMs)
        // A machine that fell behind (a stalled process) does not try to catch up in a burst.
        if now - nextFrame > 200 { nextFrame = now }
    }

    /// Sends one datagram. A send the system fails with "refused" was not sent: an ICMP error
    /// came since the last look (it is counted from the error queue, where it says whether it
    /// quotes one of ours); this datagram goes once more.
    private func send(_ datagram: UnsafeRawBufferPointer, to remote: PeerAddress, atMs now: Double) throws(SocketError) {
        for _ in 0..<2 {
            switch try socket.sendNoticingRefusal(datagram, to: remote) {
            case .sent:
                outcome.sent += 1
                if !CallMedia.isRTCP(datagram) {
                    outcome.rtpSent += 1
                    outcome.rtpBytesSent += datagram.count
                }
                recentlySent.note(datagram)
                return
            case .dropped:
                return
            case .refused:
                takeRefusals(atMs: now)
            }
        }
    }

    /// Reads at most `maximumDatagramsPerWakeUp` datagrams into the call; returns how many.
    private func receive(atMs now: Double) throws(RealCallFailure) -> Int {
        var read = 0
        do {
            while read < Self.maximumDatagramsPerWakeUp, let datagram = try socket.receive(into: buffer) {
                read += 1
                guard datagram.length <= buffer.count else { continue }
                let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<datagram.length])
                let disposition = media.receiveDatagram(bytes, arrivalTimeMs: now - start)
                // RTCP too proves the peer is there: a receive-only peer sends nothing else.
                if disposition.isAuthenticated { reachability.noteAuthenticated(atMs: now) }
                // RTP only: RTCP keeps coming after the peer's speech has ended.
                if case .media(authenticated: true) = disposition {
                    if firstMedia == nil { firstMedia = now }
                    lastMedia = now
                    // Only authenticated media moves the reply address: a forged datagram cannot.
                    if remote == nil && plan.repliesToSender { sender = datagram.source }
                }
            }
        } catch {
            throw .failed("receiving: \(error)")
        }
        return read
    }

    /// Whether the plan says the call is over at `now`; throws when the peer is unreachable.
    private func isOver(atMs now: Double) throws(RealCallFailure) -> Bool {
        let giveUpMs = plan.giveUpSeconds * 1_000
        if reachability.isUnreachable(atMs: now) {
            throw .unreachable("\(remote.map { "\($0)" } ?? "the peer") refused every packet (ICMP port unreachable) for \(Self.seconds(plan.giveUpSeconds)) and sent nothing that authenticates; is the other side running and listening there?")
        }
        // A key that ran out ends the call: nothing more can be sent, or nothing the peer sends
        // is accepted (voicecall does not re-key).
        let srtp = media.statistics.transport
        if srtp.srtp.sendingKeyLifetimeExpired > 0 || srtp.srtp.keyLifetimeExpired > 0 {
            outcome.failure = .failed(SRTPRefusals.keyExpired(srtp.srtp.sendingKeyLifetimeExpired > 0 ? .outbound : .inbound,
                                                              profile: media.configuration.srtpProfile, transport: srtp))
            return true
        }
        if let input = plan.input, input.hasFailed { throw .file(input.failureDescription) }
        if let recording = plan.recording, recording.hasFailed { throw .file("cannot write --output \(recording.path); the call ended there") }
        if plan.expectsMedia, firstMedia == nil, now - start >= giveUpMs {
            throw .unreachable("no SRTP packet that authenticates arrived in \(Self.seconds(plan.giveUpSeconds)) on \(socket.localEndpoint) (\(Self.arrivals(media.statistics.transport))); check the address, the port, the key and the firewall")
        }
        if let maximum = plan.maximumSeconds, now - (plan.expectsMedia && plan.source == nil && plan.input == nil ? (firstMedia ?? now) : start) >= maximum * 1_000 { return true }
        // A call that also records ends once the peer has stopped too (2 s without media).
        if let ended = sourceEndedAt, plan.endsWhenSourceEnds, now - ended >= 200,
           !plan.records || lastMedia.map({ now - $0 >= 2_000 }) == true { return true }
        if let silence = plan.endsAfterPeerSilenceSeconds, let last = lastMedia, now - last >= silence * 1_000 { return true }
        return false
    }

    /// What did arrive, to tell a wrong key from a wrong address.
    private static func arrivals(_ transport: CallTransportStatistics) -> String {
        let srtp = transport.srtp
        guard transport.datagramsReceived > 0 else { return "no datagram at all" }
        return "\(transport.datagramsReceived) datagrams, \(SRTPRefusals.summary(srtp))"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
