// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP

/// How `voicecall` names what SRTP refused, so a person can tell a wrong key from a wrong
/// MKI or an expired key: each reason of `SRTPTransportStatistics` that happened, in words.
enum SRTPRefusals {
    /// "N failed SRTP authentication (wrong key or suite?)", followed by every other reason
    /// a datagram was refused, each with its count and what to check (those that did not
    /// happen are left out).
    static func summary(_ srtp: SRTPTransportStatistics) -> String {
        var parts = ["\(srtp.authFailures) failed SRTP authentication (wrong key or suite?)"]
        if srtp.unknownMasterKeyIdentifier > 0 {
            parts.append("\(srtp.unknownMasterKeyIdentifier) carried an unknown master key identifier (MKI: the sender's a=crypto |MKI:LENGTH is not the one we were given)")
        }
        if srtp.keyLifetimeExpired > 0 {
            parts.append("\(srtp.keyLifetimeExpired) came after the sender's key reached its lifetime (a=crypto |2^N|)")
        }
        if srtp.replays > 0 { parts.append("\(srtp.replays) replayed") }
        if srtp.olderThanReplayWindow > 0 { parts.append("\(srtp.olderThanReplayWindow) older than the replay window") }
        if srtp.encryptionFlagMismatches > 0 { parts.append("\(srtp.encryptionFlagMismatches) SRTCP with the wrong encryption flag") }
        if srtp.malformed > 0 { parts.append("\(srtp.malformed) malformed") }
        return parts.joined(separator: ", ")
    }

    /// Why a call ended when a master key ran out: which key (ours or the sender's, its
    /// suite), after how many packets (its lifetime, as SDES writes it), and what became of
    /// the packets after.
    static func keyExpired(_ direction: SRTPDirection, profile: SRTPProfile, transport: CallTransportStatistics) -> String {
        let srtp = transport.srtp
        switch direction {
        case .outbound:
            let used = srtp.packetsProtected + transport.rtcpPacketsSent
            return "our sending SRTP key (\(profile.sdesName)) reached its lifetime after \(used) packets "
                + "(a=crypto |\(SDESKeyLifetime(packetCount: UInt64(used)))|); \(srtp.sendingKeyLifetimeExpired) packet(s) after it not sent. "
                + "voicecall does not re-key: give the key a longer lifetime, or none"
        case .inbound:
            return "the sender's SRTP key (\(profile.sdesName)) reached its lifetime after \(srtp.packetsUnprotected) packets "
                + "(a=crypto |\(SDESKeyLifetime(packetCount: UInt64(srtp.packetsUnprotected)))|); \(srtp.keyLifetimeExpired) packet(s) after it refused. "
                + "voicecall does not re-key: give the key a longer lifetime, or none"
        }
    }
}
