// See include/CEBUR128.h.
#include "CEBUR128.h"

#include <stdio.h>

#if __has_include(<ebur128.h>) && !defined(CAFCONV_WITHOUT_EBUR128)
#include <LazyLibrary.h>
#include <ebur128.h>

static struct {
    ebur128_state *(*init)(unsigned int, unsigned long, int);
    void (*destroy)(ebur128_state **);
    int (*set_channel)(ebur128_state *, unsigned int, int);
    int (*add_frames_double)(ebur128_state *, const double *, size_t);
    int (*add_frames_int)(ebur128_state *, const int *, size_t);
    int (*loudness_global)(ebur128_state *, double *);
    int (*loudness_global_multiple)(ebur128_state **, size_t, double *);
    int (*loudness_range)(ebur128_state *, double *);
    int (*loudness_momentary)(ebur128_state *, double *);
    int (*loudness_shortterm)(ebur128_state *, double *);
    int (*loudness_window)(ebur128_state *, unsigned long, double *);
    int (*sample_peak)(ebur128_state *, unsigned int, double *);
    int (*true_peak)(ebur128_state *, unsigned int, double *);
    void (*get_version)(int *, int *, int *);
} lib;

static const char *const symbols[] = {
    "ebur128_init", "ebur128_destroy", "ebur128_set_channel", "ebur128_add_frames_double", "ebur128_add_frames_int", "ebur128_loudness_global",
    "ebur128_loudness_global_multiple", "ebur128_loudness_range", "ebur128_loudness_momentary",
    "ebur128_loudness_shortterm", "ebur128_loudness_window", "ebur128_sample_peak", "ebur128_true_peak",
    "ebur128_get_version", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libebur128.1.dylib", "libebur128.dylib", NULL};
#else
static const char *const names[] = {"libebur128.so.1", NULL};
#endif
_Static_assert(sizeof lib / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &lib);

const char *cafconv_ebur128_load(void) { return cafconv_lazy_load(&library) == 0 ? NULL : library.error; }

cafconv_ebur128 *cafconv_ebur128_open(unsigned channels, unsigned long rate, const int *kinds, int extent) {
    if (cafconv_ebur128_load()) return NULL;
    int mode = extent == 3 || extent == 4 ? EBUR128_MODE_I | EBUR128_MODE_SAMPLE_PEAK
               : extent == 2 ? EBUR128_MODE_I
               : extent == 1 ? EBUR128_MODE_I | EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK
                             : EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_S | EBUR128_MODE_SAMPLE_PEAK | EBUR128_MODE_TRUE_PEAK;
    ebur128_state *state = lib.init(channels, rate, mode);
    if (!state) return NULL;
    if (kinds) {
        for (unsigned channel = 0; channel < channels; channel++) {
            if (lib.set_channel(state, channel, kinds[channel]) != EBUR128_SUCCESS) {
                lib.destroy(&state);
                return NULL;
            }
        }
    }
    return (cafconv_ebur128 *)state;
}

void cafconv_ebur128_close(cafconv_ebur128 *meter) {
    if (!meter) return;
    ebur128_state *state = (ebur128_state *)meter;
    lib.destroy(&state);
}

int cafconv_ebur128_add(cafconv_ebur128 *meter, const double *samples, size_t frames) {
    return lib.add_frames_double((ebur128_state *)meter, samples, frames);
}
int cafconv_ebur128_add_int(cafconv_ebur128 *meter, const int *samples, size_t frames) {
    return lib.add_frames_int((ebur128_state *)meter, samples, frames);
}
int cafconv_ebur128_integrated(cafconv_ebur128 *meter, double *out) {
    return lib.loudness_global((ebur128_state *)meter, out);
}
int cafconv_ebur128_integrated_multiple(cafconv_ebur128 **meters, size_t count, double *out) {
    return lib.loudness_global_multiple((ebur128_state **)meters, count, out);
}
int cafconv_ebur128_range(cafconv_ebur128 *meter, double *out) {
    return lib.loudness_range((ebur128_state *)meter, out);
}
int cafconv_ebur128_momentary(cafconv_ebur128 *meter, double *out) {
    return lib.loudness_momentary((ebur128_state *)meter, out);
}
int cafconv_ebur128_shortterm(cafconv_ebur128 *meter, double *out) {
    return lib.loudness_shortterm((ebur128_state *)meter, out);
}
int cafconv_ebur128_window(cafconv_ebur128 *meter, unsigned long milliseconds, double *out) {
    return lib.loudness_window((ebur128_state *)meter, milliseconds, out);
}
int cafconv_ebur128_sample_peak(cafconv_ebur128 *meter, unsigned channel, double *out) {
    return lib.sample_peak((ebur128_state *)meter, channel, out);
}
int cafconv_ebur128_true_peak(cafconv_ebur128 *meter, unsigned channel, double *out) {
    return lib.true_peak((ebur128_state *)meter, channel, out);
}
void cafconv_ebur128_version(int *major, int *minor, int *patch) {
    *major = *minor = *patch = 0;
    if (cafconv_ebur128_load() == NULL) lib.get_version(major, minor, patch);
}

#else
// Built without <ebur128.h> (Debian libebur128-dev): nothing can be measured.
const char *cafconv_ebur128_load(void) { return "cafconv was built without libebur128's header (ebur128.h)"; }
cafconv_ebur128 *cafconv_ebur128_open(unsigned channels, unsigned long rate, const int *kinds, int extent) {
    (void)channels, (void)rate, (void)kinds, (void)extent;
    return NULL;
}
void cafconv_ebur128_close(cafconv_ebur128 *meter) { (void)meter; }
int cafconv_ebur128_add(cafconv_ebur128 *meter, const double *samples, size_t frames) {
    return (void)meter, (void)samples, (void)frames, -1;
}
int cafconv_ebur128_add_int(cafconv_ebur128 *meter, const int *samples, size_t frames) {
    return (void)meter, (void)samples, (void)frames, -1;
}
int cafconv_ebur128_integrated(cafconv_ebur128 *meter, double *out) { return (void)meter, (void)out, -1; }
int cafconv_ebur128_integrated_multiple(cafconv_ebur128 **meters, size_t count, double *out) {
    return (void)meters, (void)count, (void)out, -1;
}
int cafconv_ebur128_range(cafconv_ebur128 *meter, double *out) { return (void)meter, (void)out, -1; }
int cafconv_ebur128_momentary(cafconv_ebur128 *meter, double *out) { return (void)meter, (void)out, -1; }
int cafconv_ebur128_shortterm(cafconv_ebur128 *meter, double *out) { return (void)meter, (void)out, -1; }
int cafconv_ebur128_window(cafconv_ebur128 *meter, unsigned long milliseconds, double *out) {
    return (void)meter, (void)milliseconds, (void)out, -1;
}
int cafconv_ebur128_sample_peak(cafconv_ebur128 *meter, unsigned channel, double *out) {
    return (void)meter, (void)channel, (void)out, -1;
}
int cafconv_ebur128_true_peak(cafconv_ebur128 *meter, unsigned channel, double *out) {
    return (void)meter, (void)channel, (void)out, -1;
}
void cafconv_ebur128_version(int *major, int *minor, int *patch) { *major = *minor = *patch = 0; }
#endif
