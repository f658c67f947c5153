// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The end-to-end-encrypted path (CXProvider.reportNewIncomingVoIPPushPayload): a payload
/// decrypted outside PushKit — on iOS by a notification service extension — becomes a VoIP
/// push to the app's `PushRegistry` delegate, which reports the call from it as from any push.
extension CallProvider {
    /// What a `PushRegistry` attached to this provider does with a payload handed in here:
    /// delivers it and tells the verdict (nil: reported).
    public typealias VoIPPushRoute = @Sendable (Data, @escaping @Sendable (VoIPPushReportError?) -> Void) -> Void

    /// Attaches the registry that takes payloads handed in (the last one set wins).
    @_spi(PushRegistry) public func setVoIPPushRoute(_ route: VoIPPushRoute?) {
        voipPushRoute.withLock { $0 = route }
    }

    /// Hands `dictionaryPayload` to the app as a VoIP push (through the attached
    /// `PushRegistry`, on its queue, to `didReceiveIncomingPushWith…` with this dictionary);
    /// `completion` gets nil once the app reported the call, or why not.
    ///
    /// iOS has this as a class method called from another process; here there is no system
    /// daemon between the two, so it is called on the provider the registry reports to.
    public func reportNewIncomingVoIPPushPayload(_ dictionaryPayload: [AnyHashable: Any],
                                                 completion: (@Sendable (VoIPPushReportError?) -> Void)? = nil) {
        let done: @Sendable (VoIPPushReportError?) -> Void = { completion?($0) }
        var object: [String: Any] = [:]
        for (key, value) in dictionaryPayload {
            guard let key = key.base as? String else { return done(.invalidPayload) }
            object[key] = value
        }
        guard JSONSerialization.isValidJSONObject(object), let data = try? JSONSerialization.data(withJSONObject: object) else {
            return done(.invalidPayload)
        }
        guard let route = voipPushRoute.withLock({ $0 }) else { return done(.noPushRegistry) }
        route(data, done)
    }

    /// The async form of `reportNewIncomingVoIPPushPayload(_:completion:)`.
    /// - Throws: `noPushRegistry`, `invalidPayload`, `notDelivered`, `notReported`.
    public func reportNewIncomingVoIPPushPayload(_ dictionaryPayload: [AnyHashable: Any]) async throws(VoIPPushReportError) {
        // The dictionary is read into JSON before the first suspension: nothing non-Sendable
        // crosses it.
        let error: VoIPPushReportError? = await withCheckedContinuation { continuation in
            reportNewIncomingVoIPPushPayload(dictionaryPayload) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }
}
