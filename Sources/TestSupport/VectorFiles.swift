import Foundation

/// Locates the committed fixtures under `vectors/` for tests and benchmarks run from a
/// checkout of the repository.
public enum VectorFiles {
    /// The repository's `vectors/` folder, found from this source file's location.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // repository root
        .appendingPathComponent("vectors", isDirectory: true)

    /// The URL of `vectors/<relativePath>`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The contents of `vectors/<relativePath>`.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// Parses a hex string (whitespace ignored) into bytes; returns nil on a bad digit or an
    /// odd count.
    public static func bytes(hex: String) -> [UInt8]? {
        var result: [UInt8] = []
        var high: UInt8? = nil
        for character in hex.unicodeScalars where !CharacterSet.whitespacesAndNewlines.contains(character) {
            guard let nibble = UInt8(String(character), radix: 16) else { return nil }
            if let h = high {
                result.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? result : nil
    }
}
