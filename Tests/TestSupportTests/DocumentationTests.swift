// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// The README stays a short entry page that starts with the two commands, and the Markdown
/// under `docs/` stands alone: every relative link resolves and nothing points outside the
/// repository.
@Suite struct DocumentationTests {
    /// The package root, found as `PackageLicenseTests` finds it (`vectors/..`).
    static let root = VectorFiles.url("..").standardizedFileURL

    /// README.md and every Markdown file directly under docs/.
    static func markdownFiles() throws -> [URL] {
        let docs = root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        return [root.appendingPathComponent("README.md")] + pages
    }

    /// The lines of `text` outside fenced code blocks (code is not Markdown and holds no links).
    static func proseLines(_ text: String) -> [Substring] {
        var inFence = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if line.hasPrefix("```") { inFence.toggle(); return false }
            return !inFence
        }
    }

    /// The README is an entry page: at most 15,000 bytes.
    @Test func theReadmeIsShort() throws {
        let bytes = try Data(contentsOf: Self.root.appendingPathComponent("README.md")).count
        #expect(bytes <= 15_000, "README.md is \(bytes) bytes")
    }

    /// The README's first fenced block is exactly the two commands (`.ci/run` and the Makefile
    /// refer to "the README's test command").
    @Test func theReadmeStartsWithTheTwoCommands() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let open = try #require(lines.firstIndex { $0.hasPrefix("```") }, "README.md has no fenced block")
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") }, "the first block never closes")
        #expect(lines[(open + 1)..<close].map(String.init) == ["make demo", "make test"])
    }

    /// Every relative link `[text](path)` or `[text](path#anchor)` names a file or folder that
    /// exists; web links and links to an anchor of the same page are not checked.
    @Test func everyRelativeLinkResolves() throws {
        let link = /\]\(([^)\s]+)\)/
        var broken: [String] = [], checked = 0
        for file in try Self.markdownFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in Self.proseLines(text) {
                for match in line.matches(of: link) {
                    let target = String(match.1)
                    guard !target.hasPrefix("#"), !target.contains("://"), !target.hasPrefix("mailto:") else { continue }
                    let path = String(target.prefix { $0 != "#" })
                    checked += 1
                    let resolved = file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                    if !FileManager.default.fileExists(atPath: resolved.path) { broken.append("\(file.lastPathComponent): \(target)") }
                }
            }
        }
        #expect(checked > 10, "the walk found \(checked) relative links")
        #expect(broken.isEmpty, "links to nothing: \(broken)")
    }

    /// No page sends the reader to a file outside the repository (APPLE-MODEL in any form,
    /// DESIGN.md, REFERENCE.md, ../shared).
    @Test func nothingPointsOutsideTheRepository() throws {
        var found: [String] = []
        for file in try Self.markdownFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            for name in ["APPLE-MODEL", "DESIGN.md", "REFERENCE.md", "../shared"] where text.contains(name) {
                found.append("\(file.lastPathComponent): \(name)")
            }
        }
        #expect(found.isEmpty, "references outside the repository: \(found)")
    }
}
