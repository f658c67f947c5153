// SPDX-License-Identifier: Apache-2.0
import Testing
import Transport

@Suite struct UDPSocketOptionsTests {
    @Test func codePointsAreSixBits() {
        #expect(DSCP.expeditedForwarding.rawValue == 46)
        #expect(DSCP.expeditedForwarding.trafficClassByte == 0xB8)
        #expect(DSCP.bestEffort.rawValue == 0)
        #expect(DSCP(rawValue: 63)?.trafficClassByte == 0xFC)
        #expect(DSCP(rawValue: 64) == nil)
        #expect(DSCP(rawValue: 255) == nil)
    }

    /// RFC 4594: telephony is marked EF. The byte is checked as the receiver got it (IP_RECVTOS).
    @Test func marksDatagramsWithTheTrafficClassOnIPv4() throws {
        let sender = try loopbackSocket()
        let receiver = try loopbackSocket()
        reportTrafficClass(on: receiver)
        try sender.setRemote(receiver.localEndpoint)
        #expect(try sender.trafficClass == .bestEffort)
        try sender.send([1])
        #expect(try receivedTrafficClass(on: receiver) == 0)

        try sender.setTrafficClass(.expeditedForwarding)
        #expect(try sender.trafficClass == .expeditedForwarding)
        try sender.send([2])
        #expect(try receivedTrafficClass(on: receiver) == 0xB8)

        try sender.setTrafficClass(.bestEffort)
        try sender.send([3])
        #expect(try receivedTrafficClass(on: receiver) == 0)
    }

    /// Linux doubles the request for its bookkeeping (socket(7)); the sizes asked here are
    /// below the default `net.core.rmem_max`/`wmem_max` (212,992), so they are granted.
    @Test func setsBufferSizesAndReadsBackWhatWasGranted() throws {
        let socket = try loopbackSocket()
        #expect(try socket.setReceiveBufferSize(bytes: 8_192) == 16_384)
        #expect(try socket.receiveBufferSize == 16_384)
        #expect(try socket.setReceiveBufferSize(bytes: 65_536) == 131_072)
        #expect(try socket.receiveBufferSize == 131_072)
        #expect(try socket.setSendBufferSize(bytes: 32_768) == 65_536)
        #expect(try socket.sendBufferSize == 65_536)
        #expect(try socket.receiveBufferSize == 131_072)  // each option its own
    }

    @Test func refusesBufferSizesOutOfRangeAndKeepsTheOldSize() throws {
        let socket = try loopbackSocket()
        try socket.setReceiveBufferSize(bytes: 8_192)
        try socket.setSendBufferSize(bytes: 8_192)
        for bytes in [0, -1, Int.min, (1 << 30) + 1, Int.max] {
            #expect(throws: SocketError(function: "setsockopt(SO_RCVBUF)", code: .invalidArgument)) { try socket.setReceiveBufferSize(bytes: bytes) }
            #expect(throws: SocketError(function: "setsockopt(SO_SNDBUF)", code: .invalidArgument)) { try socket.setSendBufferSize(bytes: bytes) }
        }
        #expect(try socket.receiveBufferSize == 16_384)
        #expect(try socket.sendBufferSize == 16_384)
        #expect(UDPSocket.bufferSizeRange == 1...(1 << 30))
    }
}
