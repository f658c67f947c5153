// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import AudioProcessing
import AudioSession
import Calls
import Dispatch
import Foundation
import Locking
import MediaEngine

/// One softphone of the demo, as an app on a phone is built: its own audio session registry
/// (`AudioSessionCenter`), its own CallKit-style provider and controller, and the device I/O
/// its call session starts — a `VoiceEngine` configured with `requiresAudioSession` (real
/// time), or the virtual-clock loop's gate (`DemoTickedIO`, `--fast`).
final class DemoSoftphone: Sendable {
    /// "alice" or "bob".
    let name: String
    /// This phone's audio sessions.
    let center: AudioSessionCenter
    /// The system side of calls.
    let provider: CallProvider
    /// How the app asks for calls to start, be answered and end.
    let controller: CallController
    /// The app's provider delegate.
    let delegate: DemoPhoneDelegate
    /// What the call session starts.
    let io: any AudioSessionIO

    /// A phone whose call session starts `io`; `log` hears what its delegate is told. With
    /// `ringtone`, incoming calls ring on a null device (no sound card), in their own session.
    convenience init(name: String, io: any AudioSessionIO, ringtone: String? = nil, log: @escaping @Sendable (String) -> Void) throws(DemoFlowError) {
        try self.init(name: name, io: io, media: nil, ringtone: ringtone, log: log)
    }

    /// A phone whose call session starts `engine`, which its calls' media join.
    convenience init(name: String, engine: VoiceEngine, ringtone: String? = nil, log: @escaping @Sendable (String) -> Void) throws(DemoFlowError) {
        try self.init(name: name, io: engine, media: engine, ringtone: ringtone, log: log)
    }

    private init(name: String, io: any AudioSessionIO, media: (any CallMediaHost)?, ringtone: String?,
                 log: @escaping @Sendable (String) -> Void) throws(DemoFlowError) {
        self.name = name
        self.io = io
        center = AudioSessionCenter()
        do {
            let configuration = try ProviderConfiguration(ringtonePath: ringtone)
            let ringer = configuration.ringtone.map { RingtonePlayer(ringtone: $0, device: AudioDeviceOpener(name: "\(name)-ringer", backend: VirtualAudioDevice.null())) }
            let audio = if let media { CallAudioSystem(center: center, media: media, ringer: ringer) }
                else { CallAudioSystem(center: center, callIO: io, ringer: ringer) }
            provider = try CallProvider(configuration: configuration, audio: audio)
        } catch {
            throw .provider("\(name): \(error)")
        }
        controller = CallController(provider: provider)
        delegate = DemoPhoneDelegate(name: name, log: log)
        provider.setDelegate(delegate, queue: delegate.queue)
    }

    /// Asks the provider for `action` and waits until the delegate has performed it.
    func request(_ action: CallAction) throws(DemoFlowError) {
        do {
            try controller.requestTransaction(with: action)
        } catch {
            throw .provider("\(name): \(action) refused: \(error)")
        }
        delegate.settle()
    }

    /// Waits up to `seconds` for the call session to be active (didActivate told).
    func waitUntilActive(seconds: Double = 5) throws(DemoFlowError) {
        let deadline = Date().addingTimeInterval(seconds)
        while !(delegate.isActive && io.isRunningIO) {
            guard Date() < deadline else {
                throw .provider("\(name): the call audio session did not activate" + (io.probeDevice().map { ": \($0)" } ?? ""))
            }
            delegate.settle()
            usleep(2_000)
        }
    }
}

/// The app's side of a demo softphone: fulfils starting, answering and ending calls (media and
/// signalling are ready by the time it is asked), and tells the log what happened.
final class DemoPhoneDelegate: ProviderDelegate, Sendable {
    /// The serial queue the provider calls it on.
    let queue: DispatchQueue
    private let name: String
    private let log: @Sendable (String) -> Void
    private let active = Locked(false)

    init(name: String, log: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.log = log
        queue = DispatchQueue(label: "voicecall.demo.\(name)")
    }

    /// Whether the provider said didActivate more recently than didDeactivate.
    var isActive: Bool { active.withLock { $0 } }

    /// Waits until what was posted to the delegate so far has run, and what that posted too.
    func settle() {
        for _ in 0..<4 { queue.sync {} }
    }

    func providerDidReset(_ provider: CallProvider) { active.withLock { $0 = false } }
    func provider(_ provider: CallProvider, perform action: StartCallAction) {
        log("\(name): start call performed")
        try? action.fulfill()
    }
    func provider(_ provider: CallProvider, perform action: AnswerCallAction) {
        log("\(name): answer performed")
        try? action.fulfill()
    }
    func provider(_ provider: CallProvider, perform action: EndCallAction) {
        log("\(name): end call performed")
        try? action.fulfill()
    }
    // Logged before the state changes: the flow waits on the state, and a flow that saw it
    // change before the line was written ended its log without the line (CI, under load).
    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {
        log("\(name): didActivate — the call audio session is active, device I/O runs")
        active.withLock { $0 = true }
    }
    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) {
        log("\(name): didDeactivate — device I/O stopped")
        active.withLock { $0 = false }
    }
}
