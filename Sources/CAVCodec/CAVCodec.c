// libavcodec's AAC encoder and decoder behind dlopen(3); see include/CAVCodec.h.
#include "CAVCodec.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<libavcodec/avcodec.h>) && !defined(CAFCONV_WITHOUT_AVCODEC)
#define CAFCONV_HAVE_AVCODEC 1
// Declarations and structure layouts only: nothing here links libavcodec.
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/mem.h>
#include <libavutil/samplefmt.h>
#if __has_include(<libavformat/avformat.h>)
#define CAFCONV_HAVE_AVFORMAT 1
#include <libavformat/avformat.h>
#endif
#endif

#define CAFCONV_STRINGIFY2(x) #x
#define CAFCONV_STRINGIFY(x) CAFCONV_STRINGIFY2(x)

static void say(char *error, size_t size, const char *text) {
    if (error && size) snprintf(error, size, "%s", text);
}

#if CAFCONV_HAVE_AVCODEC

// The file names can be overridden at build time (-DAVCODEC_NAME=...) to check the messages.
#ifndef AVCODEC_NAME
#define AVCODEC_NAME "libavcodec.so." CAFCONV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR)
#endif
#define AVUTIL_NAME "libavutil.so." CAFCONV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR)
#define AVCODEC_PACKAGE "libavcodec" CAFCONV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR)

// Every function cafconv calls, resolved with dlsym.
static struct {
    unsigned (*avcodec_version)(void);
    unsigned (*avutil_version)(void);
    const AVCodec *(*find_encoder_by_name)(const char *);
    const AVCodec *(*find_decoder)(enum AVCodecID);
    AVCodecContext *(*alloc_context3)(const AVCodec *);
    void (*free_context)(AVCodecContext **);
    int (*open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*send_frame)(AVCodecContext *, const AVFrame *);
    int (*receive_packet)(AVCodecContext *, AVPacket *);
    int (*send_packet)(AVCodecContext *, const AVPacket *);
    int (*receive_frame)(AVCodecContext *, AVFrame *);
    AVPacket *(*packet_alloc)(void);
    void (*packet_free)(AVPacket **);
    void (*packet_unref)(AVPacket *);
    AVFrame *(*frame_alloc)(void);
    void (*frame_free)(AVFrame **);
    int (*frame_get_buffer)(AVFrame *, int);
    int (*frame_make_writable)(AVFrame *);
    void (*channel_layout_default)(AVChannelLayout *, int);
    int (*strerror)(int, char *, size_t);
    void *(*mallocz)(size_t);
    void (*log_set_level)(int);
} av;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];
static char version_text[32];

static void *need(void *library, const char *name, const char *file) {
    void *symbol = dlsym(library, name);
    if (!symbol && load_error[0] == 0)
        snprintf(load_error, sizeof load_error, "%s has no symbol %s: it is not the libavcodec cafconv was built for", file, name);
    return symbol;
}

static void load(void) {
    void *util = dlopen(AVUTIL_NAME, RTLD_NOW | RTLD_LOCAL);
    void *codec = util ? dlopen(AVCODEC_NAME, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!util || !codec) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error,
                 "AAC needs libavcodec %d (%s), which cannot be loaded (%s); install the Debian package %s (apt-get install %s)",
                 LIBAVCODEC_VERSION_MAJOR, AVCODEC_NAME, why ? why : "not found", AVCODEC_PACKAGE, AVCODEC_PACKAGE);
        return;
    }
#define RESOLVE(field, library, name, file) *(void **)&av.field = need(library, name, file)
    RESOLVE(avcodec_version, codec, "avcodec_version", AVCODEC_NAME);
    RESOLVE(avutil_version, util, "avutil_version", AVUTIL_NAME);
    RESOLVE(find_encoder_by_name, codec, "avcodec_find_encoder_by_name", AVCODEC_NAME);
    RESOLVE(find_decoder, codec, "avcodec_find_decoder", AVCODEC_NAME);
    RESOLVE(alloc_context3, codec, "avcodec_alloc_context3", AVCODEC_NAME);
    RESOLVE(free_context, codec, "avcodec_free_context", AVCODEC_NAME);
    RESOLVE(open2, codec, "avcodec_open2", AVCODEC_NAME);
    RESOLVE(send_frame, codec, "avcodec_send_frame", AVCODEC_NAME);
    RESOLVE(receive_packet, codec, "avcodec_receive_packet", AVCODEC_NAME);
    RESOLVE(send_packet, codec, "avcodec_send_packet", AVCODEC_NAME);
    RESOLVE(receive_frame, codec, "avcodec_receive_frame", AVCODEC_NAME);
    RESOLVE(packet_alloc, codec, "av_packet_alloc", AVCODEC_NAME);
    RESOLVE(packet_free, codec, "av_packet_free", AVCODEC_NAME);
    RESOLVE(packet_unref, codec, "av_packet_unref", AVCODEC_NAME);
    RESOLVE(frame_alloc, util, "av_frame_alloc", AVUTIL_NAME);
    RESOLVE(frame_free, util, "av_frame_free", AVUTIL_NAME);
    RESOLVE(frame_get_buffer, util, "av_frame_get_buffer", AVUTIL_NAME);
    RESOLVE(frame_make_writable, util, "av_frame_make_writable", AVUTIL_NAME);
    RESOLVE(channel_layout_default, util, "av_channel_layout_default", AVUTIL_NAME);
    RESOLVE(strerror, util, "av_strerror", AVUTIL_NAME);
    RESOLVE(mallocz, util, "av_mallocz", AVUTIL_NAME);
    RESOLVE(log_set_level, util, "av_log_set_level", AVUTIL_NAME);
#undef RESOLVE
    if (load_error[0]) return;
    // The structures cafconv fills are laid out by the headers it was built with: the loaded
    // libraries must have the same major versions.
    unsigned codec_version = av.avcodec_version(), util_version = av.avutil_version();
    if (AV_VERSION_MAJOR(codec_version) != LIBAVCODEC_VERSION_MAJOR || AV_VERSION_MAJOR(util_version) != LIBAVUTIL_VERSION_MAJOR) {
        snprintf(load_error, sizeof load_error,
                 "the loaded libavcodec is version %u.%u.%u (libavutil %u), but cafconv was built with the headers of libavcodec %d (libavutil %d); rebuild cafconv",
                 AV_VERSION_MAJOR(codec_version), AV_VERSION_MINOR(codec_version), AV_VERSION_MICRO(codec_version),
                 AV_VERSION_MAJOR(util_version), LIBAVCODEC_VERSION_MAJOR, LIBAVUTIL_VERSION_MAJOR);
        return;
    }
    snprintf(version_text, sizeof version_text, "%u.%u.%u", AV_VERSION_MAJOR(codec_version),
             AV_VERSION_MINOR(codec_version), AV_VERSION_MICRO(codec_version));
    // Errors come back as return codes; libavcodec's log lines would only clutter stderr.
    av.log_set_level(AV_LOG_QUIET);
    load_status = 0;
}

int cafconv_av_load(char *error, size_t size) {
    pthread_once(&load_once, load);
    if (load_status != 0) say(error, size, load_error);
    return load_status;
}

const char *cafconv_av_version(void) { return version_text; }

const char *cafconv_av_library_name(void) { return AVCODEC_NAME; }

static void describe(int code, const char *doing, char *error, size_t size) {
    char text[128] = "unknown error";
    av.strerror(code, text, sizeof text);
    if (error && size) snprintf(error, size, "libavcodec %s: %s", doing, text);
}

struct cafconv_aac_encoder {
    AVCodecContext *context;
    AVFrame *frame;
    AVPacket *packet;
    int channels;
    int filled;     // frames in `frame` not yet sent
    int64_t next_pts;
    int flushed;
};

// The encoder's channel layout: libavutil's default for the count, except 3 channels, whose
// default is 2.1 (FL FR LFE): the third channel would be coded as an LFE and low-passed at about
// 120 Hz. A 3-channel source is L R C (WAVE's order for its first three speakers), AAC's 3.0.
static void encoder_layout(AVChannelLayout *layout, int channels) {
    if (channels == 3) {
        *layout = (AVChannelLayout)AV_CHANNEL_LAYOUT_SURROUND;
        return;
    }
    av.channel_layout_default(layout, channels);
}

cafconv_aac_encoder *cafconv_aac_encoder_open(int sample_rate, int channels, int64_t bit_rate, char *error, size_t size) {
    if (cafconv_av_load(error, size) != 0) return NULL;
    const AVCodec *codec = av.find_encoder_by_name("aac");
    if (!codec) {
        say(error, size, "this libavcodec has no native AAC encoder ('aac')");
        return NULL;
    }
    cafconv_aac_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) {
        say(error, size, "out of memory");
        return NULL;
    }
    encoder->channels = channels;
    encoder->context = av.alloc_context3(codec);
    encoder->frame = av.frame_alloc();
    encoder->packet = av.packet_alloc();
    if (!encoder->context || !encoder->frame || !encoder->packet) {
        say(error, size, "out of memory");
        cafconv_aac_encoder_close(encoder);
        return NULL;
    }
    AVCodecContext *context = encoder->context;
    context->sample_fmt = AV_SAMPLE_FMT_FLTP;
    context->sample_rate = sample_rate;
    context->time_base = (AVRational){1, sample_rate};
    encoder_layout(&context->ch_layout, channels);
    context->bit_rate = bit_rate;
    context->profile = FF_PROFILE_AAC_LOW;
    context->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int status = av.open2(context, codec, NULL);
    if (status < 0) {
        char doing[128];
        snprintf(doing, sizeof doing, "cannot open its AAC encoder for %d channels at %d Hz, %lld b/s", channels,
                 sample_rate, (long long)bit_rate);
        describe(status, doing, error, size);
        cafconv_aac_encoder_close(encoder);
        return NULL;
    }
    if (context->frame_size <= 0 || context->extradata_size <= 0) {
        say(error, size, "libavcodec's AAC encoder gave no frame size or no AudioSpecificConfig");
        cafconv_aac_encoder_close(encoder);
        return NULL;
    }
    encoder->frame->format = AV_SAMPLE_FMT_FLTP;
    encoder->frame->nb_samples = context->frame_size;
    encoder->frame->sample_rate = sample_rate;
    encoder_layout(&encoder->frame->ch_layout, channels);
    status = av.frame_get_buffer(encoder->frame, 0);
    if (status < 0) {
        describe(status, "cannot allocate a frame", error, size);
        cafconv_aac_encoder_close(encoder);
        return NULL;
    }
    return encoder;
}

int cafconv_aac_encoder_priming(const cafconv_aac_encoder *encoder) { return encoder->context->initial_padding; }

int cafconv_aac_encoder_frame_size(const cafconv_aac_encoder *encoder) { return encoder->context->frame_size; }

int cafconv_aac_encoder_config(const cafconv_aac_encoder *encoder, const uint8_t **bytes) {
    *bytes = encoder->context->extradata;
    return encoder->context->extradata_size;
}

static int submit(cafconv_aac_encoder *encoder, char *error, size_t size) {
    encoder->frame->nb_samples = encoder->filled;
    encoder->frame->pts = encoder->next_pts;
    encoder->next_pts += encoder->filled;
    int status = av.send_frame(encoder->context, encoder->frame);
    encoder->filled = 0;
    if (status < 0) {
        describe(status, "cannot encode", error, size);
        return -1;
    }
    return 0;
}

int cafconv_aac_encoder_send(cafconv_aac_encoder *encoder, const float *samples, int frames, char *error, size_t size) {
    if (encoder->flushed) return 0;
    if (!samples) {
        if (encoder->filled > 0 && submit(encoder, error, size) != 0) return -1;
        encoder->flushed = 1;
        int status = av.send_frame(encoder->context, NULL);
        if (status < 0) {
            describe(status, "cannot finish encoding", error, size);
            return -1;
        }
        return 0;
    }
    int frame_size = encoder->context->frame_size;
    if (encoder->filled == 0) {
        // The encoder may still hold a reference to the last frame's buffers.
        int status = av.frame_make_writable(encoder->frame);
        if (status < 0) {
            describe(status, "cannot reuse a frame", error, size);
            return -1;
        }
        encoder->frame->nb_samples = frame_size;
    }
    int take = frame_size - encoder->filled;
    if (take > frames) take = frames;
    int channels = encoder->channels;
    for (int channel = 0; channel < channels; channel++) {
        float *plane = (float *)encoder->frame->extended_data[channel] + encoder->filled;
        const float *from = samples + channel;
        for (int index = 0; index < take; index++) plane[index] = from[(size_t)index * channels];
    }
    encoder->filled += take;
    if (encoder->filled == frame_size && submit(encoder, error, size) != 0) return -1;
    return take;
}

int cafconv_aac_encoder_receive(cafconv_aac_encoder *encoder, const uint8_t **bytes, char *error, size_t size) {
    av.packet_unref(encoder->packet);
    int status = av.receive_packet(encoder->context, encoder->packet);
    if (status == AVERROR(EAGAIN)) return -1;
    if (status == AVERROR_EOF) return -2;
    if (status < 0) {
        describe(status, "cannot encode", error, size);
        return -3;
    }
    *bytes = encoder->packet->data;
    return encoder->packet->size;
}

void cafconv_aac_encoder_close(cafconv_aac_encoder *encoder) {
    if (!encoder) return;
    if (encoder->packet) av.packet_free(&encoder->packet);
    if (encoder->frame) av.frame_free(&encoder->frame);
    if (encoder->context) av.free_context(&encoder->context);
    free(encoder);
}

struct cafconv_aac_decoder {
    AVCodecContext *context;
    AVFrame *frame;
    AVPacket *packet;
    uint8_t *buffer;  // the packet's bytes with libavcodec's zeroed padding after them
    size_t capacity;
    int channels;
    int sample_rate;
};

cafconv_aac_decoder *cafconv_aac_decoder_open(const uint8_t *config, int config_size, int sample_rate, int channels, char *error, size_t size) {
    if (cafconv_av_load(error, size) != 0) return NULL;
    const AVCodec *codec = av.find_decoder(AV_CODEC_ID_AAC);
    if (!codec) {
        say(error, size, "this libavcodec has no AAC decoder");
        return NULL;
    }
    cafconv_aac_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        say(error, size, "out of memory");
        return NULL;
    }
    decoder->channels = channels;
    decoder->sample_rate = sample_rate;
    decoder->context = av.alloc_context3(codec);
    decoder->frame = av.frame_alloc();
    decoder->packet = av.packet_alloc();
    if (!decoder->context || !decoder->frame || !decoder->packet) {
        say(error, size, "out of memory");
        cafconv_aac_decoder_close(decoder);
        return NULL;
    }
    AVCodecContext *context = decoder->context;
    context->sample_rate = sample_rate;
    av.channel_layout_default(&context->ch_layout, channels);
    if (config_size > 0) {
        context->extradata = av.mallocz((size_t)config_size + AV_INPUT_BUFFER_PADDING_SIZE);
        if (!context->extradata) {
            say(error, size, "out of memory");
            cafconv_aac_decoder_close(decoder);
            return NULL;
        }
        memcpy(context->extradata, config, (size_t)config_size);
        context->extradata_size = config_size;
    }
    int status = av.open2(context, codec, NULL);
    if (status < 0) {
        describe(status, "cannot open its AAC decoder for this AudioSpecificConfig", error, size);
        cafconv_aac_decoder_close(decoder);
        return NULL;
    }
    return decoder;
}

int cafconv_aac_decoder_send(cafconv_aac_decoder *decoder, const uint8_t *packet, int size, char *error, size_t error_size) {
    int status;
    if (!packet) {
        status = av.send_packet(decoder->context, NULL);
    } else {
        size_t needed = (size_t)size + AV_INPUT_BUFFER_PADDING_SIZE;
        if (needed > decoder->capacity) {
            uint8_t *grown = realloc(decoder->buffer, needed);
            if (!grown) {
                say(error, error_size, "out of memory");
                return -1;
            }
            decoder->buffer = grown;
            decoder->capacity = needed;
        }
        memcpy(decoder->buffer, packet, (size_t)size);
        memset(decoder->buffer + size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
        av.packet_unref(decoder->packet);
        decoder->packet->data = decoder->buffer;
        decoder->packet->size = size;
        status = av.send_packet(decoder->context, decoder->packet);
    }
    if (status == AVERROR_EOF) return 0;
    if (status < 0) {
        describe(status, "cannot decode a packet", error, error_size);
        return -1;
    }
    return 0;
}

int cafconv_aac_decoder_receive(cafconv_aac_decoder *decoder, char *error, size_t size) {
    int status = av.receive_frame(decoder->context, decoder->frame);
    if (status == AVERROR(EAGAIN)) return -1;
    if (status == AVERROR_EOF) return -2;
    if (status < 0) {
        describe(status, "cannot decode a packet", error, size);
        return -3;
    }
    AVFrame *frame = decoder->frame;
    if (frame->ch_layout.nb_channels != decoder->channels) {
        if (error && size)
            snprintf(error, size, "libavcodec decodes %d channels, the file declares %d", frame->ch_layout.nb_channels, decoder->channels);
        return -3;
    }
    // What the decoder produces must be what the container says (HE-AAC's SBR doubles the rate).
    if (frame->sample_rate != decoder->sample_rate) {
        if (error && size)
            snprintf(error, size, "libavcodec decodes %d Hz, the file declares %d Hz", frame->sample_rate, decoder->sample_rate);
        return -3;
    }
    if (frame->format != AV_SAMPLE_FMT_FLTP && frame->format != AV_SAMPLE_FMT_FLT) {
        say(error, size, "libavcodec's AAC decoder gave samples that are not floats");
        return -3;
    }
    return frame->nb_samples;
}

void cafconv_aac_decoder_take(cafconv_aac_decoder *decoder, float *out) {
    AVFrame *frame = decoder->frame;
    int channels = decoder->channels, frames = frame->nb_samples;
    if (frame->format == AV_SAMPLE_FMT_FLT) {
        memcpy(out, frame->extended_data[0], sizeof(float) * (size_t)frames * channels);
        return;
    }
    for (int channel = 0; channel < channels; channel++) {
        const float *plane = (const float *)frame->extended_data[channel];
        for (int index = 0; index < frames; index++) out[(size_t)index * channels + channel] = plane[index];
    }
}

void cafconv_aac_decoder_close(cafconv_aac_decoder *decoder) {
    if (!decoder) return;
    if (decoder->packet) av.packet_free(&decoder->packet);
    if (decoder->frame) av.frame_free(&decoder->frame);
    if (decoder->context) av.free_context(&decoder->context);
    free(decoder->buffer);
    free(decoder);
}


#if CAFCONV_HAVE_AVFORMAT

#define AVFORMAT_NAME "libavformat.so." CAFCONV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)
#define AVFORMAT_PACKAGE "libavformat" CAFCONV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

// What the whole-file reader calls besides the codec functions above.
static struct {
    unsigned (*version)(void);
    int (*open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*find_stream_info)(AVFormatContext *, AVDictionary **);
    int (*find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
    int (*read_frame)(AVFormatContext *, AVPacket *);
    void (*close_input)(AVFormatContext **);
    int (*parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
    const char *(*codec_name)(enum AVCodecID);
    void (*frame_unref)(AVFrame *);
    int (*dict_set)(AVDictionary **, const char *, const char *, int);
    void (*dict_free)(AVDictionary **);
} avf;

static pthread_once_t format_once = PTHREAD_ONCE_INIT;
static int format_status = -1;
static char format_error[512];

static void load_format(void) {
    if (cafconv_av_load(format_error, sizeof format_error) != 0) return;
    void *format = dlopen(AVFORMAT_NAME, RTLD_NOW | RTLD_LOCAL);
    void *codec = dlopen(AVCODEC_NAME, RTLD_NOW | RTLD_LOCAL);
    void *util = dlopen(AVUTIL_NAME, RTLD_NOW | RTLD_LOCAL);
    if (!format || !codec || !util) {
        const char *why = dlerror();
        snprintf(format_error, sizeof format_error,
                 "the second decoder needs libavformat %d (%s), which cannot be loaded (%s); install the Debian package %s (apt-get install %s)",
                 LIBAVFORMAT_VERSION_MAJOR, AVFORMAT_NAME, why ? why : "not found", AVFORMAT_PACKAGE, AVFORMAT_PACKAGE);
        return;
    }
    load_error[0] = 0;
#define RESOLVE(field, library, name, file) *(void **)&avf.field = need(library, name, file)
    RESOLVE(version, format, "avformat_version", AVFORMAT_NAME);
    RESOLVE(open_input, format, "avformat_open_input", AVFORMAT_NAME);
    RESOLVE(find_stream_info, format, "avformat_find_stream_info", AVFORMAT_NAME);
    RESOLVE(find_best_stream, format, "av_find_best_stream", AVFORMAT_NAME);
    RESOLVE(read_frame, format, "av_read_frame", AVFORMAT_NAME);
    RESOLVE(close_input, format, "avformat_close_input", AVFORMAT_NAME);
    RESOLVE(parameters_to_context, codec, "avcodec_parameters_to_context", AVCODEC_NAME);
    RESOLVE(codec_name, codec, "avcodec_get_name", AVCODEC_NAME);
    RESOLVE(frame_unref, util, "av_frame_unref", AVUTIL_NAME);
    RESOLVE(dict_set, util, "av_dict_set", AVUTIL_NAME);
    RESOLVE(dict_free, util, "av_dict_free", AVUTIL_NAME);
#undef RESOLVE
    if (load_error[0]) {
        snprintf(format_error, sizeof format_error, "%s", load_error);
        return;
    }
    unsigned version = avf.version();
    if (AV_VERSION_MAJOR(version) != LIBAVFORMAT_VERSION_MAJOR) {
        snprintf(format_error, sizeof format_error,
                 "the loaded libavformat is version %u, but cafconv was built with the headers of libavformat %d; rebuild cafconv",
                 AV_VERSION_MAJOR(version), LIBAVFORMAT_VERSION_MAJOR);
        return;
    }
    format_status = 0;
}

#define CAFCONV_DAMAGE_KEPT 8

// The interleaved form of a planar sample format (libavutil's own function is not linked).
static enum AVSampleFormat packed_format(int format) {
    switch (format) {
    case AV_SAMPLE_FMT_U8P: return AV_SAMPLE_FMT_U8;
    case AV_SAMPLE_FMT_S16P: return AV_SAMPLE_FMT_S16;
    case AV_SAMPLE_FMT_S32P: return AV_SAMPLE_FMT_S32;
    case AV_SAMPLE_FMT_FLTP: return AV_SAMPLE_FMT_FLT;
    case AV_SAMPLE_FMT_DBLP: return AV_SAMPLE_FMT_DBL;
    case AV_SAMPLE_FMT_S64P: return AV_SAMPLE_FMT_S64;
    default: return (enum AVSampleFormat)format;
    }
}

struct cafconv_av_reader {
    AVFormatContext *format;
    AVCodecContext *context;
    AVFrame *frame;
    AVPacket *packet;
    int stream;
    int channels;
    int is_float;
    int container_bits;
    int raw_bits;
    int held;         // frames of `frame` not yet copied out
    int used;         // frames of `frame` copied out
    int input_done;   // the demuxer reached the end (the decoder was flushed)
    int output_done;  // the decoder gave its last frame
    int64_t frames;   // frames decoded so far
    int64_t damaged;
    int64_t damage_frame[CAFCONV_DAMAGE_KEPT];
    int64_t damage_byte[CAFCONV_DAMAGE_KEPT];
};

static void note_damage(cafconv_av_reader *reader, int64_t byte) {
    if (reader->damaged < CAFCONV_DAMAGE_KEPT) {
        reader->damage_frame[reader->damaged] = reader->frames;
        reader->damage_byte[reader->damaged] = byte;
    }
    reader->damaged++;
}

cafconv_av_reader *cafconv_av_reader_open(const char *path, char *error, size_t size) {
    pthread_once(&format_once, load_format);
    if (format_status != 0) {
        say(error, size, format_error);
        return NULL;
    }
    cafconv_av_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        say(error, size, "out of memory");
        return NULL;
    }
    // Local files only, and only containers of audio: a playlist (HLS, concat...) would make
    // libavformat open other files or URLs a hostile input names.
    AVDictionary *options = NULL;
    avf.dict_set(&options, "protocol_whitelist", "file", 0);
    avf.dict_set(&options, "format_whitelist",
                 "flac,mp3,ogg,wv,ape,tta,w64,au,mov,matroska,aiff,wav,caf,shn,tak,dsf,mpc,mpc8,wsd,voc,sd2", 0);
    // "file:" first, so that a name with a colon is never taken for another protocol.
    size_t length = strlen(path);
    char *url = malloc(length + 6);
    if (!url) {
        avf.dict_free(&options);
        say(error, size, "out of memory");
        cafconv_av_reader_close(reader);
        return NULL;
    }
    memcpy(url, "file:", 5);
    memcpy(url + 5, path, length + 1);
    int status = avf.open_input(&reader->format, url, NULL, &options);
    free(url);
    avf.dict_free(&options);
    if (status < 0) {
        describe(status, "(libavformat) cannot open it", error, size);
        cafconv_av_reader_close(reader);
        return NULL;
    }
    status = avf.find_stream_info(reader->format, NULL);
    if (status < 0) {
        describe(status, "(libavformat) cannot read its streams", error, size);
        cafconv_av_reader_close(reader);
        return NULL;
    }
    const AVCodec *codec = NULL;
    status = avf.find_best_stream(reader->format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (status < 0 || !codec) {
        describe(status, "(libavformat) finds no audio stream it can decode", error, size);
        cafconv_av_reader_close(reader);
        return NULL;
    }
    reader->stream = status;
    reader->context = av.alloc_context3(codec);
    reader->frame = av.frame_alloc();
    reader->packet = av.packet_alloc();
    if (!reader->context || !reader->frame || !reader->packet) {
        say(error, size, "out of memory");
        cafconv_av_reader_close(reader);
        return NULL;
    }
    AVStream *stream = reader->format->streams[reader->stream];
    status = avf.parameters_to_context(reader->context, stream->codecpar);
    if (status < 0) {
        describe(status, "cannot take the stream's parameters", error, size);
        cafconv_av_reader_close(reader);
        return NULL;
    }
    // Frame checksums are checked where the codec has them (FLAC's CRC-16, MP3's optional CRC).
    reader->context->err_recognition |= AV_EF_CRCCHECK;
    status = av.open2(reader->context, codec, NULL);
    if (status < 0) {
        describe(status, "cannot open its decoder", error, size);
        cafconv_av_reader_close(reader);
        return NULL;
    }
    reader->channels = reader->context->ch_layout.nb_channels;
    reader->raw_bits = reader->context->bits_per_raw_sample;
    switch (packed_format(reader->context->sample_fmt)) {
    case AV_SAMPLE_FMT_U8: reader->container_bits = 8; break;
    case AV_SAMPLE_FMT_S16: reader->container_bits = 16; break;
    case AV_SAMPLE_FMT_S32: reader->container_bits = 32; break;
    case AV_SAMPLE_FMT_FLT: reader->container_bits = 32; reader->is_float = 1; break;
    case AV_SAMPLE_FMT_DBL: reader->container_bits = 64; reader->is_float = 1; break;
    default:
        say(error, size, "libavcodec decodes it to a sample format cafconv does not read (64-bit integers)");
        cafconv_av_reader_close(reader);
        return NULL;
    }
    if (reader->channels <= 0 || reader->context->sample_rate <= 0) {
        say(error, size, "libavcodec gives no channel count or sample rate for it");
        cafconv_av_reader_close(reader);
        return NULL;
    }
    return reader;
}

int cafconv_av_reader_channels(const cafconv_av_reader *reader) { return reader->channels; }
int cafconv_av_reader_rate(const cafconv_av_reader *reader) { return reader->context->sample_rate; }
const char *cafconv_av_reader_codec(const cafconv_av_reader *reader) { return avf.codec_name(reader->context->codec_id); }
int cafconv_av_reader_is_float(const cafconv_av_reader *reader) { return reader->is_float; }
int64_t cafconv_av_reader_stated_frames(const cafconv_av_reader *reader) {
    const AVStream *stream = reader->format->streams[reader->stream];
    if (stream->duration == AV_NOPTS_VALUE || stream->duration < 0 || stream->time_base.den <= 0) return -1;
    // duration x time_base in frames at the decoder's rate, without overflow for sane values.
    long double frames = (long double)stream->duration * stream->time_base.num * reader->context->sample_rate / stream->time_base.den;
    if (frames < 0 || frames > 9.0e18L) return -1;
    return (int64_t)(frames + 0.5L);
}
int cafconv_av_reader_container_bits(const cafconv_av_reader *reader) { return reader->container_bits; }
int cafconv_av_reader_raw_bits(const cafconv_av_reader *reader) { return reader->raw_bits; }
int64_t cafconv_av_reader_damaged(const cafconv_av_reader *reader) { return reader->damaged; }

int cafconv_av_reader_damage_at(const cafconv_av_reader *reader, int index, int64_t *frame, int64_t *byte) {
    if (index < 0 || index >= CAFCONV_DAMAGE_KEPT || index >= reader->damaged) return -1;
    *frame = reader->damage_frame[index];
    *byte = reader->damage_byte[index];
    return 0;
}

// Decodes the next frame into reader->frame: 1, 0 at the end, -1 with `error` set.
static int next_frame(cafconv_av_reader *reader, char *error, size_t size) {
    while (!reader->output_done) {
        avf.frame_unref(reader->frame);
        int status = av.receive_frame(reader->context, reader->frame);
        if (status >= 0) {
            if (reader->frame->ch_layout.nb_channels != reader->channels || reader->frame->format != reader->context->sample_fmt) {
                if (error && size)
                    snprintf(error, size, "libavcodec's decoding changes from %d channels to %d within the stream",
                             reader->channels, reader->frame->ch_layout.nb_channels);
                return -1;
            }
            return 1;
        }
        if (status == AVERROR_EOF) {
            reader->output_done = 1;
            break;
        }
        if (status != AVERROR(EAGAIN)) {
            // A frame that cannot be decoded: skipped, as ffmpeg does, and recorded.
            note_damage(reader, -1);
            continue;
        }
        if (reader->input_done) {
            reader->output_done = 1;
            break;
        }
        av.packet_unref(reader->packet);
        status = avf.read_frame(reader->format, reader->packet);
        if (status == AVERROR_EOF) {
            reader->input_done = 1;
            av.send_packet(reader->context, NULL);
            continue;
        }
        if (status < 0) {
            describe(status, "(libavformat) cannot read the file", error, size);
            return -1;
        }
        if (reader->packet->stream_index != reader->stream) continue;
        status = av.send_packet(reader->context, reader->packet);
        if (status < 0 && status != AVERROR(EAGAIN)) note_damage(reader, reader->packet->pos);
    }
    return 0;
}

int cafconv_av_reader_read(cafconv_av_reader *reader, int32_t *ints, double *doubles, int frames, char *error, size_t size) {
    int done = 0, channels = reader->channels;
    int bytes = reader->container_bits / 8;
    while (done < frames) {
        if (reader->held == 0) {
            int status = next_frame(reader, error, size);
            if (status < 0) return -1;
            if (status == 0) break;
            reader->held = reader->frame->nb_samples;
            reader->used = 0;
            reader->frames += reader->held;
            continue;
        }
        int take = reader->held < frames - done ? reader->held : frames - done;
        int planar = packed_format(reader->frame->format) != reader->frame->format;
        for (int index = 0; index < take; index++) {
            int at = reader->used + index;
            for (int channel = 0; channel < channels; channel++) {
                const uint8_t *plane = reader->frame->extended_data[planar ? channel : 0];
                size_t offset = ((size_t)(planar ? at : at * channels + channel)) * (size_t)bytes;
                size_t out = (size_t)(done + index) * (size_t)channels + (size_t)channel;
                const uint8_t *sample = plane + offset;
                if (reader->is_float) {
                    if (bytes == 4) {
                        float value;
                        memcpy(&value, sample, 4);
                        doubles[out] = value;
                    } else {
                        memcpy(&doubles[out], sample, 8);
                    }
                } else if (bytes == 1) {
                    ints[out] = (int32_t)((uint32_t)((int)sample[0] - 128) << 24);
                } else if (bytes == 2) {
                    int16_t value;
                    memcpy(&value, sample, 2);
                    ints[out] = (int32_t)((uint32_t)(int32_t)value << 16);
                } else {
                    memcpy(&ints[out], sample, 4);
                }
            }
        }
        reader->used += take;
        reader->held -= take;
        done += take;
    }
    return done;
}

void cafconv_av_reader_close(cafconv_av_reader *reader) {
    if (!reader) return;
    if (reader->packet) av.packet_free(&reader->packet);
    if (reader->frame) av.frame_free(&reader->frame);
    if (reader->context) av.free_context(&reader->context);
    if (reader->format) avf.close_input(&reader->format);
    free(reader);
}

#else  // libavcodec headers without libavformat's

static const char *no_format = "cafconv was built without the libavformat headers, so it has no second decoder; install the Debian package libavformat-dev and rebuild";


#endif

#else  // built without the libavcodec headers

static const char *no_format = "cafconv was built without the libavcodec headers, so it has no second decoder; install the Debian package libavcodec-dev and libavformat-dev and rebuild";


static const char *missing = "cafconv was built without the libavcodec headers, so it cannot encode or decode AAC; install the Debian package libavcodec-dev and rebuild";

int cafconv_av_load(char *error, size_t size) {
    say(error, size, missing);
    return -1;
}
const char *cafconv_av_version(void) { return ""; }
const char *cafconv_av_library_name(void) { return ""; }
cafconv_aac_encoder *cafconv_aac_encoder_open(int sample_rate, int channels, int64_t bit_rate, char *error, size_t size) {
    (void)sample_rate; (void)channels; (void)bit_rate;
    say(error, size, missing);
    return NULL;
}
int cafconv_aac_encoder_priming(const cafconv_aac_encoder *encoder) { (void)encoder; return 0; }
int cafconv_aac_encoder_frame_size(const cafconv_aac_encoder *encoder) { (void)encoder; return 0; }
int cafconv_aac_encoder_config(const cafconv_aac_encoder *encoder, const uint8_t **bytes) { (void)encoder; *bytes = NULL; return 0; }
int cafconv_aac_encoder_send(cafconv_aac_encoder *encoder, const float *samples, int frames, char *error, size_t size) {
    (void)encoder; (void)samples; (void)frames;
    say(error, size, missing);
    return -1;
}
int cafconv_aac_encoder_receive(cafconv_aac_encoder *encoder, const uint8_t **bytes, char *error, size_t size) {
    (void)encoder; (void)bytes;
    say(error, size, missing);
    return -3;
}
void cafconv_aac_encoder_close(cafconv_aac_encoder *encoder) { (void)encoder; }
cafconv_aac_decoder *cafconv_aac_decoder_open(const uint8_t *config, int config_size, int sample_rate, int channels, char *error, size_t size) {
    (void)config; (void)config_size; (void)sample_rate; (void)channels;
    say(error, size, missing);
    return NULL;
}
int cafconv_aac_decoder_send(cafconv_aac_decoder *decoder, const uint8_t *packet, int size, char *error, size_t error_size) {
    (void)decoder; (void)packet; (void)size;
    say(error, error_size, missing);
    return -1;
}
int cafconv_aac_decoder_receive(cafconv_aac_decoder *decoder, char *error, size_t size) {
    (void)decoder;
    say(error, size, missing);
    return -3;
}
void cafconv_aac_decoder_take(cafconv_aac_decoder *decoder, float *out) { (void)decoder; (void)out; }
void cafconv_aac_decoder_close(cafconv_aac_decoder *decoder) { (void)decoder; }



#endif

#if !CAFCONV_HAVE_AVFORMAT
// The second decoder's functions when it cannot be built; `no_format` says what is missing.
cafconv_av_reader *cafconv_av_reader_open(const char *path, char *error, size_t size) {
    (void)path;
    say(error, size, no_format);
    return NULL;
}
int cafconv_av_reader_channels(const cafconv_av_reader *reader) { (void)reader; return 0; }
int cafconv_av_reader_rate(const cafconv_av_reader *reader) { (void)reader; return 0; }
const char *cafconv_av_reader_codec(const cafconv_av_reader *reader) { (void)reader; return ""; }
int cafconv_av_reader_is_float(const cafconv_av_reader *reader) { (void)reader; return 0; }
int64_t cafconv_av_reader_stated_frames(const cafconv_av_reader *reader) { (void)reader; return -1; }
int cafconv_av_reader_container_bits(const cafconv_av_reader *reader) { (void)reader; return 0; }
int cafconv_av_reader_raw_bits(const cafconv_av_reader *reader) { (void)reader; return 0; }
int cafconv_av_reader_read(cafconv_av_reader *reader, int32_t *ints, double *doubles, int frames, char *error, size_t size) {
    (void)reader; (void)ints; (void)doubles; (void)frames;
    say(error, size, no_format);
    return -1;
}
int64_t cafconv_av_reader_damaged(const cafconv_av_reader *reader) { (void)reader; return 0; }
int cafconv_av_reader_damage_at(const cafconv_av_reader *reader, int index, int64_t *frame, int64_t *byte) {
    (void)reader; (void)index; (void)frame; (void)byte;
    return -1;
}
void cafconv_av_reader_close(cafconv_av_reader *reader) { (void)reader; }
#endif
