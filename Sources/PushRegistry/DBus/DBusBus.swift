// SPDX-License-Identifier: Apache-2.0
internal import CDBus
import Dispatch
import Foundation
import Glibc
import Locking

/// A method call that arrived on the bus.
struct DBusIncomingCall: Sendable {
    let path: String?
    let interface: String?
    let member: String
    let sender: String?
    /// Nil when an argument has a type this code does not read.
    let arguments: [DBusValue]?
}

/// What to answer an incoming method call.
enum DBusCallOutcome: Sendable {
    /// A method return with these arguments (sent only when the caller wants a reply).
    case reply([DBusValue])
    /// An error reply.
    case error(name: String, message: String)
    /// Not ours: libdbus answers UnknownMethod.
    case notHandled
}

/// The one owner of a private libdbus connection: opens and registers it, dispatches incoming
/// method calls to `handler` on its own thread, makes calls, and closes it. Every libdbus
/// error becomes a `DBusFailure`; no C type leaves this file's callers' layer.
final class DBusBus: @unchecked Sendable {
    // @unchecked: `connection` is a libdbus connection, thread-safe once libdbus threads are
    // initialised; the mutable state is behind `state`.
    private let connection: OpaquePointer
    private let handlerBox: HandlerBox
    /// The bus's name for this connection (":1.42").
    let uniqueName: String

    private struct State {
        var running = false
        var closed = false
        var disconnected = false
        /// The dispatch thread, while it runs.
        var dispatchThread: pthread_t?
        /// `close()` was called on the dispatch thread (from a handler): the loop releases the
        /// connection when it ends, as the thread cannot wait for itself.
        var releaseOnExit = false
    }

    private let state = Locked(State())
    private let stopped = DispatchSemaphore(value: 0)

    final class HandlerBox: @unchecked Sendable {
        // @unchecked: set once before the dispatch thread starts, read only by it.
        var handler: (@Sendable (DBusIncomingCall) -> DBusCallOutcome)?
    }

    /// Connects to the bus at `address` (a D-Bus address, as `dbus-daemon --print-address`
    /// prints and DBUS_SESSION_BUS_ADDRESS holds) and registers with it.
    init(address: String) throws(DBusFailure) {
        dbus_threads_init_default()
        let (opened, openFailure) = DBusFailure.check { dbus_connection_open_private(address, $0) }
        guard let connection = opened else {
            throw openFailure ?? DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        let (registered, registerFailure) = DBusFailure.check { dbus_bus_register(connection, $0) }
        guard registered != 0, let name = dbus_bus_get_unique_name(connection) else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw registerFailure ?? DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "bus registration failed")
        }
        self.connection = connection
        uniqueName = String(cString: name)
        handlerBox = HandlerBox()
    }

    deinit { close() }

    /// Takes `name` on the bus (without queueing behind another owner).
    func requestName(_ name: String) throws(DBusFailure) {
        try Self.validate(name: name)
        let (result, failure) = DBusFailure.check { dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), $0) }
        if let failure { throw failure }
        guard result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER else {
            throw .nameTaken(name)
        }
    }

    /// Starts dispatching incoming method calls to `handler` on a thread of its own.
    func start(_ handler: @escaping @Sendable (DBusIncomingCall) -> DBusCallOutcome) {
        let starts = state.withLock { state -> Bool in
            guard !state.running, !state.closed else { return false }
            state.running = true
            return true
        }
        guard starts else { return }
        handlerBox.handler = handler
        dbus_connection_add_filter(connection, dbusFilter, Unmanaged.passUnretained(handlerBox).toOpaque(), nil)
        let thread = Thread { [self] in dispatchLoop() }
        thread.name = "DBusBus.dispatch"
        thread.start()
    }

    /// Reads, writes and dispatches until stopped or disconnected. The 20 ms wait bounds how
    /// long `close()` waits for the thread.
    private func dispatchLoop() {
        state.withLock { $0.dispatchThread = pthread_self() }
        while state.withLock({ $0.running }) {
            if dbus_connection_read_write_dispatch(connection, 20) == 0 {
                state.withLock { $0.disconnected = true }
                break
            }
        }
        let release = state.withLock { state -> Bool in
            state.dispatchThread = nil
            return state.releaseOnExit
        }
        if release { releaseConnection() } else { stopped.signal() }
    }

    /// Whether the bus went away (the daemon exited, the connection broke).
    var isDisconnected: Bool { state.withLock { $0.disconnected } || dbus_connection_get_is_connected(connection) == 0 }

    /// Calls `member` and waits (at most `timeout` seconds) for its reply's arguments.
    func call(destination: String, path: String, interface: String, member: String, arguments: [DBusValue],
              timeout: Double = 5) throws(DBusFailure) -> [DBusValue] {
        try Self.validate(destination: destination, path: path, interface: interface, member: member)
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else { throw .outOfMemory }
        defer { dbus_message_unref(message) }
        guard DBusArguments.append(arguments, to: message) else { throw .invalidArguments(member) }
        let milliseconds = Int32(max(1, min(timeout * 1_000, 600_000)))
        let (reply, failure) = DBusFailure.check { dbus_connection_send_with_reply_and_block(connection, message, milliseconds, $0) }
        if let failure { throw failure }
        guard let reply else { throw DBusFailure(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply to \(member)") }
        defer { dbus_message_unref(reply) }
        guard let values = DBusArguments.read(reply) else { throw .invalidArguments(member) }
        return values
    }

    /// Sends a method call that wants no reply (the UnifiedPush callbacks), flushed.
    func send(destination: String, path: String, interface: String, member: String, arguments: [DBusValue]) throws(DBusFailure) {
        try Self.validate(destination: destination, path: path, interface: interface, member: member)
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else { throw .outOfMemory }
        defer { dbus_message_unref(message) }
        dbus_message_set_no_reply(message, 1)
        guard DBusArguments.append(arguments, to: message) else { throw .invalidArguments(member) }
        guard dbus_connection_send(connection, message, nil) != 0 else { throw .outOfMemory }
        dbus_connection_flush(connection)
    }

    /// Stops the dispatch thread, then closes and releases the connection. Idempotent.
    func close() {
        let (wasRunning, wasClosed, onDispatchThread) = state.withLock { state -> (Bool, Bool, Bool) in
            let onDispatchThread = state.dispatchThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            defer {
                state.running = false
                state.closed = true
                if onDispatchThread { state.releaseOnExit = true }
            }
            return (state.running, state.closed, onDispatchThread)
        }
        guard !wasClosed, !onDispatchThread else { return }
        if wasRunning { stopped.wait() }
        releaseConnection()
    }

    /// libdbus aborts the process on an invalid name or path ("arguments … were incorrect"):
    /// every one is checked first and refused as an error.
    static func validate(name: String) throws(DBusFailure) {
        let (valid, failure) = DBusFailure.check { dbus_validate_bus_name(name, $0) }
        if valid == 0 { throw failure ?? DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "invalid bus name \(name)") }
    }

    static func validate(destination: String, path: String, interface: String, member: String) throws(DBusFailure) {
        try validate(name: destination)
        let checks: [(String, (UnsafeMutablePointer<DBusError>) -> dbus_bool_t)] = [
            ("object path \(path)", { dbus_validate_path(path, $0) }),
            ("interface \(interface)", { dbus_validate_interface(interface, $0) }),
            ("member \(member)", { dbus_validate_member(member, $0) }),
        ]
        for (what, check) in checks {
            let (valid, failure) = DBusFailure.check(check)
            if valid == 0 { throw failure ?? DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "invalid \(what)") }
        }
    }

    private func releaseConnection() {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// Answers `message` on `connection` as `outcome` says (nothing when no reply is wanted).
    fileprivate static func answer(_ message: OpaquePointer, on connection: OpaquePointer, with outcome: DBusCallOutcome) -> DBusHandlerResult {
        let wantsReply = dbus_message_get_no_reply(message) == 0
        switch outcome {
        case .notHandled:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case let .reply(values):
            guard wantsReply else { return DBUS_HANDLER_RESULT_HANDLED }
            guard let reply = dbus_message_new_method_return(message) else { return DBUS_HANDLER_RESULT_NEED_MEMORY }
            defer { dbus_message_unref(reply) }
            guard DBusArguments.append(values, to: reply) else { return DBUS_HANDLER_RESULT_NEED_MEMORY }
            dbus_connection_send(connection, reply, nil)
        case let .error(name, text):
            guard wantsReply else { return DBUS_HANDLER_RESULT_HANDLED }
            guard let reply = dbus_message_new_error(message, name, text) else { return DBUS_HANDLER_RESULT_NEED_MEMORY }
            defer { dbus_message_unref(reply) }
            dbus_connection_send(connection, reply, nil)
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }
}

extension DBusFailure {
    /// `requestName`: another connection owns the name.
    static func nameTaken(_ name: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.AddressInUse", message: "\(name) is owned by another connection")
    }
    static let outOfMemory = DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus is out of memory")
    static func invalidArguments(_ member: String) -> DBusFailure {
        DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "arguments of \(member) cannot be written or read")
    }
}

/// libdbus's filter: every incoming message passes here on the dispatch thread; method calls
/// go to the bus's handler.
private func dbusFilter(_ connection: OpaquePointer?, _ message: OpaquePointer?, _ userData: UnsafeMutableRawPointer?) -> DBusHandlerResult {
    guard let connection, let message, let userData, dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    let box = Unmanaged<DBusBus.HandlerBox>.fromOpaque(userData).takeUnretainedValue()
    guard let handler = box.handler, let member = dbus_message_get_member(message) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let call = DBusIncomingCall(path: dbus_message_get_path(message).map { String(cString: $0) },
                                interface: dbus_message_get_interface(message).map { String(cString: $0) },
                                member: String(cString: member),
                                sender: dbus_message_get_sender(message).map { String(cString: $0) },
                                arguments: DBusArguments.read(message))
    return DBusBus.answer(message, on: connection, with: handler(call))
}
