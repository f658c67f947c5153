// SPDX-License-Identifier: Apache-2.0
/// Takes the linear echo filter out of the signal while no echo path is present
/// (`EchoPathPresence`) and puts it back when one appears, crossfading over one frame so the
/// switch never clicks: the output is weight × filter output + (1 − weight) × microphone, the
/// weight moving linearly from where it was to 1 (present) or 0 (absent) across the frame.
///
/// Why not the filter's output always: with no echo path, speexdsp's filter still adapts
/// whenever the far end plays, above all while the near end talks over it, and subtracts the
/// far end filtered by a path that does not exist — a new echo of the far end in the uplink
/// (measured at 48 kHz with both talking: −10 dB, the output correlating 0.947 with the
/// microphone). Why not a partial weight from how much of the filter's estimate the microphone
/// holds (a least-squares share, tried): with a real echo that share reads 0.85–0.94, and
/// scaling the estimate by it caps the linear filter at 16–24 dB of cancellation (the demo's
/// echo suppression fell from 33 to 18 dB); without an echo it reads 0.6, since the filter fits
/// the near end's chance correlation with the far end.
struct EchoFilterBypass {
    private let frameCount: Int
    /// The filter's weight at the end of the last frame: 0 at first (the path starts undecided,
    /// the microphone passes).
    private(set) var weight = 0.0

    init(frameCount: Int) {
        self.frameCount = frameCount
    }

    /// Replaces `output` (the filter's output for `microphone`, `frameCount` samples each) with
    /// the crossfade toward the filter (`present`) or the microphone.
    mutating func apply(microphone: UnsafePointer<Int16>, output: UnsafeMutablePointer<Int16>, present: Bool) {
        let target = present ? 1.0 : 0.0
        if weight == target {
            if !present { output.update(from: microphone, count: frameCount) }
            return
        }
        let step = (target - weight) / Double(frameCount)
        for index in 0..<frameCount {
            let filter = weight + step * Double(index + 1)
            let value = filter * Double(output[index]) + (1 - filter) * Double(microphone[index])
            output[index] = Int16(clamping: Int(value.rounded()))
        }
        weight = target
    }

    /// Back to the microphone (the path starts undecided again).
    mutating func reset() { weight = 0 }
}
