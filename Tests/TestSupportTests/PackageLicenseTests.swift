// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaBasics
import Testing
import TestSupport

/// What lets a team link the package: the Apache License 2.0 beside the code, an SPDX line in
/// every source file (a new file without one fails here), and a version the changelog describes.
@Suite struct PackageLicenseTests {
    static let root = VectorFiles.url("..").standardizedFileURL

    @Test func theLicenseIsApache2() throws {
        let license = try String(contentsOf: Self.root.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(license.contains("Apache License") && license.contains("Version 2.0, January 2004"))
        #expect(license.contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"))
    }

    /// Every Swift, C and module-map file and every script carries the SPDX identifier in its
    /// first three lines (after a shebang or the tools-version line).
    @Test func everySourceFileNamesItsLicense() throws {
        var missing: [String] = [], checked = 0
        for folder in ["Sources", "Tests", "Benchmarks", "Fuzz", "Examples", "scripts", ".ci"] {
            let base = Self.root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker {
                let name = url.lastPathComponent
                let isSource = ["swift", "c", "h", "modulemap"].contains(url.pathExtension)
                let isScript = (folder == "scripts" || folder == ".ci") && url.pathExtension.isEmpty
                guard isSource || isScript, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                      !url.path.contains("/.build/") else { continue }
                let head = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", maxSplits: 3).prefix(3)
                checked += 1
                if !head.contains(where: { $0.contains("SPDX-License-Identifier: Apache-2.0") }) { missing.append("\(folder)/…/\(name)") }
            }
        }
        #expect(checked > 600, "the walk found \(checked) files")
        #expect(missing.isEmpty, "no SPDX line: \(missing)")
    }

    @Test func theChangelogDescribesThisVersion() throws {
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(released?.hasPrefix("## [\(VoiceEngineVersion.string)]") == true, "newest release in CHANGELOG.md: \(released ?? "none")")
        #expect(VoiceEngineVersion.string == "\(VoiceEngineVersion.major).\(VoiceEngineVersion.minor).\(VoiceEngineVersion.patch)")
    }
}
