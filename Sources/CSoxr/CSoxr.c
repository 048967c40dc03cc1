// See include/CSoxr.h.
#include "CSoxr.h"

#include <LazyLibrary.h>

static struct {
    soxr_t (*create)(double, double, unsigned, soxr_error_t *, const soxr_io_spec_t *, const soxr_quality_spec_t *,
                     const soxr_runtime_spec_t *);
    soxr_error_t (*process)(soxr_t, soxr_in_t, size_t, size_t *, soxr_out_t, size_t, size_t *);
    void (*delete_)(soxr_t);
    soxr_io_spec_t (*io_spec)(soxr_datatype_t, soxr_datatype_t);
    soxr_quality_spec_t (*quality_spec)(unsigned long, unsigned long);
    soxr_runtime_spec_t (*runtime_spec)(unsigned);
    const char *(*version)(void);
} soxr;

static const char *const symbols[] = {
    "soxr_create", "soxr_process", "soxr_delete", "soxr_io_spec", "soxr_quality_spec", "soxr_runtime_spec",
    "soxr_version", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libsoxr.0.dylib", "libsoxr.dylib", NULL};
#else
static const char *const names[] = {"libsoxr.so.0", NULL};
#endif
_Static_assert(sizeof soxr / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &soxr);

const char *cafconv_soxr_load(void) { return cafconv_lazy_load(&library) == 0 ? NULL : library.error; }

// Only reached after cafconv_soxr_load succeeded (Resampler's initialiser loads it first).
soxr_t cafconv_soxr_create(double input_rate, double output_rate, unsigned channels, soxr_error_t *error,
                           const soxr_io_spec_t *io, const soxr_quality_spec_t *quality,
                           const soxr_runtime_spec_t *runtime) {
    if (cafconv_lazy_load(&library) != 0) {
        if (error) *error = library.error;
        return NULL;
    }
    return soxr.create(input_rate, output_rate, channels, error, io, quality, runtime);
}
soxr_error_t cafconv_soxr_process(soxr_t resampler, soxr_in_t input, size_t input_length, size_t *input_used,
                                  soxr_out_t output, size_t output_length, size_t *output_made) {
    return soxr.process(resampler, input, input_length, input_used, output, output_length, output_made);
}
void cafconv_soxr_delete(soxr_t resampler) { soxr.delete_(resampler); }
soxr_io_spec_t cafconv_soxr_io_spec(soxr_datatype_t input, soxr_datatype_t output) {
    return soxr.io_spec(input, output);
}
soxr_quality_spec_t cafconv_soxr_quality_spec(unsigned long recipe, unsigned long flags) {
    return soxr.quality_spec(recipe, flags);
}
soxr_runtime_spec_t cafconv_soxr_runtime_spec(unsigned threads) { return soxr.runtime_spec(threads); }
const char *cafconv_soxr_version(void) {
    return cafconv_lazy_load(&library) == 0 ? soxr.version() : "libsoxr (not loaded)";
}
