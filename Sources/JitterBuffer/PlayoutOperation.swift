// SPDX-License-Identifier: Apache-2.0
/// One production step of the jitter buffer, as `DecisionLogic` chooses it and the operation
/// types carry it out (the operations of WebRTC NetEq, plus FEC recovery). Operations on a
/// packet decode it first; if its payload does not decode, its span is concealed instead.
enum PlayoutOperation: Equatable {
    /// Decode the packet due and play it as it is (`NormalOperation`).
    case normal(PacketStore.Slot)
    /// Decode the packet due right after concealment (`NormalOperation`, booked as a merge).
    case merge(PacketStore.Slot)
    /// Decode the packet due and remove pitch periods from it (`AccelerateOperation`), now or
    /// in the next quiet frame.
    case accelerate(PacketStore.Slot, AccelerateOperation.Extent, StretchUrgency)
    /// Decode the packet due and insert a pitch period into it (`PreemptiveExpandOperation`),
    /// now or in the next quiet frame.
    case preemptiveExpand(PacketStore.Slot, StretchUrgency)
    /// Decode the sender's DTX packet due: the decoder's comfort noise (`ComfortNoiseOperation`).
    case dtxComfortNoise(PacketStore.Slot)
    /// Conceal one frame (`ExpandOperation`).
    case expand(ExpandOperation.Progress)
    /// Rebuild the missing packet due from the in-band FEC that `carrier` (the packet after it)
    /// holds for it, `sampleCount` samples long (`FECRecoveryOperation`).
    case fecRecovery(carrier: PacketStore.Slot, sampleCount: Int)
    /// Comfort noise over a sender's DTX gap (`ComfortNoiseOperation`): `sampleCount` samples,
    /// `advancing` through a gap whose end is known, or waiting for the sender's next packet.
    case comfortNoise(sampleCount: Int, advancing: Bool)
}
