// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Opus
import RTP

/// Adaptive playout of one received RTP voice stream — Opus, G.711 or G.722, whichever the
/// configuration's codec names (modelled on WebRTC NetEq).
///
/// Call `insert` for each packet as it arrives and `nextFrame` once per playout tick (or
/// `nextSamples` for ticks shorter than a frame: a device period), both on the same
/// (receiver's) clock. Arrivals go into a `PacketStore` and teach a
/// `RelativeDelayEstimator` the target delay. Each tick, `DecisionLogic` decides how the audio
/// it needs next is produced — normal decode, merge after concealment, FEC recovery, expand
/// (concealment, or waiting for an overtaken packet), DTX comfort noise, accelerate or
/// preemptive expand toward the target — and the operation of that name carries it out into a
/// `PlayoutQueue`, from which the tick's frame is emitted. A stretch that is not urgent waits
/// for a pause (`QuietFrameDetector`), where the listener does not hear it.
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

    /// Packets needed before the estimated target replaces the initial delay, downward too.
    static let packetsBeforeEstimate = 50
    /// Packets needed before the estimate may raise the target above the initial delay: 10.
    /// On a slow path each packet of the first second waiting at the initial delay is played
    /// late (concealed) and the delay must be built later in the middle of speech;
    /// lowering the target on so few packets would play the next ones late instead (`benchmarks
    /// quality`, first pass, against 50: D 1.82 → 2.05, E 1.65 → 1.97, F 1.50 → 1.70, A and
    /// B unchanged; against 5: E 1.87).
    static let packetsBeforeRaisingTarget = 10
    /// A timestamp further than this from where the sequence number puts it is a jump (restart).
    static let timestampJumpSeconds = 10
    /// A stall this long (playout waiting with nothing stored) marks the packets ending it as a spike.
    static let spikeWaitMs = 100.0
    /// A stall at least this long (playout waiting with nothing stored, not in DTX) ends with
    /// its backlog dropped down to what accelerating takes out unhurried: the packets older
    /// than the one at the target plus `DecisionLogic.urgentAccelerateFrames` steps of
    /// `DecisionLogic.hurryStepMs` (120 ms at 10 and 20 ms frames) are counted as discarded.
    /// Accelerating the whole backlog of a 0.3–1 s stall stretched seconds of the speech after
    /// it (`benchmarks listening`, Wi-Fi mix: 2.64 → 2.81 PESQ, mean delay 77 → 68 ms); dropping
    /// it all cost more late loss than speexdsp's buffer on `benchmarks jitter`'s spike trace
    /// (3.1 % against 2.67; 2.67 keeping 120 ms).
    /// Only under the FEC-first policy: the waiting one is for not giving packets up.
    static let stallSkipMs = 100.0
    /// A sequence number further than this from the highest one is a jump (restart).
    static let sequenceJump: Int64 = 3_000
    /// Longest a stretch that may wait for a pause waits, in ms: audio with no pauses (music,
    /// a tone, one long sentence) is stretched anyway, once per this span.
    static let maximumStretchDeferralMs = 1_000
    /// For this long after playout begins, in ms, the delay the buffer chose itself to start
    /// with comes out only in pauses: neither an urgent margin nor `maximumStretchDeferralMs`
    /// accelerates through speech while the margin is within a frame of the target playout
    /// began at (`removesOnlyStartUpDelay(at:)`). That delay — the initial delay
    /// (`JitterBufferConfiguration.initialDelayMs`), or what the first packets' lateness asked
    /// for (`StartUpLateness`), kept until the estimate has its packets —
    /// is no backlog the network left, and hurrying it out mid-word is what a listener hears
    /// of a start: with a 150 ms initial delay, `benchmarks quality`'s first
    /// pass on a clean link scored 3.63 accelerating as usual, 4.06 with this rule (4.04 at
    /// 100 ms without it); 3 s and 8 s scored as 5 s to the digit. Under the waiting policy the
    /// waits are paid back at once, as always; a stall's backlog is taken out as at any time.
    static let startUpPauseOnlyMs = 5_000.0
    /// How long a pause must have lasted before a stretch that waits for one happens in it, in
    /// ms: 60 (three 20 ms frames). A lone quiet frame is as often a gap inside an utterance (a
    /// stop, a breath between words), and a delay change there is heard, and scored by PESQ, as
    /// part of the utterance: the call's start, stepping down from the initial delay over its
    /// first sentences, cost the clean demo 0.7 (`voicecall demo --fast --network none`, Alice →
    /// Bob 3.29 → 4.07 with this rule). Against one frame (the rule before), same session:
    /// `benchmarks quality` scored mean 3.436 → 3.456 (first pass clean +0.07, A +0.14, B +0.12,
    /// F −0.11), `benchmarks listening` 6 seeds 2.985 → 2.999 (the engine's way, 10 ms ticks:
    /// 3.042 → 3.065), the demo's default network (seeds 1–8) 2.612 / 2.590 → 2.777 / 2.582
    /// (40 ms: 2.711 / 2.549; 80 ms: 2.777 / 2.575).
    static let pauseBeforeStretchMs = 60
    /// How long the stream must have been quiet before concealment counts as silent (when the
    /// frame after it is quiet too), in ms: 1 s, the far end not talking (its turn is over, as
    /// `SpeechPacketFilter` in CallCore counts talk). A loss in a shorter pause, between words,
    /// still counts as a loss: the Opus factors the call's quality estimate prices misses with
    /// were fitted on talk with its short pauses, every loss counted (counting those silent too
    /// read `benchmarks quality`'s 9 % bursty row 0.31 above PESQ-WB).
    static let silenceBeforeSilentConcealmentMs = 1_000

    /// A decoder per payload type the sender may use.
    private let decoders: PayloadDecoders
    /// The stream's RTP clock rate, in Hz: timestamps are converted to samples at `sampleRate`.
    /// A packet of a codec on another clock restarts the stream.
    private var clockRate: Int64
    private let store: PacketStore
    /// A packet further ahead than the maximum delay, waiting for its successor.
    private let probation = JumpProbation()
    /// Sequence numbers ahead of the highest beyond which a packet waits for its successor:
    /// the maximum delay in packets (a packet further ahead could not be played on time in
    /// a stream paced by its sender unless everything between was lost).
    private let probationJump: Int64
    private let estimator: RelativeDelayEstimator
    private let queue: PlayoutQueue
    private let decisionLogic: DecisionLogic
    private let normal: NormalOperation
    private let expand: ExpandOperation
    private let fecRecovery: FECRecoveryOperation
    private let accelerate: AccelerateOperation
    private let preemptiveExpand: PreemptiveExpandOperation
    private let comfortNoise: ComfortNoiseOperation
    /// Whether the frame just decoded is a pause, where a stretch is not heard.
    private let quietFrames: QuietFrameDetector
    /// The packet being played, decoded (room for the longest Opus packet).
    private let decoded: UnsafeMutableBufferPointer<Int16>
    private let samplesPerMs: Double

    // Stream state.
    private var hasStream = false
    private var ssrc: UInt32 = 0
    private var payloadType: UInt8 = 0
    private var highestSequence: Int64 = 0
    /// The highest packet's timestamp in samples at `sampleRate` (extended), and as sent.
    private var highestTimestamp: Int64 = 0
    private var highestRTPTimestamp: UInt32 = 0
    /// A first packet of the current stream has arrived (extension references are set).
    private var isStarted = false
    /// Playout has begun (the first packet waited the target delay).
    private var isPlaying = false
    /// Playout position and what it last did.
    private var state = PlayoutState()
    /// How long stretches decided in a row have waited for a pause, in ms.
    private var stretchDeferredMs = 0
    /// The receiver's clock when playout of the current stream began (ms).
    private var playoutStartMs = 0.0
    /// The target when playout of the current stream began: the initial delay, or what a learnt
    /// start or the first packets' lateness (`StartUpLateness`) raised it to (ms).
    private var playoutStartTargetMs = 0.0
    /// Decoded samples in a row that were quiet, up to the last frame decoded (`quietFrames`).
    private var quietRunSamples = 0
    /// When playout last gave up a missing packet (receiver's clock, ms; nil: never). Kept
    /// across stream restarts: the network has not changed.
    private var lastLossMs: Double?
    /// The path lost packets recently as the call before knew it (`LearntDelays.lossWasRecent`):
    /// the first tick books a loss, so the loss margin holds from the start.
    private var startsAfterLoss = false
    /// The receiver's clock at the latest tick (ms).
    private var lastTickMs = 0.0
    /// How late the current stream's packets came before playout began.
    private var startUpLateness = StartUpLateness()
    /// The start delay that lateness asked for when playout began (ms; 0 before): held as the
    /// initial delay is, until the estimate has its packets.
    private var startUpLatenessFloorMs = 0.0

    /// Creates a buffer and its decoders (mono): the configuration's codec, or one per payload
    /// type of `payloadTypes`.
    /// - Throws: the `JitterBufferError` naming the first invalid configuration field.
    public init(configuration: JitterBufferConfiguration) throws(JitterBufferError) {
        let rate = configuration.sampleRate
        try Self.validateCodecs(configuration)
        guard OpusStreamFormat.isSupported(packetTimeMs: configuration.frameDurationMs) else {
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
        guard configuration.delayPricing.isValid else { throw .invalidDelayPricing(configuration.delayPricing) }
        if let learnt = configuration.learntDelays, !learnt.isValid { throw .invalidLearntDelays }
        decoders = PayloadDecoders(try Self.prepareDecoders(for: configuration, reusing: nil))
        self.configuration = configuration
        clockRate = Int64(configuration.codec.rtpClockRate)
        samplesPerFrame = rate * configuration.frameDurationMs / 1_000
        samplesPerMs = Double(rate) / 1_000
        let maximumPacketSamples = rate * 120 / 1_000  // the longest packet played (Opus's longest)
        store = PacketStore(capacity: configuration.capacityPackets)
        estimator = RelativeDelayEstimator(maximumDelayMs: configuration.maximumDelayMs,
                                           windowCapacity: max(64, 4_000 / configuration.frameDurationMs),
                                           pricing: configuration.delayPricing,
                                           packetDurationMs: Double(configuration.frameDurationMs),
                                           pricesRebuilds: configuration.latePacketPolicy == .recoverFromFECFirst)
        queue = PlayoutQueue(sampleCapacity: 4 * maximumPacketSamples + 4 * samplesPerFrame, segmentCapacity: 32)
        normal = NormalOperation(queue: queue)
        expand = ExpandOperation(decoders: decoders, queue: queue, sampleRate: rate, samplesPerFrame: samplesPerFrame)
        fecRecovery = FECRecoveryOperation(decoders: decoders, queue: queue, maximumPacketSamples: maximumPacketSamples)
        accelerate = AccelerateOperation(sampleRate: rate, maximumFrameCount: maximumPacketSamples, queue: queue)
        preemptiveExpand = PreemptiveExpandOperation(sampleRate: rate, maximumFrameCount: maximumPacketSamples, queue: queue)
        comfortNoise = ComfortNoiseOperation(decoders: decoders, queue: queue, sampleRate: rate, samplesPerFrame: samplesPerFrame)
        decisionLogic = DecisionLogic(configuration: configuration, maximumPitchPeriod: preemptiveExpand.maximumPeriod)
        quietFrames = QuietFrameDetector(frameDurationMs: configuration.frameDurationMs)
        decoded = .allocate(capacity: maximumPacketSamples)
        decoded.initialize(repeating: 0)
        targetDelayMs = Double(configuration.initialDelayMs)
        probationJump = Int64(max(configuration.maximumDelayMs / configuration.frameDurationMs, 3))
        if let learnt = configuration.learntDelays {
            // A learnt start raises the initial delay at once; it lowers it only as the
            // estimate would (from `packetsBeforeEstimate` packets on).
            estimator.start(from: learnt)
            targetDelayMs = initialDelayOrEstimate
            startsAfterLoss = learnt.lossWasRecent
        }
    }

    deinit { decoded.deallocate() }

    // MARK: Codec switches

    /// Refuses a codec or payload-type map this buffer's sample rate cannot play.
    private static func validateCodecs(_ configuration: JitterBufferConfiguration) throws(JitterBufferError) {
        let rate = configuration.sampleRate, codec = configuration.codec
        for codec in [codec] + configuration.payloadTypes.values {
            guard codec == .opus ? OpusStreamFormat.isSupported(sampleRate: rate) : (8_000...48_000).contains(rate) && rate % 1_000 == 0 else {
                throw .invalidSampleRate(rate)
            }
        }
        guard configuration.payloadTypes.isEmpty || configuration.payloadTypes.values.contains(codec) else {
            throw .codecWithoutPayloadType(codec)
        }
        guard configuration.payloadTypes.keys.allSatisfy({ $0 < 128 }) else {
            throw .invalidPayloadType(configuration.payloadTypes.keys.first { $0 >= 128 }!)
        }
    }

    /// The decoders for `configuration`'s codec and payload types (its sample rate), made off
    /// the audio thread: a decoder of `previous` for the same payload type and codec is kept
    /// (its state goes on), the others are new.
    /// - Throws: what `init(configuration:)` throws for the codec fields.
    package static func prepareDecoders(for configuration: JitterBufferConfiguration,
                                        reusing previous: PreparedDecoders?) throws(JitterBufferError) -> PreparedDecoders {
        try validateCodecs(configuration)
        let map: [(Int, AudioCodec)] = configuration.payloadTypes.isEmpty ? [(PayloadDecoders.anyPayloadType, configuration.codec)]
            : configuration.payloadTypes.sorted { $0.key < $1.key }.map { (Int($0.key), $0.value) }
        var entries: [PayloadDecoders.Entry] = []
        for (payloadType, codec) in map {
            if let kept = previous?.entries.first(where: { $0.payloadType == payloadType && $0.codec == codec }) {
                entries.append(kept)
                continue
            }
            do {
                entries.append(PayloadDecoders.Entry(payloadType: payloadType, codec: codec,
                                                     decoder: try codec.makeDecoder(sampleRate: configuration.sampleRate)))
            } catch {
                throw .decoderCreationFailed(error)
            }
        }
        return PreparedDecoders(entries: entries, codec: configuration.codec)
    }

    /// The decoders playing now (to keep in `prepareDecoders(for:reusing:)`). Read it only
    /// where the audio side cannot be switching them (before the call runs, or after a switch
    /// was taken).
    package var currentDecoders: PreparedDecoders { decoders.prepared }

    /// Audio side: plays with `prepared` from the next packet on, handing the decoders it
    /// replaces back in `prepared` (to be freed off the audio thread). The decoder playing goes
    /// on if `prepared` kept it; packets stored under a payload type no longer listed are
    /// dropped when due. No allocation, no release of a decoder.
    package func switchDecoders(exchanging prepared: inout PreparedDecoders) {
        decoders.exchange(&prepared)
        if !decoders.isActiveKept { state.followsConcealment = false }
    }

    // MARK: Arrivals

    /// Stores an RTP packet of the codec (its payload is copied), or counts why not:
    /// duplicate, late (its playout time has passed), or unusable. A new SSRC or a jump in
    /// sequence number or timestamp restarts the stream; another payload type switches decoders
    /// when its first packet plays (a codec on another RTP clock is placed by sequence number,
    /// and its clock becomes the stream's); a payload type the configuration does not list is
    /// unusable; a packet beyond the store's capacity flushes it. An arrival time that is not finite, or
    /// beyond ±10^12 ms (a broken clock), is unusable too: it would poison every delay figure.
    /// A packet of the current stream further ahead than the maximum delay waits for its
    /// successor (`JumpProbation`): confirmed, both are stored; otherwise it is discarded.
    public func insert(_ packet: RTPPacketView, arrivalTimeMs: Double) {
        statistics.packetsReceived += 1
        if isStarted, hasStream, packet.ssrc == ssrc {
            if probation.isConfirmed(by: packet) {
                probation.release { held, heldArrival in accept(held, arrivalTimeMs: heldArrival) }
            } else {
                if probation.isHolding {
                    probation.drop()
                    statistics.packetsDiscarded += 1  // a jump nothing followed
                }
                let ahead = SerialNumberArithmetic.distance(from: UInt16(truncatingIfNeeded: highestSequence), to: packet.sequenceNumber)
                if ahead > probationJump, probation.hold(packet, arrivalTimeMs: arrivalTimeMs) { return }
            }
        }
        accept(packet, arrivalTimeMs: arrivalTimeMs)
    }

    /// Stores a packet that passed probation (see `insert`).
    private func accept(_ packet: RTPPacketView, arrivalTimeMs: Double) {
        let payload = packet.payload
        guard arrivalTimeMs.isFinite, abs(arrivalTimeMs) < 1e12, payload.count > 0, payload.count <= PacketStore.maximumPayloadBytes,
              let decoderIndex = decoders.index(of: packet.payloadType),
              let info = try? decoders.decoder(at: decoderIndex).packetInfo(UnsafeRawBufferPointer(payload)),
              info.sampleCount <= decoded.count else {
            statistics.packetsDiscarded += 1
            return
        }
        let packetClockRate = Int64(decoders.codec(at: decoderIndex).rtpClockRate)
        if !hasStream || packet.ssrc != ssrc {
            restart(ssrc: packet.ssrc, payloadType: packet.payloadType)
        } else {
            payloadType = packet.payloadType
        }

        var sequence = Int64(packet.sequenceNumber)
        var timestamp = samples(fromTicks: Int64(packet.timestamp))
        if !isStarted {
            beginStream(sequence: sequence, timestamp: timestamp, rtpTimestamp: packet.timestamp)
        } else {
            let sequenceDelta = SerialNumberArithmetic.distance(from: UInt16(truncatingIfNeeded: highestSequence), to: packet.sequenceNumber)
            // A packet of a codec on another RTP clock (the sender switched between Opus's
            // 48 kHz and G.711's 8) has timestamps that cannot be compared with the stream's:
            // it is placed by its sequence number, a frame per packet, and the first one stored
            // past the highest carries the stream onto its clock. Nothing stored is lost.
            let timestampDelta = packetClockRate != clockRate ? sequenceDelta * Int64(samplesPerFrame)
                : samples(fromTicks: SerialNumberArithmetic.distance(from: highestRTPTimestamp, to: packet.timestamp))
            let timestampSlip = timestampDelta - sequenceDelta * Int64(samplesPerFrame)
            if abs(sequenceDelta) > Self.sequenceJump || abs(timestampSlip) > Int64(Self.timestampJumpSeconds * configuration.sampleRate) {
                restart(ssrc: ssrc, payloadType: packet.payloadType)
                timestamp = samples(fromTicks: Int64(packet.timestamp))  // on the packet's clock, now the stream's
                beginStream(sequence: sequence, timestamp: timestamp, rtpTimestamp: packet.timestamp)
            } else {
                sequence = highestSequence + sequenceDelta
                timestamp = highestTimestamp + timestampDelta
            }
        }

        if info.hasFEC { statistics.fecPacketsReceived += 1 }
        // Packets ending a long stall (playout waited ≥ `spikeWaitMs` with nothing to play) are
        // a delay spike: waiting already kept them; letting them into the histogram would hold
        // the target up at the spike's height for seconds afterwards.
        let isSpike = isPlaying && !state.isInDTX && Double(state.waitedSamples) >= Self.spikeWaitMs * samplesPerMs
        if !isPlaying { startUpLateness.add(offsetMs: arrivalTimeMs - Double(timestamp) / samplesPerMs) }
        estimator.add(arrivalMs: arrivalTimeMs, mediaTimeMs: Double(timestamp) / samplesPerMs, carriesFEC: info.hasFEC, updatesHistogram: !isSpike)
        if estimator.packetsSeen >= Self.packetsBeforeRaisingTarget {
            // Until the estimate has `packetsBeforeEstimate` packets it only raises the initial delay.
            targetDelayMs = estimator.packetsSeen >= Self.packetsBeforeEstimate ? clampedEstimate : initialDelayOrEstimate
        }

        if isPlaying && (sequence < state.nextSequence || timestamp < state.nextTimestamp) {
            statistics.packetsDiscarded += 1  // its turn has passed (or its span is being concealed)
            return
        }
        if sequence < state.nextSequence {
            state.move(toSequence: sequence, timestamp: timestamp)  // arrived before playout began: start from it
        }
        if sequence - state.nextSequence >= Int64(store.capacity) {
            store.removeAll()
            statistics.flushes += 1
            state.move(toSequence: sequence, timestamp: timestamp)
            state.waitedSamples = 0
        }
        let isComfortNoise = decoders.decoder(at: decoderIndex).isComfortNoisePayload(byteCount: payload.count)
        switch store.insert(sequence: sequence, timestamp: timestamp, arrivalMs: arrivalTimeMs, hasFEC: info.hasFEC,
                            isComfortNoise: isComfortNoise, payloadType: packet.payloadType, payload: payload) {
        case .stored:
            if sequence > highestSequence {
                highestSequence = sequence
                highestTimestamp = timestamp
                highestRTPTimestamp = packet.timestamp
                clockRate = packetClockRate  // the stream runs on its newest packet's clock
            }
        case .duplicate:
            statistics.packetsDuplicated += 1
        case .collision, .tooLarge:
            statistics.packetsDiscarded += 1
        }
    }

    /// The estimator's target within the configuration's minimum and maximum delay.
    private var clampedEstimate: Double {
        min(max(estimator.targetDelayMs, Double(configuration.minimumDelayMs)), Double(configuration.maximumDelayMs))
    }

    /// The estimator's target, but no lower than the initial delay or what the first packets'
    /// lateness asked for (nor above the maximum).
    private var initialDelayOrEstimate: Double {
        min(max(estimator.targetDelayMs, Double(configuration.initialDelayMs), startUpLatenessFloorMs), Double(configuration.maximumDelayMs))
    }

    /// What this buffer has learnt of the path so far (nil before any packet): give it to the
    /// next call on the same path (`JitterBufferConfiguration.learntDelays`). It allocates
    /// (an array of about 500 numbers): read it at the call's end, not on the playout thread's
    /// per-tick path.
    public var learntDelays: LearntDelays? {
        let weights = UnsafeMutableBufferPointer<Double>.allocate(capacity: learntDelaysCapacity)
        defer { weights.deallocate() }
        let copied = copyLearntDelays(into: weights)
        return LearntDelays(normalizing: UnsafeBufferPointer(rebasing: weights[..<copied.weightCount]),
                            lossWasRecent: copied.lossWasRecent)
    }

    /// The most weights `copyLearntDelays(into:)` writes: the estimator's buckets up to the
    /// maximum delay.
    package var learntDelaysCapacity: Int { estimator.histogramCount }

    /// Copies what this buffer has learnt of the path into the start of `weights` (at least
    /// `learntDelaysCapacity` long, not normalized; no weights before any packet), for the
    /// engine to publish from the playout thread and build `LearntDelays` from on another one
    /// (`LearntDelays(normalizing:lossWasRecent:)`). Allocates nothing.
    package func copyLearntDelays(into weights: UnsafeMutableBufferPointer<Double>) -> (weightCount: Int, lossWasRecent: Bool) {
        (estimator.copyHistogram(into: weights),
         startsAfterLoss || lastLossMs.map { lastTickMs - $0 < DecisionLogic.lossMemoryMs } ?? false)
    }

    private func beginStream(sequence: Int64, timestamp: Int64, rtpTimestamp: UInt32) {
        isStarted = true
        highestSequence = sequence
        highestTimestamp = timestamp
        highestRTPTimestamp = rtpTimestamp
        state.move(toSequence: sequence, timestamp: timestamp)
    }

    /// RTP clock ticks as samples at the output rate (G.722's 8 kHz clock against its 16 kHz
    /// samples, Opus's 48 kHz clock decoded at 16 kHz).
    @inline(__always)
    private func samples(fromTicks ticks: Int64) -> Int64 {
        clockRate == Int64(configuration.sampleRate) ? ticks : ticks * Int64(configuration.sampleRate) / clockRate
    }

    /// Forgets where playout stands: after the receiver stopped asking for frames for a while
    /// (a call on hold plays nothing, and its playout clock stood still), the next packet
    /// starts playout afresh at its own timestamp, after the target delay, instead of the time
    /// that passed unplayed being concealed first. Nothing is counted as lost or discarded.
    public func resynchronize() {
        guard hasStream else { return }
        restart(ssrc: ssrc, payloadType: payloadType)
    }

    /// A clean restart: a new stream (SSRC) or a discontinuity in the same one.
    private func restart(ssrc: UInt32, payloadType: UInt8) {
        if probation.isHolding {
            probation.drop()
            statistics.packetsDiscarded += 1  // a jump in the stream being replaced
        }
        hasStream = true
        self.ssrc = ssrc
        self.payloadType = payloadType
        store.removeAll()
        estimator.restartStream()
        if let index = decoders.index(of: payloadType), decoders.activate(index) {
            // Activated, so reset: the stream plays on this codec's clock from here.
        } else {
            decoders.resetActive()
        }
        clockRate = Int64(decoders.activeCodec.rtpClockRate)
        isStarted = false
        isPlaying = false
        startUpLateness.reset()
        startUpLatenessFloorMs = 0
        state.expandedSamples = 0
        state.waitedSamples = 0
        state.followsConcealment = false
        state.isInDTX = false
        state.concealedInSilenceSamples = 0
        quietFrames.reset()
        quietRunSamples = 0
        stretchDeferredMs = 0
    }

    // MARK: Playout

    /// Writes the next `samplesPerFrame` samples of audio into `pcm` and reports how they
    /// were produced. `nowMs` is the receiver's clock, the same as `insert`'s arrival times.
    /// Before the first packet has waited the target delay (less the tolerance) it writes silence
    /// (`.comfortNoise`, counted nowhere).
    public func nextFrame(into pcm: UnsafeMutableBufferPointer<Int16>, nowMs: Double) -> PlayoutEvent {
        precondition(pcm.count >= samplesPerFrame, "nextFrame: pcm holds fewer than samplesPerFrame samples")
        return nextSamples(into: UnsafeMutableBufferPointer(rebasing: pcm[0..<samplesPerFrame]), nowMs: nowMs)
    }

    /// Writes the next `pcm.count` samples (1 to `samplesPerFrame`) of audio into `pcm` and
    /// reports how they were produced: a playout tick shorter than a frame, for a receiver that
    /// plays a device period at a time. A packet is decoded only when the audio queued runs
    /// short of the tick, so the decoding margin moves on the tick's lattice instead of the
    /// frame's: a 20 ms stream played in 10 ms ticks waits half as long for its turn.
    /// The audio is the same as `nextFrame`'s, only cut finer; `nowMs` as for `nextFrame`.
    public func nextSamples(into pcm: UnsafeMutableBufferPointer<Int16>, nowMs: Double) -> PlayoutEvent {
        precondition((1...samplesPerFrame).contains(pcm.count), "nextSamples: pcm must hold 1 to samplesPerFrame samples")
        lastTickMs = nowMs
        if startsAfterLoss {
            startsAfterLoss = false
            lastLossMs = nowMs
        }
        if !isPlaying {
            if store.count > 0 && isStarted {
                // The first packets' lateness raises the start (`StartUpLateness`).
                startUpLatenessFloorMs = min(startUpLateness.floorMs, Double(configuration.maximumDelayMs))
                targetDelayMs = max(targetDelayMs, startUpLatenessFloorMs)
            }
            if store.count > 0 && isStarted
                && decisionLogic.startsPlayout(nextTimestamp: state.nextTimestamp, nowMs: nowMs,
                                               fastestOffsetMs: estimator.minimumOffsetMs, targetDelayMs: targetDelayMs) {
                isPlaying = true
                playoutStartMs = nowMs
                playoutStartTargetMs = targetDelayMs
                queue.removeAll()
            } else {
                pcm.update(repeating: 0)
                return PlayoutEvent(kind: .comfortNoise, sequenceNumber: nil)
            }
        }
        var productions = 0
        while queue.count < pcm.count {
            produce(nowMs: nowMs, tickSamples: pcm.count, isFirstThisTick: productions == 0)
            productions += 1
        }
        let emission = queue.emit(into: pcm, nowMs: nowMs)
        statistics.jitterBufferDelay += emission.delaySeconds
        statistics.jitterBufferEmittedCount += emission.packetSamples
        statistics.jitterBufferTargetDelay += Double(emission.packetSamples) * targetDelayMs / 1_000
        if let started = emission.started {
            return PlayoutEvent(kind: started.kind, sequenceNumber: emission.firstStartedSequence,
                                lastSequenceNumber: emission.lastStartedSequence)
        }
        return PlayoutEvent(kind: emission.latest?.kind ?? state.lastKind, sequenceNumber: nil)
    }

    /// Appends one production (a frame, a stretched frame, concealment or comfort noise) to the
    /// queue: decides how, then carries it out.
    private func produce(nowMs: Double, tickSamples: Int, isFirstThisTick: Bool) {
        if configuration.latePacketPolicy == .recoverFromFECFirst && !state.isInDTX
            && Double(state.waitedSamples) >= Self.stallSkipMs * samplesPerMs
            && !skipStallBacklog(nowMs: nowMs, tickMs: Double(tickSamples) / samplesPerMs) {
            perform(.expand(.waiting))  // the backlog is still landing
            return
        }
        let input = DecisionLogic.Input(
            state: state, next: store.first(from: state.nextSequence, through: highestSequence), nowMs: nowMs,
            fastestOffsetMs: estimator.minimumOffsetMs, targetDelayMs: targetDelayMs, queuedSamples: queue.count,
            tickSamples: tickSamples, isFirstThisTick: isFirstThisTick,
            lossIsRecent: lastLossMs.map { nowMs - $0 < DecisionLogic.lossMemoryMs } ?? false)
        let decision = decisionLogic.decide(input) { estimator.delayMs(atQuantile: DecisionLogic.holdQuantile) }
        if decision.givesUpAMissingPacket { lastLossMs = nowMs }
        state.apply(decision.realignment)
        switch decision.operation {
        case .accelerate, .preemptiveExpand: break
        default: stretchDeferredMs = 0  // the need to stretch has passed
        }
        perform(decision.operation)
    }

    /// After a stall, drops the stored packets older than the one that plays at the target
    /// delay plus what accelerating takes out unhurried (each counted as discarded), so
    /// playout resumes near the target instead of stretching the whole backlog out over the
    /// next seconds of speech (`stallSkipMs`). False while the backlog is a lone packet that
    /// arrived within the last tick, held beyond what is kept: the rest of a burst released
    /// together may land a moment later, and resuming on its first packet would leave the
    /// others to be accelerated. (After a burst of loss the next packet is on time: it plays.)
    private func skipStallBacklog(nowMs: Double, tickMs: Double) -> Bool {
        // Keep what accelerating takes out without hurrying (`DecisionLogic.urgentAccelerateFrames`).
        let keptMs = Double(DecisionLogic.urgentAccelerateFrames) * decisionLogic.hurryStepMs
        // A backlog is a run of late packets, each successor as late: none is rebuilt from FEC,
        // so it is kept as the target priced for concealment would keep it.
        let backlogTargetMs = max(targetDelayMs, min(estimator.concealedTargetDelayMs, Double(configuration.maximumDelayMs)))
        let lowest = decisionLogic.lowestMarginMs(targetDelayMs: backlogTargetMs) + keptMs
        guard var slot = store.first(from: state.nextSequence, through: highestSequence) else { return true }
        let margin = decisionLogic.marginMs(timestamp: slot.timestamp, nowMs: nowMs, fastestOffsetMs: estimator.minimumOffsetMs)
        if margin >= lowest && slot.arrivalMs > nowMs - tickMs
            && store.first(from: slot.sequence + 1, through: highestSequence) == nil { return false }
        var skipped = false
        while let following = store.first(from: slot.sequence + 1, through: highestSequence),
              decisionLogic.marginMs(timestamp: following.timestamp, nowMs: nowMs, fastestOffsetMs: estimator.minimumOffsetMs) >= lowest {
            store.remove(sequence: slot.sequence)
            statistics.packetsDiscarded += 1
            slot = following
            skipped = true
        }
        if skipped { state.move(toSequence: slot.sequence, timestamp: slot.timestamp) }
        return true
    }

    /// Whether a stretch of `urgency` decided for the frame just decoded happens now: at once
    /// if urgent, in a pause at least `pauseBeforeStretchMs` long so far, or once it has waited
    /// `maximumStretchDeferralMs`; one taking out `onlyStartUpDelay`, only in a pause.
    private func mayStretch(_ urgency: StretchUrgency, onlyStartUpDelay: Bool = false) -> Bool {
        let isInPause = quietFrames.isQuiet && Double(quietRunSamples) >= Double(Self.pauseBeforeStretchMs) * samplesPerMs
        if onlyStartUpDelay && !isInPause { return false }
        if urgency == .now || isInPause || stretchDeferredMs >= Self.maximumStretchDeferralMs {
            stretchDeferredMs = 0
            return true
        }
        stretchDeferredMs += configuration.frameDurationMs
        return false
    }

    /// Whether accelerating at `packet` would take out only delay the buffer chose itself to
    /// start with (`startUpPauseOnlyMs`): within the stream's first seconds of playout, its
    /// margin no more than a frame above the target playout began at. A margin beyond that is a
    /// backlog the network left (a stall, a burst), taken out as at any other time. Not under
    /// the waiting policy, whose waits are paid back at once.
    private func removesOnlyStartUpDelay(at packet: PacketStore.Slot) -> Bool {
        guard configuration.latePacketPolicy == .recoverFromFECFirst,
              lastTickMs - playoutStartMs < Self.startUpPauseOnlyMs else { return false }
        let margin = decisionLogic.marginMs(timestamp: packet.timestamp, nowMs: lastTickMs, fastestOffsetMs: estimator.minimumOffsetMs)
        return margin <= playoutStartTargetMs + decisionLogic.frameMs
    }

    /// The far end is not talking: quiet for `silenceBeforeSilentConcealmentMs` so far.
    private var isSilent: Bool {
        quietFrames.isQuiet && Double(quietRunSamples) >= Double(Self.silenceBeforeSilentConcealmentMs) * samplesPerMs
    }

    private func perform(_ operation: PlayoutOperation) {
        switch operation {
        case .expand(let progress):
            expand.run(progress, inSilence: isSilent, state: &state, statistics: &statistics)
        case .comfortNoise(let sampleCount, let advancing):
            comfortNoise.run(sampleCount: sampleCount, advancing: advancing, state: &state, statistics: &statistics)
        case .fecRecovery(let carrier, let sampleCount):
            // The carrier's decoder rebuilds its predecessor (a switch of codec at a loss).
            if let index = decoders.index(of: carrier.payloadType), decoders.activate(index) { state.followsConcealment = false }
            if !fecRecovery.run(carrier: carrier, payload: store.payload(of: carrier), sampleCount: sampleCount,
                                state: &state, statistics: &statistics) {
                expand.run(.advancing(toward: carrier), inSilence: isSilent, state: &state, statistics: &statistics)
            }
        case .normal(let packet):
            guard let frame = decode(packet) else { return }
            normal.run(UnsafeBufferPointer(frame), packet: packet, state: &state)
        case .merge(let packet):
            guard let frame = decode(packet) else { return }
            normal.run(UnsafeBufferPointer(frame), packet: packet, kind: .merge, state: &state)
        case .accelerate(let packet, let extent, let urgency):
            let onlyStartUpDelay = removesOnlyStartUpDelay(at: packet)
            guard let frame = decode(packet) else { return }
            if !mayStretch(urgency, onlyStartUpDelay: onlyStartUpDelay) || !accelerate.run(frame, extent: extent, packet: packet, state: &state, statistics: &statistics) {
                normal.run(UnsafeBufferPointer(frame), packet: packet, state: &state)
            }
        case .preemptiveExpand(let packet, let urgency):
            guard let frame = decode(packet) else { return }
            if !mayStretch(urgency) || !preemptiveExpand.run(UnsafeBufferPointer(frame), packet: packet, state: &state, statistics: &statistics) {
                normal.run(UnsafeBufferPointer(frame), packet: packet, state: &state)
            }
        case .dtxComfortNoise(let packet):
            guard let frame = decode(packet) else { return }
            comfortNoise.run(dtxFrame: UnsafeBufferPointer(frame), packet: packet, state: &state, statistics: &statistics)
        }
    }

    /// Drops the packet due, counted as discarded, and conceals its span instead: nil.
    private func dropUndecodable(_ packet: PacketStore.Slot) -> UnsafeMutableBufferPointer<Int16>? {
        store.remove(sequence: packet.sequence)
        statistics.packetsDiscarded += 1
        state.move(toSequence: packet.sequence + 1, timestamp: packet.timestamp)
        expand.run(.advancing(toward: nil), inSilence: isSilent, state: &state, statistics: &statistics)
        return nil
    }

    /// Decodes the packet due and takes it out of the store; playout moves past it. A payload
    /// that does not decode is dropped (counted as discarded) and its span concealed instead:
    /// then `nil`.
    private func decode(_ packet: PacketStore.Slot) -> UnsafeMutableBufferPointer<Int16>? {
        // The sender switched codecs: the packet's decoder takes over (there is none after a
        // switch of ours that dropped its payload type: then it cannot be played).
        guard let index = decoders.index(of: packet.payloadType) else { return dropUndecodable(packet) }
        if decoders.activate(index) { state.followsConcealment = false }
        let count: Int
        do {
            count = try decoders.active.decode(store.payload(of: packet), into: decoded)
        } catch {
            return dropUndecodable(packet)
        }
        store.remove(sequence: packet.sequence)
        state.move(toSequence: packet.sequence + 1, timestamp: packet.timestamp + Int64(count))
        state.isInDTX = packet.isComfortNoise
        let frame = UnsafeMutableBufferPointer(rebasing: decoded[0..<count])
        quietFrames.observe(UnsafeBufferPointer(frame))
        quietRunSamples = quietFrames.isQuiet ? quietRunSamples + count : 0
        // Concealment in silence that the next frame goes on with hid no word: W3C's silent concealment.
        if quietFrames.isQuiet { statistics.silentConcealedSamples += state.concealedInSilenceSamples }
        state.concealedInSilenceSamples = 0
        if isSilent { statistics.samplesDecodedInSilence += count }
        return frame
    }
}
