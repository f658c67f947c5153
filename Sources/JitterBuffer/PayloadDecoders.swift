// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// One decoder per payload type the sender may use (RFC 3264: the answerer may switch among
/// the formats of the answer without a new offer), all made at `init`, and the one playing.
///
/// Playout switches decoders at the first packet of another payload type it decodes; the
/// decoder taken up is reset, as a decoder whose state belongs to an earlier stretch of the
/// call. Packets of codecs on another RTP clock cannot share the timeline: the buffer restarts
/// the stream instead (`AdaptiveJitterBuffer`). No allocation after `init`.
final class PayloadDecoders {
    /// A payload type and its codec's decoder.
    struct Entry {
        let payloadType: UInt8?
        let codec: AudioCodec
        let decoder: any AudioDecoder
    }

    private let entries: [Entry]
    /// The index of the decoder playing.
    private(set) var activeIndex = 0

    /// The decoders of `payloadTypes`, at `sampleRate`; with none, one decoder of `codec` plays
    /// every packet whatever its payload type. `codec` plays first.
    init(codec: AudioCodec, payloadTypes: [UInt8: AudioCodec], sampleRate: Int) throws(AudioCodecError) {
        if payloadTypes.isEmpty {
            entries = [Entry(payloadType: nil, codec: codec, decoder: try codec.makeDecoder(sampleRate: sampleRate))]
        } else {
            var made: [Entry] = []
            for payloadType in payloadTypes.keys.sorted() {
                let codec = payloadTypes[payloadType]!
                made.append(Entry(payloadType: payloadType, codec: codec, decoder: try codec.makeDecoder(sampleRate: sampleRate)))
            }
            entries = made
            activeIndex = made.firstIndex { $0.codec == codec } ?? 0
        }
    }

    /// `decoder` alone, for every payload type.
    init(_ decoder: any AudioDecoder) {
        entries = [Entry(payloadType: nil, codec: decoder.codec, decoder: decoder)]
    }

    /// The decoder playing.
    var active: any AudioDecoder { entries[activeIndex].decoder }

    /// The codec playing.
    var activeCodec: AudioCodec { entries[activeIndex].codec }

    /// The index of the decoder for `payloadType`, nil if the sender was not allowed to use it.
    func index(of payloadType: UInt8) -> Int? {
        if entries.count == 1 && entries[0].payloadType == nil { return 0 }
        return entries.firstIndex { $0.payloadType == payloadType }
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
