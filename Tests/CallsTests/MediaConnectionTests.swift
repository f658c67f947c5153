// SPDX-License-Identifier: Apache-2.0
import AudioDevicesTesting
import Foundation
import Locking
import MediaEngineTesting
import Testing
import TestSupport
import VoiceEngineKit

/// Issue 25: the call's media connection reaches the provider — an outgoing call is connected
/// once its DTLS-SRTP media is (without the app reporting it), and a handshake that fails
/// ends the call as failed, seen by observers with the reason.
@Suite(.timeLimit(.minutes(2))) struct MediaConnectionTests {
    /// What an observer saw, in order.
    final class Changes: Sendable {
        private let seen = Locked<[ObservedCall]>([])
        func append(_ call: ObservedCall) { seen.withLock { $0.append(call) } }
        func contains(_ predicate: (ObservedCall) -> Bool) -> Bool { seen.withLock { $0.contains(where: predicate) } }
        var all: [ObservedCall] { seen.withLock { $0 } }
    }

    /// A provider over an engine on a null device (its network thread runs the handshake), an
    /// outgoing call started through the controller, and a peer engine keyed against it.
    static func outgoingCall(peerExpects: CertificateFingerprint?) throws
        -> (provider: CallProvider, observer: CallObserver, changes: Changes, call: UUID, engines: [VoiceEngine])
    {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        configuration.realtimePriority = nil
        configuration.requiresAudioSession = true
        let engine = try VoiceEngine(configuration: configuration)
        var peerConfiguration = VoiceEngineConfiguration()
        peerConfiguration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        peerConfiguration.realtimePriority = nil
        let peer = try VoiceEngine(configuration: peerConfiguration)
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter(), media: engine))
        let delegate = RecordingDelegate()
        provider.setDelegate(delegate, queue: delegate.queue)
        let observer = CallObserver(provider: provider)
        let changes = Changes()
        observer.setHandler(queue: DispatchQueue(label: "MediaConnectionTests")) { call in changes.append(call) }
        let controller = CallController(provider: provider)
        let call = UUID()
        try controller.requestTransaction(with: StartCallAction(call: call, handle: CallHandle(kind: .generic, value: "sip:bob@127.0.0.1")))
        delegate.settle()

        let (ours, theirs) = try LoopbackSocketPair.make()
        let ourCertificate = try DTLSCertificate(), peerCertificate = try DTLSCertificate()
        let media = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake)
        try provider.addMedia(media, transport: CallTransport(rtp: ours, dtls: DTLSKeying(
            certificate: ourCertificate, configuration: .init(role: .client, remoteFingerprints: [peerCertificate.fingerprint]))), to: call)
        try peer.addCall(try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake),
                         transport: CallTransport(rtp: theirs, dtls: DTLSKeying(
                             certificate: peerCertificate,
                             configuration: .init(role: .server, remoteFingerprints: [peerExpects ?? ourCertificate.fingerprint]))))
        return (provider, observer, changes, call, [engine, peer])
    }

    static func wait(seconds: Double = 30, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    @Test func anOutgoingCallIsConnectedOnceItsMediaIs() throws {
        let (provider, observer, changes, call, engines) = try Self.outgoingCall(peerExpects: nil)
        defer { for engine in engines { engine.shutdown() } }
        #expect(Self.wait { provider.liveCalls.first?.mediaConnection == .connected }, "\(provider.liveCalls)")
        let observed = try #require(provider.liveCalls.first { $0.uuid == call })
        #expect(observed.hasConnected && observed.hasStartedConnecting, "connected without the app reporting it")
        #expect(Self.wait { changes.contains { $0.uuid == call && $0.hasConnected && $0.mediaConnection == .connected } })
        _ = observer
    }

    @Test func aFailedHandshakeEndsTheCallAsFailed() throws {
        let stranger = try DTLSCertificate()
        let (provider, observer, changes, call, engines) = try Self.outgoingCall(peerExpects: stranger.fingerprint)
        defer { for engine in engines { engine.shutdown() } }
        #expect(Self.wait { provider.liveCalls.isEmpty }, "the call ended: \(provider.liveCalls)")
        #expect(Self.wait { changes.contains { $0.uuid == call && $0.hasEnded && $0.endedReason == .failed } }, "\(changes.all)")
        #expect(!changes.contains { $0.hasConnected })
        _ = observer
    }
}
