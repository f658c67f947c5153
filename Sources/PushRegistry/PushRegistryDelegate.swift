/// What the registry tells the app (PKPushRegistryDelegate), on the queue given to
/// `PushRegistry.init`, in order.
public protocol PushRegistryDelegate: AnyObject, Sendable {
    /// New credentials: send the token to the app's server. Called at every start (when the
    /// registry first has both the delegate and `.voIP` in `desiredPushTypes`) and whenever a
    /// channel's token changes.
    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType)
    /// A VoIP push for an incoming call. When `metadata.mustReport`, report the call to the
    /// `CallProvider` (`reportNewIncomingCall`) before returning — not later, not from a task:
    /// a push not reported by then is a violation, and `maximumViolations` of them stop VoIP
    /// delivery (`PushDeliveryState.stopped`).
    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingVoIPPush payload: VoIPPushPayload, metadata: VoIPPushMetadata)
    /// The token of `type` on `channel` is no longer valid (the type was removed from
    /// `desiredPushTypes`, or the distributor unregistered the app): tell the
    /// server to stop using it.
    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel)
    /// A push the registry reported and ended itself (cancelled, or an unusable payload).
    /// Default: nothing.
    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush)
    /// VoIP delivery stopped after too many violations (once). Default: nothing.
    func pushRegistry(_ registry: PushRegistry, didStopVoIPDeliveryAfter violations: Int)
}

public extension PushRegistryDelegate {
    /// Nothing.
    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush) {}
    /// Nothing.
    func pushRegistry(_ registry: PushRegistry, didStopVoIPDeliveryAfter violations: Int) {}
}
