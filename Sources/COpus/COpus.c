// See include/COpus.h.
#include "COpus.h"

#if __has_include(<opus/opus.h>) && !defined(CAFCONV_WITHOUT_OPUS)
#include <opus/opus.h>
#include <LazyLibrary.h>

static struct {
    const char *(*get_version_string)(void);
    const char *(*strerror)(int);
    OpusEncoder *(*encoder_create)(opus_int32, int, int, int *);
    void (*encoder_destroy)(OpusEncoder *);
    int (*encoder_ctl)(OpusEncoder *, int, ...);
    opus_int32 (*encode_float)(OpusEncoder *, const float *, int, unsigned char *, opus_int32);
    OpusDecoder *(*decoder_create)(opus_int32, int, int *);
    void (*decoder_destroy)(OpusDecoder *);
    int (*decode_float)(OpusDecoder *, const unsigned char *, opus_int32, float *, int, int);
    int (*packet_get_nb_samples)(const unsigned char *, opus_int32, opus_int32);
} opus;

static const char *const symbols[] = {
    "opus_get_version_string", "opus_strerror", "opus_encoder_create", "opus_encoder_destroy", "opus_encoder_ctl",
    "opus_encode_float", "opus_decoder_create", "opus_decoder_destroy", "opus_decode_float",
    "opus_packet_get_nb_samples", NULL,
};
#ifdef __APPLE__
static const char *const names[] = {"libopus.0.dylib", "libopus.dylib", NULL};
#else
static const char *const names[] = {"libopus.so.0", NULL};
#endif
_Static_assert(sizeof opus / sizeof(void *) == sizeof symbols / sizeof symbols[0] - 1, "one slot per symbol");

static cafconv_lazy_library library = CAFCONV_LAZY_LIBRARY_INIT(names, symbols, &opus);

const char *cafconv_opus_load(void) { return cafconv_lazy_load(&library) == 0 ? NULL : library.error; }
const char *cafconv_opus_version(void) { return opus.get_version_string(); }
const char *cafconv_opus_strerror(int code) { return opus.strerror(code); }

cafconv_opus_encoder *cafconv_opus_encoder_create(int rate, int channels, int application, int bitrate, int vbr,
                                                  int constrained, int *error) {
    OpusEncoder *encoder = opus.encoder_create(rate, channels, application, error);
    if (!encoder) return NULL;
    int status = opus.encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate));
    if (status == OPUS_OK) status = opus.encoder_ctl(encoder, OPUS_SET_VBR(vbr));
    if (status == OPUS_OK && vbr) status = opus.encoder_ctl(encoder, OPUS_SET_VBR_CONSTRAINT(constrained));
    if (status != OPUS_OK) {
        *error = status;
        opus.encoder_destroy(encoder);
        return NULL;
    }
    return (cafconv_opus_encoder *)encoder;
}

void cafconv_opus_encoder_destroy(cafconv_opus_encoder *encoder) {
    if (encoder) opus.encoder_destroy((OpusEncoder *)encoder);
}

int cafconv_opus_encoder_lookahead(cafconv_opus_encoder *encoder) {
    opus_int32 lookahead = 0;
    int status = opus.encoder_ctl((OpusEncoder *)encoder, OPUS_GET_LOOKAHEAD(&lookahead));
    return status == OPUS_OK ? (int)lookahead : status;
}

int cafconv_opus_encode_float(cafconv_opus_encoder *encoder, const float *pcm, int frames, unsigned char *packet,
                              int capacity) {
    return (int)opus.encode_float((OpusEncoder *)encoder, pcm, frames, packet, capacity);
}

cafconv_opus_decoder *cafconv_opus_decoder_create(int rate, int channels, int *error) {
    return (cafconv_opus_decoder *)opus.decoder_create(rate, channels, error);
}

void cafconv_opus_decoder_destroy(cafconv_opus_decoder *decoder) {
    if (decoder) opus.decoder_destroy((OpusDecoder *)decoder);
}

int cafconv_opus_decode_float(cafconv_opus_decoder *decoder, const unsigned char *packet, int bytes, float *pcm,
                              int frames) {
    return opus.decode_float((OpusDecoder *)decoder, packet, bytes, pcm, frames, 0);
}

int cafconv_opus_packet_frames(const unsigned char *packet, int bytes, int rate) {
    return opus.packet_get_nb_samples(packet, bytes, rate);
}

#else
// Built without <opus/opus.h>: every load fails, saying so (nothing else is called before a load).
const char *cafconv_opus_load(void) {
    return "cafconv was built without libopus's header (install libopus-dev and build again)";
}
const char *cafconv_opus_version(void) { return "none"; }
const char *cafconv_opus_strerror(int code) { (void)code; return "libopus is not available"; }
cafconv_opus_encoder *cafconv_opus_encoder_create(int rate, int channels, int application, int bitrate, int vbr,
                                                  int constrained, int *error) {
    (void)rate; (void)channels; (void)application; (void)bitrate; (void)vbr; (void)constrained;
    *error = -1;
    return NULL;
}
void cafconv_opus_encoder_destroy(cafconv_opus_encoder *encoder) { (void)encoder; }
int cafconv_opus_encoder_lookahead(cafconv_opus_encoder *encoder) { (void)encoder; return -1; }
int cafconv_opus_encode_float(cafconv_opus_encoder *encoder, const float *pcm, int frames, unsigned char *packet,
                              int capacity) {
    (void)encoder; (void)pcm; (void)frames; (void)packet; (void)capacity;
    return -1;
}
cafconv_opus_decoder *cafconv_opus_decoder_create(int rate, int channels, int *error) {
    (void)rate; (void)channels;
    *error = -1;
    return NULL;
}
void cafconv_opus_decoder_destroy(cafconv_opus_decoder *decoder) { (void)decoder; }
int cafconv_opus_decode_float(cafconv_opus_decoder *decoder, const unsigned char *packet, int bytes, float *pcm,
                              int frames) {
    (void)decoder; (void)packet; (void)bytes; (void)pcm; (void)frames;
    return -1;
}
int cafconv_opus_packet_frames(const unsigned char *packet, int bytes, int rate) {
    (void)packet; (void)bytes; (void)rate;
    return -1;
}
#endif
