// See include/LazyLibrary.h.
#include "LazyLibrary.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

// pthread_once takes no argument: the library being loaded is handed over in a thread-local.
static __thread cafconv_lazy_library *loading;

static void load_once(void) {
    cafconv_lazy_library *library = loading;
    void *handle = NULL;
    const char *reason = "no file name";
    for (const char *const *name = library->names; *name; name++) {
        // RTLD_LOCAL: the library's symbols stay out of the global scope (nothing else binds to
        // them). RTLD_LAZY: its calls into its own dependencies are bound at their first call, as
        // sndfile-convert's are, rather than all at once (libsndfile's seven codec libraries have
        // hundreds that a conversion never makes); the functions cafconv calls are all resolved
        // below, so a library without one of them still fails here.
        handle = dlopen(*name, RTLD_LAZY | RTLD_LOCAL);
        if (handle) break;
        reason = dlerror();
    }
    if (!handle) {
        snprintf(library->error, sizeof library->error, "%s cannot be loaded: %s", library->names[0],
                 reason ? reason : "unknown error");
        library->status = -1;
        return;
    }
    for (size_t index = 0; library->symbols[index]; index++) {
        void *address = dlsym(handle, library->symbols[index]);
        if (!address) {
            snprintf(library->error, sizeof library->error, "%s has no function %s (too old a version?)",
                     library->names[0], library->symbols[index]);
            library->status = -1;
            return;
        }
        library->slots[index] = address;
    }
    library->status = 0;
}

int cafconv_lazy_load(cafconv_lazy_library *library) {
    loading = library;
    pthread_once(&library->once, load_once);
    return library->status;
}

static void *preload_thread(void *argument) {
    cafconv_lazy_load((cafconv_lazy_library *)argument);
    return NULL;
}

static __thread cafconv_lazy_library *preloading;

static void start_preload(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // The dynamic linker needs little stack; 256 KiB is plenty and costs no memory until touched.
    pthread_attr_setstacksize(&attributes, 256 * 1024);
    pthread_t thread;
    pthread_create(&thread, &attributes, preload_thread, preloading);
    pthread_attr_destroy(&attributes);
}

void cafconv_lazy_preload(cafconv_lazy_library *library) {
    preloading = library;
    pthread_once(&library->preload_once, start_preload);
}
