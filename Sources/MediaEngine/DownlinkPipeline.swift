import Opus
import RTP

/// Counters of what the downlink received and did, modelled on W3C WebRTC inbound-rtp stats.
/// Every datagram that is not played is counted under exactly one reason.
public struct DownlinkStatistics: Sendable, Equatable {
    /// Packets handed to the pipeline.
    public var packetsHandled = 0
    /// Valid RTP packets of the negotiated payload type.
    public var packetsReceived = 0
    /// Bytes of those RTP packets (headers included).
    public var bytesReceived = 0
    /// Packets never received, from sequence-number gaps.
    public var packetsLost = 0
    /// Packets that arrived after a later one had been played (dropped: no jitter buffer yet).
    public var packetsDiscarded = 0
    /// Packets too malformed for RTP to parse.
    public var malformedPackets = 0
    /// Packets of a payload type that was not negotiated.
    public var unknownPayloadTypePackets = 0
    /// Packets Opus could not decode.
    public var decodeFailures = 0
    /// Times the sender's SSRC changed (a new stream; decoding restarts).
    public var ssrcChanges = 0
    /// Lost frames rebuilt from the in-band FEC of the packet after them.
    public var fecRecoveredFrames = 0
    /// Samples synthesised by packet loss concealment.
    public var concealedSamples = 0
    /// Samples delivered to the listener, decoded and concealed.
    public var samplesPlayed = 0
}

/// One call's receive path: RTP packet (after `SRTPTransportStage`) → loss handling → Opus
/// → PCM frames.
///
/// Sans-I/O: the caller hands in each received packet; decoded frames are delivered to a
/// closure. Bad input is counted in `statistics` and dropped; it never throws or traps.
/// Packets are played in arrival order with loss concealment for gaps; the adaptive jitter
/// buffer replaces that policy. No heap allocation per packet. One thread at a time.
public final class DownlinkPipeline {
    /// What has been received so far.
    public private(set) var statistics = DownlinkStatistics()

    private let configuration: MediaConfiguration
    private let decoder: OpusDecoder
    private let frame: UnsafeMutableBufferPointer<Int16>
    private var currentSSRC: UInt32?
    private var nextSequenceNumber: UInt16 = 0

    /// Longest gap concealed frame by frame; a longer gap (an outage or a sender restart)
    /// conceals this much and resynchronises.
    public static let maximumConcealedFrames = 10

    /// A pipeline decoding what `configuration` negotiated.
    public init(configuration: MediaConfiguration) throws(MediaPipelineError) {
        do {
            try configuration.validate()
        } catch {
            throw .configuration(error)
        }
        self.configuration = configuration
        do {
            decoder = try OpusDecoder(sampleRate: configuration.sampleRate, channels: 1)
        } catch {
            throw .codec(error)
        }
        frame = .allocate(capacity: configuration.samplesPerFrame)
        frame.initialize(repeating: 0)
    }

    deinit {
        frame.deallocate()
    }

    /// Handles one received RTP packet and delivers the frames it yields (concealment for a
    /// gap before it, then its own audio) to `deliver`.
    public func receive(_ rtpPacket: UnsafeRawBufferPointer, deliver: (UnsafeBufferPointer<Int16>) -> Void) {
        statistics.packetsHandled += 1
        let packet: RTPPacketView
        do {
            packet = try RTPPacketView(rtpPacket)
        } catch {
            statistics.malformedPackets += 1
            return
        }
        guard packet.payloadType == configuration.payloadType else {
            statistics.unknownPayloadTypePackets += 1
            return
        }
        if packet.ssrc != currentSSRC {
            if currentSSRC != nil {
                statistics.ssrcChanges += 1
                try? decoder.reset()  // cannot fail on a decoder that exists
            }
            currentSSRC = packet.ssrc
            nextSequenceNumber = packet.sequenceNumber
        }
        let gap = Int(Int16(bitPattern: packet.sequenceNumber &- nextSequenceNumber))
        if gap < 0 {
            statistics.packetsDiscarded += 1
            return
        }
        statistics.packetsReceived += 1
        statistics.bytesReceived += rtpPacket.count
        let payload = packet.payload
        if gap > 0 {
            statistics.packetsLost += gap
            concealGap(ofFrames: min(gap, Self.maximumConcealedFrames), before: payload, deliver: deliver)
        }
        nextSequenceNumber = packet.sequenceNumber &+ 1
        do {
            let samples = try decoder.decode(payload, into: frame)
            statistics.samplesPlayed += samples
            deliver(UnsafeBufferPointer(rebasing: frame[0..<samples]))
        } catch {
            statistics.decodeFailures += 1
        }
    }

    /// Conceals `frames` lost frames; the last one is rebuilt from the in-band FEC of the
    /// packet that follows the gap when that packet carries it (Opus falls back to PLC).
    private func concealGap(ofFrames frames: Int, before payload: UnsafeRawBufferPointer, deliver: (UnsafeBufferPointer<Int16>) -> Void) {
        for index in 0..<frames {
            do {
                let samples: Int
                if index == frames - 1 && configuration.inbandFEC && carriesFEC(payload) {
                    samples = try decoder.decodeFEC(from: payload, into: frame)
                    statistics.fecRecoveredFrames += 1
                } else {
                    samples = try decoder.conceal(into: frame)
                    statistics.concealedSamples += samples
                }
                statistics.samplesPlayed += samples
                deliver(UnsafeBufferPointer(rebasing: frame[0..<samples]))
            } catch {
                statistics.decodeFailures += 1
            }
        }
    }

    private func carriesFEC(_ payload: UnsafeRawBufferPointer) -> Bool {
        (try? OpusPacketInfo(packet: payload, sampleRate: configuration.sampleRate))?.hasFEC ?? false
    }
}
