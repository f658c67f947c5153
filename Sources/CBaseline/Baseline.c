// SPDX-License-Identifier: Apache-2.0
#include "CBaseline.h"
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <srtp2/srtp.h>
#include <stdlib.h>
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

// MARK: - DTLS-SRTP

struct cbase_dtls_identity {
    EVP_PKEY *key;
    X509 *certificate;
};

cbase_dtls_identity *cbase_dtls_identity_create(void) {
    cbase_dtls_identity *identity = calloc(1, sizeof *identity);
    if (!identity) return NULL;
    identity->key = EVP_EC_gen("P-256");
    identity->certificate = X509_new();
    X509 *x = identity->certificate;
    if (!identity->key || !x) goto fail;
    X509_set_version(x, 2);
    ASN1_INTEGER_set_int64(X509_get_serialNumber(x), 12345);
    X509_gmtime_adj(X509_getm_notBefore(x), -86400);
    X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400);
    X509_set_pubkey(x, identity->key);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"baseline", -1, -1, 0);
    X509_set_issuer_name(x, name);
    if (X509_sign(x, identity->key, EVP_sha256()) <= 0) goto fail;
    return identity;
fail:
    cbase_dtls_identity_destroy(identity);
    return NULL;
}

void cbase_dtls_identity_destroy(cbase_dtls_identity *identity) {
    if (!identity) return;
    X509_free(identity->certificate);
    EVP_PKEY_free(identity->key);
    free(identity);
}

static int cbase_accept_any(int ok, X509_STORE_CTX *store) {
    (void)ok;
    // What a DTLS-SRTP endpoint does instead of a chain check: hash the peer's certificate.
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    X509 *certificate = X509_STORE_CTX_get_current_cert(store);
    return certificate && X509_digest(certificate, EVP_sha256(), digest, &length) == 1;
}

static SSL *cbase_dtls_endpoint(const cbase_dtls_identity *identity, int client) {
    SSL_CTX *context = SSL_CTX_new(DTLS_method());
    if (!context) return NULL;
    SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION);
    SSL_CTX_use_certificate(context, identity->certificate);
    SSL_CTX_use_PrivateKey(context, identity->key);
    SSL_CTX_set_tlsext_use_srtp(context, "SRTP_AEAD_AES_128_GCM:SRTP_AES128_CM_SHA1_80");
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, cbase_accept_any);
    SSL *ssl = SSL_new(context);
    SSL_CTX_free(context);
    if (!ssl) return NULL;
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(in, -1);
    BIO_set_mem_eof_return(out, -1);
    SSL_set_bio(ssl, in, out);
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    SSL_set_mtu(ssl, 1200);
    if (client) SSL_set_connect_state(ssl); else SSL_set_accept_state(ssl);
    return ssl;
}

/// Moves what `from` wrote to what `to` reads; returns the bytes moved.
static int cbase_dtls_carry(SSL *from, SSL *to) {
    char buffer[4096];
    int moved = 0, n;
    while ((n = BIO_read(SSL_get_wbio(from), buffer, sizeof buffer)) > 0) {
        BIO_write(SSL_get_rbio(to), buffer, n);
        moved += n;
    }
    return moved;
}

int cbase_dtls_handshakes(const cbase_dtls_identity *client, const cbase_dtls_identity *server, int count) {
    for (int i = 0; i < count; i++) {
        SSL *c = cbase_dtls_endpoint(client, 1), *s = cbase_dtls_endpoint(server, 0);
        if (!c || !s) return -1;
        int cdone = 0, sdone = 0, turns = 0;
        while (!(cdone && sdone) && turns++ < 50) {
            if (!cdone) cdone = SSL_do_handshake(c) == 1;
            cbase_dtls_carry(c, s);
            if (!sdone) sdone = SSL_do_handshake(s) == 1;
            cbase_dtls_carry(s, c);
        }
        unsigned char keys[60];
        int ok = cdone && sdone && SSL_get_selected_srtp_profile(c) != NULL
            && SSL_export_keying_material(c, keys, sizeof keys, "EXTRACTOR-dtls_srtp", 19, NULL, 0, 0) == 1
            && SSL_export_keying_material(s, keys, sizeof keys, "EXTRACTOR-dtls_srtp", 19, NULL, 0, 0) == 1;
        SSL_free(c);
        SSL_free(s);
        if (!ok) return -2;
    }
    return 0;
}
