// SPDX-License-Identifier: Apache-2.0
import CallCore
import SessionDescription

extension CallMedia {
    /// Makes a running call ready for the codecs our re-offer lists before its answer comes:
    /// the answerer may start sending any of them as soon as it answers, and its media often
    /// outruns the answer's signalling. The call keeps sending its codec and plays every codec
    /// of `offer` from now on (`alternativeReceiveCodecs`; a payload type it uses already keeps
    /// its codec). Apply the answer with `NegotiatedAudio.apply(to:replacing:)` when it comes.
    /// - Throws: `.media` when the call cannot make a decoder for one of them.
    public func prepareToReceive(_ offer: SessionDescription) throws(CallNegotiationError) {
        var next = configuration
        for (codec, map) in offer.audio?.codecs ?? []
        where map.payloadType != next.payloadType && map.payloadType != next.telephoneEventPayloadType {
            next.alternativeReceiveCodecs[map.payloadType] = codec
        }
        do {
            try switchCodec(to: next)
        } catch {
            throw .media(error)
        }
    }
}
