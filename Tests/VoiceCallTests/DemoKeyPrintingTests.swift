// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import voicecall

/// Issue 16, "Hardening": the demo printed the first 6 base64 characters of each master key
/// (36 bits of it). It now prints the tag and suite only.
@Suite struct DemoKeyPrintingTests {
    @Test func offerAndAnswerArePrintedWithoutKeyMaterial() {
        let line = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm|2^31"
        let printed = DemoCommand.redacted(line)
        #expect(printed == "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:<key not shown>")
        #expect(!printed.contains("4fl6"))
        #expect(DemoCommand.redacted("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4B") == "a=crypto: (not shown)")
    }
}
