// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import JitterBufferEvaluation
import TestSupport
import NetworkSimulation

/// The traces in `vectors/traces/` parse, and the simulator still produces them from the
/// catalog's recipes (the only copy of them; `scripts/make-traces` writes the files from the
/// same recipes). If the simulator changes on purpose, regenerate the files with that script.
@Suite struct CommittedTraceTests {
    @Test func everyFileInTheFolderIsInTheCatalog() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: VectorFiles.url("traces").path).filter { $0.hasSuffix(".csv") }
        #expect(Set(names) == Set(JitterTraceCatalog.committed.map(\.file)))
    }

    @Test(arguments: JitterTraceCatalog.committed.map(\.file))
    func simulatorReproducesTheCommittedTrace(file: String) throws {
        let recipe = try #require(JitterTraceCatalog.committed.first { $0.file == file }?.recipe)
        let committed = try JitterTraceCatalog.load(recipe)
        #expect(committed.trace.packets.count == recipe.packetCount)
        // Through CSV, which keeps times to the microsecond.
        #expect(try NetworkTrace(csv: recipe.generate().trace.csv) == committed.trace)
    }
}
