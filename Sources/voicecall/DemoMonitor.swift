// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine

/// One direction's figures at one moment: a status line, a point of the plots, a JSON sample.
struct DemoSample: Codable, Equatable {
    /// Call time, s.
    var seconds: Double
    /// SRTP bitrate on the wire over the last interval, kb/s.
    var bitrateKbps: Double
    /// Packets lost so far over packets expected, %.
    var lossPercent: Double
    /// Interarrival jitter (RFC 3550), ms.
    var jitterMs: Double
    /// Mean time received audio waited in the jitter buffer over the last interval, ms.
    var bufferDelayMs: Double?
    /// Mean one-way network delay the simulator gave over the last interval, ms (nil: none).
    var networkDelayMs: Double?
    /// The receiver's conversational MOS estimate (nil until it has one).
    var mos: Double?
    /// Echo suppression at the sender's microphone (the canceller's ERLE), dB (nil until the
    /// far end has talked into an echo path).
    var echoSuppressionDb: Double?
    /// Sender's processed microphone level, dBFS (peak of the last 100 ms).
    var sendLevelDbfs: Double
    /// Receiver's playout level, dBFS.
    var receiveLevelDbfs: Double
}

/// Turns successive counters of one direction into samples (rates over each interval).
struct DemoDirectionMonitor {
    /// "alice"/"bob".
    let from: String, to: String
    private(set) var samples: [DemoSample] = []
    private var previousBytes = 0
    private var previousDelay = 0.0
    private var previousEmitted = 0
    private var previousSeconds = 0.0
    private var delayedUpTo = 0

    init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    /// Records the figures at `seconds` of the call; `delays` are the network path's applied
    /// delays so far (send time ms, delay ms), read from where the last sample stopped.
    mutating func sample(seconds: Double, sender: CallMediaStatistics, receiver: CallMediaStatistics,
                         senderSource: MediaSourceStatistics, delays: [(sendMs: Double, delayMs: Double)]) -> DemoSample {
        let interval = max(seconds - previousSeconds, 1e-3)
        let bytes = sender.transport.bytesSent
        let inbound = receiver.inbound
        let emitted = inbound.jitterBufferEmittedCount - previousEmitted
        let bufferDelay = emitted > 0 ? (inbound.jitterBufferDelay - previousDelay) / Double(emitted) * 1_000 : samples.last?.bufferDelayMs
        let expected = inbound.packetsReceived + max(inbound.packetsLost, 0)
        var network: Double?
        if delayedUpTo < delays.count {
            let recent = delays[delayedUpTo...]
            network = recent.reduce(0) { $0 + $1.delayMs } / Double(recent.count)
            delayedUpTo = delays.count
        }
        let sample = DemoSample(
            seconds: seconds,
            bitrateKbps: Double(bytes - previousBytes) * 8 / interval / 1_000,
            lossPercent: expected > 0 ? Double(max(inbound.packetsLost, 0)) / Double(expected) * 100 : 0,
            jitterMs: inbound.jitter * 1_000,
            bufferDelayMs: bufferDelay,
            networkDelayMs: network,
            mos: receiver.quality?.meanOpinionScore,
            echoSuppressionDb: senderSource.echoReturnLossEnhancement,
            sendLevelDbfs: Self.dbfs(senderSource.audioLevel),
            receiveLevelDbfs: Self.dbfs(inbound.audioLevel))
        previousBytes = bytes
        previousDelay = inbound.jitterBufferDelay
        previousEmitted = inbound.jitterBufferEmittedCount
        previousSeconds = seconds
        samples.append(sample)
        return sample
    }

    /// A 0…1 level in dBFS, floored at -90.
    static func dbfs(_ level: Double) -> Double { level > 0 ? max(20 * log10(level), -90) : -90 }
}
