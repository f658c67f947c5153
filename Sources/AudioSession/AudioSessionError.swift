// SPDX-License-Identifier: Apache-2.0
/// Why an audio session refused a request: iOS's error codes (`code`, with AVAudioSession's
/// names and numeric values) plus what exactly was wrong.
public enum AudioSessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// AVAudioSession.ErrorCode's names and values (four-char codes as decimal).
    public enum Code: Int, Sendable, CaseIterable {
        case badParam = -50
        case mediaServicesFailed = 1_836_282_486      // 'msrv'
        case isBusy = 560_030_580                     // '!act'
        case incompatibleCategory = 560_161_140       // '!cat'
        case cannotInterruptOthers = 560_557_684      // '!int'
        case missingEntitlement = 1_701_737_535       // 'ent?'
        case siriIsRecording = 1_936_290_409          // 'siri'
        case cannotStartPlaying = 561_015_905         // '!pla'
        case cannotStartRecording = 561_145_187       // '!rec'
        case insufficientPriority = 561_017_449       // '!pri'
        case resourceNotAvailable = 561_145_203       // '!res'
        case unspecified = 2_003_329_396              // 'what'
        case expiredSession = 561_210_739             // '!ses'
        case sessionNotActive = 1_768_841_571         // 'inac'
    }

    /// badParam: `option` (its name) is not valid in `category`; `acceptedBy` lists the
    /// categories that take it. iOS says only −50.
    case optionNotAllowed(option: String, category: AudioSession.Category, acceptedBy: [AudioSession.Category])
    /// badParam: `mode` is not valid in `category`. iOS documents a silent fall back to
    /// default; we refuse, so a call never runs without the processing its mode promised.
    case modeNotAllowed(mode: AudioSession.Mode, category: AudioSession.Category, acceptedBy: [AudioSession.Category])
    /// badParam: option bits no option has.
    case unknownOptions(rawValue: UInt)
    /// badParam: a preference outside what the engine can run.
    case preferenceOutOfRange(name: String, value: Double, range: ClosedRange<Double>)
    /// badParam: `notifyOthersOnDeactivation` given when activating.
    case notifyOthersOnlyWhenDeactivating
    /// isBusy: the engine belongs to another session, or cannot change while this one is active.
    case isBusy(reason: String)
    /// insufficientPriority: an active session of higher priority that does not mix (`heldBy`,
    /// its name) holds the audio.
    case insufficientPriority(heldBy: String)
    /// cannotStartPlaying: the engine plays but the category does not, or the device would not start.
    case cannotStartPlaying(reason: String)
    /// cannotStartRecording: the engine records but the category does not.
    case cannotStartRecording(category: AudioSession.Category)
    /// sessionNotActive: the request needs an active session.
    case sessionNotActive
    /// mediaServicesFailed: the engine was shut down.
    case mediaServicesFailed(reason: String)
    /// resourceNotAvailable: the engine refused a resource.
    case resourceNotAvailable(reason: String)
    /// resourceNotAvailable: another process holds `device` (EBUSY on open). The session is
    /// interrupted (`.deviceBusy`) until the device frees.
    case deviceBusy(device: String)
    /// mediaServicesFailed: the sound server or the device layer is gone; every activation
    /// fails so until `mediaServicesWereReset`.
    case mediaServicesLost(reason: String)
    /// incompatibleCategory: the request needs another category (a speaker override needs playAndRecord).
    case incompatibleCategory(category: AudioSession.Category, reason: String)
    /// badParam: no available port has this uid.
    case portNotAvailable(uid: String)

    /// iOS's code for this error.
    public var code: Code {
        switch self {
        case .optionNotAllowed, .modeNotAllowed, .unknownOptions, .preferenceOutOfRange, .notifyOthersOnlyWhenDeactivating, .portNotAvailable: .badParam
        case .isBusy: .isBusy
        case .insufficientPriority: .insufficientPriority
        case .cannotStartPlaying: .cannotStartPlaying
        case .cannotStartRecording: .cannotStartRecording
        case .sessionNotActive: .sessionNotActive
        case .mediaServicesFailed: .mediaServicesFailed
        case .resourceNotAvailable, .deviceBusy: .resourceNotAvailable
        case .mediaServicesLost: .mediaServicesFailed
        case .incompatibleCategory: .incompatibleCategory
        }
    }

    public var description: String {
        func list(_ categories: [AudioSession.Category]) -> String { categories.map(\.rawValue).joined(separator: ", ") }
        switch self {
        case let .optionNotAllowed(option, category, acceptedBy):
            return "option \(option) is not valid in category \(category); categories that take it: \(list(acceptedBy))"
        case let .modeNotAllowed(mode, category, acceptedBy):
            return "mode \(mode) is not valid in category \(category); categories that take it: \(list(acceptedBy))"
        case let .unknownOptions(rawValue): return "unknown category option bits 0x\(String(rawValue, radix: 16))"
        case let .preferenceOutOfRange(name, value, range):
            return "preferred \(name) \(value) is outside \(range.lowerBound)–\(range.upperBound)"
        case .notifyOthersOnlyWhenDeactivating: return "notifyOthersOnDeactivation is valid only when deactivating"
        case let .isBusy(reason): return "session busy: \(reason)"
        case let .insufficientPriority(heldBy): return "session \(heldBy) holds the audio at a higher priority and does not mix"
        case let .cannotStartPlaying(reason): return "cannot start playing: \(reason)"
        case let .cannotStartRecording(category): return "cannot start recording: category \(category) does not record"
        case .sessionNotActive: return "the session is not active"
        case let .mediaServicesFailed(reason): return "media services failed: \(reason)"
        case let .resourceNotAvailable(reason): return "resource not available: \(reason)"
        case let .deviceBusy(device): return "device \(device) is held by another process"
        case let .mediaServicesLost(reason): return "media services were lost (\(reason)); wait for mediaServicesWereReset"
        case let .incompatibleCategory(category, reason): return "not in category \(category): \(reason)"
        case let .portNotAvailable(uid): return "no available port \(uid)"
        }
    }
}
