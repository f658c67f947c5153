// SPDX-License-Identifier: Apache-2.0
public import SystemErrors

/// A failed socket call: which function, its `errno`, and the system's text for it, e.g.
/// "bind failed: Address already in use (EADDRINUSE = 98)".
public struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call that failed, e.g. `"bind"`.
    public var function: String
    /// The `errno` it left.
    public var code: Errno

    /// A failure of `function` with `code`.
    public init(function: String, code: Errno) {
        self.function = function
        self.code = code
    }

    /// A failure of `function` with the `errno` the calling thread holds now; call it right
    /// after the failing call.
    static func current(_ function: String) -> SocketError {
        SocketError(function: function, code: .current)
    }

    public var description: String { "\(function) failed: \(code)" }
}
