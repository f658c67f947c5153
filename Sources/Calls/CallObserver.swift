// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Locking

/// A call as observers see it (CXCall), at one moment.
public struct ObservedCall: Sendable, Hashable {
    /// The call's identity.
    public let uuid: UUID
    /// Whether this side placed it.
    public let isOutgoing: Bool
    /// Whether it is on hold.
    public let isOnHold: Bool
    /// Outgoing: the signalling reached the far end (`reportOutgoingCall(startedConnectingAt:)`).
    public let hasStartedConnecting: Bool
    /// Connected: answered here, or the far end answered (`reportOutgoingCall(connectedAt:)`).
    public let hasConnected: Bool
    /// Whether it ended.
    public let hasEnded: Bool
    /// Why it ended (never nil once ended).
    public let endedReason: CallEndedReason?
    /// Its mute state and who set it.
    public let mute: MuteState
    /// Whether a translator speaks for it.
    public let isTranslating: Bool
    /// Its group's identity (a call's UUID; its own when ungrouped).
    public let group: UUID
    /// The other party, as last reported (nil when unknown).
    public let remoteHandle: CallHandle?
    /// The name shown for the other party: the app's, or the call directory's label.
    public let localizedCallerName: String?
    /// Whether the call has video (the update's or the start action's).
    public let hasVideo: Bool
    /// Where its media connection stands (ICE, DTLS-SRTP), as its engine tells it.
    public let mediaConnection: MediaConnectionState
}

/// Watches a provider's calls (CXCallObserver): the live calls now, and every change in order,
/// as an `AsyncStream` or through a handler on a queue. An ended call appears once more with
/// `hasEnded` and its reason, then leaves `calls`.
public final class CallObserver: Sendable {
    /// Every change, in order; buffers the newest 1,024.
    public let changes: AsyncStream<ObservedCall>

    private struct Handler {
        let queue: DispatchQueue
        let body: @Sendable (ObservedCall) -> Void
    }

    /// Weak: a provider may keep an observer of its own calls (its recents recorder) without
    /// the two keeping each other alive.
    private weak let provider: CallProvider?
    private let continuation: AsyncStream<ObservedCall>.Continuation
    /// The handler, in a box the provider's sink can hold (a `Locked` cannot be copied).
    private final class HandlerBox: Sendable {
        let handler = Locked<Handler?>(nil)
    }

    private let box = HandlerBox()
    private let token: Int

    /// An observer of `provider`'s calls.
    public init(provider: CallProvider) {
        self.provider = provider
        let (changes, continuation) = AsyncStream.makeStream(of: ObservedCall.self, bufferingPolicy: .bufferingNewest(1_024))
        self.changes = changes
        self.continuation = continuation
        let box = self.box
        token = provider.addObserverSink { change in
            continuation.yield(change)
            if let handler = box.handler.withLock({ $0 }) { handler.queue.async { handler.body(change) } }
        }
    }

    deinit {
        provider?.removeObserverSink(token)
        continuation.finish()
    }

    /// The live calls, in the order they began (none once the provider is gone).
    public var calls: [ObservedCall] { provider?.liveCalls ?? [] }

    /// Delivers every change also to `handler` on `queue` (nil clears it).
    public func setHandler(queue: DispatchQueue, _ handler: (@Sendable (ObservedCall) -> Void)?) {
        box.handler.withLock { $0 = handler.map { Handler(queue: queue, body: $0) } }
    }
}
