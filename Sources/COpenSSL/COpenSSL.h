// SPDX-License-Identifier: Apache-2.0
#pragma once
// OpenSSL 3 (Debian libssl-dev): DTLS for DTLS-SRTP keying (RFC 5763/5764), the certificate and
// its fingerprint.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/srtp.h>
#include <openssl/x509.h>
