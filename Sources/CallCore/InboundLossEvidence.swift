// SPDX-License-Identifier: Apache-2.0
/// Whether the far end's stream has lost packets on its way to us, as evidence that the path
/// loses ours too, for the time before the far end's first report says so (`LossAdaptation`):
/// RFC 3550's cumulative loss after each packet accepted, counted only once it has stood for
/// `packetsBeforeLossStands` packets in a row, so a packet merely overtaken by later ones (the
/// gap it leaves is filled when it arrives) is not taken for a loss. A pure value, fed on the
/// network side.
struct InboundLossEvidence: Sendable, Equatable {
    /// Packets accepted in a row with loss counted before it stands: 200 ms at 20 ms packets,
    /// longer than a reordered packet is overtaken on the G.1050 classes.
    static let packetsBeforeLossStands = 10

    private var packetsWithLossCounted = 0

    /// Takes the cumulative loss after a packet was accepted; returns whether loss has now stood
    /// for `packetsBeforeLossStands` packets.
    mutating func observe(cumulativeLost: Int) -> Bool {
        packetsWithLossCounted = cumulativeLost > 0 ? packetsWithLossCounted + 1 : 0
        return packetsWithLossCounted >= Self.packetsBeforeLossStands
    }
}
