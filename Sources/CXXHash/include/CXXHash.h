// libxxhash's XXH3 128-bit streaming functions (Debian libxxhash0, libxxhash.so.0), reached through
// dlopen(3): cafconv does not link libxxhash, and needs no development package to build. The few
// declarations below are the library's stable ABI since 0.8.0 (XXH128_hash_t is two 64-bit
// words, low then high; the state is opaque and made by the library).
#ifndef CAFCONV_CXXHASH_H
#define CAFCONV_CXXHASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct cafconv_xxh128 {
    uint64_t low64;
    uint64_t high64;
} cafconv_xxh128;

// Loads libxxhash once: NULL when it is usable, else why not (a sentence that lives as long as
// the process).
const char *cafconv_xxh_load(void);

// An opaque XXH3 state (XXH3_createState), or NULL when the library cannot be loaded or memory is short.
void *cafconv_xxh3_create(void);
// XXH3_freeState.
void cafconv_xxh3_free(void *state);
// XXH3_128bits_reset: 0 on success.
int cafconv_xxh3_reset(void *state);
// XXH3_128bits_update: 0 on success.
int cafconv_xxh3_update(void *state, const void *bytes, size_t length);
// XXH3_128bits_digest.
cafconv_xxh128 cafconv_xxh3_digest(const void *state);
// XXH3_128bits over one buffer (cafconv_xxh_load first).
cafconv_xxh128 cafconv_xxh3_128(const void *bytes, size_t length);
// XXH_versionNumber (e.g. 801 for 0.8.1), 0 when not loaded.
unsigned cafconv_xxh_version(void);

#endif
