// See include/CMPG123.h.
#include "CMPG123.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<mpg123.h>) && !defined(CAFCONV_WITHOUT_MPG123)
// The unsuffixed functions take the platform's own off_t (cafconv never sets _FILE_OFFSET_BITS).
#define MPG123_NO_LARGENAME
#include <mpg123.h>
#include <LazyLibrary.h>
#include <sys/types.h>

static struct {
    int (*init)(void);
    mpg123_handle *(*new_)(const char *, int *);
    void (*delete_)(mpg123_handle *);
    int (*param)(mpg123_handle *, enum mpg123_parms, long, double);
    int (*format_none)(mpg123_handle *);
    int (*format)(mpg123_handle *, long, int, int);
    void (*rates)(const long **, size_t *);
    int (*replace_reader_handle)(mpg123_handle *, mpg123_ssize_t (*)(void *, void *, size_t),
                                 off_t (*)(void *, off_t, int), void (*)(void *));
    int (*open_handle)(mpg123_handle *, void *);
    int (*close)(mpg123_handle *);
    int (*scan)(mpg123_handle *);
    off_t (*length)(mpg123_handle *);
    int (*getformat)(mpg123_handle *, long *, int *, int *);
    int (*read)(mpg123_handle *, void *, size_t, size_t *);
    const char *(*strerror)(mpg123_handle *);
    const char *(*plain_strerror)(int);
} mpg;

static const char *const symbols[] = {
    "mpg123_init", "mpg123_new", "mpg123_delete", "mpg123_param", "mpg123_format_none", "mpg123_format",
    "mpg123_rates", "mpg123_replace_reader_handle", "mpg123_open_handle", "mpg123_close", "mpg123_scan",
    "mpg123_length", "mpg123_getformat", "mpg123_read", "mpg123_strerror", "mpg123_plain_strerror", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libmpg123.0.dylib", "libmpg123.dylib", NULL};
#else
static const char *const names[] = {"libmpg123.so.0", NULL};
#endif
_Static_assert(sizeof mpg / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &mpg);

static int init_status = -1;
static pthread_once_t init_once_control = PTHREAD_ONCE_INIT;
// mpg123_init is needed before 1.27 only; harmless after.
static void init_once(void) { init_status = mpg.init(); }

const char *cafconv_mpg123_load(void) {
    if (cafconv_lazy_load(&library) != 0) return library.error;
    pthread_once(&init_once_control, init_once);
    return init_status == MPG123_OK ? NULL : "libmpg123 cannot be initialised";
}

// The bytes libmpg123 reads: [start, start + length) of an open file, read at offsets.
struct cafconv_mpg123 {
    mpg123_handle *handle;
    int fd;
    off_t start;
    off_t length;
    off_t position;
    long rate;
    int channels;
    int64_t frames;
};

static mpg123_ssize_t range_read(void *opaque, void *buffer, size_t count) {
    cafconv_mpg123 *decoder = opaque;
    off_t left = decoder->length - decoder->position;
    if (left <= 0) return 0;
    if ((off_t)count > left) count = (size_t)left;
    for (;;) {
        ssize_t got = pread(decoder->fd, buffer, count, decoder->start + decoder->position);
        if (got < 0 && errno == EINTR) continue;
        if (got > 0) decoder->position += got;
        return got;
    }
}

static off_t range_seek(void *opaque, off_t offset, int whence) {
    cafconv_mpg123 *decoder = opaque;
    off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? decoder->position : whence == SEEK_END ? decoder->length : -1;
    if (base < 0 || offset < -base || offset > decoder->length - base) {
        errno = EINVAL;
        return -1;
    }
    decoder->position = base + offset;
    return decoder->position;
}

static cafconv_mpg123 *fail(cafconv_mpg123 *decoder, char *error, size_t size, const char *what) {
    const char *reason = decoder && decoder->handle ? mpg.strerror(decoder->handle) : "";
    snprintf(error, size, "%s%s%s", what, *reason ? ": " : "", reason);
    cafconv_mpg123_close(decoder);
    return NULL;
}

cafconv_mpg123 *cafconv_mpg123_open(const char *path, int64_t offset, int64_t length, char *error, size_t size) {
    const char *missing = cafconv_mpg123_load();
    if (missing) {
        snprintf(error, size, "%s", missing);
        return NULL;
    }
    cafconv_mpg123 *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        snprintf(error, size, "out of memory");
        return NULL;
    }
    decoder->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (decoder->fd < 0) {
        snprintf(error, size, "cannot open it: %s", strerror(errno));
        free(decoder);
        return NULL;
    }
    off_t end = lseek(decoder->fd, 0, SEEK_END);
    if (end < 0 || offset < 0 || offset > end) return fail(decoder, error, size, "the MPEG stream lies outside the file");
    decoder->start = (off_t)offset;
    decoder->length = length < 0 || length > end - offset ? end - offset : (off_t)length;
    int status = MPG123_OK;
    decoder->handle = mpg.new_(NULL, &status);
    if (!decoder->handle) {
        snprintf(error, size, "libmpg123 cannot make a decoder: %s", mpg.plain_strerror(status));
        cafconv_mpg123_close(decoder);
        return NULL;
    }
    // As libsndfile sets it up: floats, gapless, the stream's own rate (no resampling); quiet.
    mpg.param(decoder->handle, MPG123_REMOVE_FLAGS, MPG123_AUTO_RESAMPLE, 0);
    mpg.param(decoder->handle, MPG123_ADD_FLAGS, MPG123_FORCE_FLOAT | MPG123_GAPLESS | MPG123_QUIET, 0);
    mpg.format_none(decoder->handle);
    const long *rates = NULL;
    size_t count = 0;
    mpg.rates(&rates, &count);
    for (size_t index = 0; index < count; index++)
        mpg.format(decoder->handle, rates[index], MPG123_MONO | MPG123_STEREO, MPG123_ENC_FLOAT_32);
    if (mpg.replace_reader_handle(decoder->handle, range_read, range_seek, NULL) != MPG123_OK ||
        mpg.open_handle(decoder->handle, decoder) != MPG123_OK)
        return fail(decoder, error, size, "libmpg123 cannot open it");
    if (mpg.scan(decoder->handle) != MPG123_OK) return fail(decoder, error, size, "libmpg123 cannot scan it");
    int encoding = 0;
    if (mpg.getformat(decoder->handle, &decoder->rate, &decoder->channels, &encoding) != MPG123_OK)
        return fail(decoder, error, size, "libmpg123 finds no MPEG audio in it");
    if (encoding != MPG123_ENC_FLOAT_32 || decoder->rate <= 0 || decoder->channels <= 0)
        return fail(decoder, error, size, "libmpg123 cannot decode it to 32-bit floats");
    off_t frames = mpg.length(decoder->handle);
    decoder->frames = frames >= 0 ? (int64_t)frames : -1;
    return decoder;
}

void cafconv_mpg123_close(cafconv_mpg123 *decoder) {
    if (!decoder) return;
    if (decoder->handle) {
        mpg.close(decoder->handle);
        mpg.delete_(decoder->handle);
    }
    if (decoder->fd >= 0) close(decoder->fd);
    free(decoder);
}

int cafconv_mpg123_channels(const cafconv_mpg123 *decoder) { return decoder->channels; }
long cafconv_mpg123_rate(const cafconv_mpg123 *decoder) { return decoder->rate; }
int64_t cafconv_mpg123_length(const cafconv_mpg123 *decoder) { return decoder->frames; }

int cafconv_mpg123_read(cafconv_mpg123 *decoder, float *samples, int frames, char *error, size_t size) {
    if (frames <= 0) return 0;
    size_t frame_bytes = sizeof(float) * (size_t)decoder->channels;
    size_t wanted = (size_t)frames * frame_bytes;
    size_t filled = 0;
    while (filled < wanted) {
        size_t done = 0;
        int status = mpg.read(decoder->handle, (unsigned char *)samples + filled, wanted - filled, &done);
        filled += done;
        if (status == MPG123_DONE) break;
        if (status == MPG123_NEW_FORMAT) {
            long rate = 0;
            int channels = 0, encoding = 0;
            mpg.getformat(decoder->handle, &rate, &channels, &encoding);
            if (rate != decoder->rate || channels != decoder->channels || encoding != MPG123_ENC_FLOAT_32) {
                snprintf(error, size, "the MPEG stream changes from %ld Hz, %d channels to %ld Hz, %d channels", decoder->rate,
                         decoder->channels, rate, channels);
                return -1;
            }
            continue;
        }
        if (status != MPG123_OK) {
            snprintf(error, size, "libmpg123 cannot decode it: %s", mpg.strerror(decoder->handle));
            return -1;
        }
        if (done == 0) break;
    }
    if (filled % frame_bytes != 0) {
        snprintf(error, size, "libmpg123 gave a partial frame");
        return -1;
    }
    return (int)(filled / frame_bytes);
}

#else
// Built without <mpg123.h> (Debian libmpg123-dev): MP3 sources cannot be decoded.
struct cafconv_mpg123 {
    int unused;
};
const char *cafconv_mpg123_load(void) { return "cafconv was built without libmpg123's header (mpg123.h)"; }
cafconv_mpg123 *cafconv_mpg123_open(const char *path, int64_t offset, int64_t length, char *error, size_t size) {
    (void)path, (void)offset, (void)length;
    snprintf(error, size, "%s", cafconv_mpg123_load());
    return NULL;
}
void cafconv_mpg123_close(cafconv_mpg123 *decoder) { (void)decoder; }
int cafconv_mpg123_channels(const cafconv_mpg123 *decoder) { return (void)decoder, 0; }
long cafconv_mpg123_rate(const cafconv_mpg123 *decoder) { return (void)decoder, 0; }
int64_t cafconv_mpg123_length(const cafconv_mpg123 *decoder) { return (void)decoder, -1; }
int cafconv_mpg123_read(cafconv_mpg123 *decoder, float *samples, int frames, char *error, size_t size) {
    (void)decoder, (void)samples, (void)frames;
    snprintf(error, size, "%s", cafconv_mpg123_load());
    return -1;
}
#endif
