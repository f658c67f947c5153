// SPDX-License-Identifier: Apache-2.0
// Module Opus — Swift wrappers for libopus (Debian's 1.3.1) for the real-time voice path.
//
// Three layers, as for every C library in VoiceEngine:
//  1. `COpus` (module map for <opus.h>) and `COpusShims` (one C function per
//     opus_encoder_ctl / opus_decoder_ctl request, because the ctl calls are variadic);
//  2. `EncoderHandle` / `DecoderHandle` (internal): own the C object, free it in `deinit`,
//     and turn every libopus status code into a typed `OpusError`;
//  3. the public API — `OpusEncoder`, `OpusDecoder`, `OpusPacketInfo` and the setting enums —
//     which exposes no C type.
//
// Real-time rule: `encode`, `decode`, `decodeFEC`, `conceal` and `OpusPacketInfo.init` do not
// allocate on the heap. They work only on buffers the caller provides (and allocate nothing on
// success; the error path may build a message string).
//
// Thread rule: an encoder or decoder is a single-threaded object. It is `Sendable` so that it
// can be created on a control thread and handed to the audio thread, but every call on one
// instance (encode/decode and settings alike) must be serialized by the caller — normally all
// made from the audio thread, with new settings passed to it through an atomic or a ring.
