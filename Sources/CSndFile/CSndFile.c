// See include/CSndFile.h.
#include "CSndFile.h"

#include <LazyLibrary.h>

static struct {
    SNDFILE *(*open_fd)(int, int, SF_INFO *, int);
    int (*close)(SNDFILE *);
    int (*command)(SNDFILE *, int, void *, int);
    int (*error)(SNDFILE *);
    const char *(*strerror)(SNDFILE *);
    const char *(*error_number)(int);
    int (*format_check)(const SF_INFO *);
    const char *(*version_string)(void);
    sf_count_t (*seek)(SNDFILE *, sf_count_t, int);
    sf_count_t (*readf_int)(SNDFILE *, int *, sf_count_t);
    sf_count_t (*readf_double)(SNDFILE *, double *, sf_count_t);
    sf_count_t (*writef_int)(SNDFILE *, const int *, sf_count_t);
    sf_count_t (*writef_double)(SNDFILE *, const double *, sf_count_t);
    sf_count_t (*write_raw)(SNDFILE *, const void *, sf_count_t);
} sf;

static const char *const symbols[] = {
    "sf_open_fd", "sf_close", "sf_command", "sf_error", "sf_strerror", "sf_error_number", "sf_format_check",
    "sf_version_string", "sf_seek", "sf_readf_int", "sf_readf_double", "sf_writef_int", "sf_writef_double",
    "sf_write_raw", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libsndfile.1.dylib", "libsndfile.dylib", NULL};
#else
static const char *const names[] = {"libsndfile.so.1", NULL};
#endif
_Static_assert(sizeof sf / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &sf);

static int ready(void) { return cafconv_lazy_load(&library) == 0; }

const char *cafconv_sndfile_load(void) { return ready() ? NULL : library.error; }

void cafconv_sndfile_preload(void) { cafconv_lazy_preload(&library); }

SNDFILE *cafconv_sf_open_fd(int fd, int mode, SF_INFO *info, int close_desc) {
    return ready() ? sf.open_fd(fd, mode, info, close_desc) : NULL;
}
int cafconv_sf_close(SNDFILE *file) { return ready() ? sf.close(file) : SF_ERR_UNRECOGNISED_FORMAT; }
int cafconv_sf_command(SNDFILE *file, int command, void *data, int size) {
    return ready() ? sf.command(file, command, data, size) : 0;
}
// With no library, no handle exists: the failure to report is the loading's (see cafconv_sndfile_load).
int cafconv_sf_error(SNDFILE *file) { return ready() ? sf.error(file) : SF_ERR_SYSTEM; }
const char *cafconv_sf_strerror(SNDFILE *file) { return ready() ? sf.strerror(file) : library.error; }
const char *cafconv_sf_error_number(int number) { return ready() ? sf.error_number(number) : library.error; }
int cafconv_sf_format_check(const SF_INFO *info) { return ready() ? sf.format_check(info) : 0; }
const char *cafconv_sf_version_string(void) { return ready() ? sf.version_string() : "libsndfile (not loaded)"; }
sf_count_t cafconv_sf_seek(SNDFILE *file, sf_count_t frames, int whence) {
    return ready() ? sf.seek(file, frames, whence) : -1;
}
sf_count_t cafconv_sf_readf_int(SNDFILE *file, int *frames, sf_count_t count) {
    return ready() ? sf.readf_int(file, frames, count) : 0;
}
sf_count_t cafconv_sf_readf_double(SNDFILE *file, double *frames, sf_count_t count) {
    return ready() ? sf.readf_double(file, frames, count) : 0;
}
sf_count_t cafconv_sf_writef_int(SNDFILE *file, const int *frames, sf_count_t count) {
    return ready() ? sf.writef_int(file, frames, count) : 0;
}
sf_count_t cafconv_sf_writef_double(SNDFILE *file, const double *frames, sf_count_t count) {
    return ready() ? sf.writef_double(file, frames, count) : 0;
}
sf_count_t cafconv_sf_write_raw(SNDFILE *file, const void *bytes, sf_count_t count) {
    return ready() ? sf.write_raw(file, bytes, count) : 0;
}
