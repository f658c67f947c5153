// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import CallCore
import CallNegotiation
import MediaEngineTesting
import SRTP
import SessionDescription
import Testing
import TestSupport
import Transport

/// Issue 24: a re-offer on a running call, over real UDP sockets on 127.0.0.1 — Alice moves to
/// a new port with a new key (Bob keeps his), then holds (`sendonly`) and resumes — applied in
/// place (`NegotiatedAudio.apply(to:replacing:)`) with at most one frame concealed at each
/// switch and audio flowing after it.
@Suite struct ReOfferOverUDPTests {
    static let frame = 960

    /// One side: its call, the sockets it reads (during a move, the old one too) and the one
    /// it sends from; what it played.
    final class Party {
        let media: CallMedia
        var receiving: [UDPSocket]
        var sending: UDPSocket
        var played: [Int16] = []
        private var buffer = [UInt8](repeating: 0, count: 2_048)

        init(media: CallMedia, socket: UDPSocket) {
            self.media = media
            receiving = [socket]
            sending = socket
        }

        func speak(_ index: Int, nowMs: Double) {
            var output = [Int16](repeating: 0, count: ReOfferOverUDPTests.frame)
            _ = output.withUnsafeMutableBufferPointer { media.render(into: $0, nowMs: nowMs) }
            played += output
            CallLoop.frame(index, of: CallNegotiationTests.speech, length: ReOfferOverUDPTests.frame).withUnsafeBufferPointer {
                media.send(microphone: $0)
            }
            media.sendDatagrams(nowMs: nowMs) { _ = try? sending.send($0) }
        }

        /// Everything waiting on its sockets, into the call. `expecting` when the peer sent a
        /// packet this tick: loopback usually delivers before `send` returns, but a loaded
        /// machine may defer it, so wait for it (up to 2 s) rather than take it a tick late —
        /// the virtual clock must see the same arrivals on every run.
        func listen(nowMs: Double, expecting: Bool) {
            var read = 0
            var waitedMs = 0
            while true {
                for socket in receiving {
                    while let received = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                        read += 1
                        _ = buffer.withUnsafeMutableBytes {
                            media.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<min(received.length, $0.count)]), arrivalTimeMs: nowMs)
                        }
                    }
                }
                guard expecting, read == 0, waitedMs < 2_000 else { return }
                for socket in receiving { _ = try? socket.waitForData(timeoutMs: 5) }
                waitedMs += 5 * receiving.count
            }
        }

        func level(_ frames: Range<Int>) -> Double {
            SignalComparison.rmsDecibels(played[(frames.lowerBound * ReOfferOverUDPTests.frame)..<(frames.upperBound * ReOfferOverUDPTests.frame)])
        }
    }

    /// Both sides talking, a 20 ms tick at a time on the virtual clock.
    final class Talk {
        let alice: Party, bob: Party
        private(set) var tick = 0

        init(_ alice: Party, _ bob: Party) {
            self.alice = alice
            self.bob = bob
        }

        /// Ticks until `end`, calling `atTick` before each one's audio.
        func run(until end: Int, _ atTick: (Int) throws -> Void) throws {
            while tick < end {
                try atTick(tick)
                let now = Double(tick) * 20
                alice.speak(tick, nowMs: now)
                bob.speak(tick, nowMs: now)
                alice.listen(nowMs: now, expecting: bob.media.direction.sends)
                bob.listen(nowMs: now, expecting: alice.media.direction.sends)
                tick += 1
            }
        }
    }

    /// Alice and Bob on sockets of their own, Alice offering with `keys` (one suite) and Bob
    /// answering, each call sending to the other: the talk, both local descriptions and what
    /// each side negotiated.
    static func connect(keys: [SRTPKeyingMaterial], ssrcs: (alice: UInt32, bob: UInt32)) throws
        -> (talk: Talk, aliceLocal: LocalAudio, bobLocal: LocalAudio, aliceSide: NegotiatedAudio, bobSide: NegotiatedAudio) {
        let aliceSocket = try socket(), bobSocket = try socket()
        var aliceLocal = LocalAudio(address: "127.0.0.1", port: aliceSocket.localEndpoint.port)
        aliceLocal.suites = [.aesCM128HmacSha1_80]
        let bobLocal = LocalAudio(address: "127.0.0.1", port: bobSocket.localEndpoint.port)
        let (aliceSide, bobSide) = try exchange(alice: aliceLocal, keys: keys, bob: bobLocal, bobKey: nil)
        let alice = Party(media: try aliceSide.makeCallMedia(ssrc: ssrcs.alice), socket: aliceSocket)
        let bob = Party(media: try bobSide.makeCallMedia(ssrc: ssrcs.bob), socket: bobSocket)
        try aliceSocket.setRemote(UDPEndpoint(host: aliceSide.remoteAddress, port: aliceSide.remotePort))
        try bobSocket.setRemote(UDPEndpoint(host: bobSide.remoteAddress, port: bobSide.remotePort))
        return (Talk(alice, bob), aliceLocal, bobLocal, aliceSide, bobSide)
    }

    static func socket() throws -> UDPSocket { try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)) }

    /// Alice offers with `local` and `keys`; Bob answers keeping `bobKey` (his key of that
    /// suite, as a re-answer may); both parse what the other wrote.
    static func exchange(alice local: LocalAudio, keys: [SRTPKeyingMaterial], bob bobLocal: LocalAudio,
                         bobKey: SRTPKeyingMaterial?) throws -> (alice: NegotiatedAudio, bob: NegotiatedAudio) {
        let offer = try SessionDescription.offer(from: local, keys: keys)
        let (answer, bobSide) = try SessionDescription(parsing: offer.formatted).answer(from: bobLocal) { profile in
            bobKey.flatMap { $0.profile == profile ? $0 : nil } ?? .random(profile: profile)
        }
        return (try SessionDescription(parsing: answer.formatted).negotiated(offer: offer), bobSide)
    }

    @Test func newPortAndKeyThenHoldAndResumeKeepAudioFlowing() throws {
        var (talk, aliceLocal, bobLocal, aliceSide, bobSide) = try Self.connect(keys: [.random(profile: .aesCM128HmacSha1_80)],
                                                                               ssrcs: (0xA11C_E000, 0xB0B0))
        let (alice, bob) = (talk.alice, talk.bob)
        func run(until end: Int, _ atTick: (Int) throws -> Void = { _ in }) throws { try talk.run(until: end, atTick) }
        func concealed(_ party: Party) -> Int { party.media.statistics.inbound.concealedSamples }
        try run(until: 100)
        #expect(alice.level(50..<100) > -40 && bob.level(50..<100) > -40, "both hear each other before")

        // The re-offer: a new port and a new key of Alice's; Bob keeps his own key, so Alice's
        // receiving session goes on (its rollover counter and replay window with it).
        let newSocket = try Self.socket()
        var moved = aliceLocal
        moved.port = newSocket.localEndpoint.port
        moved.sessionID += 1
        let (aliceMoved, bobMoved) = try Self.exchange(alice: moved, keys: [.random(profile: .aesCM128HmacSha1_80)],
                                                       bob: bobLocal, bobKey: bobSide.sendingKey)
        #expect(bobMoved.sendingKey == bobSide.sendingKey && bobMoved.receivingKey != bobSide.receivingKey)
        let (bobConcealedBefore, aliceConcealedBefore) = (concealed(bob), concealed(alice))
        // Bob answered: he sends to the new port and expects the new key at once.
        #expect(try bobMoved.apply(to: bob.media, replacing: bobSide), "the address changed")
        try bob.sending.setRemote(UDPEndpoint(host: bobMoved.remoteAddress, port: bobMoved.remotePort))
        alice.receiving.append(newSocket)
        // The answer reaches Alice three frames later: until then she sends under her old key
        // from the old port — packets Bob opens with the key the new one replaced.
        try run(until: 150) { index in
            guard index == 103 else { return }
            #expect(try !aliceMoved.apply(to: alice.media, replacing: aliceSide), "Bob did not move")
            try newSocket.setRemote(UDPEndpoint(host: aliceMoved.remoteAddress, port: aliceMoved.remotePort))
            alice.sending = newSocket
        }
        alice.receiving.removeFirst()  // the old port closes once the move is done
        try run(until: 200)
        let bobTransport = bob.media.statistics.transport.srtp
        #expect(bobTransport.authFailures == 0, "packets in flight under the old key were opened: \(bobTransport)")
        #expect(concealed(bob) - bobConcealedBefore <= Self.frame, "Bob concealed \(concealed(bob) - bobConcealedBefore) samples across the move")
        #expect(concealed(alice) - aliceConcealedBefore <= Self.frame, "Alice concealed \(concealed(alice) - aliceConcealedBefore)")
        #expect(bob.level(110..<200) > -40 && alice.level(110..<200) > -40, "both hear each other after the move")
        #expect(alice.media.statistics.transport.srtp.replays == 0 && alice.media.statistics.inbound.packetsLost == 0)
        aliceSide = aliceMoved
        bobSide = bobMoved
        aliceLocal = moved

        // Hold: Alice re-offers sendonly with the same keys; then resumes.
        var holding = aliceLocal
        holding.direction = .sendOnly
        holding.sessionID += 1
        let aliceKeys = [try #require(aliceSide.sendingKey)]
        let (aliceHeld, bobHeld) = try Self.exchange(alice: holding, keys: aliceKeys, bob: bobLocal, bobKey: bobSide.sendingKey)
        #expect(bobHeld.direction == .receiveOnly && aliceHeld.direction == .sendOnly)
        #expect(try !bobHeld.apply(to: bob.media, replacing: bobSide) && !aliceHeld.apply(to: alice.media, replacing: aliceSide))
        let bobConcealedAtHold = concealed(bob)
        try run(until: 300)
        #expect(concealed(bob) - bobConcealedAtHold <= Self.frame, "Bob, still hearing Alice, concealed \(concealed(bob) - bobConcealedAtHold)")
        #expect(bob.level(210..<300) > -40, "Bob hears Alice on hold")
        #expect(alice.played[(205 * Self.frame)..<(300 * Self.frame)].allSatisfy { $0 == 0 }, "Alice plays nothing while sending only")

        var resuming = aliceLocal
        resuming.sessionID += 2
        let (aliceResumed, bobResumed) = try Self.exchange(alice: resuming, keys: aliceKeys, bob: bobLocal, bobKey: bobSide.sendingKey)
        try bobResumed.apply(to: bob.media, replacing: bobHeld)
        try aliceResumed.apply(to: alice.media, replacing: aliceHeld)
        let aliceConcealedAtResume = concealed(alice)
        try run(until: 400)
        #expect(concealed(alice) - aliceConcealedAtResume <= Self.frame, "Alice concealed \(concealed(alice) - aliceConcealedAtResume) at the resume")
        #expect(alice.level(310..<400) > -40, "Alice hears Bob again")
    }

    /// What cannot change in place is refused, naming it (a packet time the peer's limits
    /// exclude, the suite); a new `a=ptime` alone keeps the call's packet time; a rekey leaves a
    /// direction whose key stayed alone.
    @Test func whatNeedsNewMediaIsNamed() throws {
        let (aliceSide, _) = try CallNegotiationTests.negotiate(alice: LocalAudio(address: "192.0.2.1", port: 40_000),
                                                                bob: LocalAudio(address: "192.0.2.2", port: 50_000))
        let media = try aliceSide.makeCallMedia()
        var other = aliceSide
        other.peerPtime = 40
        try other.apply(to: media, replacing: aliceSide)
        let unchanged = try aliceSide.mediaConfiguration()
        #expect(media.frameDurationMs == 20 && media.configuration == unchanged, "a preference: nothing changes")
        other = aliceSide
        other.peerFormatParameters += ";maxptime=10"
        #expect(throws: CallNegotiationError.needsNewMedia("packet time (the peer's limits exclude the call's 20 ms)")) {
            try other.apply(to: media, replacing: aliceSide)
        }
        other = aliceSide
        other.keying = .sdes(sending: .random(profile: .aeadAES128GCM), receiving: .random(profile: .aeadAES128GCM))
        #expect(throws: CallNegotiationError.needsNewMedia("SRTP suite")) { try other.apply(to: media, replacing: aliceSide) }
        let plain = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        let (sending, receiving) = (try #require(aliceSide.sendingKey), try #require(aliceSide.receivingKey))
        #expect(throws: CallMediaError.self) { try plain.updateKeys(sending: sending, receiving: receiving) }
        let same = try SRTPTransportStage.Rekey(from: (sending, receiving), to: sending, receiving)
        #expect(same.isEmpty)
    }

    /// Issue 24: a re-offer to another codec on a running call, over UDP — Opus to PCMU (another
    /// RTP clock), then PCMU to G.722 (the same clock) — switches both sides in place
    /// (`CallMedia.switchCodec(to:)` through `NegotiatedAudio.apply(to:replacing:)`): the
    /// offerer plays the offered codecs from the offer on (`prepareToReceive`), the answerer
    /// switches on answering, the offerer when the answer reaches it three frames later; at most
    /// one frame concealed at each switch, nothing dropped as an unknown payload type, the same
    /// SRTP sessions and stream throughout.
    @Test func aReOfferToAnotherCodecSwitchesTheRunningCall() throws {
        let aliceKeys: [SRTPKeyingMaterial] = [.random(profile: .aesCM128HmacSha1_80)]
        var (talk, aliceLocal, bobLocal, aliceSide, bobSide) = try Self.connect(keys: aliceKeys, ssrcs: (0xA11C_E001, 0xB0B1))
        let (alice, bob) = (talk.alice, talk.bob)
        #expect(aliceSide.codec == .opus)
        func run(until end: Int, _ atTick: (Int) throws -> Void = { _ in }) throws { try talk.run(until: end, atTick) }
        func concealed(_ party: Party) -> Int { party.media.statistics.inbound.concealedSamples }
        try run(until: 100)

        for (step, codecs) in [[AudioCodec.pcmu, .g722], [.g722]].enumerated() {
            var recodec = aliceLocal
            recodec.codecs = codecs
            recodec.sessionID += 1
            let offer = try SessionDescription.offer(from: recodec, keys: aliceKeys)
            let bobKey = try #require(bobSide.sendingKey)
            let (answer, bobNext) = try SessionDescription(parsing: offer.formatted).answer(from: bobLocal) { profile in
                profile == bobKey.profile ? bobKey : .random(profile: profile)
            }
            let aliceNext = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
            #expect(aliceNext.codec == codecs[0] && bobNext.codec == codecs[0])
            let start = talk.tick, (aliceConcealed, bobConcealed) = (concealed(alice), concealed(bob))
            try run(until: start + 100) { index in
                if index == start { try alice.media.prepareToReceive(offer) }  // the offer goes out
                if index == start + 1 { #expect(try !bobNext.apply(to: bob.media, replacing: bobSide)) }  // Bob answers
                if index == start + 4 { #expect(try !aliceNext.apply(to: alice.media, replacing: aliceSide)) }  // the answer arrives
            }
            let (aliceStatistics, bobStatistics) = (alice.media.statistics, bob.media.statistics)
            #expect(aliceStatistics.inbound.unknownPayloadTypePackets == 0 && bobStatistics.inbound.unknownPayloadTypePackets == 0)
            #expect(concealed(alice) - aliceConcealed <= Self.frame, "step \(step): Alice concealed \(concealed(alice) - aliceConcealed)")
            #expect(concealed(bob) - bobConcealed <= Self.frame, "step \(step): Bob concealed \(concealed(bob) - bobConcealed)")
            #expect(alice.level((start + 10)..<(start + 100)) > -40 && bob.level((start + 10)..<(start + 100)) > -40,
                    "step \(step): both hear each other after the switch")
            #expect(alice.media.configuration.codec == codecs[0] && bob.media.configuration.codec == codecs[0])
            #expect(aliceStatistics.inbound.packetsLost == 0 && bobStatistics.inbound.packetsLost == 0)
            #expect(aliceStatistics.transport.srtp.authFailures == 0 && bobStatistics.transport.srtp.authFailures == 0)
            (aliceSide, bobSide, aliceLocal) = (aliceNext, bobNext, recodec)
        }
        // 64 kb/s of G.722 at the end: 160 bytes a packet.
        let sent = alice.media.statistics.outbound
        #expect(sent.targetBitrate == 64_000)
    }
}
