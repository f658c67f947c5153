/// Normal: a decoded packet played as it is (also what accelerate and preemptive expand fall
/// back to when the frame has no period they may remove or insert).
struct NormalOperation {
    /// Where the frame goes.
    let queue: PlayoutQueue

    /// Queues `frame`, decoded from `packet`.
    func run(_ frame: UnsafeBufferPointer<Int16>, packet: PacketStore.Slot, state: inout PlayoutState) {
        queue.append(frame, kind: .normal, sequenceNumber: packet.rtpSequenceNumber, arrivalMs: packet.arrivalMs)
        state.finishProduction(.normal)
    }
}
