// SPDX-License-Identifier: Apache-2.0
import Calls
import Dispatch
import Foundation
import PushRegistry

/// The demo's push step: Alice's side sends Bob's side a VoIP push (the JSON a push server
/// would carry), which arrives through Bob's `PushRegistry` on its in-process channel; Bob's
/// delegate reports the call it announces before returning, as the registry enforces (a push
/// that is not reported would be a violation, and the demo fails on one).
enum DemoPush {
    /// The JSON of a push announcing call `uuid` from `handle`. No keys: media keys travel in
    /// the SDP offer/answer, never in a push.
    static func payload(uuid: UUID, handle: String, callerName: String) -> String {
        let payload = VoIPPushPayload(callUUID: uuid, handle: CallHandle(kind: .generic, value: handle), callerName: callerName,
                                      sentAt: Date())
        return String(decoding: payload.jsonData, as: UTF8.self)
    }

    /// Bob's app: reports every VoIP push as an incoming call, and says which call it reported.
    final class Receiver: PushRegistryDelegate, @unchecked Sendable {
        let phone: DemoSoftphone
        let done = DispatchSemaphore(value: 0)
        // Written on the registry's queue before `done` is signalled, read after waiting on it.
        var outcome: Result<UUID, DemoFlowError> = .failure(.push("no push arrived"))

        init(phone: DemoSoftphone) { self.phone = phone }

        func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {}
        func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {}

        func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith push: PushPayload, for type: PushType) {
            defer { done.signal() }
            do {
                let payload = try push.decodeVoIPPayload()
                try phone.provider.reportNewIncomingCall(with: payload.callUUID, update: payload.callUpdate)
                outcome = .success(payload.callUUID)
            } catch {
                outcome = .failure(.push("\(phone.name) could not report the call: \(error)"))
            }
        }

        func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush) {
            outcome = .failure(.push("the push was not delivered as a call: \(push)"))
            done.signal()
        }
    }

    /// Delivers `jsonPayload` to `phone` through a `PushRegistry` and returns the call its
    /// delegate reported.
    static func deliver(jsonPayload: String, to phone: DemoSoftphone) throws(DemoFlowError) -> UUID {
        let registry = PushRegistry(provider: phone.provider)
        let receiver = Receiver(phone: phone)
        registry.delegate = receiver
        registry.desiredPushTypes = [.voIP]
        registry.deliver(jsonPayload: Data(jsonPayload.utf8))
        guard receiver.done.wait(timeout: .now() + 5) == .success else { throw .push("the push was not delivered within 5 s") }
        guard registry.violations.isEmpty else { throw .push("the push was not reported in time: \(registry.violations)") }
        return try receiver.outcome.get()
    }
}
