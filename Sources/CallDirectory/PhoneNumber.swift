// SPDX-License-Identifier: Apache-2.0
/// A telephone number in E.164 form: a country code and the national significant number,
/// at most 15 digits together (ITU-T E.164 §6), so `value` always fits an Int64.
public struct PhoneNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The country calling code (1–3 digits, never starting with 0): 1, 44, 353.
    public let countryCode: Int
    /// The national significant number's digits (no trunk prefix), e.g. "2079460000".
    public let nationalNumber: String
    /// Country code and national digits as one integer, the directory's key: 442079460000.
    public let value: Int64

    init(countryCode: Int, nationalNumber: String, value: Int64) {
        self.countryCode = countryCode
        self.nationalNumber = nationalNumber
        self.value = value
    }

    public static func < (lhs: PhoneNumber, rhs: PhoneNumber) -> Bool { lhs.value < rhs.value }

    /// "+44 2079460000".
    public var description: String { "+\(countryCode) \(nationalNumber)" }
}

/// How numbers are dialled in one country: its country code, the trunk prefix a national
/// number starts with ("0" in most of Europe, "1" in the NANP) and the prefixes that begin
/// an international number ("00", "011").
public struct NumberingPlan: Sendable, Hashable {
    /// The country calling code.
    public var countryCode: Int
    /// The trunk (national) prefix, dropped from national numbers; nil when there is none.
    public var trunkPrefix: String?
    /// What is dialled before a country code instead of "+".
    public var internationalPrefixes: [String]

    /// A plan; `countryCode` must be a valid country code for numbers to normalise.
    public init(countryCode: Int, trunkPrefix: String?, internationalPrefixes: [String]) {
        self.countryCode = countryCode
        self.trunkPrefix = trunkPrefix
        self.internationalPrefixes = internationalPrefixes
    }

    /// The North American Numbering Plan (+1): trunk prefix 1, international 011.
    public static let northAmerica = NumberingPlan(countryCode: 1, trunkPrefix: "1", internationalPrefixes: ["011"])
    /// The United Kingdom (+44): trunk prefix 0, international 00.
    public static let unitedKingdom = NumberingPlan(countryCode: 44, trunkPrefix: "0", internationalPrefixes: ["00"])
    /// Germany (+49): trunk prefix 0, international 00.
    public static let germany = NumberingPlan(countryCode: 49, trunkPrefix: "0", internationalPrefixes: ["00"])
    /// France (+33): trunk prefix 0, international 00.
    public static let france = NumberingPlan(countryCode: 33, trunkPrefix: "0", internationalPrefixes: ["00"])
}

/// Why text is not a phone number.
public enum PhoneNumberError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No digits at all.
    case empty
    /// A character that is neither a digit nor a separator (space, -, ., /, parentheses),
    /// or a "+" that is not the first.
    case invalidCharacter(Character)
    /// More digits than E.164 allows (15, country code included): `digits` counted (the
    /// count stops a little past the limit, so a huge input is never read whole).
    case tooLong(digits: Int)
    /// A country code and nothing after it.
    case tooShort
    /// A national number and no default plan to say which country.
    case missingCountryCode
    /// A country code starting with 0.
    case invalidCountryCode

    public var description: String {
        switch self {
        case .empty: "no digits"
        case let .invalidCharacter(character): "\"\(character)\" is not part of a phone number"
        case let .tooLong(digits): "\(digits) digits or more, E.164 allows 15"
        case .tooShort: "no digits after the country code"
        case .missingCountryCode: "a national number and no default country"
        case .invalidCountryCode: "country codes do not start with 0"
        }
    }
}
