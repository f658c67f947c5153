/// An SRTP master key and master salt for one profile (one direction of a call).
///
/// The key and salt live in memory this type owns (not in an `Array`), overwritten with zeros
/// when the last copy of the value goes. `masterKey`, `masterSalt` and `keyAndSalt` hand out
/// copies as arrays, which the caller owns and should wipe when done; `description`, `dump`
/// and the debugger show the profile and the lengths only.
public struct SRTPKeyingMaterial: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The crypto suite these keys are for.
    public let profile: SRTPProfile
    /// `key || salt`, zeroed when the last copy of this value goes.
    private let secret: SecretBytes

    /// Creates keying material, checking the key and salt lengths against the profile.
    ///
    /// - Throws: `SRTPError.badParameter` when a length is wrong.
    public init(profile: SRTPProfile, key: [UInt8], salt: [UInt8]) throws(SRTPError) {
        guard key.count == profile.masterKeyLength else {
            throw .badParameter("\(profile.sdesName) master key must be \(profile.masterKeyLength) bytes, got \(key.count)")
        }
        guard salt.count == profile.masterSaltLength else {
            throw .badParameter("\(profile.sdesName) master salt must be \(profile.masterSaltLength) bytes, got \(salt.count)")
        }
        self.profile = profile
        self.secret = SecretBytes(count: profile.keyingMaterialLength) { bytes in
            bytes.copyBytes(from: key)
            UnsafeMutableRawBufferPointer(rebasing: bytes[key.count...]).copyBytes(from: salt)
        }
    }

    /// Creates keying material from the concatenation `key || salt` (the SDES `inline:` form).
    ///
    /// - Throws: `SRTPError.badParameter` unless `keyAndSalt` is exactly
    ///   `profile.keyingMaterialLength` bytes.
    public init(profile: SRTPProfile, keyAndSalt: [UInt8]) throws(SRTPError) {
        guard keyAndSalt.count == profile.keyingMaterialLength else {
            throw .badParameter("\(profile.sdesName) key||salt must be \(profile.keyingMaterialLength) bytes, got \(keyAndSalt.count)")
        }
        self.profile = profile
        self.secret = SecretBytes(count: keyAndSalt.count) { $0.copyBytes(from: keyAndSalt) }
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
        SRTPKeyingMaterial(profile: profile, secret: SecretBytes(count: profile.keyingMaterialLength) { bytes in
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        })
    }

    private init(profile: SRTPProfile, secret: SecretBytes) {
        self.profile = profile
        self.secret = secret
    }

    /// Same profile and bytes (compared in constant time).
    public static func == (a: SRTPKeyingMaterial, b: SRTPKeyingMaterial) -> Bool {
        a.profile == b.profile && (a.secret === b.secret || a.secret.constantTimeEquals(b.secret))
    }

    /// The profile and lengths only; the key and salt are redacted.
    public var description: String {
        "SRTPKeyingMaterial(\(profile.sdesName), key: \(profile.masterKeyLength) bytes, salt: \(profile.masterSaltLength) bytes, redacted)"
    }

    /// Same as `description`: redacted.
    public var debugDescription: String { description }

    /// The profile and lengths only, so `dump` and debuggers show no key byte.
    public var customMirror: Mirror {
        Mirror(self, children: ["profile": profile, "masterKeyLength": profile.masterKeyLength,
                                "masterSaltLength": profile.masterSaltLength], displayStyle: .struct)
    }
}
