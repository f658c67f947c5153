// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// One decoder per payload type the sender may use (RFC 3264: the answerer may switch among
/// the formats of the answer without a new offer), made off the audio thread, and the one
/// playing.
///
/// Playout switches decoders at the first packet of another payload type it decodes; the
/// decoder taken up is reset, as a decoder whose state belongs to an earlier stretch of the
/// call. A codec switch of our own replaces the whole set by `exchange`. No allocation or
/// release on the audio thread.
final class PayloadDecoders {
    /// A payload type and its codec's decoder.
    struct Entry {
        /// The payload type, or `anyPayloadType`. Searched with a plain index loop: a
        /// `firstIndex(where:)` over these entries allocated per entry in unoptimised builds.
        let payloadType: Int
        let codec: AudioCodec
        let decoder: any AudioDecoder
    }

    /// The entry of a buffer without payload types: every packet is its codec.
    static let anyPayloadType = -1

    private var entries: [Entry]
    /// The index of the decoder playing.
    private(set) var activeIndex = 0
    /// Whether the last `exchange` kept the decoder that was playing.
    private(set) var isActiveKept = true

    /// The decoders of `prepared`; its codec plays first.
    init(_ prepared: PreparedDecoders) {
        entries = prepared.entries
        activeIndex = entries.firstIndex { $0.codec == prepared.codec } ?? 0
    }

    /// `decoder` alone, for every payload type.
    init(_ decoder: any AudioDecoder) {
        entries = [Entry(payloadType: Self.anyPayloadType, codec: decoder.codec, decoder: decoder)]
    }

    /// The decoders, as a set to keep some of in the next one.
    var prepared: PreparedDecoders { PreparedDecoders(entries: entries, codec: activeCodec) }

    /// Takes `prepared`'s decoders and gives these back in it (arrays swapped, nothing freed).
    /// The decoder playing goes on if `prepared` kept it; otherwise its codec's does, from a reset.
    func exchange(_ prepared: inout PreparedDecoders) {
        let playing = active
        swap(&entries, &prepared.entries)
        var kept: Int?, first: Int?
        for index in entries.indices {
            if entries[index].decoder === playing { kept = index }
            if first == nil && entries[index].codec == prepared.codec { first = index }
        }
        if let kept {
            activeIndex = kept
            isActiveKept = true
        } else {
            activeIndex = first ?? 0
            isActiveKept = false
            entries[activeIndex].decoder.reset()
        }
    }

    /// The decoder playing.
    var active: any AudioDecoder { entries[activeIndex].decoder }

    /// The codec playing.
    var activeCodec: AudioCodec { entries[activeIndex].codec }

    /// The index of the decoder for `payloadType`, nil if the sender was not allowed to use it.
    func index(of payloadType: UInt8) -> Int? {
        if entries.count == 1 && entries[0].payloadType == Self.anyPayloadType { return 0 }
        let wanted = Int(payloadType)
        for index in entries.indices where entries[index].payloadType == wanted { return index }
        return nil
    }

    /// The decoder at `index`.
    func decoder(at index: Int) -> any AudioDecoder { entries[index].decoder }

    /// The codec at `index`.
    func codec(at index: Int) -> AudioCodec { entries[index].codec }

    /// Makes the decoder at `index` the one playing; returns whether it changed (the new one is
    /// reset then).
    @discardableResult
    func activate(_ index: Int) -> Bool {
        guard index != activeIndex else { return false }
        activeIndex = index
        entries[index].decoder.reset()
        return true
    }

    /// Resets the decoder playing (a new stream or a discontinuity).
    func resetActive() { active.reset() }
}

/// A jitter buffer's decoders made off the audio thread for a codec switch
/// (`AdaptiveJitterBuffer.prepareDecoders(for:reusing:)`), and what the switch gives back.
package struct PreparedDecoders {
    var entries: [PayloadDecoders.Entry]
    /// The codec that plays first (the one the call sends and expects).
    var codec: AudioCodec
}
