// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpenSSL calls Swift cannot make: the macros over SSL_ctrl/BIO_ctrl. One function per macro;
// nothing else belongs here.
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <openssl/evp.h>
#include <openssl/ec.h>

/// DTLSv1_get_timeout: 1 and the time left until the handshake's retransmission timer fires in
/// `*microseconds`, or 0 when no timer runs.
int ve_dtls_get_timeout(SSL *ssl, long long *microseconds);
/// DTLSv1_handle_timeout: 1 when the timer had fired and the flight was sent again, 0 when not
/// due, -1 on error.
int ve_dtls_handle_timeout(SSL *ssl);
/// BIO_set_mem_eof_return: what a read from an empty memory BIO returns (-1: "retry").
int ve_bio_set_mem_eof_return(BIO *bio, int value);
/// SSL_set_mtu (DTLS_set_link_mtu's older spelling through SSL_ctrl): the datagram size the
/// handshake's records and fragments must fit.
long ve_ssl_set_mtu(SSL *ssl, long mtu);
/// SSL_set_options.
unsigned long long ve_ssl_set_options(SSL *ssl, unsigned long long options);
/// SSL_CTX_set_options.
unsigned long long ve_ssl_ctx_set_options(SSL_CTX *context, unsigned long long options);
/// BIO_pending / BIO_ctrl_pending: bytes waiting to be read from the BIO.
size_t ve_bio_pending(BIO *bio);
/// SSL_CTX_set_min_proto_version.
int ve_ssl_ctx_set_min_proto_version(SSL_CTX *context, int version);
/// EVP_EC_gen (variadic underneath): a fresh key on the named curve ("P-256"), or NULL.
EVP_PKEY *ve_evp_ec_generate(const char *curve);
/// SSL_set_app_data / SSL_get_app_data (ex_data index 0).
int ve_ssl_set_app_data(SSL *ssl, void *data);
void *ve_ssl_get_app_data(const SSL *ssl);
