// SPDX-License-Identifier: Apache-2.0
/// A sound card, by ALSA index and name.
public struct AudioCard: Sendable, Hashable, CustomStringConvertible {
    /// ALSA card index (`hw:<index>`).
    public var index: Int
    /// Short identifier (`snd_card_get_name`), e.g. "USB Audio Device".
    public var name: String

    /// A card.
    public init(index: Int, name: String) {
        self.index = index
        self.name = name
    }

    public var description: String { "card \(index): \(name)" }
}

/// One PCM a stream can open: its ALSA name, what it says about itself, which ways it works
/// and which card it belongs to (nil for virtual PCMs such as `pulse` or `null`).
public struct AudioDeviceInfo: Sendable, Hashable, CustomStringConvertible {
    /// The name to open, e.g. `default`, `pulse`, `hw:CARD=Device,DEV=0`.
    public var name: String
    /// Human-readable description (first line of the hint, or card and device names).
    public var description: String
    /// Directions the PCM supports.
    public var directions: StreamDirections
    /// Card index for hardware PCMs.
    public var card: Int?

    /// A device entry.
    public init(name: String, description: String, directions: StreamDirections, card: Int?) {
        self.name = name
        self.description = description
        self.directions = directions
        self.card = card
    }
}
