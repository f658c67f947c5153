// SPDX-License-Identifier: Apache-2.0
import AudioDevices
@testable import AudioSession
import Foundation
import Testing
import TestSupport

/// Seeded random sequences of configure / activate / deactivate / interruption by another
/// session / route change / device loss and return / device held by another process / sound
/// server stopped and started (media services lost and reset), run on real `VoiceEngine`s over
/// scripted ALSA devices. After every step:
/// - device I/O never runs while its session is inactive (engine stopped, no PCM open);
/// - it runs while the session is active, and an active session is never interrupted;
/// - the interruptions the session's events describe (began, not yet ended, superseded or
///   reset) are exactly those the session says it has (`isInterrupted`), and no end comes
///   without a beginning nor a second beginning without an end;
/// - routes and available inputs offer Bluetooth only when the options in effect allow it;
/// - while media services are lost no session is active.
/// At the end of each sequence the world heals (server up, devices back and free) and every
/// active session deactivates: every interruption must then have ended by itself.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct AudioSessionPropertyTests {
    /// Sequences and steps per sequence (VOICEENGINE_SESSION_SEQUENCES overrides the count).
    static let sequences = ProcessInfo.processInfo.environment["VOICEENGINE_SESSION_SEQUENCES"].flatMap(Int.init) ?? 2_000
    static let steps = 16

    enum Step: CustomStringConvertible {
        case configure(Int, AudioSession.Category, AudioSession.Mode, AudioSession.CategoryOptions)
        case activate(Int)
        case deactivate(Int, notify: Bool)
        case loseDevice(Int)
        case restoreDevice(Int)
        case holdDevice(Int)
        case freeDevice(Int)
        case stopServer
        case startServer
        case plug(String)
        case unplug(String)
        case preferInput(Int)
        case overrideSpeaker(Int)

        var description: String {
            switch self {
            case let .configure(unit, category, mode, options): "configure s\(unit) \(category) \(mode) \(options)"
            case let .activate(unit): "activate s\(unit)"
            case let .deactivate(unit, notify): "deactivate s\(unit)\(notify ? " notifying" : "")"
            case let .loseDevice(unit): "lose device\(unit)"
            case let .restoreDevice(unit): "restore device\(unit)"
            case let .holdDevice(unit): "another process holds device\(unit)"
            case let .freeDevice(unit): "free device\(unit)"
            case .stopServer: "stop the server"
            case .startServer: "start the server"
            case let .plug(name): "plug \(name)"
            case let .unplug(name): "unplug \(name)"
            case let .preferInput(unit): "prefer an input for s\(unit)"
            case let .overrideSpeaker(unit): "override s\(unit) to the speaker"
            }
        }
    }

    static func randomStep(_ random: inout SeededGenerator, units: Int) -> Step {
        let unit = Int.random(in: 0..<units, using: &random)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<14:
            // Mostly categories an engine (plays and records) can run in.
            let category = [.playAndRecord, .playAndRecord, .playAndRecord, .multiRoute, .playback, .ambient]
                .randomElement(using: &random)! as AudioSession.Category
            let mode = AudioSession.Mode.allCases.randomElement(using: &random)!
            // Each option one time in four: about half the configurations do not mix, so
            // non-mixable sessions interrupt each other in chains.
            let named = AudioSession.CategoryOptions.named.map(\.option).filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            return .configure(unit, category, mode, AudioSession.CategoryOptions(named))
        case 14..<40: return .activate(unit)
        case 40..<58: return .deactivate(unit, notify: Bool.random(using: &random))
        case 58..<64: return .loseDevice(unit)
        case 64..<70: return .restoreDevice(unit)
        case 70..<74: return .holdDevice(unit)
        case 74..<78: return .freeDevice(unit)
        case 78..<81: return .stopServer
        case 81..<85: return .startServer
        case 85..<90: return .plug(SessionWorld.optionalDevices.randomElement(using: &random)!.name)
        case 90..<95: return .unplug(SessionWorld.optionalDevices.randomElement(using: &random)!.name)
        case 95..<98: return .preferInput(unit)
        default: return .overrideSpeaker(unit)
        }
    }

    /// Runs `step`; returns the sessions whose interruption the app's own call superseded.
    static func run(_ step: Step, in world: SessionWorld, random: inout SeededGenerator) -> Set<Int> {
        switch step {
        case let .configure(unit, category, mode, options):
            try? world.units[unit].session.setCategory(category, mode: mode, options: options)
        case let .activate(unit):
            // Only a successful activation supersedes; a refused one leaves things as they were.
            if (try? world.units[unit].session.setActive(true)) != nil { return [unit] }
        case let .deactivate(unit, notify):
            try? world.units[unit].session.setActive(false, options: notify ? .notifyOthersOnDeactivation : [])
            return [unit]
        case let .loseDevice(unit):
            world.units[unit].absent = true
            world.applyRefusals()
            #expect(world.failRunningDevice(world.units[unit]), "device\(unit)'s engine never stopped")
        case let .restoreDevice(unit):
            world.units[unit].absent = false
            world.applyRefusals()
            world.center.checkDevices()
        case let .holdDevice(unit):
            world.units[unit].busy = true
            world.applyRefusals()
        case let .freeDevice(unit):
            world.units[unit].busy = false
            world.applyRefusals()
            world.center.checkDevices()
        case .stopServer:
            world.serverDown = true
            world.applyRefusals()
            for unit in world.units {
                #expect(world.failRunningDevice(unit), "an engine never stopped")
            }
            world.center.checkDevices()
        case .startServer:
            world.serverDown = false
            world.applyRefusals()
            world.center.checkDevices()
        case let .plug(name):
            world.plugged.insert(name)
            world.setDevices()
            world.center.checkDevices()
        case let .unplug(name):
            world.plugged.remove(name)
            world.setDevices()
            world.center.checkDevices()
        case let .preferInput(unit):
            let session = world.units[unit].session!
            try? session.setPreferredInput(session.availableInputs.randomElement(using: &random))
        case let .overrideSpeaker(unit):
            try? world.units[unit].session.overrideOutputAudioPort(.speaker)
        }
        return []
    }

    /// Replays new events into `open` (whether each session's interruption is open) and
    /// checks every invariant; returns false at the first broken one.
    static func check(_ world: SessionWorld, open: inout [Bool], superseded: Set<Int>, context: @autoclosure () -> String) -> Bool {
        world.settle()
        var ok = true
        func expect(_ condition: Bool, _ what: String) {
            guard condition, ok else {
                if ok { Issue.record("\(what) — \(context())") }
                ok = false
                return
            }
        }
        for (index, unit) in world.units.enumerated() {
            for event in unit.newEvents {
                switch event {
                case .interruptionBegan:
                    expect(!open[index], "s\(index): a second interruptionBegan without an end")
                    open[index] = true
                case .interruptionEnded:
                    expect(open[index], "s\(index): interruptionEnded without a beginning")
                    open[index] = false
                case .mediaServicesWereReset:
                    open[index] = false
                case .routeChanged, .mediaServicesWereLost:
                    break
                }
            }
            if superseded.contains(index) { open[index] = false }
            let session = unit.session!
            let running = unit.engine.isRunning
            let pcms = unit.alsa.openCount
            if session.isActive {
                expect(running && pcms == 2, "s\(index) is active but its device I/O does not run (running \(running), \(pcms) PCMs open)")
                expect(!session.isInterrupted, "s\(index) is active and interrupted")
            } else {
                expect(!running && pcms == 0, "s\(index) is inactive but its device I/O runs (running \(running), \(pcms) PCMs open)")
            }
            expect(open[index] == session.isInterrupted,
                   "s\(index): its events say interrupted \(open[index]), the session says \(session.isInterrupted)")
            let options = session.categoryOptions
            for port in session.currentRoute.inputs + session.currentRoute.outputs + session.availableInputs {
                expect(AudioSessionRoutes.allows(port.portType, options: options), "s\(index): \(port) offered with options \(options)")
            }
        }
        if world.center.mediaServicesLost {
            expect(!world.units.contains { $0.session.isActive }, "a session is active while media services are lost")
        }
        return ok
    }

    @Test func deviceIORunsExactlyWhileASessionIsActiveAndEveryInterruptionEnds() async throws {
        try await offCooperativePool {
            let world = try SessionWorld(sessions: 3)
            var counts: [String: Int] = [:]
            for sequence in 0..<Self.sequences {
                let seed = UInt64(sequence) &* 0x9E37_79B9 &+ 12_345
                var random = SeededGenerator(seed: seed)
                try world.reset()
                var open = [Bool](repeating: false, count: world.units.count)
                var history: [String] = []
                var ok = true
                for _ in 0..<Self.steps {
                    let step = Self.randomStep(&random, units: world.units.count)
                    history.append(step.description)
                    let superseded = Self.run(step, in: world, random: &random)
                    ok = Self.check(world, open: &open, superseded: superseded,
                                    context: "seed \(seed), steps: \(history.joined(separator: "; "))")
                    guard ok else { break }
                }
                guard ok else { break }
                // Heal the world, then every session still active lets go: nothing may stay interrupted.
                world.serverDown = false
                for unit in world.units { unit.absent = false; unit.busy = false }
                world.applyRefusals()
                world.center.checkDevices()
                for unit in world.units where unit.session.isActive {
                    try unit.session.setActive(false, options: .notifyOthersOnDeactivation)
                }
                history.append("heal; deactivate the active sessions")
                guard Self.check(world, open: &open, superseded: [], context: "seed \(seed), steps: \(history.joined(separator: "; "))") else { break }
                for (index, unit) in world.units.enumerated() {
                    if open[index] || unit.session.isInterrupted {
                        Issue.record("s\(index)'s interruption never ended — seed \(seed), steps: \(history.joined(separator: "; "))")
                        return
                    }
                }
                for unit in world.units {
                    for event in unit.events.withLock({ $0 }) {
                        let name: String = switch event {
                        case let .interruptionBegan(reason, _): "began \(reason)"
                        case .interruptionEnded: "ended"
                        case let .routeChanged(reason, _): "route \(reason)"
                        case .mediaServicesWereLost: "lost"
                        case .mediaServicesWereReset: "reset"
                        }
                        counts[name, default: 0] += 1
                    }
                }
            }
            // The sequences reach every kind of event (a generator that never interrupts proves nothing).
            for name in ["began default", "began routeDisconnected", "began deviceBusy", "ended", "lost", "reset",
                         "route newDeviceAvailable", "route oldDeviceUnavailable", "route categoryChange", "route override"] {
                #expect(counts[name, default: 0] > 0, "no \(name) event in \(Self.sequences) sequences: \(counts)")
            }
            print("AudioSessionPropertyTests: \(Self.sequences) sequences × \(Self.steps) steps, events: \(counts.sorted { $0.key < $1.key })")
        }
    }
}
