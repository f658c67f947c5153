import AudioProcessing
import Opus
import RTP

/// Adaptive playout of one received Opus RTP stream (modelled on WebRTC NetEq).
///
/// Call `insert` for each packet as it arrives and `nextFrame` once per playout tick, both on
/// the same (receiver's) clock. Each tick decides, for the audio it needs next:
///
/// - **normal**: the next packet is there → decode it;
/// - **merge**: the same right after concealment, crossfaded in from the concealed signal;
/// - **fecRecovery**: it is missing but the packet after it carries in-band FEC → recover it
///   (at once, or after waiting for it: `LatePacketPolicy`);
/// - **expand**: missing otherwise → Opus concealment. With nothing later stored (a stall)
///   playout waits, so the delay grows to the network's. With later packets stored, the
///   missing one is usually only overtaken (reordered), so playout also waits for it — up to
///   `maximumHoldMs`, and only while its lateness is within what `holdQuantile` of recent
///   packets reached — then gives it up (FEC from the next packet, or concealment). Waiting a
///   frame and playing the packet late conceals no more than giving it up would, and loses
///   nothing; the delay it adds is removed by accelerating afterwards;
/// - **comfortNoise**: the sequence continues but the timestamp jumped (sender DTX) → silence;
/// - **accelerate** / **preemptiveExpand**: when decoding, the packet's margin (how long ago
///   the fastest-path copy of it would have arrived) is compared with the target delay
///   (`RelativeDelayEstimator`, less `targetToleranceMs`); a frame above → remove a pitch
///   period, below → insert one (`TimeStretcher`).
///
/// The store is a preallocated ring; payloads are copied in; nothing allocates per packet or
/// per tick. Not thread-safe: drive it from one thread (the playout thread).
public final class AdaptiveJitterBuffer {
    /// The configuration it was created with.
    public let configuration: JitterBufferConfiguration
    /// Samples written by each `nextFrame` call.
    public let samplesPerFrame: Int
    /// Counters (W3C WebRTC names).
    public private(set) var statistics = JitterBufferStatistics()
    /// The current target delay in milliseconds (initial, then estimated; clamped to the configuration).
    public private(set) var targetDelayMs: Double

    /// Packets needed before the estimated target replaces the initial delay.
    static let packetsBeforeEstimate = 50
    /// A timestamp further than this from where the sequence number puts it is a jump (restart).
    static let timestampJumpSeconds = 10
    /// How far below the target the margin may sit before a period is inserted, in ms. The
    /// margin moves in whole packets (a packet is decoded at a tick), so it sits on a 20 ms
    /// lattice: insisting on the lattice point above the target would cost 10 ms on average,
    /// and the few packets this tolerance makes late are mostly waited for.
    static let targetToleranceMs = 5.0
    /// The margin never sits below this, in ms: on a clean network whose clock drifts, inserting
    /// periods raises the margin only once a whole frame has built up (several ticks), so
    /// preemptive expand needs this much runway before the next packet would be missed.
    static let minimumMarginMs = 5.0
    /// Extra margin above the lowest allowed one plus a frame before accelerating (stepping the
    /// margin down by a frame): without it, noise in the fastest-packet estimate flips between
    /// accelerate and preemptive expand.
    static let accelerateHysteresisMs = 5.0
    /// Most pitch periods removed from one frame when the margin is several frames above target.
    static let fastAcceleratePeriods = 3
    /// A stall this long (playout waiting with nothing stored) marks the packets ending it as a spike.
    static let spikeWaitMs = 100.0
    /// A sequence number further than this from the highest one is a jump (restart).
    static let sequenceJump: Int64 = 3_000
    /// Longest wait for a missing packet while later ones are stored, in ms.
    static let maximumHoldMs = 80.0
    /// A missing packet is waited for only while its lateness so far is within this quantile
    /// of recent relative delays; beyond it, it is most likely lost.
    static let holdQuantile = 0.999

    private let decoder: OpusDecoder
    private let stretcher: TimeStretcher
    private let store: PacketStore
    private let estimator: RelativeDelayEstimator
    private let queue: PlayoutQueue
    private let decoded: UnsafeMutableBufferPointer<Int16>
    private let stretched: UnsafeMutableBufferPointer<Int16>
    private let mergeTail: UnsafeMutableBufferPointer<Int16>
    private let samplesPerMs: Double
    private let maximumPacketSamples: Int

    // Stream state.
    private var hasStream = false
    private var ssrc: UInt32 = 0
    private var payloadType: UInt8 = 0
    private var highestSequence: Int64 = 0
    private var highestTimestamp: Int64 = 0
    /// A first packet of the current stream has arrived (extension references are set).
    private var isStarted = false
    /// Playout has begun (the first packet waited the target delay).
    private var isPlaying = false
    private var nextSequence: Int64 = 0
    private var nextTimestamp: Int64 = 0
    private var expandedSamples = 0
    /// Samples concealed while nothing later was stored (playout waited, not advancing).
    private var waitedSamples = 0
    /// The last packet decoded was an Opus DTX packet: the sender is silent until its next one.
    private var isInDTX = false
    private var hasMergeTail = false
    private var lastKind = PlayoutKind.comfortNoise

    /// Creates a buffer and its Opus decoder (mono).
    /// - Throws: the `JitterBufferError` naming the first invalid configuration field.
    public init(configuration: JitterBufferConfiguration) throws(JitterBufferError) {
        let rate = configuration.sampleRate
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(rate) else { throw .invalidSampleRate(rate) }
        guard [10, 20, 40, 60].contains(configuration.frameDurationMs) else {
            throw .invalidFrameDuration(configuration.frameDurationMs)
        }
        guard configuration.maximumDelayMs > 0, configuration.maximumDelayMs <= 10_000 else {
            throw .invalidMaximumDelay(configuration.maximumDelayMs)
        }
        guard configuration.minimumDelayMs >= 0, configuration.minimumDelayMs <= configuration.maximumDelayMs else {
            throw .invalidMinimumDelay(configuration.minimumDelayMs)
        }
        guard (configuration.minimumDelayMs...configuration.maximumDelayMs).contains(configuration.initialDelayMs) else {
            throw .invalidInitialDelay(configuration.initialDelayMs)
        }
        guard (2...65_536).contains(configuration.capacityPackets) else { throw .invalidCapacity(configuration.capacityPackets) }
        do {
            decoder = try OpusDecoder(sampleRate: rate, channels: 1)
        } catch {
            throw .decoderCreationFailed(error)
        }
        self.configuration = configuration
        samplesPerFrame = rate * configuration.frameDurationMs / 1_000
        samplesPerMs = Double(rate) / 1_000
        maximumPacketSamples = rate * 120 / 1_000  // the longest Opus packet
        stretcher = TimeStretcher(sampleRate: rate, maximumFrameCount: maximumPacketSamples)
        store = PacketStore(capacity: configuration.capacityPackets)
        estimator = RelativeDelayEstimator(maximumDelayMs: configuration.maximumDelayMs,
                                           windowCapacity: max(64, 4_000 / configuration.frameDurationMs))
        queue = PlayoutQueue(sampleCapacity: 4 * maximumPacketSamples + 4 * samplesPerFrame, segmentCapacity: 32)
        let mergeLength = rate / 400  // 2.5 ms: the shortest Opus concealment step
        decoded = .allocate(capacity: maximumPacketSamples + mergeLength + stretcher.maximumPeriod)
        decoded.initialize(repeating: 0)
        stretched = .allocate(capacity: maximumPacketSamples + stretcher.maximumPeriod)
        stretched.initialize(repeating: 0)
        mergeTail = .allocate(capacity: mergeLength)
        mergeTail.initialize(repeating: 0)
        targetDelayMs = Double(configuration.initialDelayMs)
    }

    deinit {
        decoded.deallocate()
        stretched.deallocate()
        mergeTail.deallocate()
    }

    // MARK: Arrivals

    /// Stores an RTP packet carrying Opus (its payload is copied), or counts why not:
    /// duplicate, late (its playout time has passed), or unusable. A new SSRC or a jump in
    /// sequence number or timestamp restarts the stream; a new payload type resets the decoder;
    /// a packet beyond the store's capacity flushes it.
    public func insert(_ packet: RTPPacketView, arrivalTimeMs: Double) {
        statistics.packetsReceived += 1
        let payload = packet.payload
        guard payload.count > 0, payload.count <= PacketStore.maximumPayloadBytes,
              let info = try? OpusPacketInfo(packet: payload, sampleRate: configuration.sampleRate) else {
            statistics.packetsDiscarded += 1
            return
        }
        if !hasStream || packet.ssrc != ssrc {
            restart(ssrc: packet.ssrc, payloadType: packet.payloadType)
        } else if packet.payloadType != payloadType {
            payloadType = packet.payloadType
            try? decoder.reset()
            hasMergeTail = false
        }

        var sequence: Int64, timestamp: Int64
        if !isStarted {
            sequence = Int64(packet.sequenceNumber)
            timestamp = Int64(packet.timestamp)
            beginStream(sequence: sequence, timestamp: timestamp)
        } else {
            let sequenceDelta = SerialNumberArithmetic.distance(from: UInt16(truncatingIfNeeded: highestSequence), to: packet.sequenceNumber)
            let timestampDelta = SerialNumberArithmetic.distance(from: UInt32(truncatingIfNeeded: highestTimestamp), to: packet.timestamp)
            let timestampSlip = timestampDelta - sequenceDelta * Int64(samplesPerFrame)
            let limit = Int64(Self.timestampJumpSeconds * configuration.sampleRate)
            if abs(sequenceDelta) > Self.sequenceJump || timestampSlip > limit || timestampSlip < -limit {
                restart(ssrc: ssrc, payloadType: packet.payloadType)
                sequence = Int64(packet.sequenceNumber)
                timestamp = Int64(packet.timestamp)
                beginStream(sequence: sequence, timestamp: timestamp)
            } else {
                sequence = highestSequence + sequenceDelta
                timestamp = highestTimestamp + timestampDelta
            }
        }

        if info.hasFEC { statistics.fecPacketsReceived += 1 }
        // Packets ending a long stall (playout waited ≥ `spikeWaitMs` with nothing to play) are
        // a delay spike: waiting already kept them; letting them into the histogram would hold
        // the target up at the spike's height for seconds afterwards.
        let isSpike = isPlaying && !isInDTX && Double(waitedSamples) >= Self.spikeWaitMs * samplesPerMs
        estimator.add(arrivalMs: arrivalTimeMs, mediaTimeMs: Double(timestamp) / samplesPerMs, updatesHistogram: !isSpike)
        if estimator.packetCount >= Self.packetsBeforeEstimate {
            let limits = Double(configuration.minimumDelayMs)...Double(configuration.maximumDelayMs)
            targetDelayMs = min(max(estimator.targetDelayMs, limits.lowerBound), limits.upperBound)
        }

        if isPlaying && (sequence < nextSequence || timestamp < nextTimestamp) {
            statistics.packetsDiscarded += 1  // its turn has passed (or its span is being concealed)
            return
        }
        if sequence < nextSequence {
            nextSequence = sequence  // arrived before playout began: start from it
            nextTimestamp = timestamp
        }
        if sequence - nextSequence >= Int64(store.capacity) {
            store.removeAll()
            statistics.flushes += 1
            nextSequence = sequence
            nextTimestamp = timestamp
            waitedSamples = 0
        }
        switch store.insert(sequence: sequence, timestamp: timestamp, arrivalMs: arrivalTimeMs, hasFEC: info.hasFEC, payload: payload) {
        case .stored:
            if sequence > highestSequence {
                highestSequence = sequence
                highestTimestamp = timestamp
            }
        case .duplicate:
            statistics.packetsDuplicated += 1
        case .collision, .tooLarge:
            statistics.packetsDiscarded += 1
        }
    }

    private func beginStream(sequence: Int64, timestamp: Int64) {
        isStarted = true
        highestSequence = sequence
        highestTimestamp = timestamp
        nextSequence = sequence
        nextTimestamp = timestamp
    }

    /// A clean restart: a new stream (SSRC) or a discontinuity in the same one.
    private func restart(ssrc: UInt32, payloadType: UInt8) {
        hasStream = true
        self.ssrc = ssrc
        self.payloadType = payloadType
        store.removeAll()
        estimator.restartStream()
        try? decoder.reset()
        isStarted = false
        isPlaying = false
        expandedSamples = 0
        waitedSamples = 0
        hasMergeTail = false
        isInDTX = false
    }

    // MARK: Playout

    /// Writes the next `samplesPerFrame` samples of audio into `pcm` and reports how they
    /// were produced. `nowMs` is the receiver's clock, the same as `insert`'s arrival times.
    /// Before the first packet has waited the target delay (less the tolerance) it writes silence
    /// (`.comfortNoise`, counted nowhere).
    public func nextFrame(into pcm: UnsafeMutableBufferPointer<Int16>, nowMs: Double) -> PlayoutEvent {
        precondition(pcm.count >= samplesPerFrame, "nextFrame: pcm holds fewer than samplesPerFrame samples")
        let frame = UnsafeMutableBufferPointer(rebasing: pcm[0..<samplesPerFrame])
        if !isPlaying {
            if store.count > 0 && isStarted && marginMs(nowMs: nowMs) >= lowestMarginMs {
                isPlaying = true
                queue.removeAll()
            } else {
                frame.update(repeating: 0)
                return PlayoutEvent(kind: .comfortNoise, sequenceNumber: nil)
            }
        }
        var productions = 0
        while queue.count < samplesPerFrame {
            produce(nowMs: nowMs, isFirstThisTick: productions == 0)
            productions += 1
        }
        let emission = queue.emit(into: frame, nowMs: nowMs)
        statistics.jitterBufferDelay += emission.delaySeconds
        statistics.jitterBufferEmittedCount += emission.packetSamples
        statistics.jitterBufferTargetDelay += Double(emission.packetSamples) * targetDelayMs / 1_000
        if let started = emission.started {
            return PlayoutEvent(kind: started.kind, sequenceNumber: emission.firstStartedSequence,
                                lastSequenceNumber: emission.lastStartedSequence)
        }
        return PlayoutEvent(kind: emission.latest?.kind ?? lastKind, sequenceNumber: nil)
    }

    /// The smallest margin playout keeps: the target less the tolerance, never under the minimum.
    private var lowestMarginMs: Double { max(targetDelayMs - Self.targetToleranceMs, Self.minimumMarginMs) }

    /// How long ago the fastest-path copy of the next packet would have arrived: the slack the
    /// next decode has. Late loss happens for packets whose relative delay exceeds it.
    private func marginMs(nowMs: Double) -> Double {
        nowMs - Double(nextTimestamp) / samplesPerMs - estimator.minimumOffsetMs
    }

    /// Appends one production (a frame, a stretched frame, concealment or silence) to the queue.
    private func produce(nowMs: Double, isFirstThisTick: Bool) {
        guard let next = store.first(from: nextSequence, through: highestSequence) else {
            if isInDTX {
                comfortNoise(count: samplesPerFrame, advancing: false)  // the sender is silent
            } else {
                expand(advancing: false)  // nothing to play: wait, concealing (the delay grows)
            }
            return
        }
        if next.sequence == nextSequence {
            var gap = Int(next.timestamp - nextTimestamp)
            if gap > 0 && waitedSamples > 0 {
                // The sequence goes on but the timestamp jumped: the sender was silent (DTX), and
                // what was played while waiting stood for the start of that silence.
                let covered = min(gap, waitedSamples)
                nextTimestamp += Int64(covered)
                gap -= covered
                waitedSamples = 0
                expandedSamples = 0
                hasMergeTail = false
            }
            if gap > 0 && expandedSamples == 0 {
                comfortNoise(count: min(gap, samplesPerFrame), advancing: true)  // sender DTX: silence, not loss
            } else {
                decode(next, nowMs: nowMs, isFirstThisTick: isFirstThisTick)
            }
            return
        }
        // One or more packets missing before `next`.
        let gap = Int(next.timestamp - nextTimestamp)
        let canRecoverFromFEC = expandedSamples == 0 && next.hasFEC && next.sequence == nextSequence + 1
            && gap > 0 && gap <= maximumPacketSamples && gap % (configuration.sampleRate / 400) == 0
        let prefersFEC = canRecoverFromFEC && configuration.latePacketPolicy == .recoverFromFECFirst
        if gap > 0 && !prefersFEC && Double(waitedSamples) < Self.maximumHoldMs * samplesPerMs
            && marginMs(nowMs: nowMs) <= estimator.delayMs(atQuantile: Self.holdQuantile) {
            expand(advancing: false)  // most likely overtaken, not lost: wait for it
            return
        }
        if gap <= 0 || waitedSamples >= gap {
            nextSequence = next.sequence  // already concealed their span: give them up
            nextTimestamp = next.timestamp
            decode(next, nowMs: nowMs, isFirstThisTick: isFirstThisTick)
        } else if canRecoverFromFEC {
            recoverFromFEC(next, samples: gap)
        } else {
            expand(advancing: true, toward: next)
        }
    }

    private func decode(_ slot: PacketStore.Slot, nowMs: Double, isFirstThisTick: Bool) {
        let payload = store.payload(of: slot)
        let count: Int
        do {
            count = try decoder.decode(payload, into: UnsafeMutableBufferPointer(rebasing: decoded[0..<maximumPacketSamples]))
        } catch {
            store.remove(sequence: slot.sequence)
            statistics.packetsDiscarded += 1  // corrupt: conceal its span instead
            nextSequence = slot.sequence + 1
            nextTimestamp = slot.timestamp
            expand(advancing: true)
            return
        }
        let margin = marginMs(nowMs: nowMs)
        store.remove(sequence: slot.sequence)
        nextSequence = slot.sequence + 1
        nextTimestamp = slot.timestamp + Int64(count)
        let sequenceNumber = UInt16(truncatingIfNeeded: slot.sequence)
        let frame = UnsafeBufferPointer(rebasing: decoded[0..<count])
        isInDTX = OpusEncoder.isDTXPacket(byteCount: slot.byteCount)
        if isInDTX {
            // A DTX packet: the decoder's comfort noise, the sender's silence.
            statistics.concealedSamples += count
            statistics.silentConcealedSamples += count
            finishProduction(frame, kind: .comfortNoise, sequenceNumber: sequenceNumber, arrivalMs: nil)
            return
        }
        if expandedSamples > 0 && hasMergeTail {
            let length = min(mergeTail.count, count)
            for index in 0..<length {
                let weight = Double(index) / Double(length)
                decoded[index] = Int16(clamping: Int((Double(mergeTail[index]) * (1 - weight) + Double(decoded[index]) * weight).rounded()))
            }
            finishProduction(frame, kind: .merge, sequenceNumber: sequenceNumber, arrivalMs: slot.arrivalMs)
            return
        }
        expandedSamples = 0
        hasMergeTail = false
        let frameMs = Double(configuration.frameDurationMs)
        let queuedMs = Double(queue.count) / samplesPerMs
        let lowest = lowestMarginMs
        if isFirstThisTick && margin >= lowest + frameMs + Self.accelerateHysteresisMs {
            // Far above target: remove a period even if that costs a frame of margin; far far
            // above (after a stall), up to `fastAcceleratePeriods` periods (NetEq's fast accelerate).
            var written = stretcher.accelerate(frame, into: stretched)
            var periods = 1
            while written < count && periods < Self.fastAcceleratePeriods
                    && margin >= lowest + Double(periods + 1) * frameMs + Self.accelerateHysteresisMs {
                for index in 0..<written { decoded[index] = stretched[index] }
                let shorter = stretcher.accelerate(UnsafeBufferPointer(rebasing: decoded[0..<written]), into: stretched)
                if shorter == written { break }
                written = shorter
                periods += 1
            }
            if written < count {
                statistics.removedSamplesForAcceleration += count - written
                finishProduction(UnsafeBufferPointer(rebasing: stretched[0..<written]), kind: .accelerate,
                                 sequenceNumber: sequenceNumber, arrivalMs: slot.arrivalMs)
                return
            }
        } else if margin < lowest && queuedMs < frameMs {
            let written = stretcher.preemptiveExpand(frame, into: stretched)
            if written > count {
                statistics.insertedSamplesForDeceleration += written - count
                finishProduction(UnsafeBufferPointer(rebasing: stretched[0..<written]), kind: .preemptiveExpand,
                                 sequenceNumber: sequenceNumber, arrivalMs: slot.arrivalMs)
                return
            }
        } else if margin >= lowest && queue.count >= stretcher.maximumPeriod / 4 {
            // Audio left over from earlier stretching is pure delay: trim it when a period fits.
            let written = stretcher.accelerate(frame, into: stretched, maximumPeriod: queue.count)
            if written < count {
                statistics.removedSamplesForAcceleration += count - written
                finishProduction(UnsafeBufferPointer(rebasing: stretched[0..<written]), kind: .accelerate,
                                 sequenceNumber: sequenceNumber, arrivalMs: slot.arrivalMs)
                return
            }
        }
        finishProduction(frame, kind: .normal, sequenceNumber: sequenceNumber, arrivalMs: slot.arrivalMs)
    }

    private func finishProduction(_ samples: UnsafeBufferPointer<Int16>, kind: PlayoutKind, sequenceNumber: UInt16?, arrivalMs: Double?) {
        queue.append(samples, kind: kind, sequenceNumber: sequenceNumber, arrivalMs: arrivalMs)
        expandedSamples = 0
        waitedSamples = 0
        hasMergeTail = false
        lastKind = kind
    }

    private func recoverFromFEC(_ carrier: PacketStore.Slot, samples: Int) {
        let output = UnsafeMutableBufferPointer(rebasing: decoded[0..<samples])
        guard let count = try? decoder.decodeFEC(from: store.payload(of: carrier), into: output) else {
            expand(advancing: true, toward: carrier)
            return
        }
        statistics.fecPacketsRecovered += 1
        let sequenceNumber = UInt16(truncatingIfNeeded: nextSequence)
        nextSequence += 1
        nextTimestamp += Int64(count)
        finishProduction(UnsafeBufferPointer(rebasing: decoded[0..<count]), kind: .fecRecovery,
                         sequenceNumber: sequenceNumber, arrivalMs: carrier.arrivalMs)
    }

    /// Opus concealment for one frame. `advancing`: a later packet (`next`) is stored, so the
    /// concealed frame spends part of the missing span before it (once the span is spent,
    /// `next` is due); otherwise playout waits where it is.
    private func expand(advancing: Bool, toward next: PacketStore.Slot? = nil) {
        let tail = mergeTail.count
        let produced: Int
        if hasMergeTail {
            // Keep the decoder's output continuous: first the tail concealed last time.
            for index in 0..<tail { decoded[index] = mergeTail[index] }
            produced = (try? decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: decoded[tail..<(tail + samplesPerFrame)]))) ?? 0
            if produced < samplesPerFrame { decoded.update(repeating: 0) }
        } else {
            produced = (try? decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: decoded[0..<(samplesPerFrame + tail)]))) ?? 0
            if produced < samplesPerFrame + tail { decoded.update(repeating: 0) }
        }
        for index in 0..<tail { mergeTail[index] = decoded[samplesPerFrame + index] }
        if expandedSamples == 0 && lastKind != .expand { statistics.concealmentEvents += 1 }
        statistics.concealedSamples += samplesPerFrame
        queue.append(UnsafeBufferPointer(rebasing: decoded[0..<samplesPerFrame]), kind: .expand, sequenceNumber: nil, arrivalMs: nil)
        lastKind = .expand
        hasMergeTail = true
        expandedSamples += samplesPerFrame
        if !advancing { waitedSamples += samplesPerFrame }
        if advancing {
            nextTimestamp += Int64(samplesPerFrame)
            if let next, nextTimestamp >= next.timestamp {
                nextSequence = next.sequence  // the missing span is concealed: `next` merges in
                nextTimestamp = next.timestamp
            }
        }
    }

    /// Comfort noise for a sender's DTX gap: the decoder's own, which after a DTX or comfort-noise
    /// update continues the sender's background noise (Opus expects lost-frame decoding during
    /// DTX); digital silence when the span is not a whole number of 2.5 ms steps. `advancing`:
    /// the gap is known (the next packet is stored); otherwise the sender is in DTX and playout
    /// waits for its next packet.
    private func comfortNoise(count: Int, advancing: Bool) {
        let output = UnsafeMutableBufferPointer(rebasing: decoded[0..<count])
        if count % (configuration.sampleRate / 400) != 0 || (try? decoder.conceal(into: output)) != count {
            output.update(repeating: 0)
        }
        statistics.concealedSamples += count
        statistics.silentConcealedSamples += count
        if advancing {
            nextTimestamp += Int64(count)
        } else {
            waitedSamples += count
        }
        expandedSamples = 0
        hasMergeTail = false
        queue.append(UnsafeBufferPointer(rebasing: decoded[0..<count]), kind: .comfortNoise, sequenceNumber: nil, arrivalMs: nil)
        lastKind = .comfortNoise
    }
}
