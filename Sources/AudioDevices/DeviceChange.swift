// SPDX-License-Identifier: Apache-2.0
/// A sound card appeared or disappeared (USB plugged in or pulled out).
public enum DeviceChange: Sendable, Hashable, CustomStringConvertible {
    /// A card is new since the last look.
    case cardAdded(AudioCard)
    /// A card known before is gone.
    case cardRemoved(AudioCard)

    public var description: String {
        switch self {
        case let .cardAdded(card): return "added \(card)"
        case let .cardRemoved(card): return "removed \(card)"
        }
    }
}
