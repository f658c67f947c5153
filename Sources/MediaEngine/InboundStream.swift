import JitterBuffer
import RTP

/// A call's receive side on the audio thread: RTP packets (already through SRTP) → RFC 3550
/// receiver statistics → the adaptive jitter buffer, and RFC 4733 key presses → events;
/// `render` asks the jitter buffer for each frame on the playout clock.
///
/// One statistics vocabulary (`InboundRTPStatistics`): sequence accounting from
/// `RTPReceiverStatistics` (one per sender SSRC, folded into call totals when the SSRC
/// changes), playout from `JitterBufferStatistics`. Allocation-free per packet and per frame.
final class InboundStream {
    private let configuration: MediaConfiguration
    private let jitterBuffer: AdaptiveJitterBuffer
    private let events: SPSCRing<CallMediaEventRecord>
    private var receiver: RTPReceiverStatistics?
    /// Sequence totals of the streams before the current SSRC.
    private var previousStreamsLost = 0
    private var counters = InboundRTPStatistics()
    private var level: AudioLevelMeter
    /// RTP timestamp of the telephone event last reported (its end copies are ignored).
    private var lastReportedTelephoneEvent: UInt32?
    private var firstRenderMs: Double?
    private var isRemoteSilent = false

    init(configuration: MediaConfiguration, events: SPSCRing<CallMediaEventRecord>) throws(CallMediaError) {
        self.configuration = configuration
        self.events = events
        do {
            jitterBuffer = try AdaptiveJitterBuffer(configuration: configuration.playoutConfiguration)
        } catch {
            throw .jitterBuffer(error)
        }
        level = AudioLevelMeter(sampleRate: configuration.sampleRate)
    }

    /// Samples per rendered frame.
    var samplesPerFrame: Int { jitterBuffer.samplesPerFrame }

    /// Takes one RTP packet that arrived from the network at `arrivalTimeMs` and reached the
    /// audio side at `availableAtMs`; `isHeld` counts it without playing it.
    ///
    /// Reception statistics (RFC 3550 jitter) use the network arrival; the jitter buffer uses
    /// the time the packet became playable, so the audio side's period (packets wait for the
    /// next render) is part of the jitter it covers.
    func receive(_ bytes: UnsafeRawBufferPointer, arrivalTimeMs: Double, availableAtMs: Double, isHeld: Bool) {
        let packet: RTPPacketView
        do {
            packet = try RTPPacketView(bytes)
        } catch {
            counters.malformedPackets += 1
            return
        }
        let isAudio = packet.payloadType == configuration.payloadType
        let isTelephoneEvent = configuration.telephoneEventPayloadType == packet.payloadType
        guard isAudio || isTelephoneEvent else {
            counters.unknownPayloadTypePackets += 1
            return
        }
        noteSource(packet.ssrc)
        counters.packetsReceived += 1
        counters.bytesReceived += packet.payload.count
        counters.headerBytesReceived += bytes.count - packet.payload.count
        counters.lastPacketReceivedTimestampMs = arrivalTimeMs
        let update = receiver?.record(packet, arrivalTime: Self.rtpClockTime(ms: arrivalTimeMs, clockRate: isAudio ? 48_000 : configuration.telephoneEventClockRate))
        switch update {
        case .reordered:
            counters.packetsReordered += 1
        case .duplicate:
            // Counted once here; the copy never reaches the jitter buffer.
            counters.packetsDuplicated += 1
            return
        default:
            break
        }
        if isRemoteSilent {
            isRemoteSilent = false
            _ = events.push(.remoteMediaResumed)
        }
        if isTelephoneEvent {
            receiveTelephoneEvent(packet)
        } else if isHeld {
            counters.packetsReceivedWhileHeld += 1
        } else {
            jitterBuffer.insert(packet, arrivalTimeMs: max(arrivalTimeMs, availableAtMs))
        }
    }

    /// Writes the next frame to play into `frame` (`samplesPerFrame` samples).
    func render(into frame: UnsafeMutableBufferPointer<Int16>, nowMs: Double) {
        _ = jitterBuffer.nextFrame(into: frame, nowMs: nowMs)
        level.measure(UnsafeBufferPointer(frame))
        watchForSilence(nowMs: nowMs)
    }

    /// Lets a held frame's time pass: nothing is played, silence is still watched for.
    func skipFrame(nowMs: Double) {
        firstRenderMs = firstRenderMs ?? nowMs
    }

    /// What has been received and played so far.
    var statistics: InboundRTPStatistics {
        var result = counters
        let playout = jitterBuffer.statistics
        result.packetsLost = previousStreamsLost + Int(receiver?.cumulativeLost ?? 0)
        result.jitter = Double(receiver?.jitter ?? 0) / 48_000
        result.packetsDiscarded = playout.packetsDiscarded
        result.fecPacketsReceived = playout.fecPacketsReceived
        result.fecPacketsRecovered = playout.fecPacketsRecovered
        result.jitterBufferDelay = playout.jitterBufferDelay
        result.jitterBufferTargetDelay = playout.jitterBufferTargetDelay
        result.jitterBufferEmittedCount = playout.jitterBufferEmittedCount
        result.jitterBufferTargetDelayMs = jitterBuffer.targetDelayMs
        result.concealedSamples = playout.concealedSamples
        result.silentConcealedSamples = playout.silentConcealedSamples
        result.concealmentEvents = playout.concealmentEvents
        result.insertedSamplesForDeceleration = playout.insertedSamplesForDeceleration
        result.removedSamplesForAcceleration = playout.removedSamplesForAcceleration
        result.audioLevel = level.audioLevel
        result.totalAudioEnergy = level.totalAudioEnergy
        result.totalSamplesDuration = level.totalSamplesDuration
        result.totalSamplesReceived = Int((level.totalSamplesDuration * Double(configuration.sampleRate)).rounded())
        return result
    }

    /// Starts statistics for a new sender SSRC, keeping the previous stream's loss.
    private func noteSource(_ ssrc: UInt32) {
        guard receiver?.ssrc != ssrc else { return }
        if let previous = receiver {
            previousStreamsLost += Int(previous.cumulativeLost)
            counters.ssrcChanges += 1
            _ = events.push(.ssrcChanged(from: previous.ssrc, to: ssrc))
        }
        // A sender that is already talking is valid at once (authenticated by SRTP when keyed).
        receiver = RTPReceiverStatistics(ssrc: ssrc, minSequential: 1)
        counters.ssrc = ssrc
    }

    private func receiveTelephoneEvent(_ packet: RTPPacketView) {
        guard let event = try? TelephoneEvent(decoding: packet.payload) else {
            counters.malformedPackets += 1
            return
        }
        guard event.isEnd, lastReportedTelephoneEvent != packet.timestamp else { return }
        lastReportedTelephoneEvent = packet.timestamp
        counters.telephoneEventsReceived += 1
        let durationMs = Int(event.duration) * 1_000 / configuration.telephoneEventClockRate
        _ = events.push(.dtmfReceived(eventCode: event.event.rawValue, durationMs: durationMs))
    }

    private func watchForSilence(nowMs: Double) {
        let start = firstRenderMs ?? nowMs
        firstRenderMs = start
        guard !isRemoteSilent else { return }
        let silentFor = nowMs - (counters.lastPacketReceivedTimestampMs ?? start)
        if silentFor >= Double(configuration.remoteSilenceTimeoutMs) {
            isRemoteSilent = true
            _ = events.push(.remoteSilenceBegan(silentForMs: Int(silentFor)))
        }
    }

    /// `ms` on an RTP clock of `clockRate`, wrapped to 32 bits (RFC 3550 A.8 needs only
    /// differences). A time that is not finite counts as 0 rather than trapping.
    static func rtpClockTime(ms: Double, clockRate: Int) -> UInt32 {
        let ticks = ms * Double(clockRate) / 1_000
        guard ticks.isFinite else { return 0 }
        return UInt32(truncatingIfNeeded: Int64(ticks.truncatingRemainder(dividingBy: 4_294_967_296)))
    }
}
