// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
import MediaEngine

/// A call's mute state as the one mute authority keeps it: whether the raw microphone is held
/// back and who said so last. Every change (a fulfilled SetMutedCallAction, the far end's
/// `reportCall(with:muted:by:)`) goes through it, so a change coming back from the app's
/// own UI is recognised as no change and never starts a ping-pong.
public struct MuteState: Sendable, Hashable {
    /// Whether the raw microphone is held back.
    public var isMuted: Bool
    /// Who made the last change (nil: nobody yet).
    public var changedBy: MuteOrigin?

    /// Unmuted, never changed.
    public init(isMuted: Bool = false, changedBy: MuteOrigin? = nil) {
        self.isMuted = isMuted
        self.changedBy = changedBy
    }
}

/// A call's media in the engine, bound by `CallProvider.addMedia`.
struct MediaBinding: @unchecked Sendable {
    // @unchecked: CallMedia's control properties are atomics (it is @unchecked Sendable itself).
    let media: CallMedia
    let engineID: EngineCallID
}

/// One live call as the system knows it (ended calls leave the table at once).
struct CallRecord {
    let uuid: UUID
    let isOutgoing: Bool
    var update: CallUpdate
    /// A start or answer action was fulfilled: the call wants the audio session.
    var mediaReady = false
    /// An answer action was requested (ringing stops).
    var answerRequested = false
    var hasStartedConnecting = false
    var hasConnected = false
    var isOnHold = false
    /// The group's identity: the UUID of a call in it (its own when ungrouped).
    var group: UUID
    var mute = MuteState()
    var isTranslating = false
    /// The translator a fulfilled SetTranslatingCallAction gave, installed in `media` when it
    /// is added after the fulfilment.
    var translator: ActionPayload?
    var media: MediaBinding?
    /// What the engine said last of the media's connection.
    var mediaConnection = MediaConnectionState.unknown
    /// Why the call will end once the pending end action completes (the system's own end:
    /// unanswered).
    var systemEndReason: CallEndedReason?
    var unansweredTimer: CallTimer?
    /// Digits of a hard-pause PlayDTMF action, sent on `continueDTMF`.
    var heldDigits: [UInt8] = []

    init(uuid: UUID, isOutgoing: Bool, update: CallUpdate) {
        self.uuid = uuid
        self.isOutgoing = isOutgoing
        self.update = update
        group = uuid
    }

    /// Rings: incoming, not answered, not being ended by the system.
    var isRinging: Bool { !isOutgoing && !answerRequested && !mediaReady && systemEndReason == nil }
    /// Needs the call audio session: media ready and not on hold.
    var wantsAudio: Bool { mediaReady && !isOnHold }

    /// What observers see.
    func observed(ended: CallEndedReason? = nil) -> ObservedCall {
        ObservedCall(uuid: uuid, isOutgoing: isOutgoing, isOnHold: isOnHold, hasStartedConnecting: hasStartedConnecting,
                     hasConnected: hasConnected, hasEnded: ended != nil, endedReason: ended, mute: mute,
                     isTranslating: isTranslating, group: group, remoteHandle: update.remoteHandle,
                     localizedCallerName: update.localizedCallerName, hasVideo: update.hasVideo, mediaConnection: mediaConnection)
    }
}

