// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation

/// What a provider can do (CXProviderConfiguration), checked when it is made: limits, handle
/// types, the ringtone (loaded and decoded now, so a missing or unplayable file is an error
/// here, never a silent fallback at the first call) and every timeout. Properties set
/// afterwards, as iOS code sets them (`configuration.maximumCallGroups = 1`,
/// `configuration.timeouts.answer = 20`), are checked again by `validate()`, which
/// `CallProvider` calls when it is made: a bad value never reaches a call.
public struct ProviderConfiguration: Sendable {
    /// How many groups of calls may exist at once (CallKit: 2). An ungrouped call is a group.
    public var maximumCallGroups: Int
    /// How many calls one group may hold (CallKit: 5).
    public var maximumCallsPerCallGroup: Int
    /// Whether calls go to the recents list (CallKit: true): `CallHistoryRecorder` records
    /// every call of a provider configured so, and none otherwise.
    public var includesCallsInRecents: Bool
    /// Whether calls may have video (CallKit: false).
    public var supportsVideo: Bool
    /// The handle kinds calls may have; a start action or incoming call with another kind is
    /// refused (`invalidAction`). CallKit's default is every kind.
    public var supportedHandleTypes: Set<CallHandle.Kind>
    /// What rings for incoming calls, or nil for silence.
    public let ringtone: Ringtone?
    /// Every action's timeout and the ring time.
    public var timeouts: ActionTimeouts
    /// The app's name as the system shows it with its calls (CXProviderConfiguration's
    /// `localizedName`); nil: the process's name.
    public var localizedName: String?

    /// A configuration with CallKit's defaults; `ringtonePath` names a WAV file (CallKit's
    /// `ringtoneSound`), decoded now.
    /// - Throws: `ringtoneNotFound` when the file does not exist, `ringtoneNotPlayable` when
    ///   it is not a PCM WAV this library plays or holds no sound; what `validate()` throws.
    public init(maximumCallGroups: Int = 2, maximumCallsPerCallGroup: Int = 5, includesCallsInRecents: Bool = true,
                supportsVideo: Bool = false, supportedHandleTypes: Set<CallHandle.Kind> = Set(CallHandle.Kind.allCases),
                ringtonePath: String? = nil, timeouts: ActionTimeouts = ActionTimeouts()) throws(ProviderConfigurationError) {
        self.maximumCallGroups = maximumCallGroups
        self.maximumCallsPerCallGroup = maximumCallsPerCallGroup
        self.includesCallsInRecents = includesCallsInRecents
        self.supportsVideo = supportsVideo
        self.supportedHandleTypes = supportedHandleTypes
        self.timeouts = timeouts
        ringtone = try ringtonePath.map { path throws(ProviderConfigurationError) in try Ringtone(path: path) }
        try validate()
    }

    /// CallKit's defaults (`CXProviderConfiguration()`): nothing to check, nothing thrown.
    public init() {
        maximumCallGroups = 2
        maximumCallsPerCallGroup = 5
        includesCallsInRecents = true
        supportsVideo = false
        supportedHandleTypes = Set(CallHandle.Kind.allCases)
        ringtone = nil
        timeouts = ActionTimeouts()
    }

    /// CallKit's defaults under the app's name (`CXProviderConfiguration(localizedName:)`).
    public init(localizedName: String) {
        self.init()
        self.localizedName = localizedName
    }

    /// Checks every property as it is now (the ringtone was checked when it was loaded).
    /// - Throws: `invalidLimit` naming a limit below 1, `noSupportedHandleTypes` for an empty
    ///   `supportedHandleTypes` (every start action would be refused), `invalidTimeout` naming
    ///   a timeout that is not positive and finite.
    public func validate() throws(ProviderConfigurationError) {
        guard maximumCallGroups >= 1 else { throw .invalidLimit(name: "maximumCallGroups", value: maximumCallGroups) }
        guard maximumCallsPerCallGroup >= 1 else { throw .invalidLimit(name: "maximumCallsPerCallGroup", value: maximumCallsPerCallGroup) }
        guard !supportedHandleTypes.isEmpty else { throw .noSupportedHandleTypes }
        try timeouts.validate()
    }
}

/// A decoded ringtone: the file it came from and its samples.
public struct Ringtone: Sendable, Equatable {
    /// The WAV file's path.
    public let path: String
    /// Its audio.
    public let audio: WAVAudio

    /// Loads and decodes the WAV file at `path`.
    /// - Throws: `ringtoneNotFound`, `ringtoneNotPlayable`.
    public init(path: String) throws(ProviderConfigurationError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .ringtoneNotFound(path: path) }
        let audio: WAVAudio
        do {
            audio = try WAVAudio(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .ringtoneNotPlayable(path: path, reason: "\(error)")
        }
        guard audio.frameCount > 0, audio.sampleRate > 0 else { throw .ringtoneNotPlayable(path: path, reason: "the file holds no audio") }
        self.path = path
        self.audio = audio
    }
}

/// How long each action may stay pending before the system fails it (`timedOutPerforming`),
/// and how long an incoming call rings. Apple documents none of its values; these are ours:
/// 10 s for the actions that need the network (start, answer, translating), 5 s for the rest
/// (Android's per-callback limit), 60 s of ringing (iOS 16+ and Android).
public struct ActionTimeouts: Sendable, Equatable {
    /// StartCallAction, seconds.
    public var start: Double = 10
    /// AnswerCallAction, seconds.
    public var answer: Double = 10
    /// EndCallAction, seconds.
    public var end: Double = 5
    /// SetHeldCallAction, seconds.
    public var setHeld: Double = 5
    /// SetMutedCallAction, seconds.
    public var setMuted: Double = 5
    /// SetGroupCallAction, seconds.
    public var setGroup: Double = 5
    /// PlayDTMFCallAction, seconds.
    public var playDTMF: Double = 5
    /// SetTranslatingCallAction, seconds.
    public var setTranslating: Double = 10
    /// How long an incoming call rings before it ends as `unanswered`, seconds.
    public var unanswered: Double = 60

    /// The defaults above.
    public init() {}

    /// Checks every timeout; `ProviderConfiguration.validate()` and `CallProvider` call it.
    /// - Throws: `invalidTimeout` naming the first that is not a positive, finite number of
    ///   seconds (`"timeouts.answer"`).
    public func validate() throws(ProviderConfigurationError) {
        let all: [(String, Double)] = [("start", start), ("answer", answer), ("end", end), ("setHeld", setHeld), ("setMuted", setMuted),
                                       ("setGroup", setGroup), ("playDTMF", playDTMF), ("setTranslating", setTranslating),
                                       ("unanswered", unanswered)]
        for (name, value) in all where !(value.isFinite && value > 0) { throw .invalidTimeout(name: "timeouts." + name, value: value) }
    }
}

/// Why a `ProviderConfiguration` was refused.
public enum ProviderConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ringtone file does not exist.
    case ringtoneNotFound(path: String)
    /// The ringtone file cannot be played: `reason` says why.
    case ringtoneNotPlayable(path: String, reason: String)
    /// A limit below 1.
    case invalidLimit(name: String, value: Int)
    /// A timeout that is not a positive, finite number of seconds.
    case invalidTimeout(name: String, value: Double)
    /// `supportedHandleTypes` is empty: no call could be started.
    case noSupportedHandleTypes

    public var description: String {
        switch self {
        case let .ringtoneNotFound(path): "ringtone \(path) does not exist"
        case let .ringtoneNotPlayable(path, reason): "ringtone \(path) cannot be played: \(reason)"
        case let .invalidLimit(name, value): "\(name) \(value) is below 1"
        case let .invalidTimeout(name, value): "\(name) \(value) s is not a positive number of seconds"
        case .noSupportedHandleTypes: "supportedHandleTypes is empty: no call could be started"
        }
    }
}
