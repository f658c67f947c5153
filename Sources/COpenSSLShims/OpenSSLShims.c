// SPDX-License-Identifier: Apache-2.0
#include "OpenSSLShims.h"

int ve_dtls_get_timeout(SSL *ssl, long long *microseconds) {
    struct timeval left = {0, 0};
    int running = (int)DTLSv1_get_timeout(ssl, &left);
    *microseconds = running ? (long long)left.tv_sec * 1000000LL + (long long)left.tv_usec : 0;
    return running;
}

int ve_dtls_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

int ve_bio_set_mem_eof_return(BIO *bio, int value) { return (int)BIO_set_mem_eof_return(bio, value); }

long ve_ssl_set_mtu(SSL *ssl, long mtu) { return SSL_set_mtu(ssl, mtu); }

unsigned long long ve_ssl_set_options(SSL *ssl, unsigned long long options) { return (unsigned long long)SSL_set_options(ssl, options); }

unsigned long long ve_ssl_ctx_set_options(SSL_CTX *context, unsigned long long options) {
    return (unsigned long long)SSL_CTX_set_options(context, options);
}

size_t ve_bio_pending(BIO *bio) { return BIO_ctrl_pending(bio); }

int ve_ssl_ctx_set_min_proto_version(SSL_CTX *context, int version) { return (int)SSL_CTX_set_min_proto_version(context, version); }

EVP_PKEY *ve_evp_ec_generate(const char *curve) { return EVP_EC_gen(curve); }

int ve_ssl_set_app_data(SSL *ssl, void *data) { return SSL_set_app_data(ssl, data); }

void *ve_ssl_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }
