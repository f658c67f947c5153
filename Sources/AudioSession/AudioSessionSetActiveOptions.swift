// SPDX-License-Identifier: Apache-2.0
extension AudioSession {
    /// Options of `setActive(_:options:)` (AVAudioSession.SetActiveOptions).
    public struct SetActiveOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt

        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// On deactivation, tells the sessions this one interrupted that they may resume (1).
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Where a session stands against others: a higher priority's non-mixable activation
    /// interrupts lower ones, and a lower one cannot interrupt it (insufficientPriority).
    public struct Priority: RawRepresentable, Comparable, Sendable, Hashable {
        public let rawValue: Int

        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Prompts, media, everything that is not ringing or a call.
        public static let normal = Priority(rawValue: 0)
        /// A ringing call's tone.
        public static let ringtone = Priority(rawValue: 100)
        /// A call in progress.
        public static let call = Priority(rawValue: 200)

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}
