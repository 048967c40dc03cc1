// See include/CXXHash.h.
#include "CXXHash.h"

#include <LazyLibrary.h>

#include <dlfcn.h>
#include <pthread.h>

// The library's own types, as its ABI has them (XXH_errorcode is an int-sized enum, XXH_OK = 0).
typedef struct {
    uint64_t low64;
    uint64_t high64;
} xxh128_hash;

static struct {
    void *(*create_state)(void);
    int (*free_state)(void *);
    int (*reset)(void *);
    int (*update)(void *, const void *, size_t);
    xxh128_hash (*digest)(const void *);
    xxh128_hash (*once)(const void *, size_t);
    unsigned (*version)(void);
} xxh;

static const char *const symbols[] = {
    "XXH3_createState",  "XXH3_freeState", "XXH3_128bits_reset", "XXH3_128bits_update", "XXH3_128bits_digest",
    "XXH3_128bits",      "XXH_versionNumber", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libxxhash.0.dylib", "libxxhash.dylib", NULL};
#else
static const char *const names[] = {"libxxhash.so.0", NULL};
#endif
_Static_assert(sizeof xxh / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &xxh);

// Builds of libxxhash with its x86 dispatcher (Debian's among them) also export `_dispatch`
// variants of the functions, which pick the widest vector unit the processor has (AVX2, AVX-512)
// at their first call; the plain ones use SSE2. Same algorithm, same hashes: taken when present.
static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;

static void find_dispatch(void) {
    for (const char *const *name = names; *name; name++) {
        void *handle = dlopen(*name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
        if (!handle) continue;
        void *update = dlsym(handle, "XXH3_128bits_update_dispatch");
        void *once = dlsym(handle, "XXH3_128bits_dispatch");
        if (update && once) {
            // The dispatcher picks its code at its first call, without a lock of its own: that
            // first call is made here, under pthread_once, before any thread can reach it.
            xxh128_hash (*dispatched)(const void *, size_t) = (xxh128_hash(*)(const void *, size_t))once;
            (void)dispatched("", 0);
            xxh.update = (int (*)(void *, const void *, size_t))update;
            xxh.once = dispatched;
        }
        dlclose(handle);
        return;
    }
}

static int load(void) {
    if (cafconv_lazy_load(&library) != 0) return -1;
    pthread_once(&dispatch_once, find_dispatch);
    return 0;
}

const char *cafconv_xxh_load(void) { return load() == 0 ? NULL : library.error; }

void *cafconv_xxh3_create(void) {
    if (load() != 0) return NULL;
    return xxh.create_state();
}
void cafconv_xxh3_free(void *state) {
    if (state) xxh.free_state(state);
}
int cafconv_xxh3_reset(void *state) { return xxh.reset(state); }
int cafconv_xxh3_update(void *state, const void *bytes, size_t length) { return xxh.update(state, bytes, length); }
cafconv_xxh128 cafconv_xxh3_digest(const void *state) {
    xxh128_hash hash = xxh.digest(state);
    return (cafconv_xxh128){hash.low64, hash.high64};
}
cafconv_xxh128 cafconv_xxh3_128(const void *bytes, size_t length) {
    xxh128_hash hash = xxh.once(bytes, length);
    return (cafconv_xxh128){hash.low64, hash.high64};
}
unsigned cafconv_xxh_version(void) { return load() == 0 ? xxh.version() : 0; }
