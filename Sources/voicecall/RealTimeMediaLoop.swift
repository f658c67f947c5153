import Foundation
import MediaEngine
import Transport

/// One call's media run in real time on the calling thread, without a sound card: a WAV's
/// samples go out frame by frame on the wall clock, and what arrives is played out of the
/// jitter buffer into a recording. `CallMedia`'s network and audio sides both run here, one
/// frame (20 ms) at a time; between frames the thread waits on the socket.
final class RealTimeMediaLoop {
    /// When the loop ends and what it does.
    struct Plan {
        /// 48 kHz mono to send, or nil to send no audio.
        var source: [Int16]?
        /// Whether to record what is played out.
        var records = false
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
    }

    /// What the loop did.
    struct Outcome {
        /// What was played out, from the first authenticated packet on.
        var recording: [Int16] = []
        /// The call's statistics at the end.
        var statistics: CallMediaStatistics
        /// Datagrams sent, and refused by the peer's host.
        var sent = 0
        var refused = 0
        /// Seconds of media received.
        var receivedSeconds: Double { Double(recordingFrames) * 0.02 }
        var recordingFrames = 0
    }

    private let media: CallMedia
    private let socket: UDPSocket
    private let remote: PeerAddress?
    private let plan: Plan

    /// A loop for `media` on `socket`, sending to `remote` (nil: send nothing).
    init(media: CallMedia, socket: UDPSocket, remote: PeerAddress?, plan: Plan) {
        self.media = media
        self.socket = socket
        self.remote = remote
        self.plan = plan
    }

    /// Milliseconds on the monotonic clock.
    private static func nowMs() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }

    /// Runs until the plan says the call is over, or `stop()` returns true (e.g. after SIGINT).
    func run(stop: () -> Bool = { false }) throws(RealCallFailure) -> Outcome {
        let samplesPerFrame = media.samplesPerFrame
        let frameMs = Double(media.configuration.frameDurationMs)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
        defer { buffer.deallocate() }
        var frame = [Int16](repeating: 0, count: samplesPerFrame)
        var outcome = Outcome(statistics: media.statistics)
        let start = Self.nowMs()
        var nextFrame = start
        var sourcePosition = 0
        var sourceEndedAt: Double?
        var firstMedia: Double?
        var lastMedia: Double?
        var refusalStreakStart: Double?
        var lastRefusal: Double?
        var sendFailure: String?

        while !stop() {
            var now = Self.nowMs()
            if now < nextFrame {
                do {
                    _ = try socket.waitForData(timeoutMs: max(1, Int((nextFrame - now).rounded(.up))))
                    now = Self.nowMs()
                    let refusals = socket.takeRefusals()
                    if refusals > 0 {
                        outcome.refused += refusals
                        if lastRefusal.map({ now - $0 > 1_000 }) ?? true { refusalStreakStart = now }
                        lastRefusal = now
                    }
                    while let datagram = try socket.receive(into: buffer) {
                        guard datagram.length <= buffer.count else { continue }
                        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<datagram.length])
                        // RTP only: RTCP keeps coming after the peer's speech has ended.
                        if case .media(authenticated: true) = media.receiveDatagram(bytes, arrivalTimeMs: now - start) {
                            if firstMedia == nil { firstMedia = now }
                            lastMedia = now
                        }
                    }
                } catch {
                    throw .failed("receiving: \(error)")
                }
                continue
            }
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
            }
            if let remote {
                media.sendDatagrams(nowMs: mediaTime) { datagram in
                    guard sendFailure == nil else { return }
                    do {
                        switch try socket.sendNoticingRefusal(datagram, to: remote) {
                        case .sent: outcome.sent += 1
                        case .dropped: break
                        case .refused:
                            outcome.refused += 1
                            if lastRefusal.map({ now - $0 > 1_000 }) ?? true { refusalStreakStart = now }
                            lastRefusal = now
                        }
                    } catch {
                        sendFailure = "\(error)"
                    }
                }
                if let sendFailure { throw .failed("sending to \(remote): \(sendFailure)") }
            }
            if plan.records {
                frame.withUnsafeMutableBufferPointer { _ = media.render(into: $0, nowMs: mediaTime) }
                if firstMedia != nil {
                    outcome.recording.append(contentsOf: frame)
                    outcome.recordingFrames += 1
                }
            }
            nextFrame += frameMs
            // A machine that fell behind (a stalled process) does not try to catch up in a burst.
            if now - nextFrame > 200 { nextFrame = now }

            // Is the call over?
            let giveUpMs = plan.giveUpSeconds * 1_000
            if let streakStart = refusalStreakStart, let last = lastRefusal, now - last < 1_000, now - streakStart >= giveUpMs,
               lastMedia.map({ $0 < streakStart }) ?? true {
                throw .unreachable("\(remote.map { "\($0)" } ?? "the peer") refused every packet (ICMP port unreachable) for \(Self.seconds(plan.giveUpSeconds)); is the other side running and listening there?")
            }
            if plan.expectsMedia, firstMedia == nil, now - start >= giveUpMs {
                throw .unreachable("no SRTP packet that authenticates arrived in \(Self.seconds(plan.giveUpSeconds)) on \(socket.localEndpoint) (\(Self.arrivals(media.statistics.transport))); check the address, the port, the key and the firewall")
            }
            if let maximum = plan.maximumSeconds, now - (plan.expectsMedia && plan.source == nil ? (firstMedia ?? now) : start) >= maximum * 1_000 { break }
            // A call that also records ends once the peer has stopped too (2 s without media).
            if let ended = sourceEndedAt, plan.endsWhenSourceEnds, now - ended >= 200,
               !plan.records || lastMedia.map({ now - $0 >= 2_000 }) == true { break }
            if let silence = plan.endsAfterPeerSilenceSeconds, let last = lastMedia, now - last >= silence * 1_000 { break }
        }
        // The recording's tail after the last packet is the jitter buffer's concealment: cut it,
        // keeping 100 ms for the audio the buffer still held when that packet came.
        if plan.records, let last = lastMedia {
            let tailFrames = min(outcome.recordingFrames, max(0, Int(((Self.nowMs() - last - 100) / frameMs).rounded(.down))))
            outcome.recording.removeLast(tailFrames * samplesPerFrame)
            outcome.recordingFrames -= tailFrames
        }
        outcome.statistics = media.statistics
        return outcome
    }

    /// What did arrive, to tell a wrong key from a wrong address.
    private static func arrivals(_ transport: CallTransportStatistics) -> String {
        let srtp = transport.srtp
        guard transport.datagramsReceived > 0 else { return "no datagram at all" }
        return "\(transport.datagramsReceived) datagrams, \(srtp.authFailures) failed SRTP authentication (wrong key or suite?)"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
