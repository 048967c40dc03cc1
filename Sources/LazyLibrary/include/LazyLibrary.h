// A shared library opened with dlopen(3) on first use, and optionally ahead of use on a
// background thread. CSndFile and CSoxr call through it, so that cafconv's start-up does not pay
// for libraries a run may not need (libsndfile pulls seven codec libraries; libsoxr pulls libgomp).
#ifndef CAFCONV_LAZY_LIBRARY_H
#define CAFCONV_LAZY_LIBRARY_H

#include <pthread.h>
#include <stddef.h>

typedef struct cafconv_lazy_library {
    // The file names tried in turn (NULL-terminated), e.g. "libsndfile.so.1".
    const char *const *names;
    // The symbols to resolve (NULL-terminated), in the order of `slots`.
    const char *const *symbols;
    // Where the resolved addresses go, one per symbol.
    void **slots;
    // Set once by cafconv_lazy_load: 0 when every symbol was found, else -1 and `error` says why.
    int status;
    char error[512];
    pthread_once_t once;
    pthread_once_t preload_once;
} cafconv_lazy_library;

#define CAFCONV_LAZY_LIBRARY_INIT(names, symbols, slots) \
    { (names), (symbols), (void **)(slots), -1, {0}, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT }

// Opens the library and resolves its symbols, once (later calls wait for the first and return
// its result). 0 when the library is usable; -1 otherwise, with the reason in `library->error`.
int cafconv_lazy_load(cafconv_lazy_library *library);

// Starts cafconv_lazy_load on a detached thread, once, and returns at once: a run that will need
// the library overlaps the dynamic linker's work with its own. Falls back to nothing when no
// thread can be made (the first use then loads it).
void cafconv_lazy_preload(cafconv_lazy_library *library);

#endif
