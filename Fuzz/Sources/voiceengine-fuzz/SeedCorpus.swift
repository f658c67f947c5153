// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes every target's seeds as DIR/<target>/seed-<n> (scripts/fuzz --seeds, committed in
/// vectors/fuzz/).
enum SeedCorpus {
    static func write(under directory: String) throws {
        for target in FuzzTarget.all {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent(target.name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (index, seed) in try target.seeds().enumerated() {
                try Data(seed).write(to: folder.appendingPathComponent("seed-\(index)"))
            }
        }
    }
}
