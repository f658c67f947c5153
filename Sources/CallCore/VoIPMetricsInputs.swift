// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import RTP

/// What an RTCP XR VoIP Metrics block (RFC 3611 §4.7) and the call's quality estimate are
/// computed from: the stream we receive as the network side counted it and the audio side
/// played it, and this end's own delays. A plain value that `CallMedia` builds and hands to
/// `RTCPSession`, so the session never reads the audio side.
struct VoIPMetricsInputs: Sendable, Equatable {
    /// The sender of the stream (nil before its first packet: then there is nothing to report).
    var sourceSSRC: UInt32?
    /// Packets expected (received + lost, RFC 3550 A.3, over every stream of the call).
    var packetsExpected: Int
    /// Packets lost on the network (RFC 3550: expected − received).
    var packetsLost: Int
    /// Packets the jitter buffer dropped as too late to play (or unusable).
    var packetsDiscarded: Int
    /// Packets received, and those carrying in-band FEC.
    var packetsReceived: Int
    var fecPacketsReceived: Int
    /// Lost or late packets rebuilt from the next packet's FEC.
    var fecPacketsRecovered: Int
    /// Payload bytes received.
    var payloadBytesReceived: Int
    /// Packets judged to carry speech, and their payload bytes (`SpeechPacketFilter`).
    var speechPacketsReceived = 0
    var speechBytesReceived = 0
    /// Samples played (received or concealed), and those concealed over speech (loss, late
    /// packets, waits for overtaken ones; DTX comfort noise and concealment of the far end's
    /// silence excluded).
    var samplesPlayed: Int
    var samplesConcealed: Int
    /// Samples played while the far end was not talking: decoded in its silence, or silently
    /// concealed.
    var samplesPlayedInSilence = 0
    /// Interarrival jitter, ms.
    var jitterMs: Double
    /// The stream's packets in sequence order (RFC 3611 §4.7.2).
    var burstGap: BurstGapStatistics
    /// G.107's burst ratio of the misses: `burstGap`'s, or over a span (`since(_:)`).
    var burstRatio: Double
    /// Packet (frame) duration, ms.
    var frameDurationMs: Double
    /// The codec received.
    var codec: AudioCodec
    /// The jitter buffer's mean delay from arrival to playout so far, and its current target, ms.
    var jitterBufferMeanDelayMs: Double
    var jitterBufferTargetDelayMs: Double
    /// What that mean is made of: seconds waited by the samples emitted, and their count (W3C).
    var jitterBufferDelaySeconds: Double
    var jitterBufferEmittedCount: Int
    /// The most delay the jitter buffer may take, ms (its configuration's maximum).
    var jitterBufferAbsoluteMaximumMs: Int
    /// The audio device's delay from playback to capture, ms.
    var deviceDelayMs: Double

    /// libopus's encoder delay (`OPUS_GET_LOOKAHEAD` in `OPUS_APPLICATION_VOIP`: 2.5 ms plus
    /// 4 ms of delay compensation), ms.
    static let opusLookaheadMs = 6.5

    /// Inputs from a call's inbound counters (network and audio sides joined), its burst
    /// metrics and configuration.
    init(inbound: InboundRTPStatistics, burstGap: BurstGapStatistics, configuration: MediaConfiguration, deviceDelayMs: Double) {
        sourceSSRC = inbound.ssrc
        packetsLost = inbound.packetsLost
        packetsExpected = max(inbound.packetsReceived + inbound.packetsLost, 0)
        packetsDiscarded = inbound.packetsDiscarded
        packetsReceived = inbound.packetsReceived
        fecPacketsReceived = inbound.fecPacketsReceived
        fecPacketsRecovered = inbound.fecPacketsRecovered
        payloadBytesReceived = inbound.bytesReceived
        speechPacketsReceived = inbound.speechPacketsReceived
        speechBytesReceived = inbound.speechBytesReceived
        samplesPlayed = inbound.totalSamplesReceived
        samplesConcealed = max(inbound.concealedSamples - inbound.silentConcealedSamples, 0)
        samplesPlayedInSilence = inbound.silentConcealedSamples + inbound.samplesDecodedInSilence
        jitterMs = inbound.jitter * 1_000
        self.burstGap = burstGap
        burstRatio = burstGap.burstRatio
        frameDurationMs = Double(configuration.frameDurationMs)
        codec = configuration.codec
        jitterBufferTargetDelayMs = inbound.jitterBufferTargetDelayMs
        jitterBufferMeanDelayMs = inbound.jitterBufferEmittedCount > 0
            ? inbound.jitterBufferDelay / Double(inbound.jitterBufferEmittedCount) * 1_000 : inbound.jitterBufferTargetDelayMs
        jitterBufferDelaySeconds = inbound.jitterBufferDelay
        jitterBufferEmittedCount = inbound.jitterBufferEmittedCount
        jitterBufferAbsoluteMaximumMs = configuration.jitterBuffer.maximumDelayMs
        self.deviceDelayMs = deviceDelayMs
    }

    /// These inputs over the span since `earlier` (inputs of the same call taken before): the
    /// counters — packets, losses, discards, FEC, bytes, samples played and concealed, the
    /// jitter buffer's waits, the burst ratio — as their differences; what is a state, not a
    /// count (jitter, the target, the device's delay, the codec), as now. A span in which
    /// nothing was played keeps the jitter buffer's mean from the whole call.
    func since(_ earlier: VoIPMetricsInputs) -> VoIPMetricsInputs {
        var span = self
        span.packetsExpected = max(packetsExpected - earlier.packetsExpected, 0)
        span.packetsLost = packetsLost - earlier.packetsLost
        span.packetsDiscarded = max(packetsDiscarded - earlier.packetsDiscarded, 0)
        span.packetsReceived = max(packetsReceived - earlier.packetsReceived, 0)
        span.fecPacketsReceived = max(fecPacketsReceived - earlier.fecPacketsReceived, 0)
        span.fecPacketsRecovered = max(fecPacketsRecovered - earlier.fecPacketsRecovered, 0)
        span.payloadBytesReceived = max(payloadBytesReceived - earlier.payloadBytesReceived, 0)
        span.speechPacketsReceived = max(speechPacketsReceived - earlier.speechPacketsReceived, 0)
        span.speechBytesReceived = max(speechBytesReceived - earlier.speechBytesReceived, 0)
        span.samplesPlayed = max(samplesPlayed - earlier.samplesPlayed, 0)
        span.samplesConcealed = max(samplesConcealed - earlier.samplesConcealed, 0)
        span.samplesPlayedInSilence = max(samplesPlayedInSilence - earlier.samplesPlayedInSilence, 0)
        span.burstRatio = burstGap.burstRatio(since: earlier.burstGap)
        span.jitterBufferDelaySeconds = jitterBufferDelaySeconds - earlier.jitterBufferDelaySeconds
        span.jitterBufferEmittedCount = jitterBufferEmittedCount - earlier.jitterBufferEmittedCount
        if span.jitterBufferEmittedCount > 0 {
            span.jitterBufferMeanDelayMs = span.jitterBufferDelaySeconds / Double(span.jitterBufferEmittedCount) * 1_000
        }
        return span
    }

    /// Network loss over packets expected, 0…1.
    var lossFraction: Double { packetsExpected > 0 ? Double(max(packetsLost, 0)) / Double(packetsExpected) : 0 }

    /// Jitter-buffer discards over packets expected, 0…1.
    var discardFraction: Double { packetsExpected > 0 ? Double(packetsDiscarded) / Double(packetsExpected) : 0 }

    /// The share of the far end's talk the listener missed, percent (G.107's Ppl): the jitter
    /// buffer's concealment over speech — lost and late packets, and the ticks spent waiting
    /// for an overtaken packet, which a listener hears as a loss too; not the packets FEC
    /// rebuilt, nor concealment of the far end's silence or of DTX (silent concealment) — as a
    /// share of what it played while the far end talked (not in its silence: the same quiet
    /// detector decides both). Before anything is played, the packets lost or discarded less
    /// those rebuilt from FEC (a late packet that was rebuilt is both discarded and recovered:
    /// counted once). Counting packets over the whole call read the far end's losses in its
    /// silence — half a call of turns — as missed audio: the demo's Bob → Alice, FEC
    /// rebuilding his words, read 0.5 under PESQ-WB; and over all the audio played, a loss in a
    /// word weighed half as much in a call of turns as in a talk.
    var effectiveLossPercent: Double {
        var percent = 0.0
        let talkSamples = samplesPlayed - samplesPlayedInSilence
        if samplesPlayed > 0 {
            percent = talkSamples > 0 ? Double(samplesConcealed) / Double(talkSamples) * 100 : 0
        } else if packetsExpected > 0 {
            let missed = max(packetsLost, 0) + packetsDiscarded - fecPacketsRecovered
            percent = Double(missed) / Double(packetsExpected) * 100
        }
        return percent.isFinite ? min(max(percent, 0), 100) : 0
    }

    /// The internal round trip of this end (RFC 3611's end system delay): framing and encoder
    /// lookahead on the way out, jitter buffer on the way in, and the device both ways, ms.
    var endSystemDelayMs: Double {
        // G.711 codes sample by sample (no look-ahead); G.722's filter bank's few ms are not counted.
        let lookahead = codec == .opus ? Self.opusLookaheadMs : 0
        let delay = frameDurationMs + lookahead + jitterBufferMeanDelayMs + deviceDelayMs
        return delay.isFinite ? max(delay, 0) : 0
    }

    /// The far end's mouth to our ear, ms: half the round trip on the network, the far end's
    /// framing and lookahead (taken as ours), our jitter buffer, and the device delay (our
    /// playback plus, taken as equal to ours, the far end's capture).
    func mouthToEarDelayMs(roundTripTimeSeconds: Double?) -> Double {
        let network = (roundTripTimeSeconds ?? 0) * 1_000 / 2
        let delay = (network.isFinite ? max(network, 0) : 0) + endSystemDelayMs
        return min(delay, 100_000)
    }

    /// The bitrate the far end speaks at, b/s, from payload bytes per packet carrying speech
    /// (all packets when none was judged speech; nil before a packet).
    var receivedBitsPerSecond: Double? {
        guard frameDurationMs > 0 else { return nil }
        let (bytes, packets) = speechPacketsReceived > 0
            ? (speechBytesReceived, speechPacketsReceived) : (payloadBytesReceived, packetsReceived)
        guard packets > 0 else { return nil }
        return Double(bytes) * 8 / (Double(packets) * frameDurationMs / 1_000)
    }

    /// The bitrate the far end's Opus encoder is set to, b/s, from `receivedBitsPerSecond`
    /// (`CodecImpairment.opusTargetBitsPerSecond`): the Opus factors and the smallest FEC plan
    /// go by the encoder's target, which its talk's payload undershoots (a 32 kb/s stream
    /// counts 28–30 kb/s, and was scored as such: 0.12–0.17 under PESQ-WB on every row of
    /// `benchmarks quality`). The payload rate itself for another codec.
    var senderBitsPerSecond: Double? {
        guard let received = receivedBitsPerSecond else { return nil }
        return codec == .opus ? CodecImpairment.opusTargetBitsPerSecond(payloadBitsPerSecond: received, frameDurationMs: frameMs) : received
    }

    /// The loss the far end plans FEC for, percent, as far as we can tell: none without FEC in
    /// its packets; with FEC, while we lose packets, the plan of a peer that adapts as
    /// `LossAdaptation` does (the smallest plan libopus codes at the bitrate it sends at) — or,
    /// when we lose none, a static plan of 10 % (a peer sending FEC we never asked for).
    var farEndFECPlanPercent: Double {
        guard fecPacketsReceived > 0 else { return 0 }
        guard lossFraction > 0 else { return Double(LossAdaptation.maximumPercent) }
        let bitrate = senderBitsPerSecond ?? Double(MediaConfiguration.defaultBitrate)
        return Double(LossAdaptation.minimumPercent(bitsPerSecond: bitrate.isFinite ? Int(min(max(bitrate, 0), 1e9)) : 0))
    }

    /// The frame duration the Opus factors are looked up for, ms (the configured packet time).
    private var frameMs: Int { frameDurationMs.isFinite ? Int(min(max(frameDurationMs, 0), 120)) : 20 }

    /// The codec's impairment for the stream received: Opus at the bitrate it is sent at in its
    /// frames, its FEC plan's cost and robustness weighted by the share of packets carrying FEC.
    var codecImpairment: CodecImpairment {
        let bitrate = senderBitsPerSecond ?? Double(MediaConfiguration.defaultBitrate)
        let plain = CodecImpairment.playing(codec, opusBitsPerSecond: bitrate, frameDurationMs: frameMs)
        guard codec == .opus, packetsReceived > 0, fecPacketsReceived > 0 else { return plain }
        let share = min(Double(fecPacketsReceived) / Double(packetsReceived), 1)
        let withFEC = CodecImpairment.opus(bitsPerSecond: bitrate, fecPlannedLossPercent: farEndFECPlanPercent, frameDurationMs: frameMs)
        func blend(_ value: KeyPath<CodecImpairment, Double>) -> Double {
            plain[keyPath: value] + share * (withFEC[keyPath: value] - plain[keyPath: value])
        }
        return CodecImpairment(equipmentImpairment: blend(\.equipmentImpairment), packetLossRobustness: blend(\.packetLossRobustness),
                               weighsBursts: plain.weighsBursts)
    }
}
