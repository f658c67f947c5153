// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Foundation
import MediaEngine

/// CXErrorCode's general errors (names and raw values), for what concerns no single request.
public enum CallErrorCode: Int, Sendable, CaseIterable {
    case unknownError = 0
    case unentitled = 1
    case invalidArgument = 2
    case missingVoIPBackgroundMode = 3
}

/// Why `reportNewIncomingCall` refused a call: the call must not be shown, and the app
/// answers its signalling accordingly (`isBusy`: SIP 486 Busy Here).
public enum IncomingCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// CXErrorCodeIncomingCallError's names and raw values; `maximumCallGroupsReached` (7) is
    /// ours (CallKit has no code for it in this domain; 7 is free and matches the transaction
    /// error's).
    public enum Code: Int, Sendable, CaseIterable {
        case unknown = 0
        case unentitled = 1
        case callUUIDAlreadyExists = 2
        case filteredByDoNotDisturb = 3
        case filteredByBlockList = 4
        case filteredDuringRestrictedSharingMode = 5
        case callIsProtected = 6
        case maximumCallGroupsReached = 7
    }

    /// A call with this UUID is known already.
    case callUUIDAlreadyExists(UUID)
    /// Do Not Disturb is on (`CallSystemSettings.doNotDisturb`).
    case filteredByDoNotDisturb
    /// The caller's handle is on the block list.
    case filteredByBlockList(CallHandle)
    /// Taking the call would exceed `maximumCallGroups`: the line is busy.
    case maximumCallGroupsReached(maximum: Int)
    /// The provider was invalidated.
    case providerInvalidated

    /// CallKit's code for this error.
    public var code: Code {
        switch self {
        case .callUUIDAlreadyExists: .callUUIDAlreadyExists
        case .filteredByDoNotDisturb: .filteredByDoNotDisturb
        case .filteredByBlockList: .filteredByBlockList
        case .maximumCallGroupsReached: .maximumCallGroupsReached
        case .providerInvalidated: .unknown
        }
    }

    /// Whether the caller should hear busy (SIP 486, CometChat's busy status): the call was
    /// refused because every line is taken, not because of who called.
    public var isBusy: Bool { code == .maximumCallGroupsReached }

    public var description: String {
        switch self {
        case let .callUUIDAlreadyExists(uuid): "a call \(uuid) exists already"
        case .filteredByDoNotDisturb: "filtered: Do Not Disturb is on"
        case let .filteredByBlockList(handle): "filtered: \(handle) is on the block list"
        case let .maximumCallGroupsReached(maximum): "busy: \(maximum) call groups are in use"
        case .providerInvalidated: "the provider was invalidated"
        }
    }
}

/// Why `CallController.request` refused a transaction. Nothing of a refused transaction runs.
public enum RequestTransactionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// CXErrorCodeRequestTransactionError's names and raw values.
    public enum Code: Int, Sendable, CaseIterable {
        case unknown = 0
        case unentitled = 1
        case unknownCallProvider = 2
        case emptyTransaction = 3
        case unknownCallUUID = 4
        case callUUIDAlreadyExists = 5
        case invalidAction = 6
        case maximumCallGroupsReached = 7
        case callIsProtected = 8
    }

    /// The provider was invalidated.
    case unknownCallProvider
    /// The transaction holds no action.
    case emptyTransaction
    /// An action names a call that does not exist (or has ended).
    case unknownCallUUID(UUID)
    /// A start action names a call that exists (or two start actions the same UUID).
    case callUUIDAlreadyExists(UUID)
    /// The action cannot apply to the call as it is; `reason` says why.
    case invalidAction(reason: String)
    /// Another call would exceed `maximumCallGroups` or `maximumCallsPerCallGroup`.
    case maximumCallGroupsReached(maximum: Int)

    /// CallKit's code for this error.
    public var code: Code {
        switch self {
        case .unknownCallProvider: .unknownCallProvider
        case .emptyTransaction: .emptyTransaction
        case .unknownCallUUID: .unknownCallUUID
        case .callUUIDAlreadyExists: .callUUIDAlreadyExists
        case .invalidAction: .invalidAction
        case .maximumCallGroupsReached: .maximumCallGroupsReached
        }
    }

    public var description: String {
        switch self {
        case .unknownCallProvider: "the provider was invalidated"
        case .emptyTransaction: "the transaction holds no action"
        case let .unknownCallUUID(uuid): "no call \(uuid)"
        case let .callUUIDAlreadyExists(uuid): "a call \(uuid) exists already"
        case let .invalidAction(reason): "invalid action: \(reason)"
        case let .maximumCallGroupsReached(maximum): "the limit of \(maximum) is reached"
        }
    }
}

/// Why `fulfill()` or `fail()` was refused: the action had completed already. CallKit logs a
/// second completion and drops it; here the caller learns which way the action went.
public enum ActionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The action was fulfilled or failed before.
    case alreadyCompleted
    /// The action's timeout passed first: it was failed and `timedOutPerforming` called.
    case timedOut
    /// The call ended (reported, reset, invalidated) before the action was fulfilled.
    case callEnded
    /// A SetTranslatingCallAction that starts translating was fulfilled without a translator:
    /// fulfil it with `fulfill(using:)` (or fail it). The action is still pending.
    case translatorRequired
    /// The call's media refused the translator (`tooManyTranslators`): the action is still
    /// pending, to be failed or fulfilled with a translator the media takes.
    case translatorRefused(CallMediaError)

    public var description: String {
        switch self {
        case .alreadyCompleted: "the action was completed before"
        case .timedOut: "the action timed out before it was completed"
        case .callEnded: "the call ended before the action was completed"
        case .translatorRequired: "starting translation needs the translator: fulfil with fulfill(using:)"
        case let .translatorRefused(error): "the call's media refused the translator: \(error)"
        }
    }
}

/// Why a provider could not be made, or media not bound to a call.
public enum CallProviderError: Error, Sendable, CustomStringConvertible {
    /// The engine's configuration lets it start device I/O without its session
    /// (`requiresAudioSession` false): media could start before `didActivate`.
    case engineStartsWithoutSession
    /// The configuration, as its properties were set after it was made, is invalid: the
    /// error names the property.
    case configuration(ProviderConfigurationError)
    /// The call audio session refused its category or the engine.
    case session(AudioSessionError)
    /// The recents store at `location` could not be opened: `reason` says why.
    case recents(location: String, reason: String)
    /// No call with this UUID.
    case unknownCall(UUID)
    /// The provider's call I/O is not a `VoiceEngine`.
    case noEngine
    /// The call has media already.
    case mediaAlreadyAdded(UUID)
    /// The engine refused the call's media.
    case engine(VoiceEngineError)

    public var description: String {
        switch self {
        case .engineStartsWithoutSession: "the engine must be configured with requiresAudioSession = true"
        case let .configuration(error): "provider configuration: \(error)"
        case let .session(error): "call audio session: \(error)"
        case let .recents(location, reason): "recents at \(location): \(reason)"
        case let .unknownCall(uuid): "no call \(uuid)"
        case .noEngine: "the provider has no VoiceEngine"
        case let .mediaAlreadyAdded(uuid): "call \(uuid) has media already"
        case let .engine(error): "engine: \(error)"
        }
    }
}
