// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport

/// A plain-text vector file from `vectors/`: `key value value …` lines, `#` comments.
struct KeyValueVector {
    let fields: [String: [String]]

    init(_ relativePath: String) throws {
        let text = String(decoding: try VectorFiles.data(relativePath), as: UTF8.self)
        var fields: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let words = trimmed.split(separator: " ").map(String.init)
            fields[words[0]] = Array(words.dropFirst())
        }
        self.fields = fields
    }

    func integers(_ key: String) throws -> [Int] {
        try (fields[key] ?? []).map { word in
            guard let value = Int(word) else { throw VectorError.badValue(key) }
            return value
        }
    }

    func integer(_ key: String) throws -> Int {
        guard let value = try integers(key).first else { throw VectorError.missing(key) }
        return value
    }

    func hex32(_ key: String) throws -> UInt32 {
        guard let word = fields[key]?.first, let value = UInt32(word, radix: 16) else { throw VectorError.missing(key) }
        return value
    }

    func bytes(_ key: String) throws -> [UInt8] {
        guard let words = fields[key], let bytes = VectorFiles.bytes(hex: words.joined()) else {
            throw VectorError.missing(key)
        }
        return bytes
    }

    func double(_ key: String) throws -> Double {
        guard let word = fields[key]?.first, let value = Double(word) else { throw VectorError.missing(key) }
        return value
    }

    enum VectorError: Error { case missing(String), badValue(String) }
}
