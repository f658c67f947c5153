// SPDX-License-Identifier: Apache-2.0
/// What the jitter buffer did to produce a tick's audio.
public enum PlayoutKind: Sendable, Hashable {
    /// A packet decoded as is.
    case normal
    /// Opus packet-loss concealment: the next packet was missing.
    case expand
    /// A lost packet recovered from the in-band FEC of the packet after it.
    case fecRecovery
    /// A packet decoded and shortened by one pitch period (buffer above target).
    case accelerate
    /// A packet decoded and lengthened by one pitch period (buffer below target).
    case preemptiveExpand
    /// The first packet after concealment, joined to it by the decoder.
    case merge
    /// Silence: a sender's DTX gap (timestamps jump, sequence numbers contiguous), or
    /// nothing received yet.
    case comfortNoise
}
