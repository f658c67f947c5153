#if canImport(Glibc)
import Glibc
#endif

/// A failed socket call: which function, its `errno`, and the system's text for it.
public struct SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call that failed, e.g. `"bind"`.
    public var function: String
    /// The `errno` value it left.
    public var code: Int32

    /// A failure of `function` with `errno` `code`.
    public init(function: String, code: Int32) {
        self.function = function
        self.code = code
    }

    public var description: String {
        "\(function) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
