// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
@testable import AudioSession
import Testing

/// Category, mode and options against APPLE-MODEL.md's table, cell by cell; the table below
/// is copied from the document, not from the implementation.
@Suite struct AudioSessionConfigurationTests {
    typealias Category = AudioSession.Category
    typealias Options = AudioSession.CategoryOptions

    static let categories: [Category] = [.ambient, .soloAmbient, .playback, .record, .playAndRecord, .multiRoute]

    /// APPLE-MODEL.md: I implied, ✓ allowed, ✗ refused; "unconfirmed" (our choice) accepted.
    static let optionTable: [(name: String, raw: UInt, cells: String)] = [
        ("mixWithOthers", 0x1, "I✗✓✗✓✓"),
        ("duckOthers", 0x2, "✓✗✓✗✓✓"),
        ("interruptSpokenAudioAndMixWithOthers", 0x11, "✗✗✓✗✓✓"),
        ("allowBluetoothHFP", 0x4, "✗✗✗✓✓✗"),
        ("allowBluetoothA2DP", 0x20, "III✗✓✗"),
        ("defaultToSpeaker", 0x8, "✗✗✗✗✓✗"),
        ("overrideMutedMicrophoneInterruption", 0x80, "✗✗✗✓✓✓"),
    ]

    /// APPLE-MODEL.md's modes per category (spokenAudio, voicePrompt unconfirmed: our choice).
    static let modeTable: [(mode: AudioSession.Mode, categories: [Category])] = [
        (.default, categories),
        (.voiceChat, [.playAndRecord]),
        (.videoChat, [.playAndRecord]),
        (.gameChat, [.playAndRecord]),
        (.videoRecording, [.record, .playAndRecord]),
        (.measurement, [.playback, .record, .playAndRecord]),
        (.moviePlayback, [.playback]),
        (.spokenAudio, [.playback]),
        (.voicePrompt, [.playback, .playAndRecord]),
    ]

    static func session() -> AudioSession {
        AudioSession(name: "test", center: AudioSessionCenter())
    }

    @Test func everyCategoryOptionCellIsAcceptedOrRefusedAsTheTableSays() throws {
        #expect(Options.named.count == Self.optionTable.count)
        for (name, raw, cells) in Self.optionTable {
            let option = Options(rawValue: raw)
            let accepting = zip(Self.categories, cells).filter { $0.1 != "✗" }.map(\.0)
            for (category, cell) in zip(Self.categories, cells) {
                let session = Self.session()
                // A known previous configuration that must survive a refusal.
                try session.setCategory(.playAndRecord, mode: .voiceChat, options: .defaultToSpeaker)
                let before = session.categoryOptions
                if cell == "✗" {
                    let expected = AudioSessionError.optionNotAllowed(option: name, category: category, acceptedBy: accepting)
                    #expect(throws: expected, "\(name) in \(category)") { try session.setCategory(category, options: option) }
                    #expect(expected.code == .badParam && expected.code.rawValue == -50)
                    #expect(session.category == .playAndRecord && session.mode == .voiceChat && session.categoryOptions == before)
                } else {
                    try session.setCategory(category, options: option)
                    #expect(session.category == category)
                    #expect(session.categoryOptions.contains(option), "\(name) in \(category)")
                }
                // Implied: on without being asked.
                if cell == "I" {
                    try session.setCategory(category)
                    #expect(session.categoryOptions.contains(option), "\(name) implied in \(category)")
                }
            }
        }
    }

    @Test func everyCategoryModeCellIsAcceptedOrRefusedAsTheTableSays() throws {
        #expect(AudioSession.Mode.allCases.count == Self.modeTable.count)
        for (mode, accepting) in Self.modeTable {
            for category in Self.categories {
                let session = Self.session()
                try session.setCategory(.playback, mode: .moviePlayback, options: .mixWithOthers)
                if accepting.contains(category) {
                    try session.setCategory(category, mode: mode)
                    #expect(session.mode == mode && session.category == category)
                } else {
                    #expect(throws: AudioSessionError.modeNotAllowed(mode: mode, category: category, acceptedBy: accepting), "\(mode) in \(category)") {
                        try session.setCategory(category, mode: mode)
                    }
                    #expect(session.category == .playback && session.mode == .moviePlayback && session.categoryOptions.contains(.mixWithOthers))
                }
            }
        }
    }

    @Test func optionsDoNotSurviveACategoryChange() throws {
        let session = Self.session()
        try session.setCategory(.playAndRecord, options: [.defaultToSpeaker, .duckOthers])
        try session.setCategory(.playAndRecord)
        #expect(session.categoryOptions.isEmpty)
        try session.setCategory(.playback, options: .duckOthers)
        try session.setCategory(.soloAmbient)
        #expect(!session.categoryOptions.contains(.duckOthers))
    }

    @Test func modesAndOptionsBringWhatTheyImply() throws {
        let session = Self.session()
        try session.setCategory(.playAndRecord, mode: .videoChat)
        #expect(session.categoryOptions.isSuperset(of: [.defaultToSpeaker, .allowBluetoothHFP]))
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        #expect(session.categoryOptions == .allowBluetoothHFP)
        try session.setCategory(.playback, options: .duckOthers)
        #expect(session.categoryOptions.contains(.mixWithOthers))
        #expect(Options.allowBluetooth == .allowBluetoothHFP)
    }

    @Test func unknownOptionBitsAreRefused() throws {
        let session = Self.session()
        #expect(throws: AudioSessionError.unknownOptions(rawValue: 0x40)) {
            try session.setCategory(.playAndRecord, options: [.defaultToSpeaker, Options(rawValue: 0x40)])
        }
        #expect(session.category == .soloAmbient)
    }

    @Test func errorCodesAreIOSFourCharacterCodes() {
        func fourCC(_ text: String) -> Int { text.utf8.reduce(0) { $0 << 8 | Int($1) } }
        let expected: [(AudioSessionError.Code, String)] = [
            (.mediaServicesFailed, "msrv"), (.isBusy, "!act"), (.incompatibleCategory, "!cat"), (.cannotInterruptOthers, "!int"),
            (.missingEntitlement, "ent?"), (.siriIsRecording, "siri"), (.cannotStartPlaying, "!pla"), (.cannotStartRecording, "!rec"),
            (.insufficientPriority, "!pri"), (.resourceNotAvailable, "!res"), (.unspecified, "what"), (.expiredSession, "!ses"),
            (.sessionNotActive, "inac"),
        ]
        for (code, text) in expected { #expect(code.rawValue == fourCC(text), "\(code)") }
        #expect(AudioSessionError.Code.badParam.rawValue == -50)
        #expect(AudioSessionError.Code.allCases.count == expected.count + 1)
    }

    @Test func errorsNameTheOptionAndTheCategoriesThatTakeIt() {
        let error = AudioSessionError.optionNotAllowed(option: "defaultToSpeaker", category: .playback, acceptedBy: [.playAndRecord])
        #expect(error.description == "option defaultToSpeaker is not valid in category playback; categories that take it: playAndRecord")
    }

    @Test func preferencesOutsideTheirRangeAreRefusedByName() throws {
        let session = Self.session()
        let cases: [(AudioSession.Preferences, String)] = [
            (.init(sampleRate: 4_000), "sampleRate"), (.init(sampleRate: .nan), "sampleRate"), (.init(sampleRate: 1e12), "sampleRate"),
            (.init(ioBufferDuration: 0), "ioBufferDuration"), (.init(ioBufferDuration: 0.5), "ioBufferDuration"),
            (.init(ioBufferDuration: -.infinity), "ioBufferDuration"),
            (.init(inputNumberOfChannels: 0), "inputNumberOfChannels"), (.init(outputNumberOfChannels: 3), "outputNumberOfChannels"),
        ]
        try session.setPreferences(.init(sampleRate: 16_000))
        for (preferences, name) in cases {
            #expect {
                try session.setPreferences(preferences)
            } throws: { error in
                guard case let .preferenceOutOfRange(refused, _, _) = error as? AudioSessionError else { return false }
                return refused == name
            }
            #expect(session.preferences == .init(sampleRate: 16_000))
        }
        try session.setPreferences(.init(sampleRate: 8_000, ioBufferDuration: 0.1, inputNumberOfChannels: 2, outputNumberOfChannels: 1))
    }

    @Test func theModeDecidesVoiceProcessing() {
        for mode in [AudioSession.Mode.voiceChat, .videoChat, .gameChat] {
            let processing = mode.processing
            #expect(processing.echoCancellation && processing.noiseSuppression && processing.automaticGainControl && processing.voiceActivityDetection)
        }
        for mode in AudioSession.Mode.allCases where ![.voiceChat, .videoChat, .gameChat].contains(mode) {
            #expect(!mode.processing.isProcessing, "\(mode)")
        }
    }
}
