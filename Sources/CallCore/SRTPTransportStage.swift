// SPDX-License-Identifier: Apache-2.0
import SRTP

/// Counters of the SRTP stage, modelled on W3C WebRTC transport stats.
public struct SRTPTransportStatistics: Sendable, Equatable, BitwiseCopyable {
    /// Packets protected for sending.
    public var packetsProtected = 0
    /// Bytes of SRTP packets produced (RTP header, payload, authentication tag).
    public var bytesProtected = 0
    /// Datagrams handed in for unprotecting.
    public var datagramsReceived = 0
    /// Datagrams that unprotected cleanly.
    public var packetsUnprotected = 0
    /// Datagrams whose authentication tag did not verify (forged or corrupted): dropped.
    public var authFailures = 0
    /// Datagrams rejected as replays (an index already received): dropped.
    public var replays = 0
    /// Datagrams older than the replay window (more than the window's 1,024 packets behind the newest):
    /// dropped. Packets tens of seconds late land here, not in `replays`.
    public var olderThanReplayWindow = 0
    /// SRTCP datagrams whose E flag (encrypted or not) disagrees with the negotiated SRTCP
    /// encryption: dropped before their tag could be checked (forged, corrupted, or a peer
    /// that negotiated `UNENCRYPTED_SRTCP` differently).
    public var encryptionFlagMismatches = 0
    /// Datagrams too short or malformed for SRTP to parse: dropped.
    public var malformed = 0
    /// Datagrams carrying a master key identifier (MKI) no key was negotiated for: dropped.
    public var unknownMasterKeyIdentifier = 0
    /// Datagrams refused because the peer's (receiving) master key reached its negotiated
    /// lifetime: dropped (the call needs a re-key).
    public var keyLifetimeExpired = 0
    /// Packets that could not be protected for sending (key lifetime reached, or libsrtp
    /// refused them): not sent.
    public var protectFailures = 0
    /// Ours: of `protectFailures`, the packets (SRTP and SRTCP) refused because our sending
    /// master key reached its negotiated lifetime: not sent (the call needs a re-key).
    public var sendingKeyLifetimeExpired = 0
    /// Ours: datagrams that arrived before a DTLS handshake keyed the call
    /// (`MediaProtection.srtpKeyedByHandshake`): dropped unread, never played.
    public var receivedBeforeKeys = 0
    /// Ours: RTP packets the call had to send before it was keyed: dropped, never sent in clear.
    public var discardedBeforeKeys = 0

    /// All counters zero.
    public init() {}
}

/// The SRTP stage of one call: protects outgoing RTP and unprotects incoming datagrams,
/// counting and dropping every datagram that fails.
///
/// It belongs on the network thread, not the audio thread: Debian's libsrtp2 (NSS crypto
/// backend) allocates inside every `srtp_protect`/`srtp_unprotect` (14 heap allocations per
/// AES-CM packet, 5 per GCM packet, measured by `benchmarks srtp` on the raw C calls), so it
/// cannot meet the audio path's no-allocation rule. Our wrapper adds none on top.
public final class SRTPTransportStage {
    /// What has been protected and unprotected so far.
    public private(set) var statistics = SRTPTransportStatistics()

    /// Nil until keyed, for a stage made `awaitingKeys`.
    private var outbound: SRTPSession?
    private var inbound: SRTPSession?
    /// The receiving session a new key replaced, still tried for what the peer sent before it
    /// switched (packets in flight) until `previousKeyRetirement` packets authenticated under
    /// the new one.
    private var previousInbound: SRTPSession?
    private var packetsUnderNewKey = 0
    /// A copy of a datagram while two keys are tried: a failed AEAD unprotect may have
    /// decrypted in place.
    private let scratch: UnsafeMutableRawBufferPointer

    /// Packets under a new receiving key after which the previous key is no longer tried:
    /// about 5 s at 20 ms, far longer than any packet stays in flight.
    public static let previousKeyRetirement = 250

    /// A stage sending with `sendingKey` and receiving with the peer's `receivingKey`, for
    /// datagrams of up to `maximumDatagramBytes`.
    public init(sendingKey: SRTPKeyingMaterial, receivingKey: SRTPKeyingMaterial, maximumDatagramBytes: Int = 1_500) throws(SRTPError) {
        outbound = try SRTPSession(direction: .outbound, keyingMaterial: sendingKey)
        inbound = try SRTPSession(direction: .inbound, keyingMaterial: receivingKey)
        scratch = .allocate(byteCount: max(maximumDatagramBytes, 1), alignment: 16)
    }

    /// A stage without keys yet (DTLS-SRTP: the handshake gives them): it protects nothing
    /// and drops what arrives (counted in `receivedBeforeKeys`) until a `Rekey` keys both ways.
    public init(awaitingKeysWithMaximumDatagramBytes maximumDatagramBytes: Int = 1_500) {
        outbound = nil
        inbound = nil
        scratch = .allocate(byteCount: max(maximumDatagramBytes, 1), alignment: 16)
    }

    deinit { scratch.deallocate() }

    /// Whether both directions have keys.
    public var isKeyed: Bool { outbound != nil && inbound != nil }

    /// Counts an RTP packet dropped because the stage has no keys yet.
    public func discardBeforeKeys() { statistics.discardedBeforeKeys += 1 }

    /// The sessions a re-offer's new keys need, made where allocating is allowed (creating a
    /// libsrtp session allocates): only for a key that changed, so a direction whose key stays
    /// keeps its session, its rollover counter and its replay window.
    public struct Rekey: @unchecked Sendable {
        let outbound: SRTPSession?
        let inbound: SRTPSession?

        /// Sessions for `sending` and `receiving` where they differ from `current` (both, when
        /// the stage has no keys yet).
        public init(from current: (sending: SRTPKeyingMaterial?, receiving: SRTPKeyingMaterial?),
                    to sending: SRTPKeyingMaterial, _ receiving: SRTPKeyingMaterial) throws(SRTPError) {
            outbound = sending == current.sending ? nil : try SRTPSession(direction: .outbound, keyingMaterial: sending)
            inbound = receiving == current.receiving ? nil : try SRTPSession(direction: .inbound, keyingMaterial: receiving)
        }

        /// Whether nothing changes.
        public var isEmpty: Bool { outbound == nil && inbound == nil }
    }

    /// Switches to a rekey's sessions (on the thread that protects and unprotects): what is
    /// sent from now on is under the new sending key; what arrives is tried under the new
    /// receiving key, then the one it replaced.
    public func apply(_ rekey: Rekey) {
        if let outbound = rekey.outbound { self.outbound = outbound }
        if let inbound = rekey.inbound {
            // The first keys replace nothing: there is no earlier key to try.
            previousInbound = self.inbound
            self.inbound = inbound
            packetsUnderNewKey = 0
        }
    }

    /// Protects the RTP packet in `buffer[0..<length]` in place; `buffer` must have
    /// `SRTPSession.maximumTrailerLength` spare bytes. Returns the SRTP packet.
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> UnsafeRawBufferPointer {
        let protected = try counting { () throws(SRTPError) in try sendingSession().protect(buffer, length: length) }
        statistics.packetsProtected += 1
        statistics.bytesProtected += protected
        return UnsafeRawBufferPointer(rebasing: buffer[0..<protected])
    }

    /// Protects the RTCP compound packet in `buffer[0..<length]` in place (SRTCP); `buffer`
    /// must have `SRTPSession.maximumTrailerLength` spare bytes. Returns the SRTCP packet.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> UnsafeRawBufferPointer {
        let protected = try counting { () throws(SRTPError) in try sendingSession().protectRTCP(buffer, length: length) }
        return UnsafeRawBufferPointer(rebasing: buffer[0..<protected])
    }

    /// The sending session; without keys, `.badParameter` (callers check `isKeyed` first).
    private func sendingSession() throws(SRTPError) -> SRTPSession {
        guard let outbound else { throw .badParameter("no SRTP key yet: the DTLS handshake has not completed") }
        return outbound
    }

    /// Runs a protect call, counting its failure.
    private func counting(_ protect: () throws(SRTPError) -> Int) throws(SRTPError) -> Int {
        do {
            return try protect()
        } catch {
            statistics.protectFailures += 1
            if error == .keyLifetimeExpired { statistics.sendingKeyLifetimeExpired += 1 }
            throw error
        }
    }

    /// Unprotects a received SRTCP datagram in place. Returns the RTCP compound packet, or nil
    /// when it failed (counted by reason with the SRTP failures, and dropped).
    public func unprotectRTCP(_ datagram: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer? {
        unprotect(datagram) { (session, bytes) throws(SRTPError) in try session.unprotectRTCP(bytes, length: bytes.count) }
    }

    /// Unprotects a received datagram in place. Returns the RTP packet, or nil when the
    /// datagram failed (counted by reason, and dropped).
    public func unprotect(_ datagram: UnsafeMutableRawBufferPointer) -> UnsafeRawBufferPointer? {
        unprotect(datagram) { (session, bytes) throws(SRTPError) in try session.unprotect(bytes, length: bytes.count) }
    }

    private func unprotect(_ datagram: UnsafeMutableRawBufferPointer,
                           using body: (SRTPSession, UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int) -> UnsafeRawBufferPointer? {
        statistics.datagramsReceived += 1
        guard let inbound else {
            statistics.receivedBeforeKeys += 1
            return nil
        }
        let fallback = previousInbound.flatMap { datagram.count <= scratch.count ? $0 : nil }
        if fallback != nil { UnsafeMutableRawBufferPointer(rebasing: scratch[0..<datagram.count]).copyMemory(from: UnsafeRawBufferPointer(datagram)) }
        do throws(SRTPError) {
            let length: Int
            do throws(SRTPError) {
                length = try body(inbound, datagram)
                if previousInbound != nil {
                    packetsUnderNewKey += 1
                    if packetsUnderNewKey >= Self.previousKeyRetirement { previousInbound = nil }
                }
            } catch {
                // Sent under the key a re-offer replaced, in flight as the peer switched?
                guard let fallback else { throw error }
                datagram.copyMemory(from: UnsafeRawBufferPointer(rebasing: scratch[0..<datagram.count]))
                guard let recovered = try? body(fallback, datagram) else { throw error }
                length = recovered
            }
            statistics.packetsUnprotected += 1
            return UnsafeRawBufferPointer(rebasing: datagram[0..<length])
        } catch .authenticationFailed {
            statistics.authFailures += 1
        } catch .replay {
            statistics.replays += 1
        } catch .olderThanReplayWindow {
            statistics.olderThanReplayWindow += 1
        } catch .encryptionFlagMismatch {
            statistics.encryptionFlagMismatches += 1
        } catch .unknownMasterKeyIdentifier {
            statistics.unknownMasterKeyIdentifier += 1
        } catch .keyLifetimeExpired {
            statistics.keyLifetimeExpired += 1
        } catch {
            statistics.malformed += 1
        }
        return nil
    }
}
