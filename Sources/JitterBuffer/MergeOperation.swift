/// Merge: the first decoded frame after concealment, crossfaded in from the concealed signal's
/// continuation (`ExpandOperation.tail`) over 2.5 ms, so the seam has no click.
struct MergeOperation {
    /// Where the merged frame goes.
    let queue: PlayoutQueue

    /// Crossfades the start of `frame` (decoded from `packet`) from `tail`, in place, and queues it.
    func run(_ frame: UnsafeMutableBufferPointer<Int16>, from tail: UnsafeBufferPointer<Int16>, packet: PacketStore.Slot,
             state: inout PlayoutState) {
        let length = min(tail.count, frame.count)
        for index in 0..<length {
            let weight = Double(index) / Double(length)
            frame[index] = Int16(clamping: Int((Double(tail[index]) * (1 - weight) + Double(frame[index]) * weight).rounded()))
        }
        queue.append(UnsafeBufferPointer(frame), kind: .merge, sequenceNumber: packet.rtpSequenceNumber, arrivalMs: packet.arrivalMs)
        state.finishProduction(.merge)
    }
}
