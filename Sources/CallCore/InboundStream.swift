// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import Locking
import RTP

/// A call's receive side on the audio thread: RTP packets that passed the network side's
/// accounting (`ReceptionAccounting`) go into the adaptive jitter buffer, RFC 4733 key presses
/// become events; `render` asks the jitter buffer for each frame on the playout clock.
///
/// Its counters (playout, from `JitterBufferStatistics`; levels; key presses; held packets)
/// are an `InboundPlayout` value, which joins the network side's counters in one
/// `InboundRTPStatistics`. It owns the producer half of the audio side's event queue.
/// Allocation-free per packet and per frame.
final class InboundStream {
    private var configuration: MediaConfiguration
    private let jitterBuffer: AdaptiveJitterBuffer
    /// What the jitter buffer has learnt of the path, copied for other threads about once a
    /// second of playout (`LearntDelaysPublication.intervalMs`).
    let learntDelays: LearntDelaysPublication
    /// Playout time at which the next copy is due.
    private var learntDelaysDueMs = -Double.infinity
    private let events: SPSCProducer<CallMediaEventRecord>
    private var counters = InboundRTPStatistics()
    /// Events the queue had no room for.
    private(set) var eventsDropped = 0
    private var level: AudioLevelMeter
    /// RTP timestamp of the telephone event last reported (its end copies are ignored).
    private var lastReportedTelephoneEvent: UInt32?
    /// The stream's packets in sequence order, for RFC 3611's burst and gap metrics: each
    /// arrival received or discarded by the jitter buffer, the rest lost.
    private var burstGap = BurstGapTracker()
    private var burstGapSSRC: UInt32?
    private var firstRenderMs: Double?
    private var lastArrivalMs: Double?
    private var isRemoteSilent = false
    /// Whether frames were skipped (held, or not receiving) since the last one played.
    private var skippedSincePlaying = false

    init(configuration: MediaConfiguration, events: consuming SPSCProducer<CallMediaEventRecord>) throws(CallMediaError) {
        self.configuration = configuration
        self.events = events
        do {
            jitterBuffer = try AdaptiveJitterBuffer(configuration: configuration.playoutConfiguration)
        } catch {
            throw .jitterBuffer(error)
        }
        learntDelays = LearntDelaysPublication(capacity: jitterBuffer.learntDelaysCapacity)
        level = AudioLevelMeter(sampleRate: configuration.sampleRate)
    }

    /// Samples per rendered frame.
    var samplesPerFrame: Int { jitterBuffer.samplesPerFrame }

    /// The jitter buffer's decoders now (for a codec switch to keep); only before the call
    /// runs or from the audio side.
    var currentDecoders: PreparedDecoders { jitterBuffer.currentDecoders }

    /// Audio side: takes a codec switch's configuration (telephone-event payload type and
    /// clock) and decoders, giving back the ones it replaces in `configuration` and `decoders`.
    func switchCodec(exchanging configuration: inout MediaConfiguration, decoders: inout PreparedDecoders) {
        swap(&self.configuration, &configuration)
        jitterBuffer.switchDecoders(exchanging: &decoders)
    }

    /// Takes one accounted RTP packet (parsed on the network side) that arrived from the
    /// network at `arrivalTimeMs` and reached the audio side at `availableAtMs`; `isHeld`
    /// counts it without playing it.
    ///
    /// With `availableAtMs`, the jitter buffer uses the time the packet became playable, so the
    /// audio side's tick (packets wait for the next render) is part of the jitter it covers:
    /// on frame ticks its margin lives on the frame's lattice anyway. Without (nil: playout by
    /// the device period, a lattice finer than the frame), it uses the arrival itself: the
    /// decision logic keeps the period's lattice in its margins (`DecisionLogic`). Counted at
    /// the period that takes it in, a packet's margin sat on that lattice (0, 10, 20 ms), so
    /// the least margin cost a clean link a whole period at every phase (`voicecall latency`,
    /// 4 phases: 52.6 → 47.6 ms without voice processing).
    func receive(_ packet: RTPPacketView, arrivalTimeMs: Double, availableAtMs: Double?, isHeld: Bool) {
        lastArrivalMs = arrivalTimeMs
        if isRemoteSilent {
            isRemoteSilent = false
            post(.remoteMediaResumed)
        }
        if burstGapSSRC != packet.ssrc {
            burstGap.startNewSequence()
            burstGapSSRC = packet.ssrc
        }
        let discardsBefore = jitterBuffer.statistics.packetsDiscarded
        if configuration.telephoneEventPayloadType == packet.payloadType {
            receiveTelephoneEvent(packet)
        } else if isHeld {
            counters.packetsReceivedWhileHeld += 1
        } else {
            jitterBuffer.insert(packet, arrivalTimeMs: max(arrivalTimeMs, availableAtMs ?? arrivalTimeMs))
        }
        burstGap.record(sequenceNumber: packet.sequenceNumber, discarded: jitterBuffer.statistics.packetsDiscarded > discardsBefore)
    }

    /// RFC 3611 §4.7.2 burst and gap statistics of the stream as received so far.
    var burstGapStatistics: BurstGapStatistics { burstGap.statistics }

    /// Writes the next audio to play into `frame` (1 to `samplesPerFrame` samples).
    func render(into frame: UnsafeMutableBufferPointer<Int16>, nowMs: Double) {
        if skippedSincePlaying {
            // The jitter buffer's clock stood still while frames were skipped: start afresh.
            skippedSincePlaying = false
            jitterBuffer.resynchronize()
        }
        _ = jitterBuffer.nextSamples(into: frame, nowMs: nowMs)
        // A copy skipped because a reader held the lock is retried on the next frame.
        if nowMs >= learntDelaysDueMs, learntDelays.publishIfAvailable(from: jitterBuffer) {
            learntDelaysDueMs = nowMs + LearntDelaysPublication.intervalMs
        }
        level.measure(UnsafeBufferPointer(frame))
        watchForSilence(nowMs: nowMs)
    }

    /// Lets a held frame's time pass: nothing is played, silence is still watched for.
    func skipFrame(nowMs: Double) {
        firstRenderMs = firstRenderMs ?? nowMs
        skippedSincePlaying = true
    }

    /// Queues an event for the application; counted in `eventsDropped` when the queue is full.
    func post(_ event: CallMediaEventRecord) {
        if !events.push(event) { eventsDropped += 1 }
    }

    /// This side's counters now.
    var playout: InboundPlayout {
        InboundPlayout(jitterBuffer: jitterBuffer.statistics, targetDelayMs: jitterBuffer.targetDelayMs,
                       audioLevel: level.audioLevel, totalAudioEnergy: level.totalAudioEnergy,
                       totalSamplesDuration: level.totalSamplesDuration, sampleRate: configuration.sampleRate,
                       telephoneEventsReceived: counters.telephoneEventsReceived,
                       packetsReceivedWhileHeld: counters.packetsReceivedWhileHeld, malformedPackets: counters.malformedPackets,
                       burstGap: burstGap.statistics)
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
        post(.dtmfReceived(eventCode: event.event.rawValue, durationMs: durationMs))
    }

    private func watchForSilence(nowMs: Double) {
        let start = firstRenderMs ?? nowMs
        firstRenderMs = start
        guard !isRemoteSilent else { return }
        let silentFor = nowMs - (lastArrivalMs ?? start)
        // A clock that jumped to infinity (or NaN) must not trap the audio thread.
        guard silentFor.isFinite, silentFor >= Double(configuration.remoteSilenceTimeoutMs) else { return }
        isRemoteSilent = true
        post(.remoteSilenceBegan(silentForMs: Int(min(silentFor, 1e12))))
    }
}
