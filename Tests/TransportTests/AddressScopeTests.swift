// SPDX-License-Identifier: Apache-2.0
import Testing
import Transport

/// `PeerAddress.scope`: the ranges at their edges, both families, IPv4-mapped IPv6.
struct AddressScopeTests {
    @Test(arguments: [
        ("127.0.0.1", AddressScope.loopback), ("127.255.255.254", .loopback), ("::1", .loopback),
        ("169.254.0.1", .linkLocal), ("169.253.255.255", .global), ("fe80::1", .linkLocal), ("febf::1", .linkLocal), ("fec0::1", .global),
        ("10.0.0.1", .privateNetwork), ("10.255.255.255", .privateNetwork), ("11.0.0.1", .global), ("9.255.255.255", .global),
        ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork), ("172.15.255.255", .global), ("172.32.0.0", .global),
        ("192.168.1.1", .privateNetwork), ("192.169.0.1", .global), ("100.64.0.1", .privateNetwork), ("100.127.255.255", .privateNetwork),
        ("100.128.0.0", .global), ("100.63.255.255", .global), ("fc00::1", .privateNetwork), ("fdff::1", .privateNetwork), ("fe00::1", .global),
        ("198.51.100.2", .global), ("2001:db8::1", .global), ("::ffff:10.1.2.3", .privateNetwork), ("::ffff:8.8.8.8", .global),
    ])
    func scopeOf(_ host: String, _ expected: AddressScope) throws {
        #expect(try PeerAddress(UDPEndpoint(host: host, port: 5004)).scope == expected, "\(host)")
    }
}
