// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Dispatch
import Locking
import MediaEngine
import MediaEngineTesting
import SRTP
import TestSupport
import Transport

/// `benchmarks alsa-soak [--minutes N] [--device PCM]`: minutes (3 by default) of a call on a
/// real ALSA device — Bob's engine on `pulse` (the PulseAudio null-sink loopback that
/// `scripts/pulseaudio-loopback start` makes, so what he plays comes back into his
/// microphone), Alice's on a virtual device playing speech, SRTP over UDP on loopback. Counts
/// every device fault and what became of it: xruns and suspends recovered, joint restarts,
/// reopens, and unrecovered faults (a device lost, audio stopped by a loss), which must be 0;
/// and the packets each side received against the time the call ran. Runs only when named.
struct ALSASoakBenchmarks {
    static let group = "alsa-soak"
    let report: Report
    var minutes: Double
    var device: String

    /// Device events, counted as they come (on the handler's queue).
    struct Faults {
        var xruns = 0, suspends = 0, recoveries = 0, restarts = 0, reopens = 0, lost = 0, audioStoppedByLoss = 0
    }

    func run() throws {
        report.beginGroup(Self.group, baseline: "what the call's length calls for")
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let source = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: speech)
        var aliceConfiguration = EngineBenchmarks.configuration(device: .wavFile(source, loops: true, recordsPlayback: false), maximumCalls: 1)
        aliceConfiguration.realtimePriority = 10
        var bobConfiguration = VoiceEngineConfiguration()
        bobConfiguration.device = .alsa(device)
        bobConfiguration.trafficClass = nil
        let alice = try VoiceEngine(configuration: aliceConfiguration)
        let bob = try VoiceEngine(configuration: bobConfiguration)
        defer { alice.shutdown(); bob.shutdown() }
        let faults = Locked(Faults())
        let queue = DispatchQueue(label: "alsa-soak events")
        bob.setEventHandler(queue: queue) { event in
            faults.withLock { faults in
                switch event {
                case .device(.xrun): faults.xruns += 1
                case .device(.suspended): faults.suspends += 1
                case .device(.recovered): faults.recoveries += 1
                case .device(.restarted): faults.restarts += 1
                case .device(.reopened): faults.reopens += 1
                case .device(.deviceLost): faults.lost += 1
                case .audioStopped(_, lost: true): faults.audioStoppedByLoss += 1
                default: break
                }
            }
        }
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let (aliceSocket, bobSocket) = try LoopbackSocketPair.make()
        let aliceCall = try alice.addCall(try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey),
                                          transport: CallTransport(rtp: aliceSocket))
        let bobCall = try bob.addCall(try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey),
                                      transport: CallTransport(rtp: bobSocket))
        try bob.start()
        try alice.start()
        let started = MonotonicClock.nanoseconds
        let seconds = Int(minutes * 60)
        for second in 1...max(seconds, 1) {
            MonotonicClock.sleep(untilNanoseconds: started + Int64(second) * 1_000_000_000)
            if second % 30 == 0 {
                let now = faults.withLock { $0 }
                print("  alsa-soak: \(second) s, xruns \(now.xruns), recovered \(now.recoveries), restarts \(now.restarts), lost \(now.lost)")
            }
        }
        let ranSeconds = Double(MonotonicClock.nanoseconds - started) / 1e9
        let bobStatistics = bob.statistics(of: bobCall), aliceStatistics = alice.statistics(of: aliceCall)
        let playback = bob.deviceStatistics(.playback), capture = bob.deviceStatistics(.capture)
        queue.sync {}
        let final = faults.withLock { $0 }
        let expectedPackets = ranSeconds * 50
        func add(_ name: String, _ value: Double, _ unit: String, _ baselineValue: Double?) {
            report.add(BenchmarkFigure(group: Self.group, name: name, value: value, unit: unit, baseline: baselineValue == nil ? "none" : "the call's length",
                                       baselineValue: baselineValue, ratio: baselineValue.map { $0 > 0 ? value / $0 : 0 }))
        }
        add("\(Int(minutes)) min on \(device): unrecovered faults", Double(final.lost + final.audioStoppedByLoss), "faults", nil)
        add("xruns (recovered: \(final.recoveries), joint restarts: \(final.restarts))", Double(final.xruns), "xruns", nil)
        add("suspends + reopens", Double(final.suspends + final.reopens), "events", nil)
        add("packets Bob received (from the virtual side)", Double(bobStatistics?.inbound.packetsReceived ?? 0), "packets", expectedPackets)
        add("packets Alice received (from the device side)", Double(aliceStatistics?.inbound.packetsReceived ?? 0), "packets", expectedPackets)
        add("frames Bob's device played", Double(playback?.frames ?? 0), "frames", ranSeconds * 48_000)
        add("frames Bob's device captured", Double(capture?.frames ?? 0), "frames", ranSeconds * 48_000)
    }
}
