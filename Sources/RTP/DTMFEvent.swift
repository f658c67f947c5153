// SPDX-License-Identifier: Apache-2.0
/// A DTMF key as an RFC 4733 event code: digits 0–9 are codes 0–9, `*` is 10, `#` is 11,
/// A–D are 12–15.
public enum DTMFEvent: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Key 0.
    case digit0 = 0
    /// Key 1.
    case digit1
    /// Key 2.
    case digit2
    /// Key 3.
    case digit3
    /// Key 4.
    case digit4
    /// Key 5.
    case digit5
    /// Key 6.
    case digit6
    /// Key 7.
    case digit7
    /// Key 8.
    case digit8
    /// Key 9.
    case digit9
    /// Key `*`.
    case star
    /// Key `#`.
    case pound
    /// Key A.
    case a
    /// Key B.
    case b
    /// Key C.
    case c
    /// Key D.
    case d

    private static let characters: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D"]

    /// The key for a character (`0`–`9`, `*`, `#`, `A`–`D`, lower case accepted), or `nil`
    /// for any other character.
    public init?(_ character: Character) {
        // Only ASCII characters can be keys. Upper-casing first would not do: "ß" upper-cases
        // to "SS" and "ﬁ" to "FI", which are not one Character. ("\r\n" has an ASCII value
        // too, 10, which is no key.)
        guard let ascii = character.asciiValue else { return nil }
        let upper = ascii >= UInt8(ascii: "a") && ascii <= UInt8(ascii: "z") ? ascii - 32 : ascii
        guard let index = Self.characters.firstIndex(of: Character(Unicode.Scalar(upper))) else { return nil }
        self.init(rawValue: UInt8(index))
    }

    /// The key's character.
    public var character: Character { Self.characters[Int(rawValue)] }

    /// The key's character as a string.
    public var description: String { String(character) }
}
