// SPDX-License-Identifier: Apache-2.0
import AudioSession

/// What the system tells the app (CXProviderDelegate), on the queue given to
/// `CallProvider.setDelegate(_:queue:)`, in order. Perform each action and complete it
/// exactly once; start media in `didActivate` (the engine cannot start before: its device I/O
/// starts only with the session) and stop it in `didDeactivate` and `providerDidReset`.
///
/// Not `Sendable`, as CXProviderDelegate is not: an app's delegate is often a class with a
/// superclass and mutable state (`class AppDelegate: AppBase, ProviderDelegate`). The provider
/// holds it weakly and touches it only inside blocks on the queue given to `setDelegate`, so
/// its state is confined to that queue; the app reads and writes that state on the same queue.
public protocol ProviderDelegate: AnyObject {
    /// The provider is ready (called once, when the delegate is set).
    func providerDidBegin(_ provider: CallProvider)
    /// Every call ended and audio was torn down: forget all call state.
    func providerDidReset(_ provider: CallProvider)
    /// Start an outgoing call.
    func provider(_ provider: CallProvider, perform action: StartCallAction)
    /// Answer an incoming call: fulfil once media and server are ready.
    func provider(_ provider: CallProvider, perform action: AnswerCallAction)
    /// End or decline a call.
    func provider(_ provider: CallProvider, perform action: EndCallAction)
    /// Hold or resume a call.
    func provider(_ provider: CallProvider, perform action: SetHeldCallAction)
    /// Mute or unmute a call.
    func provider(_ provider: CallProvider, perform action: SetMutedCallAction)
    /// Group or ungroup a call.
    func provider(_ provider: CallProvider, perform action: SetGroupCallAction)
    /// Send key presses.
    func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction)
    /// Start or stop translating.
    func provider(_ provider: CallProvider, perform action: SetTranslatingCallAction)
    /// `action` timed out: the system failed it; a later completion is refused.
    func provider(_ provider: CallProvider, timedOutPerforming action: CallAction)
    /// The call audio session is active: start media now.
    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession)
    /// The call audio session was deactivated: media has stopped.
    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession)
}

/// Defaults: the actions the system applies to the call's media by itself (hold, mute,
/// group, DTMF, end) are fulfilled; start, answer and translating need the app and fail.
extension ProviderDelegate {
    public func providerDidBegin(_ provider: CallProvider) {}
    public func provider(_ provider: CallProvider, perform action: StartCallAction) { try? action.fail() }
    public func provider(_ provider: CallProvider, perform action: AnswerCallAction) { try? action.fail() }
    public func provider(_ provider: CallProvider, perform action: EndCallAction) { try? action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetHeldCallAction) { try? action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetMutedCallAction) { try? action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetGroupCallAction) { try? action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: PlayDTMFCallAction) { try? action.fulfill() }
    public func provider(_ provider: CallProvider, perform action: SetTranslatingCallAction) { try? action.fail() }
    public func provider(_ provider: CallProvider, timedOutPerforming action: CallAction) {}
    public func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {}
    public func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) {}
}
