// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import RTP

/// Start an outgoing call (CXStartCallAction). Once fulfilled the system activates the call's
/// audio session and calls `didActivate`; failing it (or its timeout) ends the call as failed.
public final class StartCallAction: CallAction, @unchecked Sendable {
    /// Whom to call.
    public let handle: CallHandle
    /// Whether the call starts with video.
    public let isVideo: Bool

    /// Starts call `call` to `handle`.
    public init(call: UUID, handle: CallHandle, isVideo: Bool = false) {
        self.handle = handle
        self.isVideo = isVideo
        super.init(call: call)
    }

    /// Fulfils: the call is under way (CallKit's `fulfill(withDateStarted:)`).
    public func fulfill(withDateStarted _: Date) throws(ActionError) { try fulfill() }

    override var kind: ActionKind { .start }
}

/// Answer an incoming call (CXAnswerCallAction). Fulfil it once the media and the server are
/// ready; then the ringing stops, the system activates the call's audio session and calls
/// `didActivate`. Failing it (or its timeout) ends the call as failed.
public final class AnswerCallAction: CallAction, @unchecked Sendable {
    /// Answers call `call`.
    public override init(call: UUID) { super.init(call: call) }

    /// Fulfils: the call is connected (CallKit's `fulfill(withDateConnected:)`).
    public func fulfill(withDateConnected _: Date) throws(ActionError) { try fulfill() }

    override var kind: ActionKind { .answer }
}

/// End a call, or decline a ringing one (CXEndCallAction). Fulfilled: the call ends with
/// `local`; failed or timed out: it ends anyway, with `failed` (the system never leaves a
/// call the user hung up on).
public final class EndCallAction: CallAction, @unchecked Sendable {
    /// Ends call `call`.
    public override init(call: UUID) { super.init(call: call) }

    /// Fulfils (CallKit's `fulfill(withDateEnded:)`).
    public func fulfill(withDateEnded _: Date) throws(ActionError) { try fulfill() }

    override var kind: ActionKind { .end }
}

/// Put a call on hold or take it off (CXSetHeldCallAction). Fulfilled: the call's media
/// stops or resumes sending and playing, and the call audio session deactivates when no
/// unheld call is left.
public final class SetHeldCallAction: CallAction, @unchecked Sendable {
    /// Whether the call goes on hold.
    public let isOnHold: Bool

    /// Holds (`onHold`) or resumes call `call`.
    public init(call: UUID, onHold: Bool) {
        isOnHold = onHold
        super.init(call: call)
    }

    override var kind: ActionKind { .setHeld }
}

/// Who changed a call's mute state: the one mute authority records it, so the app can tell its
/// own change coming back from the user's or the far end's and never echoes it.
public enum MuteOrigin: Sendable, Hashable {
    /// The user, through the system's call UI or a headset button.
    case user
    /// The app, through its own UI or logic.
    case app
    /// The far end or the server (a moderator muting a participant).
    case remote
}

/// Mute or unmute a call's microphone (CXSetMutedCallAction). Fulfilled: the mute authority
/// records the change and who made it, and the call's media holds the raw microphone back
/// (while translating, translated speech keeps flowing). A request for the state the call is
/// in already completes at once without reaching the delegate: app and system never ping-pong.
public final class SetMutedCallAction: CallAction, @unchecked Sendable {
    /// Whether the microphone is held back.
    public let isMuted: Bool
    /// Who asks.
    public let origin: MuteOrigin

    /// Mutes (`muted`) or unmutes call `call` on behalf of `origin`.
    public init(call: UUID, muted: Bool, origin: MuteOrigin = .app) {
        isMuted = muted
        self.origin = origin
        super.init(call: call)
    }

    override var kind: ActionKind { .setMuted }
}

/// Join a call to another's group, or take it out of its group (CXSetGroupCallAction).
public final class SetGroupCallAction: CallAction, @unchecked Sendable {
    /// The call to group with, or nil to ungroup.
    public let callUUIDToGroupWith: UUID?

    /// Groups call `call` with `groupWith` (nil: ungroups it).
    public init(call: UUID, groupWith: UUID?) {
        callUUIDToGroupWith = groupWith
        super.init(call: call)
    }

    override var kind: ActionKind { .setGroup }
}

/// Send key presses (CXPlayDTMFCallAction). Fulfilled: the digits go to the call's media as
/// RFC 4733 events (singleTone at once; softPause after `softPauseSeconds` on the provider's
/// clock; hardPause only when the app calls `continueDTMF`).
public final class PlayDTMFCallAction: CallAction, @unchecked Sendable {
    /// CXPlayDTMFCallActionType's names and raw values.
    public enum ActionType: Int, Sendable, CaseIterable {
        /// The digits, now (1).
        case singleTone = 1
        /// The digits after a short pause (2).
        case softPause = 2
        /// The digits once the user confirms (3).
        case hardPause = 3
    }

    /// How long a soft pause lasts, seconds (Android's DTMF pause: 2 s; unconfirmed on iOS).
    public static let softPauseSeconds = 2.0

    /// The keys: 0–9, *, #, A–D.
    public let digits: String
    /// When they are sent.
    public let type: ActionType

    /// Presses `digits` on call `call`.
    public init(call: UUID, digits: String, type: ActionType = .singleTone) {
        self.digits = digits
        self.type = type
        super.init(call: call)
    }

    /// The digits as RFC 4733 events, or nil when one is not a key.
    var events: [DTMFEvent]? {
        var result: [DTMFEvent] = []
        for character in digits {
            guard let event = Self.event(character) else { return nil }
            result.append(event)
        }
        return result
    }

    static func event(_ character: Character) -> DTMFEvent? {
        if let digit = character.wholeNumberValue, (0...9).contains(digit), character.isASCII { return DTMFEvent(rawValue: UInt8(digit)) }
        switch character {
        case "*": return DTMFEvent(rawValue: 10)
        case "#": return DTMFEvent(rawValue: 11)
        case "A", "a": return DTMFEvent(rawValue: 12)
        case "B", "b": return DTMFEvent(rawValue: 13)
        case "C", "c": return DTMFEvent(rawValue: 14)
        case "D", "d": return DTMFEvent(rawValue: 15)
        default: return nil
        }
    }

    override var kind: ActionKind { .playDTMF }
}

/// Start or stop translating a call's speech (iOS 26's SetTranslatingCallAction). Starting is
/// fulfilled with the translator to use, `fulfill(using:)` (a bare `fulfill()` is refused with
/// `translatorRequired`): the call's uplink carries its speech from then on, also while muted
/// (only the raw microphone is held back). Stopping is fulfilled with `fulfill()`.
public final class SetTranslatingCallAction: CallAction, @unchecked Sendable {
    /// Which translation engine (iOS's values).
    public enum EngineKind: Int, Sendable {
        /// The system's (0).
        case `default` = 0
        /// The app's own (1).
        case custom = 1
    }

    /// Whether the call translates.
    public let isTranslating: Bool
    /// This side's language (BCP 47), when translating.
    public let localLanguage: String?
    /// The far end's language (BCP 47), when translating.
    public let remoteLanguage: String?

    /// Starts (`translating`) or stops translating call `call`.
    public init(call: UUID, translating: Bool, localLanguage: String? = nil, remoteLanguage: String? = nil) {
        isTranslating = translating
        self.localLanguage = localLanguage
        self.remoteLanguage = remoteLanguage
        super.init(call: call)
    }

    /// Fulfils with the translator that speaks for the call: it is installed in the call's
    /// media now (or when media is added to a call that has none yet), so a fulfilment that
    /// returns is one that translates. This library has no system translator, so the engine
    /// given is always the app's (custom). Stopping (`isTranslating` false) ignores it.
    /// - Throws: `translatorRefused` when the media takes no more translators (the action stays
    ///   pending); `alreadyCompleted`, `timedOut`, `callEnded` as `fulfill()`.
    public func fulfill(using translator: any TranslationEngine) throws(ActionError) {
        let handoff = ActionPayload(translator: translator)
        if isTranslating, let provider = runtime.withLock({ $0.provider }) {
            try provider.fulfil(self, translatingWith: handoff)
        } else {
            try complete(.fulfilled, payload: handoff)
        }
    }

    /// Starting translation without a translator would send silence (or the muted microphone
    /// nobody hears) while the call says it translates: refused, typed.
    override func checkFulfilment(_ payload: ActionPayload?) throws(ActionError) {
        if isTranslating && payload?.translator == nil { throw .translatorRequired }
    }

    override var kind: ActionKind { .setTranslating }
}
