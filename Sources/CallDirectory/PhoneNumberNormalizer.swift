// SPDX-License-Identifier: Apache-2.0
/// Turns what people type into a `PhoneNumber`: "+1 (800) 555-1234", "00 44 20 7946 0000",
/// and national forms ("020 7946 0000", "(800) 555-1234") read with `defaultPlan`.
///
/// Without a `defaultPlan`, digits without "+" are read as CallKit writes phone numbers
/// (CXCallDirectoryPhoneNumber, and the handles of iOS sample code): country code first, no
/// "+" — "18005551234" is +1 800 555 1234 — so the entries a call directory provider adds
/// and the handles an app reports match without configuring anything. Digits that start
/// with 0 are a national number (a trunk or international prefix) and need a plan.
///
/// The country code is split off by E.164's prefix-free assignment (1 and 7 are one digit,
/// the assigned two-digit codes are listed, every other code has three digits). Digits are
/// kept as small integers and counted before any arithmetic, so no input traps.
public struct PhoneNumberNormalizer: Sendable, Hashable {
    /// The country of national numbers, or nil to accept only international forms.
    public var defaultPlan: NumberingPlan?

    /// E.164 allows 15 digits, country code included.
    public static let maximumDigits = 15

    /// A normaliser reading national numbers with `defaultPlan`; without one, digits without
    /// "+" are read country code first, as CallKit writes them.
    public init(defaultPlan: NumberingPlan? = nil) {
        self.defaultPlan = defaultPlan
    }

    /// The number `text` names.
    /// - Throws: `PhoneNumberError`.
    public func normalize(_ text: String) throws(PhoneNumberError) -> PhoneNumber {
        var digits: [UInt8] = []
        var plus = false
        // Prefixes ("00", "011", the trunk "0") come before the 15 digits: allow room for them.
        let readLimit = Self.maximumDigits + 4
        for character in text {
            if let ascii = character.asciiValue, ascii >= 48, ascii <= 57 {
                digits.append(ascii - 48)
                if digits.count > readLimit { throw .tooLong(digits: digits.count) }
            } else if character == "+" {
                guard digits.isEmpty, !plus else { throw .invalidCharacter(character) }
                plus = true
            } else if !Self.separators.contains(character) {
                throw .invalidCharacter(character)
            }
        }
        guard !digits.isEmpty else { throw .empty }

        var international: ArraySlice<UInt8>
        if plus {
            international = digits[...]
        } else if let plan = defaultPlan {
            if let prefix = plan.internationalPrefixes.map(Self.digitsOf).first(where: { digits.starts(with: $0) && !$0.isEmpty }) {
                international = digits.dropFirst(prefix.count)
            } else {
                var national = digits[...]
                if let trunk = plan.trunkPrefix.map(Self.digitsOf), !trunk.isEmpty, national.starts(with: trunk) {
                    national = national.dropFirst(trunk.count)
                }
                guard plan.countryCode > 0, plan.countryCode < 1_000 else { throw .invalidCountryCode }
                international = ArraySlice(Self.digitsOf(String(plan.countryCode)) + national)
            }
        } else {
            // CallKit's form: the country code leads and the "+" is left out.
            guard digits.first != 0 else { throw .missingCountryCode }
            international = digits[...]
        }
        guard let first = international.first else { throw .tooShort }
        guard first != 0 else { throw .invalidCountryCode }
        guard international.count <= Self.maximumDigits else { throw .tooLong(digits: international.count) }
        let codeLength = Self.countryCodeLength(international)
        guard international.count > codeLength else { throw .tooShort }
        var value: Int64 = 0
        for digit in international { value = value * 10 + Int64(digit) }  // ≤ 15 digits: no overflow
        let code = international.prefix(codeLength).reduce(0) { $0 * 10 + Int($1) }
        let national = String(decoding: international.dropFirst(codeLength).map { $0 + 48 }, as: UTF8.self)
        return PhoneNumber(countryCode: code, nationalNumber: national, value: value)
    }

    /// What people put between digits.
    static let separators: Set<Character> = [" ", "-", ".", "/", "(", ")", "\u{00A0}", "\t"]

    /// The two-digit country codes E.164 assigns (every other code but 1 and 7 has three).
    static let twoDigitCodes: Set<Int> = [
        20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 58,
        60, 61, 62, 63, 64, 65, 66, 81, 82, 84, 86, 90, 91, 92, 93, 94, 95, 98,
    ]

    /// How many of `digits`' leading digits are the country code.
    static func countryCodeLength(_ digits: ArraySlice<UInt8>) -> Int {
        let first = Int(digits.first!)
        if first == 1 || first == 7 { return 1 }
        guard digits.count >= 2 else { return 1 }
        return twoDigitCodes.contains(first * 10 + Int(digits[digits.startIndex + 1])) ? 2 : 3
    }

    static func digitsOf(_ text: String) -> [UInt8] { text.utf8.filter { $0 >= 48 && $0 <= 57 }.map { $0 - 48 } }
}
