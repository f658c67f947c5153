// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// The applied gains: the rule's gains smoothed over frequency, and over time when rising.
@Suite struct SmoothedSuppressionGainTests {
    static func gains(_ raw: [Float]) -> SmoothedSuppressionGain {
        let gains = SmoothedSuppressionGain(binCount: raw.count)
        for bin in raw.indices { gains.raw[bin] = raw[bin] }
        return gains
    }

    /// Gains start at 1; a falling gain acts at once (in the frame it falls).
    @Test func fallsAtOnce() {
        let gains = Self.gains([Float](repeating: 0.01, count: 5))
        #expect(values(gains.gain, 5).allSatisfy { $0 == 1 })
        gains.smooth(nearEndActive: false)
        #expect(values(gains.gain, 5).allSatisfy { abs($0 - 0.01) < 1e-7 })
    }

    /// A rising gain moves 80 % of the way per frame while the near end talks (release
    /// 0.2) and 20 % in echo-only frames (release 0.8).
    @Test func risesAtTheReleaseOfTheFrame() {
        for (nearEnd, release) in [(true, Float(0.2)), (false, Float(0.8))] {
            let gains = Self.gains([Float](repeating: 0.01, count: 5))
            gains.smooth(nearEndActive: nearEnd)
            for bin in 0..<5 { gains.raw[bin] = 1 }
            gains.smooth(nearEndActive: nearEnd)
            let expected = release * 0.01 + (1 - release) * 1
            #expect(values(gains.gain, 5).allSatisfy { abs($0 - expected) < 1e-6 }, "near end \(nearEnd)")
        }
    }

    /// One bin's dip spreads over its neighbours (¼ ½ ¼); the edges repeat their own value.
    @Test func smoothsOverFrequency() {
        let gains = Self.gains([1, 1, 0, 1, 1])
        gains.smooth(nearEndActive: true)
        #expect(values(gains.gain, 5) == [1, 0.75, 0.5, 0.75, 1])
        let edge = Self.gains([0, 1, 1])
        edge.smooth(nearEndActive: true)
        #expect(values(edge.gain, 3) == [0.25, 0.75, 1])
    }

    /// `reset` returns every gain to 1.
    @Test func resetReturnsToOne() {
        let gains = Self.gains([0.1, 0.1])
        gains.smooth(nearEndActive: true)
        gains.reset()
        #expect(values(gains.gain, 2) == [1, 1])
    }
}
