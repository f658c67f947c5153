// SPDX-License-Identifier: Apache-2.0
import SRTP
import Testing

/// Issue 25: the SDP fingerprint (RFC 8122) and the DTLS-SRTP key split (RFC 5764 §4.2).
@Suite struct DTLSSRTPKeyTests {
    static let sha256 = "sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:3E:4B:9B:F1:B7:A7:5B:CD:3A:90:CC:7F"

    @Test func aFingerprintParsesAndPrintsInRFC8122Form() throws {
        let fingerprint = try #require(CertificateFingerprint(sdpValue: Self.sha256))
        #expect(fingerprint.hashFunction == .sha256)
        #expect(fingerprint.digest.count == 32)
        #expect(fingerprint.digest.first == 0x4A && fingerprint.digest.last == 0x7F)
        #expect(fingerprint.sdpValue == Self.sha256)
        // Hash names and hex digits are case-insensitive on the way in; we write upper case.
        let lower = try #require(CertificateFingerprint(sdpValue: "SHA-256" + Self.sha256.dropFirst(7).lowercased()))
        #expect(lower == fingerprint)
    }

    @Test(arguments: [
        "sha-256",  // no digest
        "sha-256 4A:AD",  // too short for the function
        "md5 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B",  // a function we cannot check
        "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:ZZ",  // not hex
        "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:A",  // a single digit
        "sha-1 4AAD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:CD",  // a pair of pairs
        "sha-1 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB extra",  // a third field
        "sha-1 +4:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB",  // a sign where a digit goes
    ])
    func malformedFingerprintsAreRefused(value: String) {
        #expect(CertificateFingerprint(sdpValue: value) == nil)
    }

    @Test func aHugeFingerprintIsRefusedByItsLength() {
        let value = "sha-256 " + Array(repeating: "AB", count: 100_000).joined(separator: ":")
        #expect(CertificateFingerprint(sdpValue: value) == nil)
    }

    /// Exported bytes 0, 1, 2, …: client key, server key, client salt, server salt in that order,
    /// each side sending with its own half and receiving with the other's.
    @Test(arguments: SRTPProfile.dtlsPreference + [.aesCM128HmacSha1_32, .aeadAES256GCM])
    func theExportedMaterialSplitsIntoTheFourParts(profile: SRTPProfile) throws {
        let exported = (0..<profile.dtlsExportLength).map { UInt8($0) }
        let client = try SRTPKeyingMaterial.dtlsKeys(exported: exported, profile: profile, role: .client)
        let server = try SRTPKeyingMaterial.dtlsKeys(exported: exported, profile: profile, role: .server)
        let key = profile.masterKeyLength
        let salt = profile.masterSaltLength
        #expect(client.sending.masterKey == Array(exported[0..<key]))
        #expect(client.sending.masterSalt == Array(exported[(2 * key)..<(2 * key + salt)]))
        #expect(client.receiving.masterKey == Array(exported[key..<(2 * key)]))
        #expect(client.receiving.masterSalt == Array(exported[(2 * key + salt)...]))
        #expect(server.sending == client.receiving)
        #expect(server.receiving == client.sending)
    }

    @Test func theWrongLengthOrAProfileWithoutDTLSIsRefused() {
        #expect(throws: SRTPError.self) {
            try SRTPKeyingMaterial.dtlsKeys(exported: [UInt8](repeating: 1, count: 59), profile: .aesCM128HmacSha1_80, role: .client)
        }
        #expect(throws: SRTPError.self) {
            try SRTPKeyingMaterial.dtlsKeys(exported: [UInt8](repeating: 1, count: 92), profile: .aes256CMHmacSha1_80, role: .client)
        }
        #expect(SRTPProfile(dtlsProfileIdentifier: 0x0007) == .aeadAES128GCM)
        #expect(SRTPProfile(dtlsProfileIdentifier: 0x0005) == nil)
    }
}
