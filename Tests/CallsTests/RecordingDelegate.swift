// SPDX-License-Identifier: Apache-2.0
import AudioSession
@testable import Calls
import Dispatch
import Foundation
import Locking
import MediaEngine
import Testing
import AudioDevices

/// A provider delegate that records what it is told, in order, on its own serial queue, and
/// answers actions as `respond` says (nil: leaves them pending for the test).
final class RecordingDelegate: ProviderDelegate {
    enum Event: Equatable, CustomStringConvertible {
        case began, reset, activated, deactivated
        case perform(String, UUID)
        case timedOut(String, UUID)

        var description: String {
            switch self {
            case .began: "began"
            case .reset: "reset"
            case .activated: "activated"
            case .deactivated: "deactivated"
            case let .perform(kind, uuid): "perform \(kind) \(uuid.uuidString.prefix(4))"
            case let .timedOut(kind, uuid): "timedOut \(kind) \(uuid.uuidString.prefix(4))"
            }
        }
    }

    enum Response: Sendable { case fulfill, fail }

    let queue = DispatchQueue(label: "RecordingDelegate")
    private let log = Locked<[Event]>([])
    private let performed = Locked<[CallAction]>([])
    private let respond: @Sendable (CallAction) -> Response?

    init(respond: @escaping @Sendable (CallAction) -> Response? = { _ in .fulfill }) {
        self.respond = respond
    }

    var events: [Event] { log.withLock { $0 } }
    var actions: [CallAction] { performed.withLock { $0 } }
    /// The actions performed and still pending.
    var pending: [CallAction] { actions.filter { !$0.isComplete } }

    /// Waits until everything posted to the delegate so far has run, and what that posted too.
    func settle() {
        for _ in 0..<8 { queue.sync {} }
    }

    private func record(_ event: Event) { log.withLock { $0.append(event) } }

    private func handle(_ action: CallAction) {
        performed.withLock { $0.append(action) }
        record(.perform(action.kind.rawValue, action.callUUID))
        switch respond(action) {
        case .fulfill: try? action.fulfill()
        case .fail: try? action.fail()
        case nil: break
        }
    }

    func providerDidBegin(_ provider: CallProvider) { record(.began) }
    func providerDidReset(_ provider: CallProvider) { record(.reset) }
    func provider(_ provider: CallProvider, perform action: StartCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: AnswerCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: EndCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: SetHeldCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: SetMutedCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: SetGroupCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction) { handle(action) }
    func provider(_ provider: CallProvider, perform action: SetTranslatingCallAction) { handle(action) }
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) { record(.timedOut(action.kind.rawValue, action.callUUID)) }
    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) { record(.activated) }
    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) { record(.deactivated) }
}

/// A provider over fake I/O on a manual clock, its controller, and a recording delegate.
struct Harness {
    let center = AudioSessionCenter()
    let io = FakeIO()
    let ringer = FakeIO(records: false)
    let clock = ManualCallClock()
    let provider: CallProvider
    let controller: CallController
    let delegate: RecordingDelegate
    let changes = ChangeLog()

    /// A real engine as the call session's I/O instead of `io`, when given.
    let engine: VoiceEngine?

    init(configuration: ProviderConfiguration? = nil, engine: VoiceEngine? = nil,
         respond: @escaping @Sendable (CallAction) -> RecordingDelegate.Response? = { _ in .fulfill }) throws {
        self.engine = engine
        let configuration = try configuration ?? ProviderConfiguration(ringtonePath: Fixtures.ringtonePath)
        let audio = if let engine { CallAudioSystem(center: center, media: engine, ringer: ringer) } else { CallAudioSystem(center: center, callIO: io, ringer: ringer) }
        provider = try CallProvider(configuration: configuration, audio: audio, clock: clock)
        controller = CallController(provider: provider)
        delegate = RecordingDelegate(respond: respond)
        provider.setDelegate(delegate, queue: delegate.queue)
        let changes = self.changes
        controller.callObserver.setHandler(queue: delegate.queue) { changes.append($0) }
        delegate.settle()
    }

    /// Requests `actions` as one transaction and lets the delegate run.
    func request(_ actions: CallAction...) throws(RequestTransactionError) {
        try controller.requestTransaction(with: actions)
        delegate.settle()
    }

    /// Reports an incoming call and lets the delegate run.
    @discardableResult
    func incoming(_ update: CallUpdate = CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "+4930123"))) throws(IncomingCallError) -> UUID {
        let uuid = UUID()
        try provider.reportNewIncomingCall(with: uuid, update: update)
        delegate.settle()
        return uuid
    }

    /// Starts an outgoing call and lets the delegate run.
    @discardableResult
    func outgoing() throws(RequestTransactionError) -> UUID {
        let uuid = UUID()
        try request(StartCallAction(call: uuid, handle: CallHandle(kind: .generic, value: "sip:bob@example.org")))
        return uuid
    }

    func advance(_ seconds: Double) {
        clock.advance(by: seconds)
        delegate.settle()
    }

    func call(_ uuid: UUID) -> ObservedCall? { provider.liveCalls.first { $0.uuid == uuid } }

    /// Whether the call session's I/O (the engine's device I/O, or `io`) runs.
    var callRuns: Bool { engine?.isRunning ?? io.isRunningIO }

    /// Audio as the system sees it, the session and the I/O agree.
    var audioRuns: Bool {
        let runs = callRuns
        if runs != provider.audioSession.isActive || runs != provider.isCallAudioActive {
            Issue.record("call audio disagrees: I/O \(runs), session \(provider.audioSession.isActive), provider \(provider.isCallAudioActive)")
        }
        return runs
    }
}

/// The ringtone fixture, written once per process.
enum Fixtures {
    static let ringtonePath: String = {
        let path = NSTemporaryDirectory() + "calls-ringtone-\(getpid()).wav"
        let samples = (0..<4_800).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try! WAVAudio(sampleRate: 48_000, channelCount: 1, samples: samples).write(to: URL(fileURLWithPath: path))
        return path
    }()
}

/// Every change an observer saw, in order.
final class ChangeLog: Sendable {
    private let storage = Locked<[ObservedCall]>([])

    func append(_ change: ObservedCall) { storage.withLock { $0.append(change) } }
    var all: [ObservedCall] { storage.withLock { $0 } }

    /// How call `uuid` ended, or nil while it has not.
    func endedReason(_ uuid: UUID) -> CallEndedReason? { all.last { $0.uuid == uuid && $0.hasEnded }?.endedReason }
    /// How many times call `uuid` was seen ending.
    func endings(_ uuid: UUID) -> Int { all.filter { $0.uuid == uuid && $0.hasEnded }.count }
}
