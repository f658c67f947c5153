// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import MediaEngine

/// What a demo run (real time or `--fast`) hands back to the command.
struct DemoOutcome {
    /// The figures, as printed and written with `--json`.
    var report: DemoReport
    /// What Bob's loudspeaker played (nil: not recorded).
    var receivedByBob: WAVAudio?
    /// What Alice's loudspeaker played (nil: a real device played it).
    var receivedByAlice: WAVAudio?
    /// Alice's SDES offer line and Bob's answer (printed without their keys).
    var offer: String, answer: String
}

/// The two directions' monitors and the live display, fed the same way by both runs.
struct DemoLiveFigures {
    var aliceToBob = DemoDirectionMonitor(from: "alice", to: "bob")
    var bobToAlice = DemoDirectionMonitor(from: "bob", to: "alice")
    var display = DemoStatusDisplay()

    /// Samples both directions at `seconds` of the call and shows them.
    mutating func update(seconds: Double, alice: CallMediaStatistics, bob: CallMediaStatistics,
                         aliceSource: MediaSourceStatistics, bobSource: MediaSourceStatistics,
                         paths: (aliceToBob: SimulatedNetworkPath, bobToAlice: SimulatedNetworkPath)?, final: Bool = false) {
        let forward = aliceToBob.sample(seconds: seconds, sender: alice, receiver: bob, senderSource: aliceSource,
                                        delays: paths?.aliceToBob.appliedDelays ?? [])
        let backward = bobToAlice.sample(seconds: seconds, sender: bob, receiver: alice, senderSource: bobSource,
                                         delays: paths?.bobToAlice.appliedDelays ?? [])
        display.show([DemoStatusDisplay.line(from: "alice", to: "bob", forward),
                      DemoStatusDisplay.line(from: "bob", to: "alice", backward)], seconds: seconds, final: final)
    }
}
