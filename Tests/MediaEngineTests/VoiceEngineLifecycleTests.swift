// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Glibc
import Locking
@testable import CallCore
@testable import MediaEngine
import SRTP
import Synchronization
import Testing
import TestSupport
import Transport

/// An engine's life: started and stopped many times with calls added and removed from other
/// threads (nothing leaks), a lost device handled as configured, symmetric RTP.
@Suite(.timeLimit(.minutes(2))) struct VoiceEngineLifecycleTests {
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Waits (bounded, for a stuck thread) until every thread `census` counted has ended.
    static func waitUntilEnded(_ census: ThreadCensus) {
        let deadline = MonotonicClock.nanoseconds + 60_000_000_000
        while census.liveThreads > 0 && MonotonicClock.nanoseconds < deadline { usleep(1_000) }
    }

    static func call() throws -> CallMedia {
        try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 1, rtcpSeed: 1)
    }

    @Test func startAndStopAThousandTimesWhileCallsComeAndGoLeaksNothing() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null(pacing: .virtualClock))
        configuration.realtimePriority = nil
        configuration.mixer.processing = .off
        configuration.trafficClass = nil
        // Warm up once so lazily created runtime state is not counted as a leak.
        do {
            let engine = try VoiceEngine(configuration: configuration)
            try engine.start()
            engine.stop()
            engine.shutdown()
        }
        let descriptorsBefore = Self.openDescriptors()
        // Counts exactly the threads this test's engine starts (other suites run engines too).
        let census = ThreadCensus()
        let engine = try census.counting { () throws -> VoiceEngine in try VoiceEngine(configuration: configuration) }
        let sockets = try (0..<4).map { _ in try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)) }
        let stopChurn = Atomic<Bool>(false)
        let churned = Atomic<Int>(0)
        let released = Atomic<Int>(0)
        // Another thread adds and removes calls all the while; every removed call must be let go.
        let churn = Thread {
            var index = 0
            while !stopChurn.load(ordering: .relaxed) {
                do {
                    weak var gone: CallMedia?
                    do {
                        let call = try Self.call()
                        gone = call
                        let id = try engine.addCall(call, transport: CallTransport(rtp: sockets[index % sockets.count]))
                        try engine.removeCall(id, sayingGoodbye: false)
                        churned.add(1, ordering: .relaxed)
                    } catch {
                        Issue.record("churn: \(error)")
                    }
                    index += 1
                    // Released on the network thread shortly after the audio side lets go (the
                    // bound is for a call never let go; a loaded machine may take a while).
                    let deadline = MonotonicClock.nanoseconds + 30_000_000_000
                    while gone != nil && MonotonicClock.nanoseconds < deadline { usleep(200) }
                    if gone == nil { released.add(1, ordering: .relaxed) }
                }
            }
        }
        churn.start()
        // A thousand cycles at least, and on until the churn has added and removed calls
        // during them: a loaded machine may run the churn thread rarely (a count, not a time).
        var cycles = 0
        while cycles < 1_000 || (churned.load(ordering: .relaxed) < 20 && cycles < 1_000_000) {
            try census.counting { () throws -> Void in try engine.start() }
            engine.stop()
            cycles += 1
            // The network thread runs until shutdown; the audio thread of this start is joined.
            guard census.liveThreads == 1 else {
                Issue.record("cycle \(cycles): \(census.liveThreads) live threads, expected the network thread alone")
                break
            }
        }
        stopChurn.store(true, ordering: .relaxed)
        while !churn.isFinished { usleep(1_000) }
        #expect(churned.load(ordering: .relaxed) >= 20, "calls came and went during the cycles")
        #expect(released.load(ordering: .relaxed) == churned.load(ordering: .relaxed), "calls removed but never released")
        engine.shutdown()
        #expect(engine.callIDs.isEmpty)
        #expect(census.startedThreads == cycles + 1, "a network thread and an audio thread per start")
        #expect(census.liveThreads == 0, "shutdown joins the network thread")
        // Other suites open sockets meanwhile (a few dozen at most at once): a descriptor leaked
        // per cycle would show as a thousand.
        let descriptorsAfter = Self.openDescriptors() - sockets.count
        #expect(descriptorsAfter - descriptorsBefore < 200, "descriptors \(descriptorsBefore) → \(descriptorsAfter)")
    }

    @Test func aHundredEnginesComeAndGoWithoutLeakingThreads() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null(pacing: .virtualClock))
        configuration.realtimePriority = nil
        configuration.mixer.processing = .off
        let descriptorsBefore = Self.openDescriptors()
        let census = ThreadCensus()
        for _ in 0..<100 {
            try census.counting { () throws -> Void in
                let engine = try VoiceEngine(configuration: configuration)
                let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
                try socket.setRemote(socket.localEndpoint)
                try engine.addCall(try Self.call(), transport: CallTransport(rtp: socket))
                try engine.start()
                // No explicit shutdown: releasing the engine ends both threads (joined there).
            }
        }
        #expect(census.startedThreads == 200, "a network and an audio thread per engine")
        Self.waitUntilEnded(census)
        #expect(census.liveThreads == 0, "released engines leave no thread running")
        // Other suites open sockets meanwhile (a few dozen at most at once): the descriptors of
        // an engine leaked each time (eventfds, the socket) would show as hundreds.
        #expect(Self.openDescriptors() - descriptorsBefore < 150, "descriptors \(descriptorsBefore) → \(Self.openDescriptors())")
    }

    @Test func requestsAreRefusedWithTypedErrors() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.periodMs = 0
        #expect(throws: VoiceEngineError.configuration(.invalid(field: "periodMs", reason: "0 ms is outside 1–100 ms"))) {
            try VoiceEngine(configuration: configuration)
        }
        configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        configuration.mixer.maximumCalls = 1
        configuration.trafficClass = nil
        let engine = try VoiceEngine(configuration: configuration)
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let call = try Self.call()
        let id = try engine.addCall(call, transport: CallTransport(rtp: socket))
        #expect(throws: VoiceEngineError.callAlreadyAdded) { try engine.addCall(call, transport: CallTransport(rtp: socket)) }
        #expect(throws: VoiceEngineError.tooManyCalls(maximum: 1)) { try engine.addCall(try Self.call(), transport: CallTransport(rtp: socket)) }
        var tenMs = MediaConfiguration()
        tenMs.frameDurationMs = 10
        let other = try CallMedia(configuration: tenMs, sendingKey: nil, receivingKey: nil)
        #expect(throws: VoiceEngineError.callFormatMismatch(callSampleRate: 48_000, callFrameDurationMs: 10,
                                                            engineSampleRate: 48_000, engineFrameDurationMs: 20)) {
            try engine.addCall(other, transport: CallTransport(rtp: socket))
        }
        try engine.removeCall(id)
        #expect(throws: VoiceEngineError.unknownCall(id)) { try engine.removeCall(id) }
        engine.shutdown()
        #expect(throws: VoiceEngineError.shutDown) { try engine.start() }
    }

    /// The device lost mid-call (its PCMs fail with ENODEV and cannot be reopened).
    static func loseDevice(policy: DeviceLossPolicy) throws -> (VoiceEngine, EngineEventLog) {
        let alsa = ScriptedALSA(pollIntervalMicroseconds: 5_000)
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "scripted", calls: alsa)
        configuration.realtimePriority = nil
        configuration.onDeviceLoss = policy
        let engine = try VoiceEngine(configuration: configuration)
        let log = EngineEventLog(engine)
        try engine.start()
        usleep(50_000)
        alsa.scriptOpen([.noSuchDevice, .noSuchDevice, .noSuchDevice, .noSuchDevice])
        alsa.failIO(.capture, .noSuchDevice)
        alsa.failIO(.playback, .noSuchDevice)
        return (engine, log)
    }

    @Test func aLostDeviceStopsAudioAndSaysSo() throws {
        let (engine, log) = try Self.loseDevice(policy: .stopAudio)
        let stopped = log.wait(seconds: 60) { $0 == .audioStopped(device: "scripted", lost: true) }
        #expect(stopped != nil, "events: \(log.all)")
        #expect(!engine.isRunning)
        engine.shutdown()
    }

    @Test func aLostDeviceMovesTheCallsToTheFallback() throws {
        let fallback = AudioDeviceOpener(name: "fallback", backend: VirtualAudioDevice.null())
        let (engine, log) = try Self.loseDevice(policy: .switchTo(fallback))
        let switched = log.wait(seconds: 60) { $0 == .deviceSwitched(from: "scripted", to: "fallback") }
        #expect(switched != nil, "events: \(log.all)")
        #expect(engine.isRunning)
        #expect(engine.deviceName == "fallback")
        engine.shutdown()
    }

    @Test func symmetricRTPFollowsAuthenticatedPacketsOnly() throws {
        let (alice, bob) = try EngineParty.pair(alice: CallOverNetworkTests.alice, bob: CallOverNetworkTests.bob)
        // Alice was told a wrong address for Bob (a NAT rewrote his port).
        let decoy = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try alice.socket.setRemote(decoy.localEndpoint)
        let log = EngineEventLog(alice.engine)
        let aliceCall = try alice.addCall()
        try bob.addCall()
        // Mallory, without the keys, sends RTP-looking datagrams to Alice first.
        let mallory = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try mallory.setRemote(alice.socket.localEndpoint)
        var forged = [UInt8](repeating: 0, count: 60)
        forged[0] = 0x80
        forged[1] = 111
        for sequence in 0..<20 {
            forged[3] = UInt8(sequence)
            _ = try forged.withUnsafeBytes { try mallory.send($0) }
        }
        try alice.engine.start()
        try bob.engine.start()
        let latched = log.wait(seconds: 60) {
            if case .remoteAddressLatched(aliceCall, _, rtcp: false) = $0 { true } else { false }
        }
        for sequence in 20..<40 {
            forged[3] = UInt8(sequence)
            _ = try forged.withUnsafeBytes { try mallory.send($0) }
        }
        // Until Bob has some of Alice's media and Alice has taken all of Mallory's datagrams,
        // however long a loaded machine takes (a count, not a time; the bound is for a stuck
        // engine). Mallory's second volley is on the wire by now, so Alice has it to move to.
        func bobReceived() -> Int { bob.engine.statistics(of: bob.engine.callIDs[0])?.inbound.packetsReceived ?? 0 }
        func refused() -> Int {
            guard let srtp = alice.engine.statistics(of: aliceCall)?.transport.srtp else { return 0 }
            return srtp.malformed + srtp.authFailures
        }
        let deadline = MonotonicClock.nanoseconds + 60_000_000_000
        while (bobReceived() <= 20 || refused() < 40) && MonotonicClock.nanoseconds < deadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 20_000_000)
        }
        alice.engine.stop()
        bob.engine.stop()
        #expect(latched == .remoteAddressLatched(aliceCall, bob.socket.localEndpoint, rtcp: false), "events: \(log.all)")
        #expect(alice.socket.remote == (try PeerAddress(bob.socket.localEndpoint)), "Mallory moved the media")
        #expect(bobReceived() > 20, "Bob gets Alice's media once she latched onto him")
        let aliceTransport = try #require(alice.engine.statistics(of: aliceCall)).transport
        #expect(aliceTransport.srtp.authFailures >= 40 || aliceTransport.srtp.malformed + aliceTransport.srtp.authFailures >= 40,
                "Mallory's datagrams counted: \(aliceTransport.srtp)")
    }
}
