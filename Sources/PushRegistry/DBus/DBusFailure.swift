// SPDX-License-Identifier: Apache-2.0
internal import CDBus

/// A libdbus error (name and message) taken out of a `DBusError` and freed.
struct DBusFailure: Error, Sendable, Equatable {
    let name: String
    let message: String

    /// Runs `body` with a fresh `DBusError`; the error it set, if any.
    static func check<Result>(_ body: (UnsafeMutablePointer<DBusError>) -> Result) -> (Result, DBusFailure?) {
        var error = DBusError()
        dbus_error_init(&error)
        let result = body(&error)
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return (result, nil) }
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error.message.map { String(cString: $0) } ?? ""
        return (result, DBusFailure(name: name, message: message))
    }
}
