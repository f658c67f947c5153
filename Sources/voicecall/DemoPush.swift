import Calls
import Foundation

/// The demo's push step: Alice's side hands Bob's side a VoIP push payload (JSON, as a push
/// server would deliver it through PushKit), and Bob's side reports the call it announces to
/// its provider at once, as PushKit requires. The one place the payload crosses: when the
/// PushRegistry module lands, `deliver` becomes its in-process channel's `deliver(jsonPayload:)`
/// and `DemoPush.report` the registry delegate's body; nothing else changes.
enum DemoPush {
    /// What a VoIP push for an incoming call carries: who calls and the call's identity. No
    /// keys: media keys travel in the SDP offer/answer, never in a push.
    struct Payload: Codable, Equatable {
        /// The call's UUID, as the caller's provider knows it.
        var callUUID: String
        /// The caller's address (a SIP URI).
        var handle: String
        /// The caller's name, shown while it rings.
        var callerName: String
    }

    /// The JSON of a push announcing call `uuid` from `handle`.
    static func payload(uuid: UUID, handle: String, callerName: String) -> String {
        let payload = Payload(callUUID: uuid.uuidString, handle: handle, callerName: callerName)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding three strings cannot fail.
        return String(decoding: (try? encoder.encode(payload)) ?? Data(), as: UTF8.self)
    }

    /// Delivers `jsonPayload` to `phone` (today: in process, synchronously) and returns the call
    /// it reported.
    static func deliver(jsonPayload: String, to phone: DemoSoftphone) throws(DemoFlowError) -> UUID {
        try report(jsonPayload: jsonPayload, on: phone)
    }

    /// What the receiving app does with a push: decodes it and reports the incoming call to its
    /// provider (the call rings from now on).
    static func report(jsonPayload: String, on phone: DemoSoftphone) throws(DemoFlowError) -> UUID {
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(jsonPayload.utf8)),
              let uuid = UUID(uuidString: payload.callUUID) else {
            throw .push("malformed payload")
        }
        let update = CallUpdate(remoteHandle: CallHandle(kind: .generic, value: payload.handle), localizedCallerName: payload.callerName)
        do {
            try phone.provider.reportNewIncomingCall(with: uuid, update: update)
        } catch {
            throw .push("\(phone.name)'s provider refused the call: \(error)")
        }
        return uuid
    }
}
