// SPDX-License-Identifier: Apache-2.0
/// The VoiceEngine package's version (semantic versioning; `CHANGELOG.md` says what each
/// version holds). Before 1.0 a minor version may change the API.
public enum VoiceEngineVersion {
    /// The major version.
    public static let major = 0
    /// The minor version.
    public static let minor = 1
    /// The patch version.
    public static let patch = 0

    /// "MAJOR.MINOR.PATCH".
    public static var string: String { "\(major).\(minor).\(patch)" }
}
