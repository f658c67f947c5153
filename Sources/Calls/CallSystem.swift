// SPDX-License-Identifier: Apache-2.0
import AudioSession

/// The system side a provider drives (what iOS runs for CallKit apps): the process's audio
/// sessions, the I/O the call session starts (a `VoiceEngine` configured with
/// `requiresAudioSession`), and what plays the ringtone.
public struct CallAudioSystem: Sendable {
    /// The registry the call and ringtone sessions join.
    public var center: AudioSessionCenter
    /// What the call session starts: `media` when the provider binds calls' media to it
    /// (`init(center:media:ringer:)`), or any other `AudioSessionIO`; nil for none.
    public var callIO: (any AudioSessionIO)?
    /// What `CallProvider.addMedia` adds calls' media to (also the call session's I/O); nil:
    /// the provider binds no media (`noEngine`).
    public var media: (any CallMediaHost)?
    /// What plays the ringtone while a call rings, in its own mixable session; nil: no sound.
    public var ringer: (any AudioSessionIO)?
    /// Where calls are recorded when the configuration includes them in recents (CallHistory's
    /// `CallHistoryRecents`); nil: no recents are kept.
    public var recents: (any CallRecents)?
    /// The session the provider activates for its calls (the app's own, as CallKit activates
    /// the app's shared session: `init(session:media:ringer:recents:)`); nil: the provider
    /// makes a session of its own in `center` ("call", at call priority).
    public var callSession: AudioSession?

    /// A system over `center` whose call session starts `callIO`, which mixes no calls'
    /// media (a recorder, a test double). A `VoiceEngine` given here starts with the session
    /// but carries no call's media (`addMedia` throws `noEngine`): give it as `media:`.
    public init(center: AudioSessionCenter, callIO: (any AudioSessionIO)? = nil, ringer: (any AudioSessionIO)? = nil,
                recents: (any CallRecents)? = nil) {
        self.center = center
        self.callIO = callIO
        self.ringer = ringer
        self.recents = recents
    }

    /// A system over `center` whose call session starts `media` (a `VoiceEngine`), which the
    /// provider binds calls' media to.
    public init(center: AudioSessionCenter, media: any CallMediaHost, ringer: (any AudioSessionIO)? = nil,
                recents: (any CallRecents)? = nil) {
        self.center = center
        self.callIO = media
        self.media = media
        self.ringer = ringer
        self.recents = recents
    }
}

extension CallAudioSystem {
    /// A system whose calls run in `session` (typically `AudioSession.sharedInstance()`, so a
    /// category the app sets on it is the call's), in `session`'s center, starting `media`.
    public init(session: AudioSession, media: any CallMediaHost, ringer: (any AudioSessionIO)? = nil,
                recents: (any CallRecents)? = nil) {
        self.init(center: session.center, media: media, ringer: ringer, recents: recents)
        callSession = session
    }
}

/// The user's settings the system applies to incoming calls before the app sees them.
public struct CallSystemSettings: Sendable, Equatable {
    /// Incoming calls are refused with `filteredByDoNotDisturb`.
    public var doNotDisturb: Bool
    /// Incoming calls from these handles are refused with `filteredByBlockList`.
    public var blockList: Set<CallHandle>

    /// Settings that refuse nothing.
    public init(doNotDisturb: Bool = false, blockList: Set<CallHandle> = []) {
        self.doNotDisturb = doNotDisturb
        self.blockList = blockList
    }
}
