// SPDX-License-Identifier: Apache-2.0
#include "CBaseline.h"
#include <srtp2/srtp.h>
#include <string.h>

OpusEncoder *cbase_opus_encoder_create(int sample_rate, int channels, int bitrate, int complexity) {
    int error = 0;
    OpusEncoder *encoder = opus_encoder_create(sample_rate, channels, OPUS_APPLICATION_VOIP, &error);
    if (error != OPUS_OK) return NULL;
    opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
    opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
    opus_encoder_ctl(encoder, OPUS_SET_VBR(1));
    return encoder;
}

int cbase_opus_encode_frames(OpusEncoder *encoder, const opus_int16 *pcm, int frame_size, int frames,
                             unsigned char *packet, int packet_capacity) {
    int total = 0;
    for (int i = 0; i < frames; i++) {
        int bytes = opus_encode(encoder, pcm + (long)i * frame_size, frame_size, packet, packet_capacity);
        if (bytes < 0) return bytes;
        total += bytes;
    }
    return total;
}

int cbase_opus_decode_packets(OpusDecoder *decoder, const unsigned char *packets, const int32_t *lengths, int count,
                              opus_int16 *pcm, int frame_size) {
    int total = 0;
    for (int i = 0; i < count; i++) {
        int samples = opus_decode(decoder, packets, lengths[i], pcm, frame_size, 0);
        if (samples < 0) return samples;
        total += samples;
        packets += lengths[i];
    }
    return total;
}

int cbase_opus_conceal_frames(OpusDecoder *decoder, int count, opus_int16 *pcm, int frame_size) {
    int total = 0;
    for (int i = 0; i < count; i++) {
        int samples = opus_decode(decoder, NULL, 0, pcm, frame_size, 0);
        if (samples < 0) return samples;
        total += samples;
    }
    return total;
}

static void set_profile(srtp_crypto_policy_t *policy, int profile) {
    switch (profile) {
    case CBASE_AES_CM_128_HMAC_SHA1_32: srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(policy); break;
    case CBASE_AES_256_CM_HMAC_SHA1_80: srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(policy); break;
    case CBASE_AES_256_CM_HMAC_SHA1_32: srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(policy); break;
    case CBASE_AEAD_AES_128_GCM: srtp_crypto_policy_set_aes_gcm_128_16_auth(policy); break;
    case CBASE_AEAD_AES_256_GCM: srtp_crypto_policy_set_aes_gcm_256_16_auth(policy); break;
    default: srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(policy); break;
    }
}

cbase_srtp *cbase_srtp_create(int profile, const uint8_t *key_salt, int outbound) {
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    set_profile(&policy.rtp, profile);
    set_profile(&policy.rtcp, profile);
    policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = (unsigned char *)key_salt;
    policy.window_size = 1024;
    policy.allow_repeat_tx = 0;
    srtp_t session = NULL;
    if (srtp_create(&session, &policy) != srtp_err_status_ok) return NULL;
    return (cbase_srtp *)session;
}

void cbase_srtp_destroy(cbase_srtp *session) {
    if (session) srtp_dealloc((srtp_t)session);
}

int cbase_srtp_protect_loop(cbase_srtp *session, const uint8_t *plaintext, int length, int count,
                            uint16_t first_sequence, uint8_t *work) {
    for (int i = 0; i < count; i++) {
        memcpy(work, plaintext, (size_t)length);
        uint16_t sequence = (uint16_t)(first_sequence + i);
        work[2] = (uint8_t)(sequence >> 8);
        work[3] = (uint8_t)sequence;
        int out = length;
        srtp_err_status_t status = srtp_protect((srtp_t)session, work, &out);
        if (status != srtp_err_status_ok) return (int)status;
    }
    return 0;
}

int cbase_srtp_unprotect_loop(cbase_srtp *session, const uint8_t *packets, int stride, const int32_t *lengths,
                              int count, uint8_t *work) {
    for (int i = 0; i < count; i++) {
        memcpy(work, packets + (long)i * stride, (size_t)lengths[i]);
        int out = lengths[i];
        srtp_err_status_t status = srtp_unprotect((srtp_t)session, work, &out);
        if (status != srtp_err_status_ok) return (int)status;
    }
    return 0;
}

#include <malloc.h>

size_t cbase_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
