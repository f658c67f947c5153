// SPDX-License-Identifier: Apache-2.0
/// One ICE candidate, as `a=candidate` carries it (RFC 8839 §5.1): an address and port where a
/// peer may reach this side, how it was found, and its priority.
///
/// ```
/// candidate:<foundation> <component-id> <transport> <priority> <address> <port> typ <type>
///           [raddr <address>] [rport <port>] *(<extension name> <extension value>)
/// ```
///
/// Every value is checked when made, parsed or built in code, so what `attributeValue` writes
/// parses back to the same candidate: numbers are range-checked as text before they are
/// numbers (a priority of 2^40 is an error, never a trap), and text fields hold only the
/// characters their grammar allows (no space or line end can be written into an SDP body).
public struct ICECandidate: Sendable, Hashable, CustomStringConvertible {
    /// The candidate's transport protocol.
    public enum Transport: Sendable, Hashable, CustomStringConvertible {
        /// `UDP` (written in any case; RFC 8839 defines only it).
        case udp
        /// Another transport as written (`tcp` from RFC 6544, …): kept for the ICE layer,
        /// which may skip it.
        case other(String)

        /// `UDP`, or the other transport as written.
        public var description: String {
            switch self {
            case .udp: return "UDP"
            case let .other(name): return name
            }
        }
    }

    /// How the candidate was found (RFC 8445 §5.1.1).
    public enum CandidateType: String, Sendable, Hashable, CaseIterable {
        /// `host`: an address of one of this side's interfaces.
        case host
        /// `srflx`: this side's address as a STUN server saw it (outside a NAT).
        case serverReflexive = "srflx"
        /// `prflx`: an address learnt from a connectivity check.
        case peerReflexive = "prflx"
        /// `relay`: an address on a TURN server that relays to this side.
        case relayed = "relay"
    }

    /// An extension attribute after the type (`generation 0`, `tcptype active`, `ufrag …`):
    /// kept, in order, as written.
    public struct Extension: Sendable, Hashable {
        /// Its name (a token).
        public var name: String
        /// Its value (printable ASCII, no spaces).
        public var value: String

        /// The extension `name value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The largest component ID (RFC 8839 §5.1: 1…256; RTP is 1, RTCP without rtcp-mux 2).
    public static let maximumComponentID = 256
    /// The largest priority (RFC 8839 §5.1: 1…2^31−1).
    public static let maximumPriority: UInt32 = (1 << 31) - 1
    /// The most extension attributes one candidate may carry here. Real candidates carry a
    /// few (Chrome's four: generation, ufrag, network-id, network-cost); this bounds what one
    /// line can make us keep.
    public static let maximumExtensionCount = 16

    /// Groups candidates of the same type, base and STUN/TURN server (1…32 ice-chars).
    public let foundation: String
    /// The component: 1 for RTP, 2 for RTCP when not multiplexed (1…256).
    public let componentID: Int
    /// The transport protocol.
    public let transport: Transport
    /// The priority (1…2^31−1, RFC 8445 §5.1.2).
    public let priority: UInt32
    /// The candidate's address: numeric IPv4 or IPv6, or a host name (an mDNS `….local`
    /// name from browsers hiding their addresses).
    public let address: String
    /// The candidate's port.
    public let port: UInt16
    /// How it was found.
    public let type: CandidateType
    /// `raddr`: the address it was derived from (a reflexive or relayed candidate's base).
    public let relatedAddress: String?
    /// `rport`: the port it was derived from.
    public let relatedPort: UInt16?
    /// The extension attributes, in order.
    public let extensions: [Extension]

    /// A candidate from its parts, checked as a parsed one is.
    ///
    /// - Throws: `ICEAttributeError.invalidField` for a value outside its range or with a
    ///   character its grammar does not allow, `.tooManyExtensions` beyond
    ///   `maximumExtensionCount`.
    public init(foundation: String, componentID: Int, transport: Transport = .udp, priority: UInt32, address: String, port: UInt16,
                type: CandidateType, relatedAddress: String? = nil, relatedPort: UInt16? = nil,
                extensions: [Extension] = []) throws(ICEAttributeError) {
        guard (1...32).contains(foundation.unicodeScalars.count), foundation.unicodeScalars.allSatisfy(ICEAttributes.isICECharacter) else {
            throw .invalidField("foundation", value: ICEAttributeError.quoted(foundation), allowed: "1…32 of A–Z a–z 0–9 + /")
        }
        guard (1...Self.maximumComponentID).contains(componentID) else {
            throw .invalidField("component-id", value: "\(componentID)", allowed: "1…\(Self.maximumComponentID)")
        }
        if case let .other(name) = transport {
            guard Self.isToken(name), name.uppercased() != "UDP" else {
                throw .invalidField("transport", value: ICEAttributeError.quoted(name), allowed: "UDP or a token")
            }
        }
        guard (1...Self.maximumPriority).contains(priority) else {
            throw .invalidField("priority", value: "\(priority)", allowed: "1…\(Self.maximumPriority)")
        }
        for (field, value) in [("connection-address", address), ("raddr", relatedAddress)] {
            guard let value else { continue }
            guard ConnectionAddress.isAddress(value) else {
                throw .invalidField(field, value: ICEAttributeError.quoted(value), allowed: "an IPv4 or IPv6 address or a host name")
            }
        }
        guard extensions.count <= Self.maximumExtensionCount else { throw .tooManyExtensions(limit: Self.maximumExtensionCount) }
        // An extension named raddr or rport where the related address or port would be read
        // back as that, not as an extension (parsing never makes one).
        if let first = extensions.first, (first.name == "raddr" && relatedAddress == nil && relatedPort == nil) || (first.name == "rport" && relatedPort == nil) {
            throw .invalidField("extension name", value: ICEAttributeError.quoted(first.name), allowed: "raddr or rport where it reads back as one")
        }
        for item in extensions {
            guard Self.isToken(item.name) else {
                throw .invalidField("extension name", value: ICEAttributeError.quoted(item.name), allowed: "a token")
            }
            // *VCHAR allows an empty value, but a space-separated line cannot carry one.
            guard !item.value.isEmpty, item.value.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                throw .invalidField("value of \(item.name)", value: ICEAttributeError.quoted(item.value), allowed: "printable ASCII without spaces")
            }
        }
        self.foundation = foundation
        self.componentID = componentID
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// Parses a candidate: the value after `a=candidate:`, with or without a leading
    /// `candidate:` or `a=candidate:` (JSEP and trickle ICE signal it as `candidate:…`).
    ///
    /// - Throws: `ICEAttributeError.missingField` when the line ends before `typ <type>`,
    ///   `.invalidField` for a number out of range (component 0 or 257, a priority of 0 or above
    ///   2^31−1, a port above 65535) or a field with characters its grammar does not allow,
    ///   `.unknownCandidateType`, `.extensionWithoutValue`, `.tooManyExtensions`.
    public init(parsing text: some StringProtocol) throws(ICEAttributeError) {
        var value = Substring(text)
        for prefix in ["a=candidate:", "candidate:"] where value.hasPrefix(prefix) {
            value = value.dropFirst(prefix.count)
            break
        }
        let fields = value.split(separator: " ")
        // Bounded before anything is looked at: 8 fixed fields, raddr/rport, the extensions.
        guard fields.count <= 12 + 2 * Self.maximumExtensionCount else { throw .tooManyExtensions(limit: Self.maximumExtensionCount) }
        let names = ["foundation", "component-id", "transport", "priority", "connection-address", "port", "typ", "candidate type"]
        guard fields.count >= names.count else { throw .missingField(names[fields.count]) }
        let componentID = try Self.number(fields[1], field: "component-id", digits: 3, range: 1...UInt64(Self.maximumComponentID))
        let transport: Transport = fields[2].uppercased() == "UDP" ? .udp : .other(String(fields[2]))
        let priority = try Self.number(fields[3], field: "priority", digits: 10, range: 1...UInt64(Self.maximumPriority))
        let port = try Self.number(fields[5], field: "port", digits: 5, range: 0...UInt64(UInt16.max))
        guard fields[6] == "typ" else {
            throw .invalidField("typ", value: ICEAttributeError.quoted(fields[6]), allowed: "\"typ\" after the port")
        }
        guard let type = CandidateType(rawValue: String(fields[7])) else { throw .unknownCandidateType(String(fields[7].prefix(40))) }
        var rest = fields.dropFirst(8)
        var relatedAddress: String?
        var relatedPort: UInt16?
        if rest.first == "raddr" {
            guard rest.count >= 2 else { throw .missingField("raddr's address") }
            relatedAddress = String(rest.dropFirst().first!)
            rest = rest.dropFirst(2)
        }
        if rest.first == "rport" {
            guard rest.count >= 2 else { throw .missingField("rport's port") }
            relatedPort = UInt16(try Self.number(rest.dropFirst().first!, field: "rport", digits: 5, range: 0...UInt64(UInt16.max)))
            rest = rest.dropFirst(2)
        }
        var extensions: [Extension] = []
        while let name = rest.first {
            guard rest.count >= 2 else { throw .extensionWithoutValue(String(name.prefix(40))) }
            extensions.append(Extension(name: String(name), value: String(rest.dropFirst().first!)))
            rest = rest.dropFirst(2)
        }
        try self.init(foundation: String(fields[0]), componentID: Int(componentID), transport: transport, priority: UInt32(priority),
                      address: String(fields[4]), port: UInt16(port), type: type, relatedAddress: relatedAddress, relatedPort: relatedPort,
                      extensions: extensions)
    }

    /// The attribute value (after `a=candidate:`): `1 1 UDP 2122260223 192.0.2.7 50000 typ host`.
    public var attributeValue: String {
        var fields = [foundation, "\(componentID)", "\(transport)", "\(priority)", address, "\(port)", "typ", type.rawValue]
        if let relatedAddress { fields += ["raddr", relatedAddress] }
        if let relatedPort { fields += ["rport", "\(relatedPort)"] }
        for item in extensions { fields += [item.name, item.value] }
        return fields.joined(separator: " ")
    }

    /// `candidate:` and the attribute value, as JSEP and trickle ICE signal it (a candidate
    /// holds nothing secret).
    public var description: String { "candidate:" + attributeValue }

    /// A decimal field checked as text first: only digits, at most `digits` of them (so the
    /// conversion cannot overflow), then within `range`.
    private static func number(_ text: Substring, field: String, digits: Int, range: ClosedRange<UInt64>) throws(ICEAttributeError) -> UInt64 {
        guard (1...digits).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let number = UInt64(text), range.contains(number)
        else {
            throw .invalidField(field, value: ICEAttributeError.quoted(text), allowed: "\(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    /// RFC 3261's token: letters, digits and `-.!%*_+`'~`, at least one.
    static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "!", "%", "*", "_", "+", "`", "'", "~": return true
            default: return false
            }
        }
    }
}
