// SPDX-License-Identifier: Apache-2.0
internal import CSRTP

/// One direction of an SRTP/SRTCP session (RFC 3711) over libsrtp: protects outgoing packets
/// or authenticates and decrypts incoming ones, in place.
///
/// The session uses a wildcard SSRC policy (`ssrc_any_outbound` / `ssrc_any_inbound`): every
/// SSRC shares the keying material, and libsrtp creates a separate stream context (own
/// rollover counter, replay window and SRTCP index) the first time it meets each SSRC. That
/// first packet allocates; after it, `protect`/`unprotect` and their RTCP forms make no heap
/// allocation.
///
/// **Threading:** the class is `Sendable` so it can be handed to the media thread, but it is
/// not internally synchronized: use it from one thread at a time (typically the send or the
/// receive path of the pipeline).
///
/// **Rollover counter continuity:** before replacing a session with the same key (re-INVITE,
/// media restart), save `streamStates` and pass them to
/// `init(direction:keyingMaterial:resuming:)`, or the new session restarts at ROC 0 and every
/// packet after the first sequence wrap fails authentication at the peer.
///
/// **Buffers:** packets are processed in place; the buffer should be 4-byte aligned (libsrtp
/// reads the header as 32-bit words).
///
/// **MKI and lifetime:** the keying material's master key identifier is written into every
/// packet protected and required in every packet unprotected (`.unknownMasterKeyIdentifier`
/// otherwise); its lifetime is counted over SRTP and SRTCP packets together, and once
/// `packetsUnderKey` reaches it every call throws `.keyLifetimeExpired` (libsrtp enforces its
/// own, longer limits itself: 2^48 SRTP, 2^31 SRTCP packets).
///
/// **Threads:** a session is not `Sendable` (it used to be declared so, unchecked): the
/// compiler lets one be handed to another thread only when nothing keeps using it here, so
/// two threads can never protect or unprotect with one session at once.
public final class SRTPSession {
    /// Spare bytes `protect` requires after the RTP packet: libsrtp's `SRTP_MAX_TRAILER_LEN`
    /// (largest tag plus largest MKI), the bound its documentation says it may write.
    public static let maximumTrailerLength = Int(SRTP_MAX_TAG_LEN) + Int(SRTP_MAX_MKI_LEN)

    /// Spare bytes `protectRTCP` requires after the RTCP packet: `maximumTrailerLength` plus
    /// the 4-byte SRTCP E-flag/index word.
    public static let maximumRTCPTrailerLength = maximumTrailerLength + 4

    /// Default replay window, in packets.
    public static let defaultReplayWindowSize = 1024

    /// The longest master key identifier libsrtp carries, in bytes (`SRTP_MAX_MKI_LEN`).
    public static let maximumMasterKeyIdentifierLength = Int(SRTP_MAX_MKI_LEN)

    /// Whether this session protects (outbound) or unprotects (inbound).
    public let direction: SRTPDirection
    /// The crypto suite in use.
    public let profile: SRTPProfile
    /// The master key's lifetime in packets (from the keying material), nil for libsrtp's own.
    public let lifetimePackets: UInt64?
    /// Packets this session has protected (outbound) or authenticated (inbound) with its master
    /// key, SRTP and SRTCP together: what `lifetimePackets` is counted against.
    public private(set) var packetsUnderKey: UInt64 = 0

    private let context: SRTPContext
    /// libsrtp's `use_mki` flag: 1 when the keying material has an MKI (master key index 0).
    private let useMasterKeyIdentifier: UInt32
    /// The MKI, when incoming SRTCP must have it checked and removed here rather than by
    /// libsrtp (see `unprotectRTCP`).
    private let srtcpMasterKeyIdentifier: [UInt8]?
    // Unchecked: the session is used by one thread at a time and never re-enters itself, so
    // the dynamic exclusivity checks Swift would make on every access (several per packet)
    // only cost time on the per-packet path.
    @exclusivity(unchecked) private var streams = SRTPStreamTable()
    /// Whether any stream was resumed; when none was, `prepare` has nothing to check.
    private let hasResumedStreams: Bool

    /// Creates a session for one direction.
    ///
    /// - Parameters:
    ///   - direction: `.outbound` to protect, `.inbound` to unprotect.
    ///   - keyingMaterial: master key and salt (for inbound: the peer's, from its `a=crypto`).
    ///   - replayWindowSize: packets kept in each stream's replay window, 64..<32768
    ///     (libsrtp's limits); also bounds how far packets may be reordered.
    ///   - resuming: streams of an earlier session with the same keying material whose packet
    ///     index must continue (see `SRTPStreamState`). Each SSRC gets an explicit stream whose
    ///     rollover counter is told to libsrtp before its first packet (chosen from that
    ///     packet's sequence number and the saved highest sequence number, so a wrap during
    ///     the restart is handled). Packets at or below the saved index are refused with
    ///     `.replay`: on inbound they may be replays; on outbound they would reuse keystream.
    ///     The new session's `packetsUnderKey` starts at 0: when the key has a lifetime, give
    ///     it keying material whose `lifetimePackets` is what the old session left.
    /// - Throws: `SRTPError.badParameter` for a bad window size or duplicate SSRCs,
    ///   `.initializationFailed` / `.allocationFailed` when libsrtp cannot create the session.
    public init(
        direction: SRTPDirection,
        keyingMaterial: SRTPKeyingMaterial,
        replayWindowSize: Int = SRTPSession.defaultReplayWindowSize,
        resuming: [SRTPStreamState] = []
    ) throws(SRTPError) {
        guard (64..<0x8000).contains(replayWindowSize) else {
            throw .badParameter("replayWindowSize must be in 64..<32768, got \(replayWindowSize)")
        }
        self.direction = direction
        self.profile = keyingMaterial.profile
        self.lifetimePackets = keyingMaterial.lifetimePackets
        self.useMasterKeyIdentifier = keyingMaterial.masterKeyIdentifier == nil ? 0 : 1
        // libsrtp 2.5 looks for an SRTCP packet's MKI as if the packet ended in an RTP tag
        // (srtp_get_session_keys uses the RTP tag length): under the _32 suites, whose SRTCP
        // tag is 10 bytes and RTP tag 4, it looks 6 bytes early and refuses every packet.
        let profile = keyingMaterial.profile
        self.srtcpMasterKeyIdentifier = profile.rtpAuthTagLength != profile.rtcpAuthTagLength ? keyingMaterial.masterKeyIdentifier : nil
        self.hasResumedStreams = !resuming.isEmpty
        self.context = try SRTPContext(direction: direction, keyingMaterial: keyingMaterial, windowSize: replayWindowSize)
        for state in resuming {
            guard streams.slot(of: state.ssrc) == nil else {
                throw .badParameter("SSRC \(state.ssrc) appears twice in resuming")
            }
            try context.addStream(ssrc: state.ssrc, keyingMaterial: keyingMaterial, windowSize: replayWindowSize)
            streams.addResumed(state)
        }
    }

    /// Protects an RTP packet in place: encrypts the payload and appends the authentication tag.
    ///
    /// - Parameters:
    ///   - buffer: holds the RTP packet at its start, followed by at least
    ///     `SRTPSession.maximumTrailerLength` spare bytes.
    ///   - length: the RTP packet's length in bytes.
    /// - Returns: the SRTP packet's length.
    /// - Throws: `.bufferTooSmall`, `.malformedPacket`, `.replay` (sequence number reused, or at
    ///   or below a resumed stream's index), `.keyLifetimeExpired`, `.badParameter` on an
    ///   inbound session.
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .badParameter("protect needs an outbound session") }
        let base = try Self.checkedBase(buffer, length: length, minimumLength: 12, trailer: Self.maximumTrailerLength)
        let header = Self.rtpHeader(base)
        try prepare(ssrc: header.ssrc, sequenceNumber: header.sequenceNumber)
        try checkLifetime()
        var octets = Int32(length)
        let status = srtp_protect_mki(context.handle, base, &octets, useMasterKeyIdentifier, 0)
        if let error = SRTPError(status: status, function: "srtp_protect") { throw error }
        streams.record(ssrc: header.ssrc, sequenceNumber: header.sequenceNumber)
        packetsUnderKey += 1
        return Int(octets)
    }

    /// Authenticates and decrypts an SRTP packet in place.
    ///
    /// - Parameters:
    ///   - buffer: holds the SRTP packet at its start.
    ///   - length: the SRTP packet's length in bytes (at most `buffer.count`).
    /// - Returns: the RTP packet's length (tag removed).
    /// - Throws: `.authenticationFailed`, `.replay`, `.malformedPacket`,
    ///   `.unknownMasterKeyIdentifier`, `.keyLifetimeExpired`, `.bufferTooSmall`,
    ///   `.badParameter` on an outbound session. The buffer's contents are unspecified after
    ///   a failure.
    public func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .badParameter("unprotect needs an inbound session") }
        let base = try Self.checkedBase(buffer, length: length, minimumLength: 12, trailer: 0)
        let header = Self.rtpHeader(base)
        try prepare(ssrc: header.ssrc, sequenceNumber: header.sequenceNumber)
        try checkLifetime()
        var octets = Int32(length)
        let status = srtp_unprotect_mki(context.handle, base, &octets, useMasterKeyIdentifier)
        if let error = SRTPError(status: status, function: "srtp_unprotect") { throw error }
        streams.record(ssrc: header.ssrc, sequenceNumber: header.sequenceNumber)
        packetsUnderKey += 1
        return Int(octets)
    }

    /// Protects an RTCP compound packet in place (SRTCP: encrypts, appends the E-flag/index
    /// word and the tag). libsrtp numbers SRTCP packets per SSRC starting at index 1.
    ///
    /// - Parameters:
    ///   - buffer: holds the RTCP packet followed by at least
    ///     `SRTPSession.maximumRTCPTrailerLength` spare bytes.
    ///   - length: the RTCP packet's length in bytes.
    /// - Returns: the SRTCP packet's length.
    /// - Throws: `.bufferTooSmall`, `.malformedPacket`, `.keyLifetimeExpired`, `.badParameter`
    ///   on an inbound session.
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .outbound else { throw .badParameter("protectRTCP needs an outbound session") }
        let base = try Self.checkedBase(buffer, length: length, minimumLength: 8, trailer: Self.maximumRTCPTrailerLength)
        try checkLifetime()
        var octets = Int32(length)
        let status = srtp_protect_rtcp_mki(context.handle, base, &octets, useMasterKeyIdentifier, 0)
        if let error = SRTPError(status: status, function: "srtp_protect_rtcp") { throw error }
        packetsUnderKey += 1
        return Int(octets)
    }

    /// Authenticates and decrypts an SRTCP packet in place.
    ///
    /// - Returns: the RTCP packet's length (index word and tag removed).
    /// - Throws: `.authenticationFailed`, `.replay`, `.malformedPacket`,
    ///   `.encryptionFlagMismatch` (the E flag disagrees with the policy),
    ///   `.unknownMasterKeyIdentifier`, `.keyLifetimeExpired`, `.bufferTooSmall`,
    ///   `.badParameter` on an outbound session.
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .inbound else { throw .badParameter("unprotectRTCP needs an inbound session") }
        let base = try Self.checkedBase(buffer, length: length, minimumLength: 8, trailer: 0)
        try checkLifetime()
        var octets = Int32(length)
        var useMasterKeyIdentifier = self.useMasterKeyIdentifier
        if let identifier = srtcpMasterKeyIdentifier {
            octets = Int32(try Self.removeMasterKeyIdentifier(identifier, from: base, length: length, tagLength: profile.rtcpAuthTagLength))
            useMasterKeyIdentifier = 0
        }
        let status = srtp_unprotect_rtcp_mki(context.handle, base, &octets, useMasterKeyIdentifier)
        // libsrtp checks the E flag against the policy before the tag and reports a mismatch
        // as "cannot check": it is neither a malformed packet nor a verified one.
        if status == srtp_err_status_cant_check { throw .encryptionFlagMismatch }
        if let error = SRTPError(status: status, function: "srtp_unprotect_rtcp") { throw error }
        packetsUnderKey += 1
        return Int(octets)
    }

    /// The rollover counter and highest sequence number of the stream for `ssrc`, or nil if
    /// this session has not yet protected (outbound) or authenticated (inbound) a packet of
    /// that SSRC and was not told to resume it.
    ///
    /// The ROC comes from libsrtp (`srtp_get_stream_roc`); the sequence number from the
    /// session's own record of the highest packet index.
    public func streamState(ssrc: UInt32) -> SRTPStreamState? {
        guard let slot = streams.slot(of: ssrc) else { return nil }
        let entry = streams[slot]
        let ownRoc = UInt32(truncatingIfNeeded: entry.highestIndex >> 16)
        let roc = entry.awaitingFirstPacket ? ownRoc : (context.rolloverCounter(ssrc: ssrc) ?? ownRoc)
        return SRTPStreamState(ssrc: ssrc, rolloverCounter: roc,
                               highestSequenceNumber: UInt16(truncatingIfNeeded: entry.highestIndex))
    }

    /// The state of every stream known to this session, to pass to
    /// `init(direction:keyingMaterial:resuming:)` of its replacement.
    public var streamStates: [SRTPStreamState] {
        streams.entries.compactMap { streamState(ssrc: $0.ssrc) }
    }

    /// For a resumed stream: refuses packets at or below the saved index and, until the first
    /// packet has passed, tells libsrtp the rollover counter that packet belongs to.
    private func prepare(ssrc: UInt32, sequenceNumber: UInt16) throws(SRTPError) {
        guard hasResumedStreams, let slot = streams.slot(of: ssrc) else { return }
        let entry = streams[slot]
        guard let floor = entry.resumedFloor else { return }
        let index = SRTPStreamTable.estimatedIndex(sequenceNumber: sequenceNumber, highestIndex: entry.highestIndex)
        if index <= floor { throw .replay }
        if entry.awaitingFirstPacket {
            try context.setRolloverCounter(UInt32(truncatingIfNeeded: index >> 16), ssrc: ssrc)
        }
    }

    /// Checks the MKI of an AES-CM SRTCP packet where RFC 3711 §3.4 puts it (after the E flag
    /// and index, before the tag) and removes it, moving the tag down; returns the new length.
    /// libsrtp then authenticates the packet as one without MKI: the MKI is not covered by
    /// the tag, so nothing else changes.
    private static func removeMasterKeyIdentifier(
        _ identifier: [UInt8], from base: UnsafeMutableRawPointer, length: Int, tagLength: Int
    ) throws(SRTPError) -> Int {
        let mkiStart = length - tagLength - identifier.count
        guard mkiStart >= 8 + 4 else { throw .malformedPacket }
        for (offset, byte) in identifier.enumerated() where base.load(fromByteOffset: mkiStart + offset, as: UInt8.self) != byte {
            throw .unknownMasterKeyIdentifier
        }
        (base + mkiStart).copyMemory(from: base + mkiStart + identifier.count, byteCount: tagLength)
        return length - identifier.count
    }

    /// Refuses a packet once the master key's lifetime is used up.
    private func checkLifetime() throws(SRTPError) {
        if let lifetimePackets, packetsUnderKey >= lifetimePackets { throw .keyLifetimeExpired }
    }

    /// Validates `buffer`/`length` and returns the packet's base address.
    private static func checkedBase(
        _ buffer: UnsafeMutableRawBufferPointer, length: Int, minimumLength: Int, trailer: Int
    ) throws(SRTPError) -> UnsafeMutableRawPointer {
        guard let base = buffer.baseAddress, length >= 0, length <= buffer.count, buffer.count - length >= trailer else {
            throw .bufferTooSmall
        }
        guard length >= minimumLength, length <= Int(Int32.max) - trailer else { throw .malformedPacket }
        return base
    }

    /// SSRC and sequence number from an RTP header (network byte order).
    private static func rtpHeader(_ base: UnsafeMutableRawPointer) -> (ssrc: UInt32, sequenceNumber: UInt16) {
        let sequenceNumber = UInt16(bigEndian: base.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
        let ssrc = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        return (ssrc, sequenceNumber)
    }
}

/// One thread at a time, enforced by the compiler: see the type's "Threads" note.
@available(*, unavailable)
extension SRTPSession: Sendable {}
