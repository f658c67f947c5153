// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Testing
import TestSupport

/// Networks by name, as `voicecall relay --network` and the listening benchmark take them.
@Suite struct NetworkCatalogTests {
    @Test func everyNameGivesItsNetwork() throws {
        #expect(try NetworkCatalog.profile(named: "clean") == NetworkCatalog.clean)
        #expect(try NetworkCatalog.profile(named: "c") == NetworkProfile.classC)
        #expect(try NetworkCatalog.profile(named: "H") == NetworkProfile.classH)
        #expect(try NetworkCatalog.profile(named: "WiFi") == NetworkCatalog.wifi)
        let random = try NetworkCatalog.profile(named: "random:3")
        #expect(random == NetworkCatalog.randomLoss(percent: 3) && random.name == "random:3")
        #expect(abs(random.loss.stationaryLossRate - 0.03) < 1e-9)
        let bursty = try NetworkCatalog.profile(named: "bursty:2.5")
        #expect(bursty.name == "bursty:2.5" && abs(bursty.loss.stationaryLossRate - 0.025) < 1e-9)
        let jitter = try NetworkCatalog.profile(named: "jitter:40")
        #expect(jitter.baseDelayMs == 20...20 && abs(jitter.jitter.meanMs - 40) < 1e-9)
    }

    @Test func aDrawnRandomLossIsTheRateNamed() {
        var generator = SeededGenerator(seed: 3)
        let trace = NetworkSimulator(profile: NetworkCatalog.randomLoss(percent: 10)).trace(packetCount: 20_000, using: &generator)
        #expect(abs(trace.lossRate - 0.10) < 0.01, "\(trace.lossRate)")
    }

    @Test(arguments: ["random:100", "random:-1", "bursty:nan", "jitter:1e9", "jitter:", "random:inf"])
    func aNumberOutOfRangeIsATypedError(name: String) {
        #expect {
            try NetworkCatalog.profile(named: name)
        } throws: { error in
            guard case .outOfRange(let named, _) = error as? NetworkCatalogError else { return false }
            return named == name
        }
    }

    @Test(arguments: ["", "I", "lossy:3", "AB", "clean:1"])
    func anUnknownNameIsATypedError(name: String) {
        #expect(throws: NetworkCatalogError.unknownName(name)) { try NetworkCatalog.profile(named: name) }
    }
}
