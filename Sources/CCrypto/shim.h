// libcrypto shim. Provider: apt libssl-dev. Only the FlowCrypto module imports this.
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>

static inline const char *ccrypto_version_text(void) { return OPENSSL_VERSION_TEXT; }
#endif
