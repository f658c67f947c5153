// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The call core is sans-I/O: nothing it links, directly or through the modules below it,
/// reaches a device, a socket or Foundation. Read from the package itself (`Package.swift`'s
/// target dependencies and every source file's imports), so a new dependency that breaks the
/// rule fails here, naming the path that brought it in.
struct ModuleBoundaryTests {
    /// The package's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every target's dependencies, as `Package.swift` declares them.
    static func targetDependencies() throws -> [String: [String]] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: [String]] = [:]
        let target = try Regex(#"\.(?:target|systemLibrary|executableTarget)\(\s*name:\s*"([A-Za-z0-9_-]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        for match in manifest.matches(of: target) {
            guard let name = match.output[1].substring.map(String.init) else { continue }
            let list = match.output[2].substring.map(String.init) ?? ""
            result[name] = list.matches(of: try Regex(#""([A-Za-z0-9_-]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
        }
        return result
    }

    /// The modules a target's Swift sources import (any access level or attribute).
    static func sourceImports(of target: String) throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources").appendingPathComponent(target)
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        let line = try Regex(#"(?m)^(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|var)\s+)?([A-Za-z0-9_]+)"#)
        var imports = Set<String>()
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: line) { if let module = match.output[1].substring { imports.insert(String(module)) } }
        }
        return imports
    }

    /// Every module `CallCore` reaches, each with the path that reached it.
    static func reachableFromCallCore() throws -> [String: [String]] {
        let dependencies = try targetDependencies()
        var paths: [String: [String]] = ["CallCore": ["CallCore"]]
        var queue = ["CallCore"]
        while !queue.isEmpty {
            let module = queue.removeFirst()
            let next = Set(dependencies[module] ?? []).union(try sourceImports(of: module))
            for dependency in next.sorted() where paths[dependency] == nil {
                paths[dependency] = paths[module]! + [dependency]
                queue.append(dependency)
            }
        }
        return paths
    }

    @Test func theCallCoreReachesNoDeviceNoSocketAndNoFoundation() throws {
        let reached = try Self.reachableFromCallCore()
        #expect(reached["RTP"] != nil && reached["JitterBuffer"] != nil, "the manifest was not read: \(reached.keys.sorted())")
        for forbidden in ["AudioDevices", "CALSA", "CALSAShims", "Transport", "CEventFD", "MediaEngine", "Foundation", "FoundationEssentials", "Dispatch"] {
            #expect(reached[forbidden] == nil, "CallCore reaches \(forbidden): \(reached[forbidden]?.joined(separator: " → ") ?? "")")
        }
    }

    /// The rule is checked against the real graph: the engine above the core does reach ALSA
    /// and sockets, and the reader sees it.
    @Test func theReaderSeesTheEnginesDevicesAndSockets() throws {
        let dependencies = try Self.targetDependencies()
        #expect(dependencies["MediaEngine"]?.contains("AudioDevices") == true)
        #expect(dependencies["MediaEngine"]?.contains("Transport") == true)
        #expect(try Self.sourceImports(of: "MediaEngine").contains("AudioDevices"))
    }
}
