// SPDX-License-Identifier: Apache-2.0
import CallQuality

/// What the buffer's target delay weighs, in the wideband E-model's terms (G.107.1, rating
/// points R_WB): the delay impairment of the call's whole mouth-to-ear delay against what the
/// packets played too late cost the listener.
///
/// The target is the relative delay that costs least: `Id,WB(delay + delayOutsideBufferMs)`
/// plus `(129 − Ie,WB) / Bpl,WB` points per percent of late packets — the E-model's price of the
/// first percent of loss for `codec`, the same for every percent (`benchmarks listening`: the
/// E-model's own price, falling with each further percent, concealed 5–16 % of the audio on
/// the G.1050 E and F networks and cost their listeners 0.2–0.6 PESQ). Below about 150 ms mouth-to-ear a
/// percent of late Opus packets costs as much as 480 ms of delay; past G.107's knee (177 ms) a
/// millisecond costs five times as much, so on a slow path the target stops chasing the tail.
/// The delay curve's slope is never let fall: G.107's flattens past about 250 ms, where a
/// conversation is already broken, and a buffer following it there climbed to its maximum
/// (1 s on G.1050 F).
public struct PlayoutDelayPricing: Sendable, Equatable {
    /// The codec as played: its Ie,WB and Bpl,WB price a percent of late packets.
    public var codec: CodecImpairment
    /// Mouth-to-ear delay outside the buffer's own relative delay, in ms: the fastest packet's
    /// one-way network delay, the packet's frame, the codec's look-ahead, the device periods
    /// of both ends. 0…10 000.
    public var delayOutsideBufferMs: Double

    /// What a call's two ends add to mouth-to-ear delay besides the network and the jitter
    /// buffer, in ms: a 20 ms frame, Opus's 6.5 ms look-ahead and a 10 ms device period at each
    /// end (46.5).
    public static let endpointDelayMs = 46.5

    /// Opus at 24 kb/s, and 66.5 ms outside the buffer: `endpointDelayMs` and 20 ms of network.
    public init(codec: CodecImpairment = .opus(bitsPerSecond: 24_000), delayOutsideBufferMs: Double = endpointDelayMs + 20) {
        self.codec = codec
        self.delayOutsideBufferMs = delayOutsideBufferMs
    }

    /// R_WB points one percent of late packets costs: the slope of Ie,eff,WB at no loss.
    var ratingPerLatePercent: Double {
        (WidebandEModel.maximumRating - codec.equipmentImpairment) / codec.packetLossRobustness
    }

    /// Whether every field is in range (see each field; Ie,WB 0…128, Bpl,WB 1…1 000).
    var isValid: Bool {
        let ie = codec.equipmentImpairment, bpl = codec.packetLossRobustness
        return (0...10_000).contains(delayOutsideBufferMs) && (0...128).contains(ie) && (1...1_000).contains(bpl)
    }

    /// Writes into `table[i]` the delay impairment Id,WB of a relative delay of
    /// `(i + 1) × bucketMs` (its slope never falling: see the type). Allocates nothing.
    func fillDelayImpairment(_ table: UnsafeMutableBufferPointer<Double>, bucketMs: Double) {
        var previousImpairment = WidebandEModel(mouthToEarMs: delayOutsideBufferMs).delayImpairment
        var price = previousImpairment
        var slope = 0.0
        for index in 0..<table.count {
            let impairment = WidebandEModel(mouthToEarMs: delayOutsideBufferMs + Double(index + 1) * bucketMs).delayImpairment
            slope = max(slope, impairment - previousImpairment)
            previousImpairment = impairment
            price += slope
            table[index] = price
        }
    }
}
