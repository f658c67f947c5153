// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport
import Transport

@Suite struct PeerAddressTests {
    @Test func addressOfAnEndpointRoundTrips() throws {
        for endpoint in [UDPEndpoint(host: "192.0.2.7", port: 5_004), UDPEndpoint(host: "2001:db8::1", port: 65_535), UDPEndpoint(host: "::1", port: 0)] {
            let address = try PeerAddress(endpoint)
            #expect(address.endpoint == endpoint)
            #expect(address.port == endpoint.port)
            #expect(address.description == endpoint.description)
        }
        // inet_ntop's canonical text, not the text it was given.
        #expect(try PeerAddress(UDPEndpoint(host: "2001:0db8:0000::0001", port: 1)).endpoint.host == "2001:db8::1")
        #expect(try PeerAddress(UDPEndpoint(host: "2001:0db8:0000::0001", port: 1)) == PeerAddress(UDPEndpoint(host: "2001:db8::1", port: 1)))
    }

    @Test func distinguishesHostPortAndFamily() throws {
        let endpoints = [
            UDPEndpoint(host: "127.0.0.1", port: 5_004), UDPEndpoint(host: "127.0.0.1", port: 5_006),
            UDPEndpoint(host: "127.0.0.2", port: 5_004), UDPEndpoint(host: "::ffff:127.0.0.1", port: 5_004),
            UDPEndpoint(host: "::1", port: 5_004), UDPEndpoint(host: "::1", port: 5_006),
        ]
        let addresses = try endpoints.map { try PeerAddress($0) }
        for (i, left) in addresses.enumerated() {
            for (j, right) in addresses.enumerated() {
                #expect((left == right) == (i == j), "\(left) vs \(right)")
            }
        }
        #expect(Set(addresses).count == endpoints.count)
        #expect(Set(try endpoints.map { try PeerAddress($0) } + addresses).count == endpoints.count)
    }

    @Test func refusesAHostThatIsNotANumericAddress() {
        for host in ["example.com", "", "1.2.3", "::g", "127.0.0.1 "] {
            #expect(throws: SocketError(function: "inet_pton", code: .invalidArgument)) { try PeerAddress(UDPEndpoint(host: host, port: 1)) }
        }
    }

    /// recvfrom's source and the address built from the sender's endpoint are the same value.
    @Test func sourceFromTheSystemEqualsAddressOfTheEndpoint() throws {
        let sender = try loopbackSocket()
        let receiver = try loopbackSocket()
        try sender.send([1], to: PeerAddress(receiver.localEndpoint))
        let source = try #require(try receiver.receiveWaiting()?.datagram.source)
        let built = try PeerAddress(sender.localEndpoint)
        #expect(source == built)
        #expect(source.hashValue == built.hashValue)
        #expect(Set([source, built]).count == 1)
    }

    @Test func comparingAndHashingAllocateNothing() throws {
        let a = try PeerAddress(UDPEndpoint(host: "2001:db8::1", port: 5_004))
        let b = try PeerAddress(UDPEndpoint(host: "2001:db8::1", port: 5_006))
        let c = try PeerAddress(UDPEndpoint(host: "10.0.0.1", port: 5_004))
        func compareAndHash() -> Int {
            var matches = 0
            for _ in 0..<1_000 {
                if a == a { matches += 1 }
                if a == b || a == c || b == c { matches -= 1_000_000 }
                var hasher = Hasher()
                hasher.combine(a)
                matches &+= hasher.finalize() & 0
            }
            return matches
        }
        // Warm-up: the runtime's first use of these conformances in the process fills its caches
        // (an allocation), in whichever test comes first; that is not what is measured.
        _ = compareAndHash()
        let (matches, allocations) = AllocationCounter.measure { compareAndHash() }
        #expect(matches == 1_000)
        #expect(allocations == 0)
    }
}
