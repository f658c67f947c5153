// SPDX-License-Identifier: Apache-2.0
/// Which options and modes each category takes: the table of APPLE-MODEL.md, as data.
///
/// Where the document says "unconfirmed" we chose, and the tests hold us to it:
/// overrideMutedMicrophoneInterruption is accepted by every category that records (record,
/// playAndRecord, multiRoute); spokenAudio by playback, voicePrompt by playback and
/// playAndRecord.
public enum AudioSessionCompatibility {
    /// How a category treats an option.
    public enum Acceptance: Sendable, Equatable {
        /// The option may be set.
        case allowed
        /// The option is always on in this category (setting it is accepted, and changes nothing).
        case implied
        /// Setting the option fails.
        case refused
    }

    /// How `category` treats the named `option` (one of `CategoryOptions.named`).
    public static func acceptance(of option: AudioSession.CategoryOptions, in category: AudioSession.Category) -> Acceptance {
        let row: [Acceptance]
        //                                      ambient   soloAmbient playback  record    playAndRecord multiRoute
        switch option {
        case .mixWithOthers:                    row = [.implied, .refused, .allowed, .refused, .allowed, .allowed]
        case .duckOthers:                       row = [.allowed, .refused, .allowed, .refused, .allowed, .allowed]
        case .interruptSpokenAudioAndMixWithOthers: row = [.refused, .refused, .allowed, .refused, .allowed, .allowed]
        case .allowBluetoothHFP:                row = [.refused, .refused, .refused, .allowed, .allowed, .refused]
        case .allowBluetoothA2DP:               row = [.implied, .implied, .implied, .refused, .allowed, .refused]
        case .defaultToSpeaker:                 row = [.refused, .refused, .refused, .refused, .allowed, .refused]
        case .overrideMutedMicrophoneInterruption: row = [.refused, .refused, .refused, .allowed, .allowed, .allowed]
        default: return .refused
        }
        return row[AudioSession.Category.allCases.firstIndex(of: category)!]
    }

    /// The categories that accept `option` (allowed or implied).
    public static func categories(accepting option: AudioSession.CategoryOptions) -> [AudioSession.Category] {
        AudioSession.Category.allCases.filter { acceptance(of: option, in: $0) != .refused }
    }

    /// The options always on in `category`.
    public static func impliedOptions(of category: AudioSession.Category) -> AudioSession.CategoryOptions {
        AudioSession.CategoryOptions(AudioSession.CategoryOptions.named.map(\.option).filter { acceptance(of: $0, in: category) == .implied })
    }

    /// The categories that take `mode`.
    public static func categories(accepting mode: AudioSession.Mode) -> [AudioSession.Category] {
        switch mode {
        case .default: AudioSession.Category.allCases
        case .voiceChat, .videoChat, .gameChat: [.playAndRecord]
        case .videoRecording: [.record, .playAndRecord]
        case .measurement: [.playback, .record, .playAndRecord]
        case .moviePlayback, .spokenAudio: [.playback]
        case .voicePrompt: [.playback, .playAndRecord]
        }
    }

    /// The options `mode` turns on.
    public static func impliedOptions(of mode: AudioSession.Mode) -> AudioSession.CategoryOptions {
        switch mode {
        case .voiceChat: .allowBluetoothHFP
        case .videoChat: [.allowBluetoothHFP, .defaultToSpeaker]
        default: []
        }
    }

    /// Checks `category`, `mode` and `options` together and returns the options in effect
    /// (what was asked plus what the category and mode imply; duckOthers brings mixWithOthers).
    /// - Throws: `unknownOptions`, `optionNotAllowed` naming the option and the categories that
    ///   accept it, `modeNotAllowed` likewise.
    public static func validate(category: AudioSession.Category, mode: AudioSession.Mode,
                                options: AudioSession.CategoryOptions) throws(AudioSessionError) -> AudioSession.CategoryOptions {
        let unknown = options.subtracting(.known)
        guard unknown.isEmpty else { throw .unknownOptions(rawValue: unknown.rawValue) }
        for (name, option) in AudioSession.CategoryOptions.named where options.contains(option) {
            guard acceptance(of: option, in: category) != .refused else {
                throw .optionNotAllowed(option: name, category: category, acceptedBy: categories(accepting: option))
            }
        }
        let modeCategories = categories(accepting: mode)
        guard modeCategories.contains(category) else {
            throw .modeNotAllowed(mode: mode, category: category, acceptedBy: modeCategories)
        }
        var effective = options.union(impliedOptions(of: category)).union(impliedOptions(of: mode))
        if effective.contains(.duckOthers) { effective.insert(.mixWithOthers) }
        return effective
    }
}
