// SPDX-License-Identifier: Apache-2.0
// The embedding example of docs/embedding.md, compiled and run by EmbeddingExampleTests (which also
// checks that the page shows this text unchanged, between the markers).
// embedding-example:begin
import Foundation
import VoiceEngineKit

/// A softphone shaped as iOS apps write theirs: a VoIP push reports the call before its
/// completion; the user's answer waits until the signalling has the call's media ready; the
/// audio is set up and started in `didActivate`. One engine, gated by the call's audio session.
final class Softphone: ProviderDelegate, PushRegistryDelegate {
    let engine: VoiceEngine
    let provider: CallProvider
    let controller: CallController
    let pushes: PushRegistry
    let queue = DispatchQueue(label: "softphone")   // every delegate call arrives here
    private var calls: [String: UUID] = [:]          // the signalling's session id → call
    private var ready: Set<UUID> = []                // calls whose media is in the engine
    private var waitingAnswers: [UUID: AnswerCallAction] = [:]

    init(device: AudioDeviceOpener) throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = device                    // .alsa("default") on a real phone
        configuration.requiresAudioSession = true        // audio runs only while the call's session is active
        engine = try VoiceEngine(configuration: configuration)
        provider = try CallProvider(configuration: ProviderConfiguration(localizedName: "Softphone"),
                                    audio: CallAudioSystem(center: AudioSessionCenter(), media: engine))
        controller = CallController(provider: provider)
        pushes = PushRegistry(provider: provider, queue: queue)
        provider.setDelegate(self, queue: queue)
        pushes.delegate = self
        pushes.desiredPushTypes = [.voIP]
    }

    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {
        // Send credentials.token to the app's server.
    }

    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType,
                      completion: @escaping @Sendable () -> Void) {
        let session = payload.dictionaryPayload["sessionId"] as? String ?? UUID().uuidString
        let number = payload.dictionaryPayload["callerNumber"] as? String ?? "unknown"
        let call = UUID()
        calls[session] = call
        let update = CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: number))
        provider.reportNewIncomingCall(with: call, update: update, queue: queue) { _ in completion() }
    }

    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {}

    /// The signalling brought the caller's SDP offer for `session`: our answer (for the
    /// signalling to send back), and the call's media in the engine — address, keys, payload
    /// types, the caller's fmtp and ptime, and direction — so an answer waiting for it goes on.
    func mediaReady(session: String, offer: String) throws -> String {
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let local = LocalAudio(address: "127.0.0.1", port: socket.localEndpoint.port)
        let (answer, negotiated) = try SessionDescription(parsing: offer).answer(from: local) { .random(profile: $0) }
        try socket.setRemote(UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort))
        let media = try negotiated.makeCallMedia()
        try queue.sync { () throws in
            guard let call = calls[session] else { return }
            try provider.addMedia(media, transport: CallTransport(rtp: socket), to: call)
            ready.insert(call)
            try? waitingAnswers.removeValue(forKey: call)?.fulfill()
        }
        return answer.formatted
    }

    func provider(_ provider: CallProvider, perform action: AnswerCallAction) {
        // Answer the signalling (SIP 200 OK); fulfil once the media is ready.
        if ready.contains(action.callUUID) { try? action.fulfill() } else { waitingAnswers[action.callUUID] = action }
    }

    func provider(_ provider: CallProvider, perform action: EndCallAction) {
        // Hang up the signalling (SIP BYE), then:
        try? action.fulfill()                            // media removed; the session deactivates
    }

    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {
        try? audioSession.setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetoothHFP])
        try? engine.start()                              // already running: the activation started it
    }

    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) {
        engine.stop()
    }

    func providerDidReset(_ provider: CallProvider) {
        // Every call ended and audio was torn down: drop all call state (required, as in CallKit).
        calls.removeAll()
        ready.removeAll()
        waitingAnswers.removeAll()
    }
}
// embedding-example:end
