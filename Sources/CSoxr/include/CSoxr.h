// libsoxr's declarations (<soxr.h>, Debian libsoxr-dev) and the functions cafconv calls, reached
// through dlopen(3): cafconv does not link libsoxr (nor, through it, libgomp), so only a run that
// resamples maps it.
#ifndef CAFCONV_CSOXR_H
#define CAFCONV_CSOXR_H

#include <soxr.h>
#include <stddef.h>

// Loads libsoxr once: NULL when it is usable, else why not (a sentence that lives as long as the
// process).
const char *cafconv_soxr_load(void);

// libsoxr's functions of the same names (without the prefix); call cafconv_soxr_load first.
soxr_t cafconv_soxr_create(double input_rate, double output_rate, unsigned channels, soxr_error_t *error,
                           const soxr_io_spec_t *io, const soxr_quality_spec_t *quality,
                           const soxr_runtime_spec_t *runtime);
soxr_error_t cafconv_soxr_process(soxr_t resampler, soxr_in_t input, size_t input_length, size_t *input_used,
                                  soxr_out_t output, size_t output_length, size_t *output_made);
void cafconv_soxr_delete(soxr_t resampler);
soxr_io_spec_t cafconv_soxr_io_spec(soxr_datatype_t input, soxr_datatype_t output);
soxr_quality_spec_t cafconv_soxr_quality_spec(unsigned long recipe, unsigned long flags);
soxr_runtime_spec_t cafconv_soxr_runtime_spec(unsigned threads);
const char *cafconv_soxr_version(void);

#endif
