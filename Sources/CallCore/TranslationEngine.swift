// SPDX-License-Identifier: Apache-2.0
/// Speech translation for a call's uplink (`SetTranslatingCallAction`): while a call
/// translates, the processed microphone goes to the engine instead of the far end, and what
/// the engine speaks is encoded and sent — also while the call is muted, since muting holds
/// back only the raw microphone.
///
/// Both methods are called on the audio thread once per frame, so they must not block,
/// lock or allocate. A real translator (speech recognition → machine translation → speech
/// synthesis) runs its models on threads of its own and exchanges audio with these two calls
/// through preallocated single-producer/single-consumer rings: `consume` writes the
/// microphone into one, `produce` reads synthesized speech from the other. It plugs in with
/// `CallMedia.translate(with:)`.
public protocol TranslationEngine: AnyObject {
    /// Hands over one processed microphone frame (the call's rate, mono).
    func consume(microphone: UnsafeBufferPointer<Int16>)
    /// Writes the next frame of translated speech into `frame` and returns true, or returns
    /// false when there is nothing to say (silence is sent).
    func produce(into frame: UnsafeMutableBufferPointer<Int16>) -> Bool
}
