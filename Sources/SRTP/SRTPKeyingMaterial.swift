// SPDX-License-Identifier: Apache-2.0
/// An SRTP master key and master salt for one profile (one direction of a call), with the
/// master key's optional identifier (MKI) and lifetime (RFC 3711 §8.1, signalled in SDES as
/// `|2^31|1:4`).
///
/// Both are applied by `SRTPSession`: an MKI is written into (outbound) and required in
/// (inbound) every SRTP and SRTCP packet, and a lifetime stops the session after that many
/// packets with `SRTPError.keyLifetimeExpired`.
///
/// The key and salt live in memory this type owns (not in an `Array`), overwritten with zeros
/// when the last copy of the value goes. `masterKey`, `masterSalt` and `keyAndSalt` hand out
/// copies as arrays, which the caller owns and should wipe when done; `description`, `dump`
/// and the debugger show the profile and the lengths only.
public struct SRTPKeyingMaterial: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The crypto suite these keys are for.
    public let profile: SRTPProfile
    /// The master key identifier carried in every packet (1…128 bytes, libsrtp's
    /// `SRTP_MAX_MKI_LEN`), or nil for none. Not secret: it travels in clear.
    public let masterKeyIdentifier: [UInt8]?
    /// How many packets (SRTP and SRTCP together) the master key may protect, at least 1; nil
    /// for libsrtp's own limits (2^48 SRTP packets, 2^31 SRTCP packets).
    public let lifetimePackets: UInt64?
    /// `key || salt`, zeroed when the last copy of this value goes.
    private let secret: SecretBytes

    /// Creates keying material, checking the key and salt lengths against the profile.
    ///
    /// - Throws: `SRTPError.badParameter` when a length is wrong, the MKI is not 1…128 bytes
    ///   or the lifetime is 0.
    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8], masterKeyIdentifier: [UInt8]? = nil,
                lifetimePackets: UInt64? = nil) throws(SRTPError) {
        guard key.count == profile.masterKeyLength else {
            throw .badParameter("\(profile.sdesName) master key must be \(profile.masterKeyLength) bytes, got \(key.count)")
        }
        guard salt.count == profile.masterSaltLength else {
            throw .badParameter("\(profile.sdesName) master salt must be \(profile.masterSaltLength) bytes, got \(salt.count)")
        }
        try Self.check(masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets)
        self.init(profile: profile, masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets,
                  secret: SecretBytes(count: profile.keyingMaterialLength) { bytes in
                      bytes.copyBytes(from: key)
                      UnsafeMutableRawBufferPointer(rebasing: bytes[key.count...]).copyBytes(from: salt)
                  })
    }

    /// Creates keying material from the concatenation `key || salt` (the SDES `inline:` form).
    ///
    /// - Throws: `SRTPError.badParameter` unless `keyAndSalt` is exactly
    ///   `profile.keyingMaterialLength` bytes, the MKI 1…128 bytes and the lifetime at least 1.
    public init(profile: SRTPProfile, keyAndSalt: [UInt8], masterKeyIdentifier: [UInt8]? = nil,
                lifetimePackets: UInt64? = nil) throws(SRTPError) {
        guard keyAndSalt.count == profile.keyingMaterialLength else {
            throw .badParameter("\(profile.sdesName) key||salt must be \(profile.keyingMaterialLength) bytes, got \(keyAndSalt.count)")
        }
        try Self.check(masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets)
        self.init(profile: profile, masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets,
                  secret: SecretBytes(count: keyAndSalt.count) { $0.copyBytes(from: keyAndSalt) })
    }

    /// The same key and salt with another MKI and lifetime (the key bytes are shared, not
    /// copied).
    ///
    /// - Throws: `SRTPError.badParameter` unless the MKI is 1…128 bytes and the lifetime at
    ///   least 1.
    public func with(masterKeyIdentifier: [UInt8]?, lifetimePackets: UInt64?) throws(SRTPError) -> SRTPKeyingMaterial {
        try Self.check(masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets)
        return SRTPKeyingMaterial(profile: profile, masterKeyIdentifier: masterKeyIdentifier, lifetimePackets: lifetimePackets,
                                  secret: secret)
    }

    private static func check(masterKeyIdentifier: [UInt8]?, lifetimePackets: UInt64?) throws(SRTPError) {
        if let masterKeyIdentifier, !(1...SRTPSession.maximumMasterKeyIdentifierLength).contains(masterKeyIdentifier.count) {
            throw .badParameter("a master key identifier must be 1…\(SRTPSession.maximumMasterKeyIdentifierLength) bytes, got \(masterKeyIdentifier.count)")
        }
        if lifetimePackets == 0 { throw .badParameter("a master key lifetime must be at least 1 packet") }
    }

    /// The master key (`profile.masterKeyLength` bytes): a copy the caller owns.
    public var masterKey: [UInt8] { secret.withUnsafeBytes { Array($0[..<profile.masterKeyLength]) } }

    /// The master salt (`profile.masterSaltLength` bytes): a copy the caller owns.
    public var masterSalt: [UInt8] { secret.withUnsafeBytes { Array($0[profile.masterKeyLength...]) } }

    /// The master key followed by the master salt, as libsrtp and SDES `inline:` expect: a
    /// copy the caller owns.
    public var keyAndSalt: [UInt8] { secret.withUnsafeBytes { Array($0) } }

    /// Calls `body` with `key || salt` in place, without a copy (valid only during the call).
    func withUnsafeKeyAndSalt<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try secret.withUnsafeBytes(body)
    }

    /// Fresh random keying material for `profile`.
    ///
    /// Uses `SystemRandomNumberGenerator`, which on Linux reads the kernel CSPRNG through
    /// `getrandom(2)` (falling back to `/dev/urandom`), so the keys are suitable for SRTP.
    /// The bytes go straight into the zeroed-on-release storage.
    public static func random(profile: SRTPProfile) -> SRTPKeyingMaterial {
        SRTPKeyingMaterial(profile: profile, masterKeyIdentifier: nil, lifetimePackets: nil,
                           secret: SecretBytes(count: profile.keyingMaterialLength) { bytes in
                               var generator = SystemRandomNumberGenerator()
                               for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
                           })
    }

    private init(profile: SRTPProfile, masterKeyIdentifier: [UInt8]?, lifetimePackets: UInt64?, secret: SecretBytes) {
        self.profile = profile
        self.masterKeyIdentifier = masterKeyIdentifier
        self.lifetimePackets = lifetimePackets
        self.secret = secret
    }

    /// Same profile, MKI, lifetime and bytes (the bytes compared in constant time).
    public static func == (a: SRTPKeyingMaterial, b: SRTPKeyingMaterial) -> Bool {
        a.profile == b.profile && a.masterKeyIdentifier == b.masterKeyIdentifier && a.lifetimePackets == b.lifetimePackets
            && (a.secret === b.secret || a.secret.constantTimeEquals(b.secret))
    }

    /// The profile, lengths, MKI and lifetime; the key and salt are redacted.
    public var description: String {
        let mki = masterKeyIdentifier.map { ", MKI: \($0.count) bytes" } ?? ""
        let lifetime = lifetimePackets.map { ", lifetime: \($0) packets" } ?? ""
        return "SRTPKeyingMaterial(\(profile.sdesName), key: \(profile.masterKeyLength) bytes, salt: \(profile.masterSaltLength) bytes\(mki)\(lifetime), redacted)"
    }

    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// The profile and lengths only, so `dump` and debuggers show no key byte.
    public var customMirror: Mirror {
        Mirror(self, children: ["profile": profile, "masterKeyLength": profile.masterKeyLength,
                                "masterSaltLength": profile.masterSaltLength, "masterKeyIdentifier": masterKeyIdentifier as Any,
                                "lifetimePackets": lifetimePackets as Any], displayStyle: .struct)
    }
}
