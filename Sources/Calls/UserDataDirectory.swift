// SPDX-License-Identifier: Apache-2.0
/// Where a user's data lives on Linux (the XDG base directory rules): `$XDG_DATA_HOME` when it
/// is an absolute path, else `$HOME/.local/share`. The recents and the call directory keep their
/// stores under it, per user, as iOS keeps each app's.
public enum UserDataDirectory {
    /// The directory for `environment` (the process's, usually), without a trailing "/"; nil
    /// when neither variable holds an absolute path.
    public static func path(environment: [String: String]) -> String? {
        let base: String
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = data
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.local/share"
        } else {
            return nil
        }
        return base.count > 1 && base.hasSuffix("/") ? String(base.dropLast()) : base
    }
}
