// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import JitterBuffer
import RTP
import SRTP
import Locking
import Synchronization

/// One call's media, free of threads, sockets and devices: the same object runs on a virtual
/// clock as fast as possible, on file or null devices, and on real devices under an engine.
///
/// It has two faces, meant for two threads, with a fixed-slot single-producer/single-consumer
/// queue each way between them:
///
/// - **Network side** — `receiveDatagram(_:arrivalTimeMs:)` takes a datagram from the socket,
///   drops and counts what is too large or fails SRTP, takes RTCP (reports, BYE) itself, and queues
///   the RTP packet; `sendDatagrams(_:)` protects the queued outgoing packets and hands each
///   to the caller to send. SRTP lives here because Debian's libsrtp2 allocates per packet.
/// - **Audio side** — `render(into:nowMs:)` moves queued packets into the adaptive jitter
///   buffer and asks it for the next frame on the playout clock; `send(microphone:…)` takes a
///   processed microphone frame through the mute gate (or the translation engine) into Opus
///   and RTP. Neither allocates, locks or makes a system call.
///
/// Mute: the raw microphone never reaches the encoder; silence frames (DTX when negotiated)
/// keep RTP flowing. Hold: nothing is sent or played; packets are still counted and media time
/// advances. Translating (`translate(with:)`): the microphone goes to the translator and its
/// speech is sent, muted or not.
///
/// Threads: the network side (`receiveDatagram`, `sendDatagrams`, `sendBye`) belongs to one
/// thread and the audio side (`render`, `send`) to one thread — the same one or two
/// different ones, as `VoiceEngine` runs them. Control (`isMuted`, `isHeld`, `playbackGain`,
/// `setExpectedPacketLoss`, `sendDTMF`) and observation (`statistics`, `drainEvents`) are safe
/// from any thread: atomics, queues, and counters each side publishes as a value after its
/// work (`PublishedValue`). Translation switches from any thread while audio runs.
public final class CallMedia: @unchecked Sendable {
    /// The configuration negotiated for this call, as the last codec switch left it
    /// (`switchCodec(to:)`).
    public var configuration: MediaConfiguration { switching.withLock { $0.configuration } }
    /// The configuration the call was made with: what no codec switch changes (rates, frame,
    /// suite, limits) is read from here on every side.
    private let initial: MediaConfiguration
    /// The network side's copy (payload types accounted for, RTP clock, adaptation).
    private var networkConfiguration: MediaConfiguration
    /// The audio side's copy (DTMF, FEC settings).
    private var audioConfiguration: MediaConfiguration
    /// Whether the audio side's codec takes a bit rate (`capabilities` builds its set from an
    /// array literal: not on the audio thread).
    private var audioCodecAdjustsBitrate: Bool
    /// The control side's state of codec switches, and the handoffs to the other two sides.
    private let switching: Locked<CodecSwitchState>
    private let audioSwitch = Handoff<CodecSwitch>()
    private let hasPendingNetworkSwitch = Atomic<Bool>(false)
    /// The synchronisation source this call sends as.
    public var ssrc: UInt32 { uplink.ssrc }
    /// The translator speaking for the uplink now, or nil (`translate(with:)`).
    public var translationEngine: (any TranslationEngine)? { translators.translator }
    private let translators = TranslatorSlots()

    private let srtp: SRTPTransportStage?
    /// The keys in use as the control side knows them (what a rekey is compared with), and a
    /// rekey made there for the network side to take before its next datagram.
    private let rekeying: Locked<RekeyState>
    /// Whether a DTLS handshake keys this call (`MediaProtection.srtpKeyedByHandshake`).
    public let isKeyedByHandshake: Bool
    private let hasPendingRekey = Atomic<Bool>(false)
    private let uplink: UplinkPipeline
    private let inbound: InboundStream
    /// Received RTP, network side → audio side: each slot's tag is the packet's layout.
    private let received: DatagramQueue
    /// Where `receiveDatagram(reading:)` reads while the queue is full.
    private let receiveOverflow: UnsafeMutableRawBufferPointer
    /// RTP to protect and send, audio side → network side.
    private let outgoing: DatagramQueue
    private let networkEvents: SPSCProducer<CallMediaEventRecord>
    /// The consumers of both event queues, for whichever thread drains them.
    private let eventConsumers: Locked<EventConsumers>
    private let sendFrame: UnsafeMutableBufferPointer<Int16>
    private let muted = Atomic<Bool>(false)
    /// The loss the encoder should plan FEC for: set by the network side (RTCP) or the app,
    /// applied by the audio side before its next frame.
    private let plannedLoss: Atomic<Int>
    private var appliedLoss: Int
    private var lossAdaptation: LossAdaptation
    /// Whether the far end's stream loses packets on the way here (network side), for the FEC
    /// plan before its first report.
    private var inboundLoss = InboundLossEvidence()
    /// The bitrate the encoder should target: set by the network side (RTCP), applied by the
    /// audio side before its next frame, as `plannedLoss` is.
    private let targetBitrate: Atomic<Int>
    private var appliedBitrate: Int
    private var bitrateAdaptation: BitrateAdaptation
    private let held = Atomic<Bool>(false)
    /// What `direction` withholds: bit 0 sending, bit 1 receiving (0: both ways).
    private let flow = Atomic<UInt8>(0)
    private let deviceDelay = Atomic<Int>(0)
    private let gainBits = Atomic<UInt32>(Float(1).bitPattern)
    /// Key presses queued by the control side (any thread, one at a time).
    private let keyPressRequests: Locked<SPSCProducer<KeyPressRequest>>
    private let keyPressQueue: SPSCConsumer<KeyPressRequest>
    /// The key press being sent (audio side), and the index of its next packet.
    private var keyPress: TelephoneEventKeyPress? {
        didSet { keyPressUnderWay.store(keyPress != nil, ordering: .relaxed) }
    }
    private let keyPressUnderWay = Atomic<Bool>(false)
    private var keyPressPacket = 0
    private var keyPressTone: DTMFTone
    private var transport = CallTransportStatistics()
    private var reception: ReceptionAccounting
    private let rtcp: RTCPSession
    private let controlBuffer: UnsafeMutableRawBufferPointer
    private var lastRenderMs = 0.0
    private var outboundCounters = OutboundRTPStatistics()
    private var receiveQueueDrops = 0
    private var consecutiveAuthenticationFailures = 0
    private var receivingKeyExpiryPosted = false
    private var networkEventsDropped = 0
    /// What each side publishes after its work, for `statistics` and the other side.
    private let playoutCounters = PublishedValue(InboundPlayout())
    private let uplinkCounters = PublishedValue(UplinkCounters())
    private let networkCounters = PublishedValue(NetworkCounters())
    /// What the jitter buffer has learnt of the path, as the audio side last copied it.
    private let learntDelaysPublication: LearntDelaysPublication

    /// A call sending with `sendingKey` and receiving with the peer's `receivingKey` (SRTP,
    /// SDES-negotiated), or plain RTP when both are nil.
    /// - Parameters:
    ///   - configuration: the codec, payload types, SRTP suite and jitter buffer of the call.
    ///   - sendingKey: our SRTP key (nil with `receivingKey` nil: plain RTP).
    ///   - receivingKey: the peer's SRTP key.
    ///   - ssrc: the source to send as (random by default, RFC 3550 §8).
    ///   - rtcpSeed: seeds the RTCP report timer's randomisation (random by default; fixed
    ///     in tests so a run repeats).
    /// - Throws: `CallMediaError` naming what was refused.
    public convenience init(configuration: MediaConfiguration, sendingKey: SRTPKeyingMaterial?, receivingKey: SRTPKeyingMaterial?,
                            ssrc: UInt32 = .random(in: .min ... .max), rtcpSeed: UInt64 = .random(in: .min ... .max)) throws(CallMediaError) {
        let protection: MediaProtection
        switch (sendingKey, receivingKey) {
        case let (sending?, receiving?): protection = .srtp(sending: sending, receiving: receiving)
        case (nil, nil): protection = .plainRTP
        default:
            throw .configuration(.invalid(field: "keys", reason: "SRTP needs both a sending and a receiving key (or neither for plain RTP)"))
        }
        try self.init(configuration: configuration, protection: protection, ssrc: ssrc, rtcpSeed: rtcpSeed)
    }

    /// A call protected as `protection` says: plain RTP, SRTP with keys known now (SDES), or
    /// SRTP keyed later by a DTLS handshake (`updateKeys` then installs its keys).
    /// - Parameters:
    ///   - configuration: the codec, payload types, SRTP suite and jitter buffer of the call.
    ///   - protection: how the media is protected on the wire.
    ///   - ssrc: the source to send as (random by default, RFC 3550 §8).
    ///   - rtcpSeed: seeds the RTCP report timer's randomisation (random by default).
    /// - Throws: `CallMediaError` naming what was refused.
    public init(configuration: MediaConfiguration, protection: MediaProtection,
                ssrc: UInt32 = .random(in: .min ... .max), rtcpSeed: UInt64 = .random(in: .min ... .max)) throws(CallMediaError) {
        do {
            try configuration.validate()
        } catch {
            throw .configuration(error)
        }
        initial = configuration
        networkConfiguration = configuration
        audioConfiguration = configuration
        audioCodecAdjustsBitrate = configuration.codec.capabilities.contains(.adjustableBitrate)
        switch protection {
        case let .srtp(sending, receiving):
            do {
                srtp = try SRTPTransportStage(sendingKey: sending, receivingKey: receiving,
                                              maximumDatagramBytes: configuration.maximumDatagramBytes)
            } catch {
                throw .srtp(error)
            }
            rekeying = Locked(RekeyState(sending: sending, receiving: receiving, keyedByHandshake: false))
            isKeyedByHandshake = false
        case .srtpKeyedByHandshake:
            isKeyedByHandshake = true
            srtp = SRTPTransportStage(awaitingKeysWithMaximumDatagramBytes: configuration.maximumDatagramBytes)
            rekeying = Locked(RekeyState(sending: nil, receiving: nil, keyedByHandshake: true))
        case .plainRTP:
            isKeyedByHandshake = false
            srtp = nil
            rekeying = Locked(RekeyState(sending: nil, receiving: nil, keyedByHandshake: false))
        }
        plannedLoss = Atomic(configuration.expectedPacketLossPercent)
        appliedLoss = configuration.expectedPacketLossPercent
        lossAdaptation = LossAdaptation(initialPercent: configuration.expectedPacketLossPercent, frameDurationMs: configuration.frameDurationMs)
        targetBitrate = Atomic(configuration.bitrate)
        appliedBitrate = configuration.bitrate
        bitrateAdaptation = BitrateAdaptation(maximumBitrate: configuration.bitrate, minimumBitrate: configuration.minimumBitrate)
        do {
            uplink = try UplinkPipeline(configuration: configuration, ssrc: ssrc)
        } catch {
            throw .pipeline(error)
        }
        let audioEvents = SPSCQueue<CallMediaEventRecord>(minimumCapacity: 64, filler: .remoteMediaResumed)
        let networkEvents = SPSCQueue<CallMediaEventRecord>(minimumCapacity: 16, filler: .remoteMediaResumed)
        inbound = try InboundStream(configuration: configuration, events: audioEvents.producer)
        learntDelaysPublication = inbound.learntDelays
        switching = Locked(CodecSwitchState(configuration: configuration, encoder: uplink.currentEncoder, decoders: inbound.currentDecoders))
        self.networkEvents = networkEvents.producer
        eventConsumers = Locked(EventConsumers(network: networkEvents.consumer, audio: audioEvents.consumer))
        reception = ReceptionAccounting(configuration: configuration)
        rtcp = RTCPSession(ssrc: ssrc, configuration: configuration, seed: rtcpSeed)
        received = DatagramQueue(minimumSlots: configuration.receiveQueuePackets, slotBytes: configuration.maximumDatagramBytes)
        outgoing = DatagramQueue(minimumSlots: 16, slotBytes: UplinkPipeline.packetCapacity)
        // Raw buffers last, after everything that can throw: a throwing init runs no deinit.
        sendFrame = .allocate(capacity: configuration.samplesPerFrame)
        sendFrame.initialize(repeating: 0)
        controlBuffer = .allocate(byteCount: 1_500, alignment: 16)
        receiveOverflow = .allocate(byteCount: configuration.maximumDatagramBytes, alignment: 16)
        let keyPresses = SPSCQueue(minimumCapacity: 16, filler: KeyPressRequest(eventCode: 0, durationMs: 0, volume: 0))
        keyPressRequests = Locked(keyPresses.producer)
        keyPressQueue = keyPresses.consumer
        keyPressTone = DTMFTone(sampleRate: configuration.sampleRate)
    }

    deinit {
        sendFrame.deallocate()
        controlBuffer.deallocate()
        receiveOverflow.deallocate()
    }

    /// Samples per frame at the call's rate (`render` and `send` take exactly this many).
    public var samplesPerFrame: Int { initial.samplesPerFrame }

    /// The duration of one frame, in ms (a running call keeps it).
    public var frameDurationMs: Int { initial.frameDurationMs }

    // MARK: Codec switch

    /// Switches a running call to `configuration`'s codec — a re-offer that settled another
    /// codec, payload type, telephone-event or Opus parameters (`NegotiatedAudio.apply(to:replacing:)`).
    /// The encoder and decoders are made here; the audio side takes them before its next
    /// frame, the network side before its next datagram. The stream goes on: the same SSRC,
    /// sequence numbers without a gap, timestamps on the new codec's clock, the first packet
    /// marked. The peer's packets of the codec it replaces still play (they may be in flight,
    /// or the peer may switch later): its payload type stays in `alternativeReceiveCodecs`
    /// unless the new configuration reuses it. A configuration that changes nothing does
    /// nothing. Any thread but the audio and network sides; what the previous switch replaced
    /// is freed here.
    /// - Throws: `CallMediaError.configuration` for an invalid configuration or one that
    ///   changes what a running call keeps (rate, frame duration, suite, jitter buffer, limits);
    ///   `.pipeline` or `.jitterBuffer` when a coder cannot be made.
    public func switchCodec(to configuration: MediaConfiguration) throws(CallMediaError) {
        try switching.withLock { (state) throws(CallMediaError) in
            _ = audioSwitch.reclaim()  // the encoder and decoders the last switch replaced, freed here
            let change = try CodecSwitch(from: state.configuration, to: configuration, reusing: state.encoder, state.decoders)
            guard change.configuration != state.configuration else { return }  // nothing to switch
            state.configuration = change.configuration
            state.encoder = change.encoder
            state.decoders = change.decoders
            state.pendingNetwork = change.configuration
            hasPendingNetworkSwitch.store(true, ordering: .releasing)
            audioSwitch.offer(change)
        }
    }

    /// Audio side: takes a codec switch the control side made, swapping each part for the one
    /// it replaces (freed later by the control side).
    private func applyPendingCodecSwitch() {
        _ = audioSwitch.take { change in
            swap(&audioConfiguration, &change.configuration)
            uplink.switchEncoder(exchanging: &change.encoder)
            inbound.switchCodec(exchanging: &change.inboundConfiguration, decoders: &change.decoders)
            appliedLoss = -1  // the planned loss goes to the new encoder with the next frame
            appliedBitrate = audioConfiguration.bitrate
            audioCodecAdjustsBitrate = change.adjustsBitrate
        }
    }

    /// Network side: takes a codec switch's configuration before its next datagram (the
    /// payload types it accounts for, the RTP clock, Opus's adaptation).
    private func applyPendingNetworkSwitch() {
        guard hasPendingNetworkSwitch.load(ordering: .acquiring) else { return }
        hasPendingNetworkSwitch.store(false, ordering: .relaxed)
        guard let next = switching.withLock({ state -> MediaConfiguration? in
            defer { state.pendingNetwork = nil }
            return state.pendingNetwork
        }) else { return }
        if next.bitrate != networkConfiguration.bitrate || next.minimumBitrate != networkConfiguration.minimumBitrate {
            bitrateAdaptation = BitrateAdaptation(maximumBitrate: next.bitrate, minimumBitrate: next.minimumBitrate)
            targetBitrate.store(next.bitrate, ordering: .relaxed)
        }
        networkConfiguration = next
        reception.switchCodec(to: next)
        rtcp.switchCodec(to: next)
    }

    // MARK: Control

    /// Whether the raw microphone is held back from the far end.
    public var isMuted: Bool {
        get { muted.load(ordering: .relaxed) }
        set { muted.store(newValue, ordering: .relaxed) }
    }

    /// Whether the call is on hold: nothing is sent or played; counters keep running.
    public var isHeld: Bool {
        get { held.load(ordering: .relaxed) }
        set { held.store(newValue, ordering: .relaxed) }
    }

    /// Which way media flows (what offer/answer settled: `NegotiatedAudio.direction`). Not
    /// sending, the call encodes nothing and sends no RTP (RTCP goes on); not receiving, it
    /// plays silence while its counters keep running, as on hold. Any thread; the audio side
    /// reads it each frame.
    public var direction: MediaDirection {
        // Two bits, sends and receives: no array on the audio side (`allCases` allocates).
        get {
            let bits = flow.load(ordering: .relaxed)
            return MediaDirection(sends: bits & 1 == 0, receives: bits & 2 == 0)
        }
        set { flow.store((newValue.sends ? 0 : 1) | (newValue.receives ? 0 : 2), ordering: .relaxed) }
    }

    /// Linear gain this call's audio is mixed at (1 = as received), 0…8.
    public var playbackGain: Float {
        get { Float(bitPattern: gainBits.load(ordering: .relaxed)) }
        set { gainBits.store(Float(min(max(newValue.isNaN ? 0 : newValue, 0), 8)).bitPattern, ordering: .relaxed) }
    }

    /// The audio device's delay from playback to capture, in ms (0–2000; what the mixer's
    /// `setDeviceDelay` is told): part of this end's delay in RTCP XR and the quality estimate.
    public var deviceDelayMs: Int {
        get { deviceDelay.load(ordering: .relaxed) }
        set { deviceDelay.store(min(max(newValue, 0), 2_000), ordering: .relaxed) }
    }

    /// New SRTP keys from a re-offer (RFC 4568: SDES keys change by offer/answer), on a running
    /// call: what is sent from the network side's next datagram on is protected with `sending`;
    /// what arrives is unprotected with `receiving`, or with the key it replaced while the peer's
    /// packets sent before it switched are in flight. A key that did not change keeps its
    /// session — its rollover counter and replay window go on. Call from the control side: the
    /// sessions are made here (libsrtp allocates), the network side only swaps them in.
    /// - Throws: `CallMediaError.configuration` on a plain-RTP call or keys of another suite
    ///   than the call's; `.srtp` when libsrtp refuses a key.
    public func updateKeys(sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial) throws(CallMediaError) {
        try rekeying.withLock { (state) throws(CallMediaError) in
            // SDES keys keep the negotiated suite; a handshake's keys keep the suite its first
            // handshake chose (any with a DTLS-SRTP profile, the first time).
            let suite = state.keyedByHandshake ? state.sending?.profile : initial.srtpProfile
            if let suite {
                guard sending.profile == suite, receiving.profile == suite else {
                    throw .configuration(.invalid(field: "keys", reason: "new keys must keep the call's suite \(suite.sdesName)"))
                }
            } else {
                guard sending.profile == receiving.profile, sending.profile.dtlsProfileIdentifier != nil else {
                    throw .configuration(.invalid(field: "keys", reason: "a handshake's keys must both be of one suite with a DTLS-SRTP profile"))
                }
            }
            guard state.keyedByHandshake || state.sending != nil else {
                throw .configuration(.invalid(field: "keys", reason: "a plain RTP call has no keys to change"))
            }
            let rekey: SRTPTransportStage.Rekey
            do throws(SRTPError) {
                rekey = try SRTPTransportStage.Rekey(from: (state.sending, state.receiving), to: sending, receiving)
            } catch {
                throw .srtp(error)
            }
            guard !rekey.isEmpty else { return }
            state.pending = rekey
            state.sending = sending
            state.receiving = receiving
            hasPendingRekey.store(true, ordering: .releasing)
        }
    }

    /// Swaps in a rekey the control side made, before the network side's next datagram.
    private func applyPendingRekey() {
        guard hasPendingRekey.load(ordering: .acquiring), let srtp else { return }
        hasPendingRekey.store(false, ordering: .relaxed)
        if let rekey = rekeying.withLock({ (state) -> SRTPTransportStage.Rekey? in
            defer { state.pending = nil }
            return state.pending
        }) {
            srtp.apply(rekey)
        }
    }

    // MARK: Network side

    /// Takes one datagram received from the peer at `arrivalTimeMs` (the playout clock):
    /// unprotects it in place and queues the RTP packet for the audio side (a copy into the
    /// queue; `receiveDatagram(reading:)` reads into the queue instead). Failures are counted
    /// in `statistics.transport` and dropped; nothing here throws or traps.
    ///
    /// Returns what became of it: an engine latches the peer's address (symmetric RTP) only
    /// on datagrams that passed SRTP or SRTCP authentication.
    @discardableResult
    public func receiveDatagram(_ datagram: UnsafeMutableRawBufferPointer, arrivalTimeMs: Double) -> ReceivedDatagramDisposition {
        receive(datagram, wireLength: datagram.count, arrivalTimeMs: arrivalTimeMs, inQueueSlot: false)
    }

    /// Receives one datagram straight into the queue to the audio side, so that an RTP packet
    /// is never copied on its way in: `read` fills the buffer it is given (the queue's next
    /// free slot, room for `maximumDatagramBytes`) and returns the datagram's full length on
    /// the wire (greater than the buffer when it was cut short) and its arrival time on the
    /// playout clock, or nil when nothing was waiting. The datagram is then taken as by
    /// `receiveDatagram(_:arrivalTimeMs:)`: unprotected, parsed and accounted where it lies,
    /// and an accepted RTP packet is published in its slot. With the queue full, `read` is
    /// given a buffer of the call's own and an RTP packet is dropped and counted
    /// (`receiveQueueDrops`); RTCP is taken either way.
    ///
    /// Returns nil when `read` did; rethrows what `read` throws (nothing was received).
    public func receiveDatagram<Failure: Error>(
        reading read: (UnsafeMutableRawBufferPointer) throws(Failure) -> (length: Int, arrivalTimeMs: Double)?
    ) throws(Failure) -> ReceivedDatagramDisposition? {
        let slot = received.producer.slotForWriting()
        let buffer = slot ?? receiveOverflow
        guard let (length, arrivalTimeMs) = try read(buffer) else { return nil }
        let stored = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(max(length, 0), buffer.count)])
        return receive(stored, wireLength: max(length, 0), arrivalTimeMs: arrivalTimeMs, inQueueSlot: slot != nil)
    }

    /// One received datagram: `datagram` holds its first bytes (all of them unless
    /// `wireLength` is greater); `inQueueSlot` when it lies in the receive queue's next slot.
    private func receive(_ datagram: UnsafeMutableRawBufferPointer, wireLength: Int, arrivalTimeMs: Double, inQueueSlot: Bool) -> ReceivedDatagramDisposition {
        defer { publishNetworkCounters() }
        applyPendingRekey()
        applyPendingNetworkSwitch()
        transport.datagramsReceived += 1
        transport.bytesReceived += wireLength
        guard wireLength <= initial.maximumDatagramBytes else {
            transport.datagramsTooLarge += 1
            return .dropped
        }
        // The arrival time comes from the caller's clock: one that is not finite or is beyond
        // ±10^12 ms would poison every delay and jitter figure downstream.
        guard arrivalTimeMs.isFinite, abs(arrivalTimeMs) < 1e12 else {
            transport.invalidArrivalTimes += 1
            return .dropped
        }
        // RFC 7983: what shares the port goes back to the caller, unread; only RTP and RTCP
        // are ours.
        switch datagram.first.map(MultiplexedProtocol.init(firstByte:)) ?? .unknown {
        case .rtp:
            break
        case .unknown:
            transport.unknownProtocolDatagrams += 1
            return .dropped
        case let other:
            transport.multiplexedDatagrams += 1
            return .multiplexed(other)
        }
        if Self.isRTCP(UnsafeRawBufferPointer(datagram)) {
            return receiveControlDatagram(datagram, arrivalTimeMs: arrivalTimeMs)
        }
        var bytes = UnsafeRawBufferPointer(datagram)
        if let srtp {
            let failuresBefore = srtp.statistics.authFailures
            guard let unprotected = srtp.unprotect(datagram) else {
                transport.srtp = srtp.statistics
                if srtp.statistics.authFailures > failuresBefore { noteAuthenticationFailure() }
                noteReceivingKeyExpiry()
                return .dropped
            }
            consecutiveAuthenticationFailures = 0
            transport.srtp = srtp.statistics
            bytes = unprotected
        }
        guard let packet = reception.parse(bytes) else { return .dropped }
        switch reception.account(packet, arrivalTimeMs: arrivalTimeMs) {
        case .dropped:
            return .dropped
        case let .droppedFromCompetingSource(ssrc):
            postNetworkEvent(.competingSourceRefused(ssrc: ssrc))
            return .dropped
        case let .acceptedFromNewSource(previous?):
            postNetworkEvent(.ssrcChanged(from: previous, to: reception.counters.ssrc ?? 0))
        case .accepted, .acceptedFromNewSource:
            break
        }
        // Until the far end's reports rule, its stream's loss or lateness on the way here stands in
        // for ours there. (Not over a plan the app set: `setExpectedPacketLoss`.)
        if !lossAdaptation.reportsRule, networkConfiguration.adaptsToLoss, networkConfiguration.codec.capabilities.contains(.inbandFEC) {
            let lost = max(reception.packetsLost, 0)
            let lossStands = inboundLoss.observe(cumulativeLost: lost)
            let isLate = InboundJitterEvidence.showsLatePath(jitterMs: reception.jitterSeconds * 1_000,
                                                             packetsReceived: reception.counters.packetsReceived)
            if lossStands || isLate, plannedLoss.load(ordering: .relaxed) == 0,
               lossAdaptation.planForInboundEvidence(lossStands: lossStands, lost: lost, expected: reception.counters.packetsReceived + lost,
                                                     showsLatePath: isLate, bitsPerSecond: targetBitrate.load(ordering: .relaxed)) {
                plannedLoss.store(lossAdaptation.plannedLossPercent, ordering: .relaxed)
            }
        }
        // The layout travels with the bytes: the audio side rebuilds the view without a parse.
        let layout = packet.layout.bitPattern
        if inQueueSlot {
            // Unprotected in place: the packet starts where the slot does.
            precondition(bytes.baseAddress == UnsafeRawPointer(datagram.baseAddress), "CallMedia: the packet moved out of its slot")
            received.producer.publish(length: bytes.count, timeMs: arrivalTimeMs, tag: layout)
        } else if !received.producer.push(bytes, timeMs: arrivalTimeMs, tag: layout) {
            receiveQueueDrops += 1
        }
        return .media(authenticated: srtp != nil)
    }

    /// Protects every packet the audio side has queued, then the RTCP report when one is due
    /// at `nowMs` (RFC 3550 timing), and hands each datagram to `send` (valid only during the
    /// call). RTCP goes to the same place (RFC 5761 multiplexing); a caller with a separate
    /// RTCP port tells the two apart by `isRTCP(_:)`.
    public func sendDatagrams(nowMs: Double, _ send: (UnsafeRawBufferPointer) -> Void) {
        defer { publishNetworkCounters() }
        applyPendingRekey()
        applyPendingNetworkSwitch()
        // Before a handshake keys the call nothing goes out, not even in clear (RFC 5763 §5).
        if let srtp, !srtp.isKeyed {
            discardMediaDatagrams(srtp)
            return
        }
        sendMediaDatagrams(send)
        let uplinkNow = uplinkCounters.read()
        let sender = uplinkNow.packetsSent > 0
            ? (packets: uplinkNow.packetsSent, payloadBytes: uplinkNow.payloadBytesSent, rtpTimestamp: uplinkNow.rtpTimestamp(atMs: nowMs, clockRate: networkConfiguration.codec.rtpClockRate)) : nil
        // Written straight into the control buffer, with room left for SRTCP's trailer.
        let reportSpace = UnsafeMutableRawBufferPointer(rebasing: controlBuffer[0..<(controlBuffer.count - SRTPSession.maximumTrailerLength)])
        let report = rtcp.report(nowMs: nowMs, sender: sender, reception: &reception, voipMetrics: { reception in
            // The audio side's playout counters as it last published them.
            let playout = self.playoutCounters.read()
            return self.voipMetricsInputs(playout.merged(into: reception.statistics), burstGap: playout.burstGap,
                                          configuration: self.networkConfiguration)
        }, into: reportSpace)
        if let report {
            sendControl(length: report, send)
        }
    }

    /// Says goodbye (an RTCP BYE, RFC 3550 §6.6) on hang-up; `reason` is for people.
    public func sendBye(reason: String? = nil, _ send: (UnsafeRawBufferPointer) -> Void) {
        defer { publishNetworkCounters() }
        if let srtp, !srtp.isKeyed { return }
        let space = UnsafeMutableRawBufferPointer(rebasing: controlBuffer[0..<(controlBuffer.count - SRTPSession.maximumTrailerLength)])
        guard let bye = rtcp.bye(reason: reason, into: space) else { return }
        sendControl(length: bye, send)
    }

    /// Sends `translator`'s speech instead of the microphone from the next frame on, muted or
    /// not (`SetTranslatingCallAction`); the translator hears the processed microphone. Any
    /// thread, while audio runs; a call may install `maximumTranslators` over its life.
    /// - Throws: `tooManyTranslators`.
    public func translate(with translator: any TranslationEngine) throws(CallMediaError) {
        try translators.install(translator)
    }

    /// Sends the microphone again (or silence while muted) from the next frame on.
    public func stopTranslating() { translators.stop() }

    /// Translators one call may install over its life.
    public static let maximumTranslators = TranslatorSlots.capacity

    /// Whether `datagram` is RTCP rather than RTP (RFC 5761 §4: the second byte holds an RTCP
    /// packet type, 192–223).
    public static func isRTCP(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 2 && (192...223).contains(datagram[1])
    }

    /// Sends the compound packet written at the start of the control buffer.
    private func sendControl(length: Int, _ send: (UnsafeRawBufferPointer) -> Void) {
        guard let datagram = protectForSending(controlBuffer, length: length, isRTCP: true) else { return }
        transport.rtcpPacketsSent += 1
        transport.rtcpBytesSent += datagram.count
        send(datagram)
    }

    private func receiveControlDatagram(_ datagram: UnsafeMutableRawBufferPointer, arrivalTimeMs: Double) -> ReceivedDatagramDisposition {
        transport.rtcpDatagramsReceived += 1
        var compound = UnsafeRawBufferPointer(datagram)
        if let srtp {
            guard let unprotected = srtp.unprotectRTCP(datagram) else {
                transport.srtp = srtp.statistics
                noteReceivingKeyExpiry()
                return .dropped
            }
            transport.srtp = srtp.statistics
            compound = unprotected
        }
        // A parallel stream's reports (RFC 3550: the first packet is an SR or RR, its sender's
        // SSRC at bytes 4–7) neither feed ours nor count as the peer's for latching.
        if compound.count >= 8, compound[1] == 200 || compound[1] == 201,
           !reception.isCurrentOrOpen(compound[4..<8].reduce(0) { $0 << 8 | UInt32($1) }, atMs: arrivalTimeMs) {
            transport.rtcpFromCompetingSource += 1
            return .dropped
        }
        do {
            let reportsBefore = rtcp.remoteInbound.reportsReceived
            let received = try rtcp.receive(compound, arrivalMs: arrivalTimeMs, reception: &reception)
            if received.bye { postNetworkEvent(.remoteBye) }
            // Loss and congestion are answered with Opus's FEC and bit rate: a fixed-rate codec
            // (G.711, G.722) has neither to adapt.
            if networkConfiguration.adaptsToLoss, networkConfiguration.codec.capabilities.contains(.inbandFEC),
               rtcp.remoteInbound.reportsReceived > reportsBefore,
               lossAdaptation.report(fractionLost: rtcp.remoteInbound.fractionLost, bitsPerSecond: targetBitrate.load(ordering: .relaxed),
                                     packetsSent: uplinkCounters.read().packetsSent) {
                plannedLoss.store(lossAdaptation.plannedLossPercent, ordering: .relaxed)
            }
            if networkConfiguration.adaptsBitrate, networkConfiguration.codec.capabilities.contains(.adjustableBitrate),
               rtcp.remoteInbound.reportsReceived > reportsBefore,
               bitrateAdaptation.report(fractionLost: rtcp.remoteInbound.fractionLost, jitterMs: rtcp.remoteInbound.jitter * 1_000,
                                        roundTripTimeMs: rtcp.remoteInbound.roundTripTime.map { $0 * 1_000 }) {
                targetBitrate.store(bitrateAdaptation.targetBitrate, ordering: .relaxed)
            }
        } catch {
            transport.rtcpMalformed += 1
            return .dropped
        }
        return .control(authenticated: srtp != nil)
    }

    /// `buffer[0..<length]` as it goes on the wire: protected in place (SRTP or SRTCP) when
    /// keyed; nil, counted, when it could not be protected.
    private func protectForSending(_ buffer: UnsafeMutableRawBufferPointer, length: Int, isRTCP: Bool) -> UnsafeRawBufferPointer? {
        guard let srtp else { return UnsafeRawBufferPointer(rebasing: buffer[0..<length]) }
        defer { transport.srtp = srtp.statistics }
        do {
            return isRTCP ? try srtp.protectRTCP(buffer, length: length) : try srtp.protect(buffer, length: length)
        } catch {
            transport.sendFailures += 1
            // Once: every later packet fails the same way until new keys come.
            if error == .keyLifetimeExpired, srtp.statistics.sendingKeyLifetimeExpired == 1 { postNetworkEvent(.sendingKeyExpired) }
            return nil
        }
    }

    /// Drops what the audio side queued while the call has no keys (counted in
    /// `SRTPTransportStatistics.discardedBeforeKeys`).
    private func discardMediaDatagrams(_ srtp: SRTPTransportStage) {
        while outgoing.consumer.oldest() != nil {
            outgoing.consumer.release()
            srtp.discardBeforeKeys()
        }
        transport.srtp = srtp.statistics
    }

    private func sendMediaDatagrams(_ send: (UnsafeRawBufferPointer) -> Void) {
        while let (slot, length, _, _) = outgoing.consumer.oldest() {
            defer { outgoing.consumer.release() }
            guard let datagram = protectForSending(slot, length: length, isRTCP: false) else { continue }
            transport.datagramsSent += 1
            transport.bytesSent += datagram.count
            send(datagram)
        }
    }

    // MARK: Audio side

    /// Plays the next frame: queued packets enter the jitter buffer (with their arrival
    /// times), which writes `frame.count` samples into `frame` — `samplesPerFrame`, or fewer
    /// for a player that renders a device period at a time (the jitter buffer then decodes on
    /// the period's lattice, which shortens its wait: `AdaptiveJitterBuffer.nextSamples`).
    /// Rendered a frame at a time, a packet counts as arriving at the render that takes it in
    /// (`nowMs`); a period at a time, at its arrival from the network: see
    /// `InboundStream.receive(_:arrivalTimeMs:availableAtMs:isHeld:)`.
    /// Returns false, with silence written, while the call is held or its `direction` does
    /// not receive.
    @discardableResult
    public func render(into frame: UnsafeMutableBufferPointer<Int16>, nowMs: Double) -> Bool {
        precondition((1...samplesPerFrame).contains(frame.count), "CallMedia.render: the frame must hold 1 to \(samplesPerFrame) samples")
        lastRenderMs = nowMs
        applyPendingCodecSwitch()
        let isHeld = self.isHeld || !direction.receives
        let availableAtMs = frame.count < samplesPerFrame ? nil : nowMs
        while let (slot, length, arrival, layout) = received.consumer.oldest() {
            let packet = RTPPacketView(validatedBytes: UnsafeRawBufferPointer(rebasing: slot[0..<length]), layout: RTPPacketLayout(bitPattern: layout))
            inbound.receive(packet, arrivalTimeMs: arrival, availableAtMs: availableAtMs, isHeld: isHeld)
            received.consumer.release()
        }
        defer { playoutCounters.publishIfAvailable(inbound.playout) }
        guard !isHeld else {
            frame.update(repeating: 0)
            inbound.skipFrame(nowMs: nowMs)
            return false
        }
        inbound.render(into: frame, nowMs: nowMs)
        if keyPress != nil { keyPressTone.add(into: frame) }
        return true
    }

    /// Sends one processed microphone frame (`samplesPerFrame` samples): through the mute gate
    /// or the translation engine, plus `bridged` audio of other calls in a local conference
    /// (already gained), into Opus and RTP, queued for `sendDatagrams`. Nothing is sent while
    /// held or while the `direction` does not send.
    public func send(microphone: UnsafeBufferPointer<Int16>, bridged: UnsafeBufferPointer<Int16>? = nil) {
        precondition(microphone.count == samplesPerFrame, "CallMedia.send: the frame must hold \(samplesPerFrame) samples")
        applyPendingCodecSwitch()
        let frameTimestamp = uplink.nextTimestamp
        defer { publishUplinkCounters(frameTimestamp: frameTimestamp) }
        let planned = plannedLoss.load(ordering: .relaxed)
        if planned != appliedLoss {
            // Opus ctls: no allocation, no system call. In-band FEC only while loss is planned.
            if (try? uplink.setExpectedPacketLoss(percent: planned)) != nil,
               (try? uplink.setInbandFEC(audioConfiguration.inbandFEC && planned > 0)) != nil {
                appliedLoss = planned
            }
        }
        let bitrate = targetBitrate.load(ordering: .relaxed)
        // A fixed-rate codec has no bit rate to set (and its refusal would build an error here).
        if bitrate != appliedBitrate, audioCodecAdjustsBitrate,
           (try? uplink.setBitrate(bitrate)) != nil {
            appliedBitrate = bitrate
        }
        guard !isHeld, direction.sends else {
            uplink.skipFrame()
            return
        }
        if sendKeyPressFrame() { return }
        if let translationEngine = translators.translator {
            translationEngine.consume(microphone: microphone)
            if !translationEngine.produce(into: sendFrame) { sendFrame.update(repeating: 0) }
        } else if isMuted {
            sendFrame.update(repeating: 0)
        } else {
            _ = sendFrame.update(fromContentsOf: microphone)
        }
        if let bridged { SampleMath.add(bridged, into: sendFrame) }
        let packet: (buffer: UnsafeMutableRawBufferPointer, length: Int)?
        do {
            packet = try uplink.process(UnsafeBufferPointer(sendFrame))
        } catch {
            outboundCounters.encodeFailures += 1
            return
        }
        guard let packet else { return }
        if !outgoing.producer.push(UnsafeRawBufferPointer(rebasing: packet.buffer[0..<packet.length]), timeMs: 0) {
            outboundCounters.packetsDroppedQueueFull += 1
        }
    }

    /// Queues an RFC 4733 key press: from the next frame on, `key` is sent as telephone-event
    /// packets for `durationMs` (the first with the marker, duration updates every frame, the
    /// end packet three times) instead of the voice, which resumes exactly where the event
    /// ends in media time; the key's tone plays in this call's own playback meanwhile.
    /// Presses queue one after the other.
    /// - Throws: `telephoneEventsNotNegotiated`; `invalidKeyPress` for a duration outside
    ///   40 ms–5 s, a volume outside 0–63 (−dBm0) or a negotiated clock other than the
    ///   voice's RTP clock (48 kHz for Opus, 8 kHz for G.711 and G.722), which the events
    ///   share; `keyPressQueueFull`.
    public func sendDTMF(_ key: DTMFEvent, durationMs: Int = 100, volume: Int = 10) throws(CallMediaError) {
        let configuration = self.configuration
        guard configuration.telephoneEventPayloadType != nil else { throw .telephoneEventsNotNegotiated }
        guard (40...5_000).contains(durationMs) else { throw .invalidKeyPress("a duration of \(durationMs) ms is outside 40 ms – 5 s") }
        guard (0...63).contains(volume) else { throw .invalidKeyPress("a volume of \(volume) is outside 0–63 (−dBm0)") }
        guard configuration.telephoneEventClockRate == configuration.codec.rtpClockRate else {
            throw .invalidKeyPress("telephone-event/\(configuration.telephoneEventClockRate) does not share the voice's \(configuration.codec.rtpClockRate) Hz RTP clock")
        }
        let request = KeyPressRequest(eventCode: key.rawValue, durationMs: durationMs, volume: volume)
        guard keyPressRequests.withLock({ $0.push(request) }) else { throw .keyPressQueueFull }
    }

    /// Whether a key press is being sent.
    public var isSendingDTMF: Bool { keyPressUnderWay.load(ordering: .relaxed) }

    /// Sends this frame's telephone-event packets instead of the voice when a key press is
    /// under way or waiting; returns whether it did.
    private func sendKeyPressFrame() -> Bool {
        if keyPress == nil, let request = keyPressQueue.pop() {
            startKeyPress(request)
        }
        guard let press = keyPress, let payloadType = audioConfiguration.telephoneEventPayloadType else { return false }
        // One update per frame; the last frame of the event carries the end packet and its
        // two copies, so the voice resumes with the next sequence number after them.
        let last = keyPressPacket >= press.updateCount - 1
        let upTo = last ? press.endIndex : keyPressPacket + 1
        for index in keyPressPacket..<upTo {
            let packet = press[index]
            let written = uplink.packetize(packet.payload, payloadType: payloadType, sequenceNumber: packet.sequenceNumber,
                                           timestamp: packet.timestamp, marker: packet.marker)
            if !outgoing.producer.push(UnsafeRawBufferPointer(rebasing: written.buffer[0..<written.length]), timeMs: 0) {
                outboundCounters.packetsDroppedQueueFull += 1
            }
        }
        keyPressPacket = upTo
        uplink.replaceFrameWithTelephoneEvent()
        if last { keyPress = nil }
        return true
    }

    private func startKeyPress(_ request: KeyPressRequest) {
        guard let key = DTMFEvent(rawValue: request.eventCode) else { return }
        // Validated by sendDTMF, so this cannot throw; the sequence numbers are taken once the
        // packet count is known.
        guard let sizing = try? TelephoneEventKeyPress(event: key, durationMs: request.durationMs, packetTimeMs: audioConfiguration.frameDurationMs,
                                                        volume: request.volume, clockRate: audioConfiguration.codec.rtpClockRate,
                                                        timestamp: uplink.nextTimestamp, firstSequenceNumber: 0) else { return }
        let first = uplink.reserveSequenceNumbers(sizing.count)
        keyPress = try? TelephoneEventKeyPress(event: key, durationMs: request.durationMs, packetTimeMs: audioConfiguration.frameDurationMs,
                                               volume: request.volume, clockRate: audioConfiguration.codec.rtpClockRate,
                                               timestamp: uplink.nextTimestamp, firstSequenceNumber: first)
        keyPressPacket = 0
        keyPressTone.start(key)
        outboundCounters.telephoneEventsSent += 1
    }

    /// Tells the encoder how much loss to plan in-band FEC for, from the next frame on (with
    /// `adaptsToLoss`, the far end's next reports move it again). A codec without in-band FEC
    /// (G.711, G.722) has nothing to plan and ignores it.
    /// - Throws: `MediaPipelineError.configuration` outside 0–100 %.
    public func setExpectedPacketLoss(percent: Int) throws(MediaPipelineError) {
        guard (0...100).contains(percent) else {
            throw .configuration(.invalid(field: "expectedPacketLossPercent", reason: "\(percent) is outside 0–100"))
        }
        plannedLoss.store(percent, ordering: .relaxed)
    }

    /// Sets the encoder's target bitrate from the next frame on, in bits per second (with
    /// `adaptsBitrate`, the far end's next reports move it again, within
    /// `minimumBitrate`…`bitrate`).
    /// - Throws: `MediaPipelineError.configuration` outside Opus's 6–510 kb/s, or on a codec
    ///   whose bit rate is fixed (G.711, G.722).
    public func setBitrate(_ bitsPerSecond: Int) throws(MediaPipelineError) {
        let configuration = self.configuration
        guard configuration.codec.capabilities.contains(.adjustableBitrate) else {
            throw .configuration(.invalid(field: "bitrate", reason: "\(configuration.codec) codes at a fixed \(configuration.codec.fixedBitrate ?? 0) b/s"))
        }
        guard (6_000...510_000).contains(bitsPerSecond) else {
            throw .configuration(.invalid(field: "bitrate", reason: "\(bitsPerSecond) b/s is outside Opus's 6–510 kb/s"))
        }
        targetBitrate.store(bitsPerSecond, ordering: .relaxed)
    }

    // MARK: Observation

    /// A snapshot of every counter, as each side last published it: safe from any thread
    /// while the call runs.
    public var statistics: CallMediaStatistics {
        let network = networkCounters.read()
        let uplinkNow = uplinkCounters.read()
        let playout = playoutCounters.read()
        let inbound = playout.merged(into: network.reception)
        var result = CallMediaStatistics(inbound: inbound, outbound: uplinkNow.outbound,
                                         transport: network.transport, remoteInbound: network.remoteInbound,
                                         remoteOutbound: network.remoteOutbound, eventsDropped: network.eventsDropped + uplinkNow.eventsDropped)
        if inbound.ssrc != nil {
            let inputs = voipMetricsInputs(inbound, burstGap: playout.burstGap, configuration: configuration)
            result.qualityInputs = inputs
            result.roundTripTimeSeconds = network.remoteInbound.roundTripTime
            result.quality = CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: network.remoteInbound.roundTripTime)
        }
        return result
    }

    /// What this call's jitter buffer has learnt of its network path, as of at most a second of
    /// playout ago (nil before the first packets were played): keep it with the path (the
    /// network, the peer) and give it to the next call on it
    /// (`MediaConfiguration.jitterBuffer.learntDelays`), which then starts at the delay the
    /// path needs instead of learning it during its first words. Any thread, during the call
    /// or after it ends; allocates the value.
    public var learntDelays: LearntDelays? {
        learntDelaysPublication.learntDelays
    }

    /// Hands every pending event to `body`, oldest first per side (the network side's and the
    /// audio side's events are not ordered against each other). Any thread, one at a time.
    public func drainEvents(_ body: (CallMediaEvent) -> Void) {
        eventConsumers.withLock { consumers in
            while let record = consumers.network.pop() { record.event.map(body) }
            while let record = consumers.audio.pop() { record.event.map(body) }
        }
    }

    /// Reports a device fault to this call's events (the mixer calls it on the audio thread).
    func reportXrun(_ direction: AudioDirection) {
        inbound.post(direction == .capture ? .captureXrun : .playbackXrun)
    }

    private func postNetworkEvent(_ event: CallMediaEventRecord) {
        if !networkEvents.push(event) { networkEventsDropped += 1 }
    }

    /// The network side's counters, for `statistics` (it may wait: not the audio thread).
    private func publishNetworkCounters() {
        var inboundNow = reception.statistics
        inboundNow.packetsDroppedQueueFull = receiveQueueDrops
        networkCounters.publish(NetworkCounters(reception: inboundNow, transport: transport, remoteInbound: rtcp.remoteInbound,
                                                remoteOutbound: rtcp.remoteOutbound, eventsDropped: networkEventsDropped))
    }

    /// The audio side's sending counters after a frame whose RTP timestamp was `frameTimestamp`.
    private func publishUplinkCounters(frameTimestamp: UInt32) {
        var outbound = uplink.statistics
        outbound.packetsDroppedQueueFull = outboundCounters.packetsDroppedQueueFull
        outbound.encodeFailures = outboundCounters.encodeFailures
        outbound.telephoneEventsSent = outboundCounters.telephoneEventsSent
        outbound.plannedLossPercent = appliedLoss
        uplinkCounters.publishIfAvailable(UplinkCounters(outbound: outbound, lastFrameTimestamp: frameTimestamp,
                                                         lastFrameAtMs: lastRenderMs, eventsDropped: inbound.eventsDropped))
    }

    /// What RTCP XR and the quality estimate are computed from: `inbound` (both sides' counters
    /// joined), the audio side's burst tracking, this end's delays.
    private func voipMetricsInputs(_ inbound: InboundRTPStatistics, burstGap: BurstGapStatistics,
                                   configuration: MediaConfiguration) -> VoIPMetricsInputs {
        VoIPMetricsInputs(inbound: inbound, burstGap: burstGap, configuration: configuration, deviceDelayMs: Double(deviceDelayMs))
    }

    /// The event for the peer's key running out, on the first datagram it refuses (once: the
    /// rest of the peer's packets under that key are refused the same way, counted only).
    private func noteReceivingKeyExpiry() {
        guard !receivingKeyExpiryPosted, transport.srtp.keyLifetimeExpired > 0 else { return }
        receivingKeyExpiryPosted = true
        postNetworkEvent(.receivingKeyExpired)
    }

    /// One event per run of failures (at the threshold), so a flood of forged datagrams
    /// cannot flood the application too.
    private func noteAuthenticationFailure() {
        consecutiveAuthenticationFailures += 1
        guard consecutiveAuthenticationFailures == initial.srtpFailureEventThreshold else { return }
        postNetworkEvent(.srtpAuthenticationFailing(consecutiveFailures: consecutiveAuthenticationFailures))
    }
}

/// The keys in use as the control side knows them (what a new pair is compared with), and a
/// rekey made for the network side to take.
private struct RekeyState {
    var sending: SRTPKeyingMaterial?
    var receiving: SRTPKeyingMaterial?
    /// Keys come from a DTLS handshake (`MediaProtection.srtpKeyedByHandshake`).
    let keyedByHandshake: Bool
    var pending: SRTPTransportStage.Rekey?

    init(sending: SRTPKeyingMaterial?, receiving: SRTPKeyingMaterial?, keyedByHandshake: Bool) {
        self.sending = sending
        self.receiving = receiving
        self.keyedByHandshake = keyedByHandshake
    }
}

/// The two event consumers, drained together.
private struct EventConsumers: ~Copyable {
    let network: SPSCConsumer<CallMediaEventRecord>
    let audio: SPSCConsumer<CallMediaEventRecord>
}

/// What the audio side publishes after each frame it sends.
private struct UplinkCounters: Sendable, BitwiseCopyable {
    var outbound = OutboundRTPStatistics()
    /// The last frame's RTP timestamp and the playout time it was sent at, for the sender
    /// report's NTP–RTP pairing.
    var lastFrameTimestamp: UInt32 = 0
    var lastFrameAtMs = 0.0
    var eventsDropped = 0

    var packetsSent: Int { outbound.packetsSent }
    var payloadBytesSent: Int { outbound.bytesSent }

    /// Our RTP timestamp at `ms`: the last frame sent, advanced by the time since on the
    /// media clock (the codec's RTP clock, `clockRate` Hz).
    func rtpTimestamp(atMs ms: Double, clockRate: Int) -> UInt32 {
        let elapsed = (ms - lastFrameAtMs) * Double(clockRate) / 1_000
        guard elapsed.isFinite, abs(elapsed) < 2_000_000_000 else { return lastFrameTimestamp }
        return lastFrameTimestamp &+ UInt32(bitPattern: Int32(elapsed.rounded()))
    }
}

/// What the network side publishes after each datagram in or out.
private struct NetworkCounters: Sendable, BitwiseCopyable {
    var reception = InboundRTPStatistics()
    var transport = CallTransportStatistics()
    var remoteInbound = RemoteInboundRTPStatistics()
    var remoteOutbound = RemoteOutboundRTPStatistics()
    var eventsDropped = 0
}

/// A key press waiting to be sent: a plain value for the ring from the control side.
struct KeyPressRequest: BitwiseCopyable {
    var eventCode: UInt8
    var durationMs: Int
    var volume: Int
}
