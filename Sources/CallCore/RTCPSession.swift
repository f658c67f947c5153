// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import RTP

/// One call's RTCP on the network side (RFC 3550 §6): when to report (`RTCPInterval`, with
/// timer reconsideration as in Appendix A.7), what to report (a sender report while we send
/// RTP, a receiver report otherwise, each with a report block about the far end's stream, then
/// SDES with our CNAME, then an RFC 3611 XR with a VoIP Metrics block about that stream), BYE
/// on hang-up, and what the far end's reports say — its view of our stream (loss, jitter,
/// round-trip time from LSR/DLSR, its XR VoIP Metrics) and of its own.
///
/// Sans-I/O: the caller hands in the time, the sender's counters and the reception accounting,
/// and sends the compound packets it returns (through SRTCP when keyed). Times are the call's
/// clock in ms, mapped onto NTP from a wall-clock origin taken at creation.
final class RTCPSession {
    /// Our synchronisation source.
    let ssrc: UInt32
    /// Our canonical name (RFC 3550 §6.5.1; RFC 7022: random, per call).
    let canonicalName: String
    private(set) var remoteInbound = RemoteInboundRTPStatistics()
    private(set) var remoteOutbound = RemoteOutboundRTPStatistics()
    /// Compound packets sent and received.
    private(set) var reportsSent = 0

    private var rtcpBytesPerSecond: Double
    private var minimumSeconds: Double
    private let ntpOriginSeconds: Double
    private var random: SplitMix
    private var averagePacketBytes: Double
    private var initial = true
    private var previousReportMs: Double?
    private var nextReportMs: Double?
    private var packetsSentAtReport: (last: Int, beforeLast: Int) = (0, 0)
    private var packetsReceivedAtReport = 0
    private var remoteSenderSeen = false
    private var remoteSSRC: UInt32?
    /// The highest jitter buffer nominal delay reported so far (XR's JB maximum), ms.
    private var jitterBufferMaximumMs = 0.0

    /// XR's jitter buffer adjustment rate J (adjustment time 2 × J frames): our target needs
    /// about 30 packets of a new jitter to move its 97th percentile (forget factor 0.999), then
    /// stretches playout toward it — 15, the field's slowest, 600 ms at 20 ms frames.
    static let jitterBufferRate: UInt8 = 15

    /// The media's RTP clock rate in Hz (report blocks' jitter is counted in its ticks).
    private(set) var clockRate: Int

    /// UDP and IPv4 headers, counted in the average size as RFC 3550 §6.2 asks.
    static let lowerLayerBytes = 28.0

    /// A session for `ssrc` sending media at `configuration`'s bitrate and packet time.
    init(ssrc: UInt32, configuration: MediaConfiguration, seed: UInt64 = .random(in: .min ... .max)) {
        self.ssrc = ssrc
        random = SplitMix(state: seed)
        canonicalName = String((0..<16).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
        (clockRate, rtcpBytesPerSecond, minimumSeconds) = Self.media(configuration)
        averagePacketBytes = 100 + Self.lowerLayerBytes
        ntpOriginSeconds = WallClock.secondsSince1970 + Double(NTPTimestamp.unixEpochOffset)
    }

    /// The RTP clock rate, RTCP's share of the session bandwidth (5 %: the media bitrate plus
    /// RTP, SRTP, UDP and IP headers per packet) and the minimum report interval for `configuration`.
    private static func media(_ configuration: MediaConfiguration) -> (clockRate: Int, rtcpBytesPerSecond: Double, minimumSeconds: Double) {
        let packetsPerSecond = 1_000 / Double(configuration.frameDurationMs)
        let sessionBitsPerSecond = Double(configuration.codec.fixedBitrate ?? configuration.bitrate) + packetsPerSecond * (12 + 10 + Self.lowerLayerBytes) * 8
        return (configuration.codec.rtpClockRate, 0.05 * sessionBitsPerSecond / 8,
                configuration.rtcpReducedMinimum ? min(5, 360 / (sessionBitsPerSecond / 1_000)) : 5)
    }

    /// A codec switch (network side): reports from now on count in the new codec's clock and
    /// share its session bandwidth.
    func switchCodec(to configuration: MediaConfiguration) {
        (clockRate, rtcpBytesPerSecond, minimumSeconds) = Self.media(configuration)
    }

    /// `ms` on the call's clock as an NTP timestamp.
    func ntp(ms: Double) -> NTPTimestamp {
        NTPTimestamp(secondsSince1900: ntpOriginSeconds + (ms.isFinite ? ms : 0) / 1_000)
    }

    /// The interval to the next report as things stand, in ms.
    private func intervalMs(packetsSent: Int) -> Double {
        let weSent = packetsSent > packetsSentAtReport.beforeLast
        let members = 1 + (remoteSSRC == nil ? 0 : 1)
        let senders = (weSent ? 1 : 0) + (remoteSenderSeen ? 1 : 0)
        let interval = RTCPInterval(members: members, senders: senders, rtcpBytesPerSecond: rtcpBytesPerSecond, weSent: weSent,
                                    averagePacketBytes: averagePacketBytes, initial: initial, minimumSeconds: minimumSeconds)
        return interval.seconds(random: random.nextUnit()) * 1_000
    }

    /// The compound packet to send at `nowMs`, or nil when no report is due.
    /// - Parameters:
    ///   - sender: our sent counters and the RTP timestamp of `nowMs`; nil while we have
    ///     sent nothing.
    ///   - reception: the far end's stream as we received it (its report block is taken).
    ///   - voipMetrics: what the XR VoIP Metrics block about that stream is built from, given
    ///     `reception`; asked for only when a report is sent (none sent when nil or before the
    ///     stream's first packet).
    func report(nowMs: Double, sender: (packets: Int, payloadBytes: Int, rtpTimestamp: UInt32)?,
                reception: inout ReceptionAccounting,
                voipMetrics: (ReceptionAccounting) -> VoIPMetricsInputs? = { _ in nil },
                into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let packetsSent = sender?.packets ?? 0
        if reception.counters.packetsReceived > packetsReceivedAtReport { remoteSenderSeen = true }
        guard let scheduled = nextReportMs else {
            nextReportMs = nowMs + intervalMs(packetsSent: packetsSent)
            return nil
        }
        guard nowMs >= scheduled else { return nil }
        // Timer reconsideration (A.7 OnExpire): with what is known now, is it really time?
        if !initial, let previous = previousReportMs {
            let reconsidered = previous + intervalMs(packetsSent: packetsSent)
            if reconsidered > nowMs {
                nextReportMs = reconsidered
                return nil
            }
        }
        let ntpNow = ntp(ms: nowMs)
        let block = reception.makeReportBlock(at: ntpNow)
        let weSent = packetsSent > packetsSentAtReport.beforeLast
        // Written in place: a report every few seconds allocates nothing.
        var writer = RTCPReportWriter(into: buffer)
        do throws(RTCPBuildError) {
            if let sender, weSent {
                try writer.senderReport(ssrc: ssrc, ntpTimestamp: ntpNow, rtpTimestamp: sender.rtpTimestamp,
                                        packetCount: UInt32(truncatingIfNeeded: sender.packets),
                                        octetCount: UInt32(truncatingIfNeeded: sender.payloadBytes), reportBlock: block)
            } else {
                try writer.receiverReport(ssrc: ssrc, reportBlock: block)
            }
            try writer.canonicalName(canonicalName, ssrc: ssrc)
            if let inputs = voipMetrics(reception), let metrics = voipMetricsBlock(inputs) {
                try writer.voipMetrics(metrics, ssrc: ssrc)
            }
        } catch {
            return nil
        }
        let length = writer.length
        averagePacketBytes = (Double(length) + Self.lowerLayerBytes) / 16 + averagePacketBytes * 15 / 16
        packetsSentAtReport = (packetsSent, packetsSentAtReport.last)
        packetsReceivedAtReport = reception.counters.packetsReceived
        remoteSenderSeen = false
        initial = false
        previousReportMs = nowMs
        nextReportMs = nowMs + intervalMs(packetsSent: packetsSent)
        reportsSent += 1
        return length
    }

    /// A BYE for hanging up (RFC 3550 §6.6), as a compound packet led by a receiver report,
    /// written at the start of `buffer`; returns its length.
    func bye(reason: String?, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        var writer = RTCPReportWriter(into: buffer)
        do throws(RTCPBuildError) {
            try writer.receiverReport(ssrc: ssrc, reportBlock: nil)
            try writer.canonicalName(canonicalName, ssrc: ssrc)
            try writer.bye(ssrc: ssrc, reason: reason)
        } catch {
            return nil
        }
        return writer.length
    }

    /// What a received compound packet meant.
    struct Received {
        /// The far end said goodbye.
        var bye = false
    }

    /// Takes a compound packet (already through SRTCP) that arrived at `arrivalMs`.
    /// - Throws: the parse error; the caller counts it.
    func receive(_ bytes: UnsafeRawBufferPointer, arrivalMs: Double, reception: inout ReceptionAccounting) throws(RTCPParseError) -> Received {
        let compound = try RTCPCompoundPacket(parsing: bytes, allowReducedSize: true)
        var result = Received()
        let arrival = ntp(ms: arrivalMs)
        for packet in compound.packets {
            switch packet {
            case let .senderReport(report):
                remoteSSRC = report.ssrc
                remoteSenderSeen = true
                reception.recordSenderReport(from: report.ssrc, ntpTimestamp: report.ntpTimestamp, arrivedAt: arrival)
                remoteOutbound.packetsSent = Int(report.packetCount)
                remoteOutbound.bytesSent = Int(report.octetCount)
                remoteOutbound.remoteTimestamp = report.ntpTimestamp.secondsSince1900
                remoteOutbound.reportsSent += 1
                take(report.reportBlocks, arrival: arrival)
            case let .receiverReport(report):
                remoteSSRC = report.ssrc
                take(report.reportBlocks, arrival: arrival)
            case let .bye(bye):
                if bye.sources.contains(where: { $0 != ssrc }) { result.bye = true }
                reception.noteBye(from: bye.sources)
            case let .extendedReport(report):
                for block in report.voipMetrics where block.ssrc == ssrc {
                    remoteInbound.voipMetrics = block
                    remoteInbound.voipMetricsReceived += 1
                }
            case .sourceDescription, .opaque:
                break
            }
        }
        return result
    }

    /// The XR VoIP Metrics block about the far end's stream (RFC 3611 §4.7), nil before its
    /// first packet. The loss rate is the network's (RFC 3550 cumulative lost over expected,
    /// the report block's own figure), before FEC: RFC 3611 asks for loss after error
    /// correction, but the jitter buffer cannot tell a frame rebuilt for a lost packet from one
    /// rebuilt for a late one; FEC's effect is in the R factor and MOS, whose loss counts rebuilt
    /// frames as played. The R factor is the wideband rating on G.107's scale (R_WB / 1.29), MOS
    /// on the scale `CallQualityEstimate` describes. Levels and RERL are sent as unavailable:
    /// the receive side measures no speech-only level, and echo is the far end's canceller's
    /// business.
    private func voipMetricsBlock(_ inputs: VoIPMetricsInputs) -> RTCPVoIPMetricsBlock? {
        guard let source = inputs.sourceSSRC else { return nil }
        let roundTrip = remoteInbound.roundTripTime
        let quality = CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: roundTrip)
        let burstGap = inputs.burstGap
        jitterBufferMaximumMs = max(jitterBufferMaximumMs, inputs.jitterBufferTargetDelayMs.isFinite ? inputs.jitterBufferTargetDelayMs : 0)
        return RTCPVoIPMetricsBlock(
            ssrc: source,
            lossRate: RTCPVoIPMetricsBlock.fixedPointFraction(inputs.lossFraction),
            discardRate: RTCPVoIPMetricsBlock.fixedPointFraction(inputs.discardFraction),
            burstDensity: RTCPVoIPMetricsBlock.fixedPointFraction(burstGap.burstDensity),
            gapDensity: RTCPVoIPMetricsBlock.fixedPointFraction(burstGap.gapDensity),
            burstDurationMs: Self.milliseconds(burstGap.meanBurstLength * inputs.frameDurationMs),
            gapDurationMs: Self.milliseconds(burstGap.meanGapLength * inputs.frameDurationMs),
            roundTripDelayMs: Self.milliseconds((roundTrip ?? 0) * 1_000),
            endSystemDelayMs: Self.milliseconds(inputs.endSystemDelayMs),
            gapThreshold: UInt8(burstGap.gapThreshold),
            rFactor: Self.field(quality.rating, 0...100),
            mosLQ: Self.field(quality.listeningMeanOpinionScore * 10, 10...50),
            mosCQ: Self.field(quality.meanOpinionScore * 10, 10...50),
            packetLossConcealment: .enhanced,
            jitterBufferAdaptivity: .adaptive,
            jitterBufferRate: Self.jitterBufferRate,
            jitterBufferNominalMs: Self.milliseconds(inputs.jitterBufferTargetDelayMs),
            jitterBufferMaximumMs: Self.milliseconds(jitterBufferMaximumMs),
            jitterBufferAbsoluteMaximumMs: Self.milliseconds(Double(inputs.jitterBufferAbsoluteMaximumMs))
        )
    }

    /// `value` rounded into `range`, or nil (unavailable) when it is not finite.
    private static func field(_ value: Double, _ range: ClosedRange<Double>) -> UInt8? {
        value.isFinite ? UInt8(min(max(value.rounded(), range.lowerBound), range.upperBound)) : nil
    }

    /// `ms` rounded into a 16-bit field (0 when not finite).
    private static func milliseconds(_ ms: Double) -> UInt16 {
        ms.isFinite ? UInt16(min(max(ms.rounded(), 0), 65_535)) : 0
    }

    private func take(_ blocks: [RTCPReportBlock], arrival: NTPTimestamp) {
        for block in blocks where block.ssrc == ssrc {
            remoteInbound.reportsReceived += 1
            remoteInbound.fractionLost = block.fractionLostRatio
            remoteInbound.packetsLost = Int(block.cumulativeLost)
            remoteInbound.jitter = Double(block.jitter) / Double(clockRate)
            if let rtt = block.roundTripTime(arrivedAt: arrival) {
                remoteInbound.roundTripTime = rtt
                remoteInbound.totalRoundTripTime += rtt
                remoteInbound.roundTripTimeMeasurements += 1
            }
        }
    }
}

/// A small seeded generator for the report timer's randomisation (SplitMix64).
struct SplitMix {
    var state: UInt64

    /// A uniform draw in [0, 1).
    mutating func nextUnit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}
