// libmpg123's functions cafconv calls, reached through dlopen(3) (libmpg123.so.0, which libsndfile
// already depends on; its header <mpg123.h> is Debian libmpg123-dev): the first decoder of MP3
// sources. Without the header this builds a stub whose open fails, saying so. No logic here but
// the byte range a decoding reads (the whole file, or a WAV's 'data' chunk).
#ifndef CAFCONV_CMPG123_H
#define CAFCONV_CMPG123_H

#include <stddef.h>
#include <stdint.h>

// One decoding of an MPEG audio stream, to 32-bit floats.
typedef struct cafconv_mpg123 cafconv_mpg123;

// Loads libmpg123 once: NULL when it is usable, else why not (a sentence that lives as long as
// the process).
const char *cafconv_mpg123_load(void);

// Opens the MPEG audio stream in `path` from byte `offset` for `length` bytes (-1: to the end of
// the file), scans it to the end so that its length is exact, and sets the output to floats at the
// stream's own rate and channels; NULL with a sentence in `error` when it cannot. Gapless: the
// encoder delay and padding a LAME/Xing header states are left out (as libsndfile and libavcodec do).
cafconv_mpg123 *cafconv_mpg123_open(const char *path, int64_t offset, int64_t length, char *error, size_t size);
void cafconv_mpg123_close(cafconv_mpg123 *decoder);
int cafconv_mpg123_channels(const cafconv_mpg123 *decoder);
long cafconv_mpg123_rate(const cafconv_mpg123 *decoder);
// The frames the scan found (after the gapless trimming), or -1 when libmpg123 does not know.
int64_t cafconv_mpg123_length(const cafconv_mpg123 *decoder);
// Decodes up to `frames` frames into `samples` (frames * channels floats, interleaved): the frames
// decoded, 0 at the end of the stream, -1 with a sentence in `error`.
int cafconv_mpg123_read(cafconv_mpg123 *decoder, float *samples, int frames, char *error, size_t size);

#endif
