// SPDX-License-Identifier: Apache-2.0
import Synchronization
import Testing
@testable import CallCore
@testable import MediaEngine

/// The audio thread wakes the network thread for every frame it queued (`AudioCycle`'s uplink
/// waker), so a packet goes out as soon as it is encoded instead of when a timer guesses it is
/// there. Driven one device period at a time on a stepped loopback.
@Suite struct UplinkWakeTests {
    /// Runs `seconds` of 10 ms periods through a cycle whose call sends `frameMs` frames; returns
    /// the wakes, the RTP packets the call queued, and the wakes counted after cycles that queued
    /// nothing.
    private static func run(frameMs: Int, seconds: Int) throws -> (wakes: Int, packets: Int, idleWakes: Int) {
        var configuration = MediaConfiguration()
        configuration.frameDurationMs = frameMs
        let media = try CallMedia(configuration: configuration, sendingKey: nil, receivingKey: nil)
        var mixerConfiguration = MixerConfiguration()
        mixerConfiguration.frameDurationMs = frameMs
        let mixer = try CallMixer(configuration: mixerConfiguration)
        try mixer.add(media)
        let wakes = Atomic<Int>(0)
        let cycle = AudioCycle(drivingOnly: mixer, clock: EngineClock(), uplinkWaker: { wakes.add(1, ordering: .relaxed) })
        let device = LeadingEchoReferenceTests.SteppedLoopback(echoDelayMs: 20, seconds: seconds)
        cycle.attach(device, mixer: nil)
        var packets = 0
        var idleWakes = 0
        for _ in 0..<(seconds * 100) {
            device.tick()
            let wakesBefore = wakes.load(ordering: .relaxed)
            cycle.cycle()
            var queued = 0
            media.sendDatagrams(nowMs: 0) { datagram in
                if !CallMedia.isRTCP(datagram) { queued += 1 }
            }
            packets += queued
            if queued == 0 { idleWakes += wakes.load(ordering: .relaxed) - wakesBefore }
        }
        return (wakes.load(ordering: .relaxed), packets, idleWakes)
    }

    @Test(arguments: [20, 10])
    func everyQueuedFrameWakesTheNetworkThreadOnce(frameMs: Int) throws {
        let (wakes, packets, idleWakes) = try Self.run(frameMs: frameMs, seconds: 3)
        // The loopback captures from its 100th period on: 2 s of 10 ms periods, less the frame
        // still in voice processing at the end.
        #expect((2_000 / frameMs - 2...2_000 / frameMs).contains(packets), "frames queued")
        #expect(wakes == packets, "one wake per queued frame")
        #expect(idleWakes == 0, "a cycle that queued no frame woke the network thread")
    }
}
