// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Dispatch
import Foundation
import Testing

/// Row 11 of issue 23 (the provider's half): an app delegate as iOS code writes it — a class
/// with a superclass and plain mutable state, conforming to the delegate protocol
/// (`class AppDelegate: UIResponder, CXProviderDelegate`) — compiles under Swift 6 strict
/// concurrency and is called only on the queue it gave.
@Suite struct DelegateWithSuperclassTests {
    /// The app's own base class: not Sendable, state of its own.
    class AppBase {
        var launched = false
    }

    final class AppDelegate: AppBase, ProviderDelegate {
        let queue = DispatchQueue(label: "AppDelegate")
        let queueKey = DispatchSpecificKey<Bool>()
        // Plain stored state, as an iOS delegate keeps it: only touched on `queue`.
        var answered: [UUID] = []
        var activations = 0
        var offQueueCalls = 0

        override init() {
            super.init()
            queue.setSpecific(key: queueKey, value: true)
        }

        private func onQueue() { if DispatchQueue.getSpecific(key: queueKey) != true { offQueueCalls += 1 } }

        func providerDidBegin(_ provider: CallProvider) {
            onQueue()
            launched = true
        }

        func providerDidReset(_ provider: CallProvider) { onQueue() }

        func provider(_ provider: CallProvider, perform action: AnswerCallAction) {
            onQueue()
            answered.append(action.callUUID)
            try? action.fulfill()
        }

        func provider(_ provider: CallProvider, perform action: EndCallAction) {
            onQueue()
            try? action.fulfill()
        }

        func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {
            onQueue()
            activations += 1
        }
    }

    @Test func aDelegateClassWithASuperclassIsCalledOnItsQueue() throws {
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter()),
                                        clock: ManualCallClock())
        let app = AppDelegate()
        provider.setDelegate(app, queue: app.queue)
        let controller = CallController(provider: provider)
        let call = UUID()
        try provider.reportNewIncomingCall(with: call, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "+442079460000")))
        try controller.requestTransaction(with: AnswerCallAction(call: call))
        for _ in 0..<8 { app.queue.sync {} }
        let (launched, answered, activations, offQueue) = app.queue.sync { (app.launched, app.answered, app.activations, app.offQueueCalls) }
        #expect(launched && answered == [call] && activations == 1 && offQueue == 0)
        #expect(provider.liveCalls.first?.hasConnected == true)
    }
}
