// libebur128's functions cafconv calls (<ebur128.h>, Debian libebur128-dev), reached through
// dlopen(3) (libebur128.so.1) at the first measurement, never linked: the EBU R 128 / ITU-R
// BS.1770 meter of `info --loudness`. Without the header this builds a stub whose load fails,
// saying so. No logic here.
#ifndef CAFCONV_CEBUR128_H
#define CAFCONV_CEBUR128_H

#include <stddef.h>

// One meter's state (libebur128's ebur128_state).
typedef struct cafconv_ebur128 cafconv_ebur128;

// Loads libebur128 once: NULL when it is usable, else why not (a sentence that lives as long as
// the process).
const char *cafconv_ebur128_load(void);

// A meter of `channels` channels at `rate` Hz measuring what `extent` says (below); NULL when libebur128 cannot
// be loaded or refuses the parameters. `kinds` (one per channel, or NULL for libebur128's
// default L R C Ls Rs) are libebur128's channel kinds: 0 unused (LFE), 1 left, 2 right, 3
// centre, 4 left surround, 5 right surround, 6 dual mono.
// `extent`: 0 everything (I, LRA, S, sample and true peak); 1 the integrated loudness with the
// sample and true peaks; 2 the integrated loudness alone; 3 the integrated loudness with the
// sample peak (no true-peak oversampling); 4 as 3 (cafconv reads the gating blocks itself).
cafconv_ebur128 *cafconv_ebur128_open(unsigned channels, unsigned long rate, const int *kinds, int extent);
void cafconv_ebur128_close(cafconv_ebur128 *meter);
// Adds `frames` interleaved frames; 0 on success.
int cafconv_ebur128_add(cafconv_ebur128 *meter, const double *samples, size_t frames);
// Adds `frames` interleaved frames of 32-bit integers (full scale 2^31: libebur128 divides by
// it exactly, so left-justified samples read as the doubles `x / 2^31`); 0 on success.
int cafconv_ebur128_add_int(cafconv_ebur128 *meter, const int *samples, size_t frames);
// Each reading: 0 on success, the value in `out` (LUFS, LU, or a linear peak).
int cafconv_ebur128_integrated(cafconv_ebur128 *meter, double *out);
// The gated integrated loudness of several meters taken together (album gain).
int cafconv_ebur128_integrated_multiple(cafconv_ebur128 **meters, size_t count, double *out);
int cafconv_ebur128_range(cafconv_ebur128 *meter, double *out);
int cafconv_ebur128_momentary(cafconv_ebur128 *meter, double *out);
int cafconv_ebur128_shortterm(cafconv_ebur128 *meter, double *out);
// The loudness of the last `milliseconds` (at most 3000), ungated.
int cafconv_ebur128_window(cafconv_ebur128 *meter, unsigned long milliseconds, double *out);
int cafconv_ebur128_sample_peak(cafconv_ebur128 *meter, unsigned channel, double *out);
int cafconv_ebur128_true_peak(cafconv_ebur128 *meter, unsigned channel, double *out);
// libebur128's version (0.0.0 when it cannot be loaded).
void cafconv_ebur128_version(int *major, int *minor, int *patch);

#endif
