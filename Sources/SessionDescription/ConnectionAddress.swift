// SPDX-License-Identifier: Apache-2.0
/// A `c=IN IP4 <address>` or `c=IN IP6 <address>` line (RFC 8866 §5.7): where media goes.
public struct ConnectionAddress: Sendable, Equatable {
    /// The address family.
    public enum Family: String, Sendable, Equatable {
        /// `IP4`.
        case ipv4 = "IP4"
        /// `IP6`.
        case ipv6 = "IP6"
    }

    /// `IP4` or `IP6`.
    public var family: Family
    /// The numeric address (or host name) as written, without a multicast TTL suffix.
    public var address: String

    /// A connection to `address`, its family taken from whether it contains a colon.
    public init(address: String) {
        self.family = address.contains(":") ? .ipv6 : .ipv4
        self.address = address
    }

    /// A connection of an explicit family.
    public init(family: Family, address: String) {
        self.family = family
        self.address = address
    }

    /// The line's value, `IN IP4 192.0.2.1`.
    public var value: String { "IN \(family.rawValue) \(address)" }

    /// Parses the value after `c=`; nil when it is not `IN IP4|IP6 <address>`.
    ///
    /// The address must look like one of its family (RFC 8866 §9's `unicast-address`: an IPv4
    /// dotted quad or an IPv6 address, or a host name): only letters, digits, `.`, `-` (and
    /// `:` for IP6), at most 253 characters. Anything else — a NUL with text after it, which C
    /// code reading the address would cut short, a space, a `%` — is refused, not passed on.
    init?(value: Substring) {
        let fields = value.split(separator: " ")
        guard fields.count == 3, fields[0] == "IN", let family = Family(rawValue: String(fields[1])) else { return nil }
        // Drop a multicast "/ttl[/count]" suffix: we only take the address.
        let address = fields[2].split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        guard !address.isEmpty, address.utf8.count <= 253,
              address.unicodeScalars.allSatisfy({ Self.isAddressCharacter($0, family: family) })
        else { return nil }
        self.init(family: family, address: address)
    }

    /// Whether `text` may be an address of either family or a host name, by the rule above:
    /// 1…253 letters, digits, `.`, `-` and `:`. (ICE candidates give no family.)
    static func isAddress(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.count <= 253 && text.unicodeScalars.allSatisfy { isAddressCharacter($0, family: .ipv6) }
    }

    private static func isAddressCharacter(_ scalar: Unicode.Scalar, family: Family) -> Bool {
        switch scalar {
        case "0"..."9", "a"..."z", "A"..."Z", ".", "-": return true
        case ":": return family == .ipv6
        default: return false
        }
    }
}
