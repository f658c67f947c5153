// SPDX-License-Identifier: Apache-2.0
/// # SRTP
///
/// Secure RTP over libsrtp2 (RFC 3711): ``SRTPSession`` protects or unprotects RTP and RTCP
/// packets in place for one direction, with wildcard SSRCs, a replay window and rollover
/// counters that survive re-creating the session (``SRTPStreamState``); ``SRTPProfile`` names
/// the crypto suites and ``SRTPKeyingMaterial`` holds master key and salt. SDES key exchange
/// (RFC 4568): ``SDESCryptoAttribute`` builds and parses `a=crypto` lines. libsrtp's types stay
/// inside (`SRTPContext`); failures are ``SRTPError``.
///
/// A separate module from `RTP`, so code that only parses or builds RTP links no C library.
enum SRTPModule {}
