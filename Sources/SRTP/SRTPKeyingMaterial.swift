/// An SRTP master key and master salt for one profile (one direction of a call).
///
/// `description` never prints the secret bytes.
public struct SRTPKeyingMaterial: Sendable, Equatable, CustomStringConvertible {
    /// The crypto suite these keys are for.
    public let profile: SRTPProfile
    /// The master key (`profile.masterKeyLength` bytes).
    public let masterKey: [UInt8]
    /// The master salt (`profile.masterSaltLength` bytes).
    public let masterSalt: [UInt8]

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
        self.masterKey = key
        self.masterSalt = salt
    }

    /// Creates keying material from the concatenation `key || salt` (the SDES `inline:` form).
    ///
    /// - Throws: `SRTPError.badParameter` unless `keyAndSalt` is exactly
    ///   `profile.keyingMaterialLength` bytes.
    public init(profile: SRTPProfile, keyAndSalt: [UInt8]) throws(SRTPError) {
        guard keyAndSalt.count == profile.keyingMaterialLength else {
            throw .badParameter("\(profile.sdesName) key||salt must be \(profile.keyingMaterialLength) bytes, got \(keyAndSalt.count)")
        }
        try self.init(
            profile: profile,
            key: Array(keyAndSalt[..<profile.masterKeyLength]),
            salt: Array(keyAndSalt[profile.masterKeyLength...]))
    }

    /// The master key followed by the master salt, as libsrtp and SDES `inline:` expect.
    public var keyAndSalt: [UInt8] { masterKey + masterSalt }

    /// Fresh random keying material for `profile`.
    ///
    /// Uses `SystemRandomNumberGenerator`, which on Linux reads the kernel CSPRNG through
    /// `getrandom(2)` (falling back to `/dev/urandom`), so the keys are suitable for SRTP.
    public static func random(profile: SRTPProfile) -> SRTPKeyingMaterial {
        var generator = SystemRandomNumberGenerator()
        func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }
        // Lengths come from the profile itself, so validation cannot fail.
        return try! SRTPKeyingMaterial(
            profile: profile, key: bytes(profile.masterKeyLength), salt: bytes(profile.masterSaltLength))
    }

    /// The profile and lengths only; the key and salt are redacted.
    public var description: String {
        "SRTPKeyingMaterial(\(profile.sdesName), key: \(masterKey.count) bytes, salt: \(masterSalt.count) bytes, redacted)"
    }
}
