// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import RTP

/// The audio side's part of a call's inbound counters — playout from the jitter buffer, the
/// level of what was played, key presses, packets held back — as a plain value the audio
/// thread publishes after every frame. `merged(into:)` joins it with the network side's
/// reception counters into one `InboundRTPStatistics`.
struct InboundPlayout: Sendable, BitwiseCopyable {
    var jitterBuffer = JitterBufferStatistics()
    var targetDelayMs = 0.0
    var audioLevel = 0.0
    var totalAudioEnergy = 0.0
    var totalSamplesDuration = 0.0
    var sampleRate = 48_000
    var telephoneEventsReceived = 0
    var packetsReceivedWhileHeld = 0
    var malformedPackets = 0
    /// RFC 3611 burst and gap metrics of the packets received (RTCP XR, the quality estimate).
    var burstGap = BurstGapStatistics(gapThreshold: 16)

    /// `network`'s counters with this side's filled in.
    func merged(into network: InboundRTPStatistics) -> InboundRTPStatistics {
        var result = network
        result.packetsDiscarded = jitterBuffer.packetsDiscarded
        result.fecPacketsReceived = jitterBuffer.fecPacketsReceived
        result.fecPacketsRecovered = jitterBuffer.fecPacketsRecovered
        result.jitterBufferDelay = jitterBuffer.jitterBufferDelay
        result.jitterBufferTargetDelay = jitterBuffer.jitterBufferTargetDelay
        result.jitterBufferEmittedCount = jitterBuffer.jitterBufferEmittedCount
        result.jitterBufferTargetDelayMs = targetDelayMs
        result.concealedSamples = jitterBuffer.concealedSamples
        result.silentConcealedSamples = jitterBuffer.silentConcealedSamples
        result.samplesDecodedInSilence = jitterBuffer.samplesDecodedInSilence
        result.concealmentEvents = jitterBuffer.concealmentEvents
        result.insertedSamplesForDeceleration = jitterBuffer.insertedSamplesForDeceleration
        result.removedSamplesForAcceleration = jitterBuffer.removedSamplesForAcceleration
        result.audioLevel = audioLevel
        result.totalAudioEnergy = totalAudioEnergy
        result.totalSamplesDuration = totalSamplesDuration
        result.totalSamplesReceived = Int((totalSamplesDuration * Double(sampleRate)).rounded())
        result.telephoneEventsReceived = telephoneEventsReceived
        result.packetsReceivedWhileHeld = packetsReceivedWhileHeld
        result.malformedPackets += malformedPackets
        return result
    }
}
