// SPDX-License-Identifier: Apache-2.0
/// Who a call is with, as CXHandle: a kind and a value (a number, an address, an account).
public struct CallHandle: Sendable, Hashable, CustomStringConvertible {
    /// The kind of value (CXHandle.HandleType's names and raw values).
    public enum Kind: Int, Sendable, CaseIterable {
        /// Anything else: a SIP URI, an account name (1).
        case generic = 1
        /// A telephone number (2).
        case phoneNumber = 2
        /// An e-mail address (3).
        case emailAddress = 3
    }

    /// The kind of value.
    public var kind: Kind
    /// The value, as the app's signalling knows it.
    public var value: String

    /// A handle of `kind` with `value`.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    public var description: String { "\(kind):\(value)" }
}
