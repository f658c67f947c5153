// SPDX-License-Identifier: Apache-2.0
@_spi(PushRegistry) import Calls
import Foundation

extension PushRegistry {
    /// What to do with one push, decided on the app's queue just before delivery.
    enum Route {
        case drop
        case handle(HandledVoIPPush.Reason, PushPayloadFields)
        case deliver(PushPayload, callUUID: UUID?, VoIPPushMetadata)
    }

    /// Reads, classifies and delivers one push; runs on the app's queue.
    func dispatch(_ data: Data, on channel: PushChannel, verdict: @escaping @Sendable (VoIPPushReportError?) -> Void) {
        let read = PushPayloadParser.read(data)
        let object: Result<PushPayload, PushPayloadError>
        do throws(PushPayloadError) {
            object = .success(try PushPayload(jsonData: data))
        } catch {
            object = .failure(error)
        }
        let deliveredAt = now()
        // The app "has a call" when the provider has a live one now, before this push.
        let appHadCall = !provider.liveCalls.isEmpty
        let route = state.withLock { state -> Route in
            if state.stopped { state.statistics.droppedWhileStopped += 1; return .drop }
            guard state.isRegistered else { state.statistics.notRegistered += 1; return .drop }
            if let expiry = read.fields.expiresAt, deliveredAt > expiry { state.statistics.expired += 1; return .drop }
            // Only bytes that are not a JSON object are the registry's: any object goes to the
            // app, which reads its own keys (its server need not use ours).
            let payload: PushPayload
            switch object {
            case let .success(value): payload = value
            case let .failure(problem):
                state.statistics.unusable += 1
                return .handle(.unusablePayload(problem), read.fields)
            }
            if read.payload?.isCancelled == true { state.statistics.cancelled += 1; return .handle(.cancelled, read.fields) }
            let age = read.fields.sentAt.map { max(0, deliveredAt.timeIntervalSince($0)) }
            let isStale = age.map { $0 > configuration.freshnessLimit } ?? false
            let metadata = VoIPPushMetadata(mustReport: !appHadCall && !isStale, age: age, isStale: isStale, appHadCall: appHadCall, channel: channel)
            state.statistics.delivered += 1
            if metadata.mustReport { state.statistics.mustReport += 1 }
            if isStale { state.statistics.stale += 1 }
            if appHadCall { state.statistics.whileOnCall += 1 }
            return .deliver(payload, callUUID: read.fields.callUUID, metadata)
        }
        switch route {
        case .drop: verdict(.notDelivered)
        case let .handle(reason, fields):
            handle(reason, fields, on: channel)
            verdict(.invalidPayload)
        case let .deliver(payload, callUUID, metadata): deliver(payload, callUUID: callUUID, metadata, at: deliveredAt, verdict: verdict)
        }
    }

    /// Gives the push to the delegate; for a must-report push, opens the window its verdict
    /// waits on: closed by the completion handler, or by `completionTimeout` on `clock`.
    func deliver(_ payload: PushPayload, callUUID: UUID?, _ metadata: VoIPPushMetadata, at deliveredAt: Date,
                 verdict: @escaping @Sendable (VoIPPushReportError?) -> Void) {
        let delegate = state.withLock { $0.target.delegate }
        guard metadata.mustReport else {
            delegate?.pushRegistry(self, didReceiveIncomingVoIPPushWith: payload, metadata: metadata, withCompletionHandler: {})
            verdict(delegate == nil ? .notDelivered : nil)
            return
        }
        let pending = PendingVoIPPush(payloadCallUUID: callUUID, channel: metadata.channel, deliveredAt: deliveredAt,
                                      hadNoDelegate: delegate == nil, reportsBefore: provider.incomingCallReportCount,
                                      verdict: verdict)
        guard let delegate else {
            settle(pending, .completed)
            return
        }
        pending.arm(clock.schedule(after: configuration.completionTimeout) { [weak self] in self?.settle(pending, .timedOut) })
        delegate.pushRegistry(self, didReceiveIncomingVoIPPushWith: payload, metadata: metadata,
                              withCompletionHandler: { [weak self] in self?.settle(pending, .completed) })
    }

    /// Decides `pending` once (any thread): reported when a report reached the provider since
    /// its delivery, a violation otherwise; stops delivery at the limit and tells the delegate
    /// on the app's queue, ahead of any later push (pushes are dispatched on that queue too).
    func settle(_ pending: PendingVoIPPush, _ closing: PendingVoIPPush.Closing) {
        guard pending.close() else { return }
        let reportedUUIDs = provider.incomingCallReports(since: pending.reportsBefore)
        let reported = provider.incomingCallReportCount > pending.reportsBefore
        defer { pending.verdict(reported ? nil : .notReported) }
        state.withLock { state in
            if case .timedOut = closing { state.statistics.completionTimeouts += 1 }
            if reported {
                state.statistics.reportedInTime += 1
                // Under whichever UUIDs the app chose: a cancel push for this call ends them.
                if let id = pending.payloadCallUUID { state.rememberReport(of: id, as: reportedUUIDs) }
                return
            }
            state.statistics.violations += 1
            state.violations.append(PushViolation(callUUID: pending.callUUID, channel: pending.channel, deliveredAt: pending.deliveredAt,
                                                  hadNoDelegate: pending.hadNoDelegate))
            guard !state.stopped, state.statistics.violations >= configuration.maximumViolations else { return }
            state.stopped = true
            let count = state.statistics.violations
            post(state) { registry, delegate in delegate.pushRegistry(registry, didStopVoIPDeliveryAfter: count) }
        }
    }

    /// Reports the call and ends it at once: the registry's own handling of a cancelled push or
    /// bytes that are not a JSON object, so nothing rings for a call that is not there.
    func handle(_ reason: HandledVoIPPush.Reason, _ fields: PushPayloadFields, on channel: PushChannel) {
        let isCancelled = if case .cancelled = reason { true } else { false }
        // A cancel for a push the app reported under its own UUIDs ends those calls: they are
        // the ones ringing, not the payload's id.
        if isCancelled, let id = fields.callUUID {
            let reportedAs = state.withLock { $0.reportedCalls.removeValue(forKey: id) } ?? []
            let live = Set(provider.liveCalls.map(\.uuid))
            let ringing = reportedAs.filter { live.contains($0) && $0 != id }
            if !ringing.isEmpty {
                for uuid in ringing { provider.reportCall(with: uuid, endedAt: now(), reason: .remoteEnded) }
                if live.contains(id) { provider.reportCall(with: id, endedAt: now(), reason: .remoteEnded) }
                let push = HandledVoIPPush(reason: reason, callUUID: id, fields: fields, reportError: nil, channel: channel, endedCallUUIDs: ringing)
                state.withLock { $0.target.delegate }?.pushRegistry(self, didHandle: push)
                return
            }
        }
        let uuid = fields.callUUID ?? UUID()
        var reportError: IncomingCallError?
        do {
            try provider.reportNewIncomingCall(with: uuid, update: fields.callUpdate)
        } catch {
            reportError = error
        }
        let isDuplicate = if case .callUUIDAlreadyExists = reportError { true } else { false }
        // A cancelled push ends the call also when the report was refused as a duplicate: the
        // app reported it from an earlier push, and the signalling now says it is over. An
        // unusable payload never ends a call the app already has under that id.
        if isCancelled || !isDuplicate {
            provider.reportCall(with: uuid, endedAt: now(), reason: isCancelled ? .remoteEnded : .failed)
        }
        let push = HandledVoIPPush(reason: reason, callUUID: uuid, fields: fields, reportError: reportError, channel: channel,
                                   endedCallUUIDs: isCancelled || !isDuplicate ? [uuid] : [])
        state.withLock { $0.target.delegate }?.pushRegistry(self, didHandle: push)
    }
}
