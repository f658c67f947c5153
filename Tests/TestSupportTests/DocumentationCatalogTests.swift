// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport

/// Every public library has a DocC catalog, which `scripts/docs` (`make docs`, run by `.ci/run`)
/// builds with the toolchain's `docc`: a library product added to `Package.swift` without one
/// fails here instead of going undocumented.
@Suite struct DocumentationCatalogTests {
    /// The package root, found as `DocumentationTests` finds it (`vectors/..`).
    static let root = VectorFiles.url("..").standardizedFileURL

    /// The manifest's text, without its comment lines.
    static func manifest() throws -> String {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.drop { $0 == " " }.hasPrefix("//") }
            .joined(separator: "\n")
    }

    /// The `.library(name: "X", targets: ["Y"])` products of `Package.swift` that are not test
    /// doubles or simulators (names ending in `Testing`, and `NetworkSimulation`).
    static func publicLibraries() throws -> [(product: String, target: String)] {
        let library = /\.library\(\s*name:\s*"([^"]+)"\s*,\s*targets:\s*\[\s*"([^"]+)"\s*\]\s*\)/
        return try manifest().matches(of: library)
            .map { (product: String($0.1), target: String($0.2)) }
            .filter { !$0.product.hasSuffix("Testing") && !$0.product.hasSuffix("NetworkSimulation") }
    }

    /// Every library product is read: one the pattern does not recognise (several targets, a
    /// different layout) would otherwise escape the check below.
    @Test func everyLibraryProductIsParsed() throws {
        let declared = try Self.manifest().ranges(of: ".library(").count
        let parsed = try Self.manifest().matches(of: /\.library\(\s*name:\s*"[^"]+"\s*,\s*targets:\s*\[\s*"[^"]+"\s*\]\s*\)/).count
        #expect(declared == parsed, "\(declared) .library( products, \(parsed) of the form .library(name: \"X\", targets: [\"Y\"])")
        let libraries = try Self.publicLibraries()
        #expect(libraries.count > 10, "public libraries found: \(libraries.map(\.product))")
        #expect(libraries.contains { $0.product == "VoiceEngineKit" })
    }

    /// Each public library's target has `Sources/<Target>/<Target>.docc/<Target>.md`, a landing
    /// page whose first line is the module's symbol link, ``# ``<Target>`` ``.
    @Test func everyPublicLibraryHasACatalog() throws {
        var problems: [String] = []
        for (product, target) in try Self.publicLibraries() {
            let path = "Sources/\(target)/\(target).docc/\(target).md"
            guard let text = try? String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8) else {
                problems.append("\(product): no \(path)")
                continue
            }
            let firstLine = text.prefix { $0 != "\n" }
            if firstLine != "# ``\(target)``" {
                problems.append("\(product): \(path) starts with \"\(firstLine)\", not \"# ``\(target)``\"")
            }
        }
        #expect(problems.isEmpty, "\(problems)")
    }
}
