// SPDX-License-Identifier: Apache-2.0
extension AudioSession {
    /// How the session's audio behaves with other audio and routes; raw values are
    /// AVAudioSession.CategoryOptions'.
    public struct CategoryOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt

        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Plays along with other sessions' audio (0x1).
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        /// Lowers other sessions' audio while active (0x2); implies mixWithOthers.
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        /// Bluetooth hands-free (HFP) routes for input and output (0x4).
        public static let allowBluetoothHFP = CategoryOptions(rawValue: 0x4)
        /// The former name of `allowBluetoothHFP`.
        public static let allowBluetooth = allowBluetoothHFP
        /// Routes to the loudspeaker rather than the receiver when no other route is chosen (0x8).
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        /// Pauses spoken audio of other sessions, mixes with the rest (0x11, includes mixWithOthers).
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        /// Bluetooth A2DP output routes (0x20).
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        /// Keeps recording when the built-in microphone is muted (0x80).
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)

        /// Every named option with its name, the most specific first (0x11 before 0x1).
        public static let named: [(name: String, option: CategoryOptions)] = [
            ("interruptSpokenAudioAndMixWithOthers", .interruptSpokenAudioAndMixWithOthers),
            ("mixWithOthers", .mixWithOthers),
            ("duckOthers", .duckOthers),
            ("allowBluetoothHFP", .allowBluetoothHFP),
            ("allowBluetoothA2DP", .allowBluetoothA2DP),
            ("defaultToSpeaker", .defaultToSpeaker),
            ("overrideMutedMicrophoneInterruption", .overrideMutedMicrophoneInterruption),
        ]

        /// Every bit a named option uses.
        public static let known = CategoryOptions(named.map(\.option))

        public var description: String {
            var rest = self
            var names: [String] = []
            for (name, option) in Self.named where rest.contains(option) {
                names.append(name)
                rest.subtract(option)
            }
            if !rest.isEmpty { names.append("0x" + String(rest.rawValue, radix: 16)) }
            return "[" + names.joined(separator: ", ") + "]"
        }
    }
}
