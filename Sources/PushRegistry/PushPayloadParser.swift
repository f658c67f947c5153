// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// Reads VoIP push payloads (the JSON `VoIPPushPayload` describes) without ever trapping:
/// sizes are checked before parsing, every field's type and range after.
public enum PushPayloadParser {
    /// The largest payload read, in bytes (PushKit's limit, 5 KB).
    public static let maximumSize = 5_120
    /// The longest string field, in characters.
    public static let maximumStringLength = 1_024
    /// Times outside 1970…2200 (seconds since 1970) are invalid.
    static let timeRange: ClosedRange<Double> = 0...7_258_118_400

    /// The outcome of reading one payload: the fields that can be used, and what was wrong.
    public struct Result: Sendable, Hashable {
        /// The usable fields.
        public var fields: PushPayloadFields
        /// Everything wrong, in field order; empty for a clean payload.
        public var problems: [PushPayloadError]
        /// The payload when it has a usable call id and handle (the fields it needs); nil otherwise.
        public var payload: VoIPPushPayload?
        /// Why `payload` is nil: the first problem with the payload as a whole, the call id or
        /// the handle.
        public var fatalProblem: PushPayloadError?
    }

    /// Reads `data`, field by field.
    public static func read(_ data: Data) -> Result {
        var fields = PushPayloadFields()
        var problems: [PushPayloadError] = []
        func fail(_ problem: PushPayloadError) -> Result {
            Result(fields: fields, problems: [problem], payload: nil, fatalProblem: problem)
        }
        guard data.count <= maximumSize else { return fail(.tooLarge(size: data.count, maximum: maximumSize)) }
        // The JSON reader limits nesting depth itself (it throws, never recurses unbounded), and
        // 5 KB bounds the work.
        guard let any = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return fail(.notJSON) }
        guard let object = any as? [String: Any] else { return fail(.notAnObject) }

        var fatal: PushPayloadError?
        func required(_ problem: PushPayloadError) {
            problems.append(problem)
            if fatal == nil { fatal = problem }
        }

        switch string(object, "callId") {
        case let .success(value?):
            if let uuid = UUID(uuidString: value) { fields.callUUID = uuid } else {
                required(.invalidValue(field: "callId", reason: "not a UUID"))
            }
        case .success(nil): required(.missingField("callId"))
        case let .failure(problem): required(problem)
        }

        var kind = CallHandle.Kind.generic
        switch string(object, "handleType") {
        case let .success(value?):
            if let named = Self.kind(named: value) { kind = named } else {
                problems.append(.invalidValue(field: "handleType", reason: "unknown handle type"))
            }
        case .success(nil): break
        case let .failure(problem): problems.append(problem)
        }
        switch string(object, "handle") {
        case let .success(value?): fields.handle = CallHandle(kind: kind, value: value)
        case .success(nil): required(.missingField("handle"))
        case let .failure(problem): required(problem)
        }

        switch string(object, "callerName") {
        case let .success(value): fields.callerName = value
        case let .failure(problem): problems.append(problem)
        }
        switch time(object, "sentAt") {
        case let .success(value): fields.sentAt = value
        case let .failure(problem): problems.append(problem)
        }
        switch time(object, "expiresAt") {
        case let .success(value): fields.expiresAt = value
        case let .failure(problem): problems.append(problem)
        }
        switch bool(object, "cancelled") {
        case let .success(value): fields.isCancelled = value ?? false
        case let .failure(problem): problems.append(problem)
        }
        switch bool(object, "video") {
        case let .success(value): fields.hasVideo = value ?? false
        case let .failure(problem): problems.append(problem)
        }

        var payload: VoIPPushPayload?
        if fatal == nil, let uuid = fields.callUUID, let handle = fields.handle {
            payload = VoIPPushPayload(callUUID: uuid, handle: handle, callerName: fields.callerName, sentAt: fields.sentAt,
                                      expiresAt: fields.expiresAt, isCancelled: fields.isCancelled, hasVideo: fields.hasVideo,
                                      ignoredFields: problems)
        }
        return Result(fields: fields, problems: problems, payload: payload, fatalProblem: fatal)
    }

    /// The payload in `data`, or why there is none.
    /// - Throws: the first problem with the payload as a whole, its call id or its handle.
    public static func parse(_ data: Data) throws(PushPayloadError) -> VoIPPushPayload {
        let result = read(data)
        if let payload = result.payload { return payload }
        throw result.fatalProblem ?? .notAnObject
    }

    // MARK: Fields

    /// A string field: nil when absent (or JSON null); an error when not a string, empty,
    /// too long.
    static func string(_ object: [String: Any], _ key: String) -> Swift.Result<String?, PushPayloadError> {
        guard let raw = object[key], !(raw is NSNull) else { return .success(nil) }
        guard let value = raw as? String else { return .failure(.wrongType(field: key, expected: "a string")) }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(.invalidValue(field: key, reason: "empty")) }
        guard trimmed.count <= maximumStringLength else {
            return .failure(.invalidValue(field: key, reason: "longer than \(maximumStringLength) characters"))
        }
        return .success(trimmed)
    }

    /// A time field in seconds since 1970: nil when absent; an error when not a number
    /// (booleans are not numbers here), not finite, or out of range.
    static func time(_ object: [String: Any], _ key: String) -> Swift.Result<Date?, PushPayloadError> {
        guard let raw = object[key], !(raw is NSNull) else { return .success(nil) }
        guard let number = raw as? NSNumber, !isBoolean(number) else { return .failure(.wrongType(field: key, expected: "a number")) }
        let seconds = number.doubleValue
        guard seconds.isFinite, timeRange.contains(seconds) else {
            return .failure(.invalidValue(field: key, reason: "not a time between 1970 and 2200"))
        }
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// A boolean field: nil when absent; an error when not a JSON boolean.
    static func bool(_ object: [String: Any], _ key: String) -> Swift.Result<Bool?, PushPayloadError> {
        guard let raw = object[key], !(raw is NSNull) else { return .success(nil) }
        guard let number = raw as? NSNumber, isBoolean(number) else { return .failure(.wrongType(field: key, expected: "a boolean")) }
        return .success(number.boolValue)
    }

    /// Whether a JSON number came from `true`/`false` (Foundation gives both as NSNumber).
    static func isBoolean(_ number: NSNumber) -> Bool {
        // The JSON reader gives true/false as the boolean NSNumber, of type 'c' (char); it
        // gives integers as 'i'/'q' and other numbers as 'd', never 'c'.
        String(cString: number.objCType) == "c"
    }

    static func kind(named name: String) -> CallHandle.Kind? {
        switch name {
        case "generic": .generic
        case "phoneNumber": .phoneNumber
        case "emailAddress": .emailAddress
        default: nil
        }
    }

    static func name(of kind: CallHandle.Kind) -> String {
        switch kind {
        case .generic: "generic"
        case .phoneNumber: "phoneNumber"
        case .emailAddress: "emailAddress"
        }
    }
}
