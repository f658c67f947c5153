// SPDX-License-Identifier: Apache-2.0
#pragma once
// Benchmark-only: the same libopus / libsrtp calls the Swift API makes, made directly from C
// in plain loops, so each benchmark row prints the Swift/C ratio measured in the same run.
#include <stddef.h>
#include <stdint.h>
#include <opus.h>

/// A VOIP encoder with the benchmark's settings (bitrate, complexity, VBR), or NULL.
OpusEncoder *cbase_opus_encoder_create(int sample_rate, int channels, int bitrate, int complexity);
/// Encodes `frames` consecutive frames of `frame_size` samples from `pcm`; total bytes or <0.
int cbase_opus_encode_frames(OpusEncoder *encoder, const opus_int16 *pcm, int frame_size, int frames,
                             unsigned char *packet, int packet_capacity);
/// Decodes `count` packets laid end to end in `packets` with the given lengths; total samples or <0.
int cbase_opus_decode_packets(OpusDecoder *decoder, const unsigned char *packets, const int32_t *lengths, int count,
                              opus_int16 *pcm, int frame_size);
/// Runs packet loss concealment `count` times; total samples or <0.
int cbase_opus_conceal_frames(OpusDecoder *decoder, int count, opus_int16 *pcm, int frame_size);

/// SRTP profiles in the order of the Swift `SRTPProfile.allCases`.
enum cbase_srtp_profile {
    CBASE_AES_CM_128_HMAC_SHA1_80 = 0,
    CBASE_AES_CM_128_HMAC_SHA1_32 = 1,
    CBASE_AES_256_CM_HMAC_SHA1_80 = 2,
    CBASE_AES_256_CM_HMAC_SHA1_32 = 3,
    CBASE_AEAD_AES_128_GCM = 4,
    CBASE_AEAD_AES_256_GCM = 5,
};

/// An opaque libsrtp session (srtp_t), so Swift code needs no libsrtp types.
typedef struct cbase_srtp cbase_srtp;
/// A session for any outbound (or inbound) SSRC with `key_salt` (master key then salt).
/// libsrtp must already be initialised (srtp_init refuses a second call): create a Swift
/// `SRTPSession` first, whose once-initializer owns that call.
cbase_srtp *cbase_srtp_create(int profile, const uint8_t *key_salt, int outbound);
void cbase_srtp_destroy(cbase_srtp *session);
/// For each of `count` packets: copies the `length`-byte plaintext RTP packet into `work`,
/// stamps sequence number `first_sequence + i`, and protects it in place. 0 or a libsrtp status.
int cbase_srtp_protect_loop(cbase_srtp *session, const uint8_t *plaintext, int length, int count,
                            uint16_t first_sequence, uint8_t *work);
/// For each of `count` protected packets stored `stride` bytes apart with `lengths`: copies
/// it into `work` and unprotects it in place. 0 or a libsrtp status.
int cbase_srtp_unprotect_loop(cbase_srtp *session, const uint8_t *packets, int stride, const int32_t *lengths,
                              int count, uint8_t *work);

/// Bytes the allocator has handed out and not taken back (glibc mallinfo2's uordblks plus
/// hblkhd, the large blocks it maps directly): the heap a set of objects holds is the
/// difference around creating them.
size_t cbase_heap_bytes_in_use(void);

// MARK: - DTLS-SRTP (OpenSSL), the raw calls behind `benchmarks dtls`

/// A P-256 key and a self-signed certificate (SHA-256), as a DTLS-SRTP endpoint makes one.
typedef struct cbase_dtls_identity cbase_dtls_identity;
cbase_dtls_identity *cbase_dtls_identity_create(void);
void cbase_dtls_identity_destroy(cbase_dtls_identity *identity);
/// `count` complete DTLS 1.2 handshakes between `client` and `server` in memory (use_srtp with
/// SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80, both certificates requested and their SHA-256
/// digests taken, 1200-byte MTU, 60 bytes of keying material exported per side). 0 on success.
int cbase_dtls_handshakes(const cbase_dtls_identity *client, const cbase_dtls_identity *server, int count);
