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
