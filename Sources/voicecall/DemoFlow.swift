// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import Locking

/// The call flow between the demo's two softphones, as two iPhones running a CallKit app
/// would go through it: Alice dials (her call session activates), her server pushes the call
/// to Bob, Bob's app reports it (it rings), attaches its media, answers (his session
/// activates), Alice's app attaches hers when the answer comes back, they talk, Alice hangs up
/// and Bob's app reports the remote end. Every step is logged as it happens.
final class DemoFlow: Sendable {
    /// The caller.
    let alice: DemoSoftphone
    /// The callee.
    let bob: DemoSoftphone
    private let steps: DemoLog

    /// The steps so far, with their time since the flow began.
    var log: [String] { steps.lines }

    /// A flow between two phones whose delegates note into `log` too.
    init(alice: DemoSoftphone, bob: DemoSoftphone, log: DemoLog) {
        self.alice = alice
        self.bob = bob
        steps = log
    }

    private func note(_ text: String) { steps.note(text) }

    /// Runs the flow up to the talk: `attachBob` gets the call's UUID once Bob's phone rings and
    /// before he answers; `attachAlice` once Bob answered. Returns the call's UUID.
    func connect(attachBob: (UUID) throws(DemoFlowError) -> Void, attachAlice: (UUID) throws(DemoFlowError) -> Void) throws(DemoFlowError) -> UUID {
        let uuid = UUID()
        note("alice: dials sip:bob@127.0.0.1 (StartCallAction)")
        try alice.request(StartCallAction(call: uuid, handle: CallHandle(kind: .generic, value: "sip:bob@127.0.0.1")))
        try alice.waitUntilActive()
        alice.provider.reportOutgoingCall(with: uuid, startedConnectingAt: nil)

        let payload = DemoPush.payload(uuid: uuid, handle: "sip:alice@127.0.0.1", callerName: "Alice")
        note("push: alice's server → bob's phone: \(payload)")
        let reported = try DemoPush.deliver(jsonPayload: payload, to: bob)
        note("bob: reportNewIncomingCall — \(bob.provider.isRinging ? "ringing" : "not ringing")")
        guard bob.provider.isRinging else { throw .provider("bob's phone does not ring") }
        try attachBob(reported)

        note("bob: answers (AnswerCallAction)")
        try bob.request(AnswerCallAction(call: reported))
        try bob.waitUntilActive()
        try attachAlice(uuid)
        alice.provider.reportOutgoingCall(with: uuid, connectedAt: nil)
        note("alice: connected — talking")
        return uuid
    }

    /// Alice hangs up; Bob's app learns it from signalling and reports the remote end. Waits
    /// until both call sessions deactivated.
    func hangUp(_ uuid: UUID) throws(DemoFlowError) {
        note("alice: hangs up (EndCallAction)")
        try alice.request(EndCallAction(call: uuid))
        note("bob: the BYE arrives — reportCall(endedAt:, reason: .remoteEnded)")
        bob.provider.reportCall(with: uuid, endedAt: nil, reason: .remoteEnded)
        let deadline = Date().addingTimeInterval(5)
        while alice.delegate.isActive || bob.delegate.isActive || alice.io.isRunningIO || bob.io.isRunningIO {
            guard Date() < deadline else { throw .provider("the call sessions did not deactivate") }
            alice.delegate.settle()
            bob.delegate.settle()
            usleep(2_000)
        }
    }
}

/// The flow's steps in order, each printed as it happens with its time since the log began.
final class DemoLog: Sendable {
    private let entries = Locked<[String]>([])
    private let origin = Date()

    /// The steps so far.
    var lines: [String] { entries.withLock { $0 } }

    /// Appends and prints `text`.
    func note(_ text: String) {
        let line = String(format: "%7.3f s  ", Date().timeIntervalSince(origin)) + text
        entries.withLock { $0.append(line) }
        DemoOutput.line("  " + line)
    }
}
