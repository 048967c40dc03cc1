// libsndfile's declarations (<sndfile.h>, Debian libsndfile1-dev) and the functions cafconv calls,
// reached through dlopen(3): cafconv does not link libsndfile, so `info`, `verify` of files CAFKit
// decodes and `--version` never map it and its seven codec libraries, and `convert` loads it on a
// thread of its own while it parses and plans (cafconv_sndfile_preload).
#ifndef CAFCONV_CSNDFILE_H
#define CAFCONV_CSNDFILE_H

#include <sndfile.h>
#include <stddef.h>

// Loads libsndfile once: NULL when it is usable, else why not (a sentence that lives as long as
// the process).
const char *cafconv_sndfile_load(void);
// Starts loading libsndfile on a background thread (a conversion is coming).
void cafconv_sndfile_preload(void);

// libsndfile's functions of the same names (without the prefix). The opening and static ones
// load the library first and fail as libsndfile would (NULL, an error number) when it cannot be
// loaded; the others take a handle that only a successful open makes.
SNDFILE *cafconv_sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc);
int cafconv_sf_close(SNDFILE *file);
int cafconv_sf_command(SNDFILE *file, int command, void *data, int size);
int cafconv_sf_error(SNDFILE *file);
const char *cafconv_sf_strerror(SNDFILE *file);
const char *cafconv_sf_error_number(int number);
int cafconv_sf_format_check(const SF_INFO *info);
const char *cafconv_sf_version_string(void);
sf_count_t cafconv_sf_seek(SNDFILE *file, sf_count_t frames, int whence);
sf_count_t cafconv_sf_readf_int(SNDFILE *file, int *frames, sf_count_t count);
sf_count_t cafconv_sf_readf_double(SNDFILE *file, double *frames, sf_count_t count);
sf_count_t cafconv_sf_writef_int(SNDFILE *file, const int *frames, sf_count_t count);
sf_count_t cafconv_sf_writef_double(SNDFILE *file, const double *frames, sf_count_t count);
sf_count_t cafconv_sf_write_raw(SNDFILE *file, const void *bytes, sf_count_t count);

#endif
