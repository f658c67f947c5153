// SPDX-License-Identifier: Apache-2.0
import CallDirectory
import Testing
import TestSupport

/// `PhoneNumberNormalizer`: what people type, in international and national forms, to
/// country code + digits; every error from a real input; no trap on long digit strings.
@Suite struct NormalizerTests {
    let uk = PhoneNumberNormalizer(defaultPlan: .unitedKingdom)
    let us = PhoneNumberNormalizer(defaultPlan: .northAmerica)
    let none = PhoneNumberNormalizer()

    @Test func internationalForms() throws {
        let tollFree = try none.normalize("+1 (800) 555-1234")
        #expect(tollFree.value == 1_800_555_1234 && tollFree.countryCode == 1 && tollFree.nationalNumber == "8005551234")
        let london = try uk.normalize("00 44 20 7946 0000")
        #expect(london.value == 44_20_7946_0000 && london.countryCode == 44 && london.nationalNumber == "2079460000")
        #expect(try us.normalize("011 44 20 7946 0000") == london)
        #expect(try none.normalize("+353 1 234 5678").countryCode == 353, "Ireland: a three-digit code")
        #expect(try none.normalize("+7 495 123-45-67").countryCode == 7)
        #expect(try none.normalize("+49 (0)30/1234.567").value == 49_030_1234_567, "the (0) stays: digits are digits")
    }

    @Test func nationalFormsUseTheDefaultPlan() throws {
        #expect(try uk.normalize("020 7946 0000").value == 44_20_7946_0000, "the trunk 0 is dropped")
        #expect(try us.normalize("(800) 555-1234").value == 1_800_555_1234)
        #expect(try us.normalize("1-800-555-1234").value == 1_800_555_1234, "the NANP trunk 1 is dropped")
        #expect(try PhoneNumberNormalizer(defaultPlan: .germany).normalize("030 1234567").value == 49_30_1234567)
    }

    @Test func everyError() {
        #expect(throws: PhoneNumberError.empty) { try uk.normalize(" - () ") }
        #expect(throws: PhoneNumberError.invalidCharacter("x")) { try uk.normalize("020 7946 0000 x12") }
        #expect(throws: PhoneNumberError.invalidCharacter("+")) { try uk.normalize("44+20") }
        #expect(throws: PhoneNumberError.tooShort) { try uk.normalize("+44") }
        #expect(throws: PhoneNumberError.missingCountryCode) { try none.normalize("020 7946 0000") }
        #expect(throws: PhoneNumberError.invalidCountryCode) { try none.normalize("+0 123") }
        #expect(throws: PhoneNumberError.tooLong(digits: 16)) { try none.normalize("+4412345678901234") }
        // Far past Int64's 19 digits: refused after a bounded read, never an overflow trap.
        let huge = "+" + String(repeating: "9", count: 10_000)
        #expect(throws: PhoneNumberError.tooLong(digits: 20)) { try none.normalize(huge) }
        #expect(throws: PhoneNumberError.tooLong(digits: 20)) { try uk.normalize(String(repeating: "0", count: 40)) }
    }

    /// Random numbers written with random separators come back as the same value.
    @Test func randomNumbersRoundTrip() throws {
        var generator = SeededGenerator(seed: 14)
        let codes = [1, 7, 20, 44, 49, 86, 353, 880, 998]
        let separators = ["", " ", "-", ".", " ", "/"]
        for _ in 0..<2_000 {
            let code = codes.randomElement(using: &generator)!
            let length = Int.random(in: 4...(15 - String(code).count), using: &generator)
            let national = String((0..<length).map { index in
                Character(String(index == 0 ? Int.random(in: 1...9, using: &generator) : Int.random(in: 0...9, using: &generator)))
            })
            var text = "+\(code)"
            for character in national {
                text += separators.randomElement(using: &generator)! + String(character)
            }
            let number = try none.normalize(text)
            #expect(number.countryCode == code && number.nationalNumber == national, "\(text)")
            #expect(number.value == Int64("\(code)\(national)")!)
        }
    }
}
