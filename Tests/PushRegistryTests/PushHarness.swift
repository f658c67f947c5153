// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Dispatch
import Foundation
import Locking
import PushRegistry
import Testing

/// A push delegate that records what it is told, in order, and handles each VoIP push as
/// `onPush` says (report now, report later, or not at all), through the completion form.
final class RecordingPushDelegate: PushRegistryDelegate, Sendable {
    enum Event: Equatable {
        case updated(PushCredentials)
        case invalidated(PushChannel)
        /// The typed payload's call id (nil for a payload keyed another way) and the metadata.
        case received(UUID?, VoIPPushMetadata)
        case handled(HandledVoIPPush)
        case stopped(Int)
    }

    private let log = Locked<[Event]>([])
    typealias OnPush = @Sendable (PushRegistry, PushPayload, VoIPPushMetadata, @escaping @Sendable () -> Void) -> Void
    let onPush: OnPush

    init(onPush: @escaping OnPush) {
        self.onPush = onPush
    }

    var events: [Event] { log.withLock { $0 } }
    var received: [VoIPPushMetadata] { events.compactMap { if case let .received(_, metadata) = $0 { metadata } else { nil } } }
    var handled: [HandledVoIPPush] { events.compactMap { if case let .handled(push) = $0 { push } else { nil } } }
    var credentials: [PushCredentials] { events.compactMap { if case let .updated(credentials) = $0 { credentials } else { nil } } }

    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {
        log.withLock { $0.append(.updated(credentials)) }
    }

    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingVoIPPushWith payload: PushPayload, metadata: VoIPPushMetadata,
                      withCompletionHandler completion: @escaping @Sendable () -> Void) {
        log.withLock { $0.append(.received(payload.voipPayload?.callUUID, metadata)) }
        onPush(registry, payload, metadata, completion)
    }

    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {
        log.withLock { $0.append(.invalidated(channel)) }
    }

    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush) {
        log.withLock { $0.append(.handled(push)) }
    }

    func pushRegistry(_ registry: PushRegistry, didStopVoIPDeliveryAfter violations: Int) {
        log.withLock { $0.append(.stopped(violations)) }
    }
}

/// What an app does with a VoIP push.
enum AppBehaviour: Sendable {
    /// Reports the call, then calls the completion handler (the rule).
    case reportNow
    /// Calls the completion handler, then reports (queued behind the delegate call): too late.
    case reportAfterReturning
    /// Never reports it (calls the completion handler).
    case ignore
}

/// Every call change an observer saw, in order.
final class CallChanges: Sendable {
    private let storage = Locked<[ObservedCall]>([])
    func append(_ change: ObservedCall) { storage.withLock { $0.append(change) } }
    var all: [ObservedCall] { storage.withLock { $0 } }
    func endedReason(_ uuid: UUID) -> CallEndedReason? { all.last { $0.uuid == uuid && $0.hasEnded }?.endedReason }
    func seen(_ uuid: UUID) -> Bool { all.contains { $0.uuid == uuid } }
}

/// A provider with no audio I/O on a manual clock, a registry over it on a wall clock the test
/// moves (and the same manual clock for completion timeouts), and a recording delegate.
final class PushHarness: Sendable {
    let provider: CallProvider
    let registry: PushRegistry
    let delegate: RecordingPushDelegate
    let observer: CallObserver
    let changes = CallChanges()
    let clock = ManualCallClock()
    /// The registry's wall clock, moved by the test.
    let wallClock = TestWallClock()
    let queue = DispatchQueue(label: "PushHarness.app")

    init(configuration: PushRegistryConfiguration = PushRegistryConfiguration(), behaviour: AppBehaviour = .reportNow,
         provider existing: CallProvider? = nil, register: Bool = true) throws {
        provider = try existing ?? CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter()), clock: clock)
        let wallClock = self.wallClock
        registry = PushRegistry(provider: provider, queue: queue, configuration: configuration,
                                now: { wallClock.now }, clock: clock)
        let provider = self.provider
        delegate = RecordingPushDelegate { registry, push, _, completion in
            guard let payload = push.voipPayload else {
                // Not our keys: an app reports what it can, under its own id.
                if case .reportNow = behaviour { try? provider.reportNewIncomingCall(with: UUID(), update: CallUpdate()) }
                return completion()
            }
            switch behaviour {
            case .reportNow:
                try? provider.reportNewIncomingCall(with: payload.callUUID, update: payload.callUpdate)
                completion()
            case .reportAfterReturning:
                completion()
                registry.queue.async { try? provider.reportNewIncomingCall(with: payload.callUUID, update: payload.callUpdate) }
            case .ignore: completion()
            }
        }
        observer = CallObserver(provider: provider)
        let changes = self.changes
        observer.setHandler(queue: queue) { changes.append($0) }
        registry.delegate = delegate
        if register { registry.desiredPushTypes = [.voIP] }
        settle()
    }

    var now: Date { wallClock.now }

    /// Waits until everything queued on the app's queue so far has run, and what that queued.
    func settle() {
        for _ in 0..<4 { queue.sync {} }
    }

    /// A fresh push for a new call, sent `age` seconds ago.
    func payload(age: Double = 1, expiresIn: Double? = nil, cancelled: Bool = false, uuid: UUID = UUID()) -> VoIPPushPayload {
        let sent = now.addingTimeInterval(-age)
        return VoIPPushPayload(callUUID: uuid, handle: CallHandle(kind: .phoneNumber, value: "+4930123456"), callerName: "Alice",
                               sentAt: sent, expiresAt: expiresIn.map { sent.addingTimeInterval($0) }, isCancelled: cancelled)
    }

    /// Hands `payload` in on the in-process channel and lets the app's queue run.
    @discardableResult
    func push(_ payload: VoIPPushPayload) -> UUID {
        registry.deliver(jsonPayload: payload.jsonData)
        settle()
        return payload.callUUID
    }

    func pushRaw(_ data: Data) {
        registry.deliver(jsonPayload: data)
        settle()
    }

    func isLive(_ uuid: UUID) -> Bool { provider.liveCalls.contains { $0.uuid == uuid } }
}

/// A wall clock that moves only when told.
final class TestWallClock: Sendable {
    private let seconds = Locked(1_764_571_200.0)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func advance(by interval: Double) { seconds.withLock { $0 += interval } }
}
