// SPDX-License-Identifier: Apache-2.0
import RTP

/// A call's reception accounting on the network side, where packets arrive: RTP parsing,
/// payload-type checks, the sender's SSRC (a change is an event), and RFC 3550 sequence and
/// jitter accounting (`RTPReceiverStatistics`, one per sender SSRC, folded into call totals
/// when the SSRC changes) on the network arrival time. It decides which packets go on to the
/// audio side: duplicates, malformed packets and foreign payload types stop here, counted once.
///
/// Here rather than on the audio side because RFC 3550's jitter is about network arrival, and
/// because RTCP reports, sent from the network side, are built from these figures.
struct ReceptionAccounting {
    private var configuration: MediaConfiguration
    /// The current sender's statistics (nil before the first packet).
    private(set) var receiver: RTPReceiverStatistics?
    /// Loss of the sender's earlier streams (SSRCs).
    private var previousStreamsLost = 0
    /// The counters kept here (the audio side fills in playout).
    private(set) var counters = InboundRTPStatistics()
    /// A new SSRC seen while another is current, its last sequence number and how many
    /// packets in sequence it has sent.
    private var candidate: (ssrc: UInt32, sequence: UInt16, count: Int)?
    /// Arrival of the current sender's last accepted packet, and whether it said goodbye.
    private var currentLastArrivalMs: Double?
    private var currentSaidBye = false
    /// The last competing SSRC reported, so a parallel stream is reported once, not per packet.
    private var reportedCompetitor: UInt32?
    /// Which audio packets carry speech, for the bitrate the sender speaks at.
    private var speechPackets = SpeechPacketFilter()

    /// Packets in sequence a new SSRC must send, while another is current, before it replaces
    /// it (RFC 3550 A.1's probation, applied to a change of source): one stray or forged packet
    /// with another SSRC — or a peer changing SSRC on every packet — cannot restart playout.
    static let packetsToConfirmNewSource = 2

    /// How long the current sender must have been silent before another SSRC may replace it,
    /// in ms, unless it said goodbye (RTCP BYE): a parallel stream — a second sender holding
    /// the key, a forked call — never takes over from one that is still talking. Longer than
    /// Opus DTX's 400 ms between packets, so a peer in a pause is still talking.
    static let silenceBeforeNewSourceMs = 500.0

    /// A codec switch (network side): the payload types accounted for as audio and
    /// telephone-event, and their clocks, from the next packet on.
    mutating func switchCodec(to configuration: MediaConfiguration) {
        self.configuration = configuration
    }

    init(configuration: MediaConfiguration) {
        self.configuration = configuration
    }

    /// What became of one packet.
    enum Verdict {
        /// Goes on to the audio side.
        case accepted
        /// Stops here (counted).
        case dropped
        /// Goes on, from a new sender SSRC (the previous one given, if any).
        case acceptedFromNewSource(previous: UInt32?)
        /// Stops here (counted): from `ssrc`, a stream in parallel with the current sender,
        /// which is still talking; the first of its packets (reported once per SSRC).
        case droppedFromCompetingSource(ssrc: UInt32)
    }

    /// Parses one unprotected datagram as RTP: the one parse of its header on the way in (the
    /// audio side rebuilds the view from its layout). Nil, counted, when it is malformed.
    mutating func parse(_ bytes: UnsafeRawBufferPointer) -> RTPPacketView? {
        do {
            return try RTPPacketView(bytes)
        } catch {
            counters.malformedPackets += 1
            return nil
        }
    }

    /// Accounts for one parsed RTP packet that arrived at `arrivalTimeMs`.
    mutating func account(_ packet: RTPPacketView, arrivalTimeMs: Double) -> Verdict {
        // The codec of an audio packet (nil: telephone-event or unknown).
        let codec = packet.payloadType == configuration.payloadType ? configuration.codec
            : configuration.alternativeReceiveCodecs[packet.payloadType]
        let isAudio = codec != nil
        guard isAudio || configuration.telephoneEventPayloadType == packet.payloadType else {
            counters.unknownPayloadTypePackets += 1
            return .dropped
        }
        var newSource: UInt32?? = nil
        if let current = receiver?.ssrc, current != packet.ssrc {
            let inSequence = confirmsNewSource(packet)
            if !isCurrentOrOpen(packet.ssrc, atMs: arrivalTimeMs) {
                // The current sender is still talking: a parallel stream, whatever its sequence.
                counters.packetsFromUnconfirmedSource += 1
                counters.packetsFromCompetingSource += 1
                // Reported once per stream that looks real (two in sequence), not per stray packet.
                guard inSequence, reportedCompetitor != packet.ssrc else { return .dropped }
                reportedCompetitor = packet.ssrc
                return .droppedFromCompetingSource(ssrc: packet.ssrc)
            }
            if !inSequence {
                counters.packetsFromUnconfirmedSource += 1
                return .dropped
            }
        }
        if receiver?.ssrc != packet.ssrc {
            newSource = .some(receiver?.ssrc)
            if let previous = receiver {
                previousStreamsLost += Int(previous.cumulativeLost)
                counters.ssrcChanges += 1
            }
            // A sender that is already talking is valid at once (authenticated by SRTP when keyed).
            receiver = RTPReceiverStatistics(ssrc: packet.ssrc, minSequential: 1)
            counters.ssrc = packet.ssrc
            currentSaidBye = false
            reportedCompetitor = nil
        }
        currentLastArrivalMs = arrivalTimeMs
        counters.packetsReceived += 1
        counters.bytesReceived += packet.payload.count
        if isAudio {
            let talk = speechPackets.talk(payloadBytes: packet.payload.count)
            counters.speechPacketsReceived += talk.packets
            counters.speechBytesReceived += talk.bytes
        }
        counters.headerBytesReceived += packet.bytes.count - packet.payload.count
        counters.lastPacketReceivedTimestampMs = arrivalTimeMs
        let clockRate = codec?.rtpClockRate ?? configuration.telephoneEventClockRate
        switch receiver?.record(packet, arrivalTime: Self.rtpClockTime(ms: arrivalTimeMs, clockRate: clockRate)) {
        case .reordered:
            counters.packetsReordered += 1
        case .duplicate:
            // Counted once here; the copy never reaches the audio side.
            counters.packetsDuplicated += 1
            return .dropped
        default:
            break
        }
        if let newSource { return .acceptedFromNewSource(previous: newSource) }
        return .accepted
    }

    /// The report block about the current sender for a report sent at `now`, starting a new
    /// reporting interval (nil before any packet).
    mutating func makeReportBlock(at now: NTPTimestamp) -> RTCPReportBlock? {
        receiver?.makeReportBlock(at: now)
    }

    /// Whether `ssrc` is the current sender or none is current yet: RTCP from another source,
    /// while the current one is still talking, is a parallel stream's.
    func isCurrentOrOpen(_ ssrc: UInt32, atMs now: Double) -> Bool {
        guard let current = receiver?.ssrc, current != ssrc, !currentSaidBye, let last = currentLastArrivalMs else { return true }
        return now - last >= Self.silenceBeforeNewSourceMs
    }

    /// Notes an RTCP BYE for `sources`: when it names the current sender, another SSRC may
    /// replace it at once (after its probation).
    mutating func noteBye(from sources: [UInt32]) {
        if let current = receiver?.ssrc, sources.contains(current) { currentSaidBye = true }
    }

    /// Notes the current sender's RTCP sender report, for the next block's LSR and DLSR.
    mutating func recordSenderReport(from ssrc: UInt32, ntpTimestamp: NTPTimestamp, arrivedAt arrival: NTPTimestamp) {
        guard receiver?.ssrc == ssrc else { return }
        receiver?.recordSenderReport(ntpTimestamp: ntpTimestamp, arrivedAt: arrival)
    }

    /// Whether `packet`, from an SSRC other than the current one, completes that SSRC's
    /// probation.
    private mutating func confirmsNewSource(_ packet: RTPPacketView) -> Bool {
        if let previous = candidate, previous.ssrc == packet.ssrc, packet.sequenceNumber == previous.sequence &+ 1 {
            candidate = (packet.ssrc, packet.sequenceNumber, previous.count + 1)
        } else {
            candidate = (packet.ssrc, packet.sequenceNumber, 1)
        }
        guard let confirmed = candidate, confirmed.count >= Self.packetsToConfirmNewSource else { return false }
        candidate = nil
        return true
    }

    /// Packets lost so far, RFC 3550's cumulative count over every sender stream (expected −
    /// received: a packet overtaken by later ones counts until it arrives).
    var packetsLost: Int { previousStreamsLost + Int(receiver?.cumulativeLost ?? 0) }

    /// RFC 3550's interarrival jitter of the current sender's stream, in seconds (0 before it).
    var jitterSeconds: Double { Double(receiver?.jitter ?? 0) / Double(configuration.codec.rtpClockRate) }

    /// The counters with RFC 3550 loss and jitter filled in.
    var statistics: InboundRTPStatistics {
        var result = counters
        result.packetsLost = packetsLost
        result.jitter = jitterSeconds
        return result
    }

    /// `ms` on an RTP clock of `clockRate`, wrapped to 32 bits (RFC 3550 A.8 needs only
    /// differences). A time that is not finite counts as 0 rather than trapping.
    static func rtpClockTime(ms: Double, clockRate: Int) -> UInt32 {
        let ticks = ms * Double(clockRate) / 1_000
        guard ticks.isFinite else { return 0 }
        return UInt32(truncatingIfNeeded: Int64(ticks.truncatingRemainder(dividingBy: 4_294_967_296)))
    }
}
