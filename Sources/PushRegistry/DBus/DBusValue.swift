// SPDX-License-Identifier: Apache-2.0
internal import CDBus

/// The D-Bus argument types the UnifiedPush interfaces use: strings and byte arrays.
enum DBusValue: Sendable, Equatable {
    case string(String)
    case bytes([UInt8])
    /// An array of strings (only read: the bus's ListNames reply).
    case strings([String])

    var string: String? { if case let .string(value) = self { value } else { nil } }
    var bytes: [UInt8]? { if case let .bytes(value) = self { value } else { nil } }
}

/// Writing and reading a message's arguments with libdbus iterators (its variadic
/// `dbus_message_append_args` cannot be called from Swift).
enum DBusArguments {
    /// Appends `values` to `message`; false when libdbus ran out of memory or a string is not
    /// valid for D-Bus (it contains NUL).
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values {
            switch value {
            case let .string(string):
                guard !string.utf8.contains(0) else { return false }
                let ok = string.withCString { pointer -> dbus_bool_t in
                    var cString: UnsafePointer<CChar>? = pointer
                    return dbus_message_iter_append_basic(&iter, CDBUS_TYPE_STRING, &cString)
                }
                guard ok != 0 else { return false }
            case .strings:
                return false  // never sent by this code
            case let .bytes(bytes):
                var array = DBusMessageIter()
                guard dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "y", &array) != 0 else { return false }
                // libdbus wants a valid pointer even for no elements: an empty array appends
                // from a one-byte buffer with a count of 0.
                let storage = bytes.isEmpty ? [0] : bytes
                let ok = storage.withUnsafeBufferPointer { buffer -> dbus_bool_t in
                    var base: UnsafePointer<UInt8>? = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(&array, CDBUS_TYPE_BYTE, &base, Int32(bytes.count))
                }
                guard ok != 0, dbus_message_iter_close_container(&iter, &array) != 0 else { return false }
            }
        }
        return true
    }

    /// The message's arguments, or nil when one is of a type other than string or byte array.
    static func read(_ message: OpaquePointer) -> [DBusValue]? {
        var values: [DBusValue] = []
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }  // no arguments
        repeat {
            switch dbus_message_iter_get_arg_type(&iter) {
            case CDBUS_TYPE_STRING:
                var pointer: UnsafePointer<CChar>?
                dbus_message_iter_get_basic(&iter, &pointer)
                guard let pointer else { return nil }
                values.append(.string(String(cString: pointer)))
            case CDBUS_TYPE_ARRAY where dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_STRING:
                var array = DBusMessageIter()
                dbus_message_iter_recurse(&iter, &array)
                var strings: [String] = []
                while dbus_message_iter_get_arg_type(&array) == CDBUS_TYPE_STRING {
                    var pointer: UnsafePointer<CChar>?
                    dbus_message_iter_get_basic(&array, &pointer)
                    if let pointer { strings.append(String(cString: pointer)) }
                    dbus_message_iter_next(&array)
                }
                values.append(.strings(strings))
            case CDBUS_TYPE_ARRAY:
                guard dbus_message_iter_get_element_type(&iter) == CDBUS_TYPE_BYTE else { return nil }
                var array = DBusMessageIter()
                dbus_message_iter_recurse(&iter, &array)
                var base: UnsafeRawPointer?
                var count: Int32 = 0
                dbus_message_iter_get_fixed_array(&array, &base, &count)
                if let base, count > 0 {
                    values.append(.bytes(Array(UnsafeRawBufferPointer(start: base, count: Int(count)))))
                } else {
                    values.append(.bytes([]))
                }
            default:
                return nil
            }
        } while dbus_message_iter_next(&iter) != 0
        return values
    }
}
