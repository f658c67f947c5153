// The README's "Embedding" example, compiled and run by EmbeddingExampleTests (which also
// checks that the README shows this text unchanged, between the markers).
// embedding-example:begin
import AudioSession
import Calls
import Foundation
import MediaEngine
import SRTP
import Transport

/// A softphone as an app wires it: one engine, gated by the call's audio session, driven by a
/// CallKit-style provider; the app's signalling (SIP, or anything) calls `incoming` and the
/// provider calls the delegate back.
final class Softphone: ProviderDelegate {
    let engine: VoiceEngine
    let provider: CallProvider
    let controller: CallController

    init(device: AudioDeviceOpener) throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = device                    // .alsa("default") on a real phone
        configuration.requiresAudioSession = true        // audio runs only while the call's session is active
        engine = try VoiceEngine(configuration: configuration)
        provider = try CallProvider(configuration: ProviderConfiguration(),
                                    audio: CallAudioSystem(center: AudioSessionCenter(), media: engine))
        controller = CallController(provider: provider)
        provider.setDelegate(self, queue: DispatchQueue(label: "softphone"))
    }

    /// The signalling says a call arrived (its SDP gave the peer's address and key): it rings,
    /// and its media waits in the engine for the session.
    func incoming(_ call: UUID, from number: String, peer: UDPEndpoint,
                  peerKey: SRTPKeyingMaterial, myKey: SRTPKeyingMaterial) throws {
        try provider.reportNewIncomingCall(with: call, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: number)))
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.setRemote(peer)
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: myKey, receivingKey: peerKey)
        try provider.addMedia(media, transport: CallTransport(rtp: socket), to: call)
    }

    func provider(_ provider: CallProvider, perform action: AnswerCallAction) {
        // Answer the signalling (SIP 200 OK), then:
        try? action.fulfill()                            // the system activates the call's session
    }

    func provider(_ provider: CallProvider, perform action: EndCallAction) {
        // Hang up the signalling (SIP BYE), then:
        try? action.fulfill()                            // media removed; the session deactivates
    }

    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {
        // Media runs from here, and only from here: the engine's device I/O started.
    }

    func providerDidReset(_ provider: CallProvider) {
        // Every call ended and audio was torn down: drop all call state (required, as in CallKit).
    }
}
// embedding-example:end
