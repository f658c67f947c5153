// SPDX-License-Identifier: Apache-2.0
import AudioDevicesTesting
@testable import Calls
import Foundation
import MediaEngine
import Testing
import TestSupport

/// Thousands of seeded random sequences of reports, requests, completions and clock steps,
/// each step checked against `CallModel`: the calls, every action's state, the audio the
/// system runs and the ringing. Then everything is ended: nothing leaks.
@Suite(.timeLimit(.minutes(2))) struct CallModelTests {
    static let sequences = 2_000
    static let steps = 40

    @Test func randomActionSequencesFollowTheModel() async throws {
        try await offCooperativePool {
            var totals = [String: Int]()
            for seed in 0..<UInt64(Self.sequences) {
                try Self.run(seed: seed, totals: &totals)
            }
            // The sequences reach every part of the model (a test that never answers proves little).
            print("model totals", totals.sorted { $0.key < $1.key })
            for key in ["activated", "timedOut", "unanswered", "autoHold", "refused", "endedWithCall", "failAfterEnd", "swapKeptAudio"] {
                #expect(totals[key, default: 0] > 20, "\(key) happened only \(totals[key, default: 0]) times: \(totals)")
            }
        }
    }

    /// The same sequences with a real engine on a null device as the call session's I/O:
    /// its device I/O runs exactly when the model says a call has the audio.
    @Test func randomActionSequencesDriveARealEngine() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        configuration.realtimePriority = nil
        configuration.requiresAudioSession = true
        var totals = [String: Int]()
        for seed in 0..<UInt64(Self.engineSequences) {
            let engine = try VoiceEngine(configuration: configuration)
            defer { engine.shutdown() }
            try Self.run(seed: seed, engine: engine, totals: &totals)
        }
        #expect(totals["activated", default: 0] > 100, "\(totals)")
    }

    static let engineSequences = 300

    static func run(seed: UInt64, engine: VoiceEngine? = nil, totals: inout [String: Int]) throws {
        var random = SeededGenerator(seed: 0x5EED_0000 + seed)
        let harness = try Harness(engine: engine, respond: { _ in nil })
        var model = CallModel(timeouts: harness.provider.configuration.timeouts, maximumGroups: 2)
        var known: [UUID] = []
        var seen = 0
        let context = "seed \(seed)"

        func newActions() -> [CallAction] {
            let all = harness.delegate.actions
            defer { seen = all.count }
            return Array(all[seen...])
        }

        func check(_ step: String) {
            let where_ = "\(context), after \(step)"
            #expect(Set(harness.provider.liveCalls.map(\.uuid)) == Set(model.calls.keys), "live calls, \(where_)")
            for call in harness.provider.liveCalls {
                let expected = model.calls[call.uuid]
                #expect(call.isOnHold == expected?.held && call.mute.isMuted == expected?.muted, "call state, \(where_)")
            }
            for action in model.actions {
                guard let real = action.action else { continue }
                #expect(real.state == action.expected, "\(real): \(real.state) ≠ \(action.expected), \(where_)")
                #expect(real.endedWithCall == action.endedWithCall, "\(real): endedWithCall \(real.endedWithCall), \(where_)")
            }
            let runs = harness.callRuns
            #expect(runs == model.audio, "engine I/O \(runs), model \(model.audio), \(where_)")
            #expect(harness.provider.audioSession.isActive == runs && harness.provider.isCallAudioActive == runs, "session vs I/O, \(where_)")
            #expect(harness.ringer.isRunningIO == (model.ringing && harness.provider.configuration.ringtone != nil), "ringing, \(where_)")
            for (uuid, reason) in model.endedReasons {
                #expect(harness.changes.endedReason(uuid) == reason, "ended reason of \(uuid), \(where_)")
            }
        }

        func request(_ request: CallModel.Request, _ actions: CallAction...) {
            let verdict = model.verdict(request)
            let hadAudio = model.audio
            do {
                try harness.request(actions[0])
                let performed = newActions()
                guard case let .performs(expected) = verdict else {
                    Issue.record("\(context): \(request) accepted, model says \(verdict)")
                    return
                }
                let got = performed.map { CallModel.Expected(kind: $0.kind, call: $0.callUUID, onHold: ($0 as? SetHeldCallAction)?.isOnHold) }
                #expect(Set(got) == Set(expected) && got.count == expected.count, "\(context): \(request) performed \(got), model \(expected)")
                if expected.isEmpty {
                    #expect(actions[0].state == .fulfilled, "\(context): a mute that changes nothing completes at once")
                }
                totals["autoHold", default: 0] += performed.count > 1 ? 1 : 0
                model.accepted(request, performed: performed)
                if hadAudio && model.audio && performed.count > 1 { totals["swapKeptAudio", default: 0] += 1 }
            } catch {
                totals["refused", default: 0] += 1
                #expect(verdict == .refused(error.code), "\(context): \(request) refused with \(error), model says \(verdict)")
                #expect(newActions().isEmpty)
            }
        }

        func pick() -> UUID? {
            // Mostly live calls, sometimes one that ended (requests must be refused).
            let live = known.filter { model.calls[$0] != nil }
            if !live.isEmpty, Int.random(in: 0..<10, using: &random) < 9 { return live.randomElement(using: &random) }
            return known.randomElement(using: &random)
        }

        for step in 0..<Self.steps {
            let choice = Int.random(in: 0..<100, using: &random)
            var label = ""
            switch choice {
            case 0..<12:
                let uuid = UUID()
                let holding = Int.random(in: 0..<4, using: &random) > 0
                label = "incoming"
                let expected = model.incoming(uuid, supportsHolding: holding)
                do {
                    try harness.provider.reportNewIncomingCall(with: uuid, update: CallUpdate(supportsHolding: holding))
                    #expect(expected == nil, "\(context): incoming accepted, model refuses with \(String(describing: expected))")
                    known.append(uuid)
                } catch {
                    #expect(expected == error.code, "\(context): incoming refused with \(error), model \(String(describing: expected))")
                    #expect(error.isBusy)
                }
                harness.delegate.settle()
            case 12..<20:
                let uuid = UUID()
                label = "start"
                request(.start(uuid), StartCallAction(call: uuid, handle: CallHandle(kind: .generic, value: "sip:\(step)@example.org")))
                known.append(uuid)
            case 20..<30:
                guard let uuid = pick() else { continue }
                label = "answer"
                request(.answer(uuid), AnswerCallAction(call: uuid))
            case 30..<35:
                guard let uuid = pick() else { continue }
                label = "end"
                request(.end(uuid), EndCallAction(call: uuid))
            case 35..<43:
                guard let uuid = pick() else { continue }
                let onHold = Bool.random(using: &random)
                label = "held \(onHold)"
                request(.held(uuid, onHold), SetHeldCallAction(call: uuid, onHold: onHold))
            case 43..<48:
                guard let uuid = pick() else { continue }
                let muted = Bool.random(using: &random)
                label = "muted \(muted)"
                request(.muted(uuid, muted), SetMutedCallAction(call: uuid, muted: muted))
            case 48..<50:
                guard let uuid = pick() else { continue }
                label = "dtmf"
                request(.dtmf(uuid), PlayDTMFCallAction(call: uuid, digits: "1#"))
            case 50..<54:
                guard let uuid = pick(), model.calls[uuid] != nil else { continue }
                let reason = [CallEndedReason.remoteEnded, .answeredElsewhere, .declinedElsewhere].randomElement(using: &random)!
                label = "remote end"
                harness.provider.reportCall(with: uuid, endedAt: nil, reason: reason)
                harness.delegate.settle()
                model.end(uuid, reason)
            case 54..<80:
                // The app completes a pending action.
                let pending = model.pending.filter { model.actions[$0].action != nil }
                guard let index = pending.randomElement(using: &random) else { continue }
                let action = model.actions[index].action!
                let fulfil = Int.random(in: 0..<4, using: &random) > 0
                label = "\(fulfil ? "fulfil" : "fail") \(action)"
                do {
                    if fulfil { try action.fulfill() } else { try action.fail() }
                } catch {
                    Issue.record("\(context): completing a pending \(action) threw \(error)")
                }
                harness.delegate.settle()
                model.complete(index, fulfil ? .fulfilled : .failed)
            case 80..<85:
                // A completed action refuses a second completion, saying how it went; one whose
                // call ended first takes the app's fail once (CallKit accepts either order).
                let completed = model.actions.indices.filter { model.actions[$0].expected != .pending && model.actions[$0].action != nil }
                guard let index = completed.randomElement(using: &random) else { continue }
                let done = model.actions[index]
                let fulfil = Bool.random(using: &random)
                label = "second completion (\(fulfil ? "fulfil" : "fail"))"
                if !fulfil && done.endedWithCall && !done.failAcknowledged {
                    #expect(throws: Never.self, "\(context): fail after the call ended") { try done.action!.fail() }
                    model.actions[index].failAcknowledged = true
                    totals["failAfterEnd", default: 0] += 1
                    break
                }
                let expected: ActionError = switch done.expected {
                case .timedOut: .timedOut
                case .failed where done.endedWithCall && fulfil: .callEnded
                default: .alreadyCompleted
                }
                #expect(throws: expected, "\(context): second completion of \(done.action!)") {
                    if fulfil { try done.action!.fulfill() } else { try done.action!.fail() }
                }
            case 85..<98:
                let seconds = [0.5, 3, 5, 9.99, 10, 20, 61].randomElement(using: &random)! * Double.random(in: 0.9...1.1, using: &random)
                label = "advance \(seconds)"
                let rang = model.advance(by: seconds)
                harness.advance(seconds)
                let system = newActions()
                        let allEnds = system.allSatisfy { $0 is EndCallAction }
                #expect(system.map(\.callUUID) == rang && allEnds,
                        "\(context): the ring time ended \(rang), the system performed \(system)")
                var placeholders = model.actions.indices.filter { model.actions[$0].action == nil }
                for action in system where !placeholders.isEmpty {
                    model.actions[placeholders.removeFirst()].action = action
                }
                totals["unanswered", default: 0] += rang.count
            default:
                label = "reset"
                harness.provider.reset()
                harness.delegate.settle()
                model.reset()
            }
            check(label)
        }

        // The end: every call ends, nothing stays behind.
        harness.provider.reset()
        harness.delegate.settle()
        model.reset()
        check("final reset")
        #expect(harness.provider.liveCalls.isEmpty && harness.provider.pendingActions.isEmpty, "\(context): leaked")
        #expect(harness.clock.pendingTimers == 0, "\(context): timers outlive the calls")
        #expect(!harness.callRuns && !harness.ringer.isRunningIO)
        for uuid in known where harness.changes.endings(uuid) > 0 {
            #expect(harness.changes.endings(uuid) == 1, "\(context): \(uuid) ended \(harness.changes.endings(uuid)) times")
        }
        for call in harness.changes.all where call.hasEnded { #expect(call.endedReason != nil) }
        let incomplete = harness.delegate.actions.filter { !$0.isComplete }
        #expect(incomplete.isEmpty, "\(context): actions never completed: \(incomplete)")
        let events = harness.delegate.events.filter { $0 == .activated || $0 == .deactivated }
        #expect(events == Array([RecordingDelegate.Event.activated, .deactivated].cycled(count: events.count)), "\(context): \(events)")
        totals["activated", default: 0] += events.filter { $0 == .activated }.count
        totals["timedOut", default: 0] += model.actions.filter { $0.expected == .timedOut }.count
        totals["endedWithCall", default: 0] += model.actions.filter(\.endedWithCall).count
    }
}

extension Array {
    /// The elements repeated over and over, `count` of them.
    func cycled(count: Int) -> [Element] { (0..<count).map { self[$0 % self.count] } }
}
