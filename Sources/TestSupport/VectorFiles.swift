// SPDX-License-Identifier: Apache-2.0
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

    /// Parses a hex string (ASCII whitespace ignored) into bytes; returns nil on a bad digit
    /// or an odd count.
    ///
    /// Works on UTF-8 bytes rather than Foundation's `CharacterSet`, whose shared instances
    /// are not safe to use from parallel tests on Linux (they corrupted the heap here).
    public static func bytes(hex: String) -> [UInt8]? {
        var result: [UInt8] = []
        var high: UInt8? = nil
        for character in hex.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            default: return nil
            }
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
