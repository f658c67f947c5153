// SPDX-License-Identifier: Apache-2.0
/// Normal: a decoded packet played as it is (also what accelerate and preemptive expand fall
/// back to when the frame has no period they may remove or insert). Right after concealment it
/// is booked as a merge: libopus fades the decoded frame in from its own concealment, so the
/// seam needs nothing of ours.
struct NormalOperation {
    /// Where the frame goes.
    let queue: PlayoutQueue

    /// Queues `frame`, decoded from `packet`, booked as `kind` (`.normal` or `.merge`).
    func run(_ frame: UnsafeBufferPointer<Int16>, packet: PacketStore.Slot, kind: PlayoutKind = .normal,
             state: inout PlayoutState) {
        queue.append(frame, kind: kind, sequenceNumber: packet.rtpSequenceNumber, arrivalMs: packet.arrivalMs)
        state.finishProduction(kind)
    }
}
