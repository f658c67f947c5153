// SPDX-License-Identifier: Apache-2.0
/// What an `AdaptiveJitterBuffer` does when the packet due next is missing but later ones are
/// stored (usually it was overtaken: reordered by jitter larger than the packet interval).
public enum LatePacketPolicy: Sendable, Equatable {
    /// Rebuild it at once from the next packet's in-band FEC when that packet carries FEC for
    /// it; otherwise wait for it (as `waitForPacket`). The listener hears the sender's own
    /// (lower-rate) coding of the frame with no concealment and no added delay: the default.
    case recoverFromFECFirst
    /// Wait for the packet's own payload (up to 80 ms, while recent delays went that far), and
    /// only then fall back to FEC or concealment. Loses fewer packets' own payloads, at the price
    /// of more concealed ticks and delay.
    case waitForPacket
}
