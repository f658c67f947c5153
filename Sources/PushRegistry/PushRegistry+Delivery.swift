@_spi(PushRegistry) import Calls
import Foundation

extension PushRegistry {
    /// What to do with one push, decided on the app's queue just before delivery.
    enum Route {
        case drop
        case handle(HandledVoIPPush.Reason, PushPayloadFields)
        case deliver(VoIPPushPayload, VoIPPushMetadata)
    }

    /// Reads, classifies and delivers one push; runs on the app's queue.
    func dispatch(_ data: Data, on channel: PushChannel) {
        let read = PushPayloadParser.read(data)
        let deliveredAt = now()
        // The app "has a call" when the provider has a live one now, before this push.
        let appHadCall = !provider.liveCalls.isEmpty
        let route = state.withLock { state -> Route in
            if state.stopped { state.statistics.droppedWhileStopped += 1; return .drop }
            guard state.isRegistered else { state.statistics.notRegistered += 1; return .drop }
            if let expiry = read.fields.expiresAt, deliveredAt > expiry { state.statistics.expired += 1; return .drop }
            guard let payload = read.payload else {
                state.statistics.unusable += 1
                return .handle(.unusablePayload(read.fatalProblem ?? .notAnObject), read.fields)
            }
            if payload.isCancelled { state.statistics.cancelled += 1; return .handle(.cancelled, read.fields) }
            let age = payload.sentAt.map { max(0, deliveredAt.timeIntervalSince($0)) }
            let isStale = age.map { $0 > configuration.freshnessLimit } ?? false
            let metadata = VoIPPushMetadata(mustReport: !appHadCall && !isStale, age: age, isStale: isStale, appHadCall: appHadCall, channel: channel)
            state.statistics.delivered += 1
            if metadata.mustReport { state.statistics.mustReport += 1 }
            if isStale { state.statistics.stale += 1 }
            if appHadCall { state.statistics.whileOnCall += 1 }
            return .deliver(payload, metadata)
        }
        switch route {
        case .drop: return
        case let .handle(reason, fields): handle(reason, fields, on: channel)
        case let .deliver(payload, metadata): deliver(payload, metadata, at: deliveredAt)
        }
    }

    /// Gives the push to the delegate and checks the reporting rule when it returns.
    func deliver(_ payload: VoIPPushPayload, _ metadata: VoIPPushMetadata, at deliveredAt: Date) {
        let delegate = state.withLock { $0.target.delegate }
        let before = provider.incomingCallReportCount
        delegate?.pushRegistry(self, didReceiveIncomingVoIPPush: payload, metadata: metadata)
        let reported = provider.incomingCallReportCount > before
        guard metadata.mustReport else { return }
        let stoppedNow = state.withLock { state -> Int? in
            if reported {
                state.statistics.reportedInTime += 1
                return nil
            }
            state.statistics.violations += 1
            state.violations.append(PushViolation(callUUID: payload.callUUID, channel: metadata.channel, deliveredAt: deliveredAt,
                                                  hadNoDelegate: delegate == nil))
            guard !state.stopped, state.statistics.violations >= configuration.maximumViolations else { return nil }
            state.stopped = true
            return state.statistics.violations
        }
        // Already on the app's queue: tell the delegate now, before any later push is dropped.
        if let stoppedNow, let delegate { delegate.pushRegistry(self, didStopVoIPDeliveryAfter: stoppedNow) }
    }

    /// Reports the call and ends it at once: the registry's own handling of a cancelled push or
    /// an unusable payload, so nothing rings for a call that is not there.
    func handle(_ reason: HandledVoIPPush.Reason, _ fields: PushPayloadFields, on channel: PushChannel) {
        let uuid = fields.callUUID ?? UUID()
        var reportError: IncomingCallError?
        do {
            try provider.reportNewIncomingCall(with: uuid, update: fields.callUpdate)
        } catch {
            reportError = error
        }
        let isCancelled = if case .cancelled = reason { true } else { false }
        let isDuplicate = if case .callUUIDAlreadyExists = reportError { true } else { false }
        // A cancelled push ends the call also when the report was refused as a duplicate: the
        // app reported it from an earlier push, and the signalling now says it is over. An
        // unusable payload never ends a call the app already has under that id.
        if isCancelled || !isDuplicate {
            provider.reportCall(with: uuid, endedAt: now(), reason: isCancelled ? .remoteEnded : .failed)
        }
        let push = HandledVoIPPush(reason: reason, callUUID: uuid, fields: fields, reportError: reportError, channel: channel)
        state.withLock { $0.target.delegate }?.pushRegistry(self, didHandle: push)
    }
}
