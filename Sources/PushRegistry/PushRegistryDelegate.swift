// SPDX-License-Identifier: Apache-2.0
/// What the registry tells the app (PKPushRegistryDelegate), on the queue given to
/// `PushRegistry.init`, in order.
///
/// Not `Sendable`: like CXProvider's delegate, the object is only ever called on the app's
/// queue, so an app delegate with a superclass and mutable state (`class AppDelegate:
/// SomeBase, PushRegistryDelegate`) conforms under Swift 6 as written. The registry holds it
/// weakly and never touches it off that queue.
///
/// A VoIP push reaches the first of these the app implements (the defaults forward down the
/// list): `didReceiveIncomingVoIPPushWith:metadata:withCompletionHandler:` (iOS 26.4),
/// `didReceiveIncomingPushWith:for:completion:`, then the returning form
/// `didReceiveIncomingPushWith:for:`.
public protocol PushRegistryDelegate: AnyObject {
    /// New credentials: send the token to the app's server. Called at every start (when the
    /// registry first has both the delegate and `.voIP` in `desiredPushTypes`) and whenever a
    /// channel's token changes.
    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType)
    /// A VoIP push with its metadata (iOS 26.4's form). When `metadata.mustReport`, report the
    /// call to the `CallProvider` (`reportNewIncomingCall`) before calling `completion`, from
    /// here or from a task; a push not reported by then — or by
    /// `PushRegistryConfiguration.completionTimeout` when `completion` is never called — is a
    /// violation, and `maximumViolations` of them stop VoIP delivery. Default: the form without
    /// metadata.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingVoIPPushWith payload: PushPayload, metadata: VoIPPushMetadata,
                      withCompletionHandler completion: @escaping @Sendable () -> Void)
    /// A VoIP push (PushKit's usual form): report it before calling `completion`, as above.
    /// Default: the returning form, then `completion`.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType,
                      completion: @escaping @Sendable () -> Void)
    /// A VoIP push for synchronous apps: report it before returning (returning is the
    /// completion). Default: nothing — a must-report push then is a violation.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType)
    /// The token of `type` on `channel` is no longer valid (the type was removed from
    /// `desiredPushTypes`, or the distributor unregistered the app): tell the
    /// server to stop using it.
    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel)
    /// A push the registry reported and ended itself (cancelled, or a payload that is not a
    /// JSON object). Default: nothing.
    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush)
    /// VoIP delivery stopped after too many violations (once). Default: nothing.
    func pushRegistry(_ registry: PushRegistry, didStopVoIPDeliveryAfter violations: Int)
}

public extension PushRegistryDelegate {
    /// The form without metadata.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingVoIPPushWith payload: PushPayload, metadata: VoIPPushMetadata,
                      withCompletionHandler completion: @escaping @Sendable () -> Void) {
        pushRegistry(registry, didReceiveIncomingPushWith: payload, for: payload.type, completion: completion)
    }

    /// The returning form, then `completion`.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType,
                      completion: @escaping @Sendable () -> Void) {
        pushRegistry(registry, didReceiveIncomingPushWith: payload, for: type)
        completion()
    }

    /// Nothing.
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType) {}
    /// Nothing.
    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush) {}
    /// Nothing.
    func pushRegistry(_ registry: PushRegistry, didStopVoIPDeliveryAfter violations: Int) {}
}
