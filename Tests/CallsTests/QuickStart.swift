// SPDX-License-Identifier: Apache-2.0
// The README's quick start, compiled and run by EmbeddingExampleTests (which also checks that
// the README shows this text unchanged, between the markers).
// quick-start:begin
import VoiceEngineKit

/// Answers the SDP offer a SIP stack received and starts the call's audio on `engine`.
/// Returns our answer (the body of the SIP 200 OK) and the engine's handle of the call.
func answerCall(offer: String, on engine: VoiceEngine, address: String) throws -> (answer: String, call: EngineCallID) {
    // Where the caller will send: a UDP port of our own, written into the answer.
    let socket = try UDPSocket(bindingTo: UDPEndpoint(host: address, port: 0))
    let local = LocalAudio(address: address, port: socket.localEndpoint.port)
    // Offer/answer: payload types, SRTP suite and keys, packet time, direction.
    let (answer, negotiated) = try SessionDescription(parsing: offer).answer(from: local) { .random(profile: $0) }
    // What it settled becomes the call's media in one step; the caller's address is its peer.
    let media = try negotiated.makeCallMedia()
    try socket.setRemote(UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort))
    let call = try engine.addCall(media, transport: CallTransport(rtp: socket))
    try engine.start()  // the microphone to the caller, the caller to the loudspeaker
    return (answer.formatted, call)
}
// quick-start:end
