// libavformat's packet demuxer behind dlopen(3); see include/CAVDemux.h.
#include "CAVDemux.h"
#include "CAVCodec.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<libavformat/avformat.h>) && __has_include(<libavcodec/bsf.h>) && !defined(CAFCONV_WITHOUT_AVCODEC)
// Declarations and structure layouts only: nothing here links libavformat.
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>

#define DEMUX_STRINGIFY2(x) #x
#define DEMUX_STRINGIFY(x) DEMUX_STRINGIFY2(x)
#define DEMUX_FORMAT "libavformat.so." DEMUX_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)
#define DEMUX_CODEC "libavcodec.so." DEMUX_STRINGIFY(LIBAVCODEC_VERSION_MAJOR)
#define DEMUX_UTIL "libavutil.so." DEMUX_STRINGIFY(LIBAVUTIL_VERSION_MAJOR)
#define DEMUX_PACKAGE "libavformat" DEMUX_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

// Every function the demuxer calls, resolved with dlsym.
static struct {
    unsigned (*version)(void);
    int (*open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*find_stream_info)(AVFormatContext *, AVDictionary **);
    int (*find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
    int (*read_frame)(AVFormatContext *, AVPacket *);
    void (*close_input)(AVFormatContext **);
    const char *(*codec_name)(enum AVCodecID);
    AVPacket *(*packet_alloc)(void);
    void (*packet_free)(AVPacket **);
    void (*packet_unref)(AVPacket *);
    uint8_t *(*side_data)(const AVPacket *, enum AVPacketSideDataType, size_t *);
    const AVBitStreamFilter *(*bsf_by_name)(const char *);
    int (*bsf_alloc)(const AVBitStreamFilter *, AVBSFContext **);
    int (*bsf_init)(AVBSFContext *);
    int (*bsf_send)(AVBSFContext *, AVPacket *);
    int (*bsf_receive)(AVBSFContext *, AVPacket *);
    void (*bsf_free)(AVBSFContext **);
    int (*parameters_copy)(AVCodecParameters *, const AVCodecParameters *);
    int (*dict_set)(AVDictionary **, const char *, const char *, int);
    AVDictionaryEntry *(*dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
    void (*dict_free)(AVDictionary **);
    int (*strerror)(int, char *, size_t);
    int (*index_count)(AVStream *);
} dx;

static pthread_once_t demux_once = PTHREAD_ONCE_INIT;
static int demux_status = -1;
static char demux_error[512];

static void *demux_need(void *library, const char *name, const char *file) {
    void *symbol = dlsym(library, name);
    if (!symbol && demux_error[0] == 0)
        snprintf(demux_error, sizeof demux_error, "%s has no symbol %s: it is not the library cafconv was built for", file, name);
    return symbol;
}

static void demux_load(void) {
    // libavcodec first: its loader checks its version and says which package is missing.
    if (cafconv_av_load(demux_error, sizeof demux_error) != 0) return;
    void *format = dlopen(DEMUX_FORMAT, RTLD_NOW | RTLD_LOCAL);
    void *codec = dlopen(DEMUX_CODEC, RTLD_NOW | RTLD_LOCAL);
    void *util = dlopen(DEMUX_UTIL, RTLD_NOW | RTLD_LOCAL);
    if (!format || !codec || !util) {
        const char *why = dlerror();
        snprintf(demux_error, sizeof demux_error,
                 "reading MP4 and ADTS needs libavformat %d (%s), which cannot be loaded (%s); install the Debian package %s (apt-get install %s)",
                 LIBAVFORMAT_VERSION_MAJOR, DEMUX_FORMAT, why ? why : "not found", DEMUX_PACKAGE, DEMUX_PACKAGE);
        return;
    }
#define RESOLVE(field, library, name, file) *(void **)&dx.field = demux_need(library, name, file)
    RESOLVE(version, format, "avformat_version", DEMUX_FORMAT);
    RESOLVE(open_input, format, "avformat_open_input", DEMUX_FORMAT);
    RESOLVE(find_stream_info, format, "avformat_find_stream_info", DEMUX_FORMAT);
    RESOLVE(find_best_stream, format, "av_find_best_stream", DEMUX_FORMAT);
    RESOLVE(read_frame, format, "av_read_frame", DEMUX_FORMAT);
    RESOLVE(close_input, format, "avformat_close_input", DEMUX_FORMAT);
    RESOLVE(codec_name, codec, "avcodec_get_name", DEMUX_CODEC);
    RESOLVE(packet_alloc, codec, "av_packet_alloc", DEMUX_CODEC);
    RESOLVE(packet_free, codec, "av_packet_free", DEMUX_CODEC);
    RESOLVE(packet_unref, codec, "av_packet_unref", DEMUX_CODEC);
    RESOLVE(side_data, codec, "av_packet_get_side_data", DEMUX_CODEC);
    RESOLVE(bsf_by_name, codec, "av_bsf_get_by_name", DEMUX_CODEC);
    RESOLVE(bsf_alloc, codec, "av_bsf_alloc", DEMUX_CODEC);
    RESOLVE(bsf_init, codec, "av_bsf_init", DEMUX_CODEC);
    RESOLVE(bsf_send, codec, "av_bsf_send_packet", DEMUX_CODEC);
    RESOLVE(bsf_receive, codec, "av_bsf_receive_packet", DEMUX_CODEC);
    RESOLVE(bsf_free, codec, "av_bsf_free", DEMUX_CODEC);
    RESOLVE(parameters_copy, codec, "avcodec_parameters_copy", DEMUX_CODEC);
    RESOLVE(dict_set, util, "av_dict_set", DEMUX_UTIL);
    RESOLVE(dict_get, util, "av_dict_get", DEMUX_UTIL);
    RESOLVE(dict_free, util, "av_dict_free", DEMUX_UTIL);
    RESOLVE(strerror, util, "av_strerror", DEMUX_UTIL);
    RESOLVE(index_count, format, "avformat_index_get_entries_count", DEMUX_FORMAT);
#undef RESOLVE
    if (demux_error[0]) return;
    unsigned version = dx.version();
    if (AV_VERSION_MAJOR(version) != LIBAVFORMAT_VERSION_MAJOR) {
        snprintf(demux_error, sizeof demux_error,
                 "the loaded libavformat is version %u, but cafconv was built with the headers of libavformat %d; rebuild cafconv",
                 AV_VERSION_MAJOR(version), LIBAVFORMAT_VERSION_MAJOR);
        return;
    }
    demux_status = 0;
}

static void demux_describe(int code, const char *doing, char *error, size_t size) {
    char text[128] = "unknown error";
    dx.strerror(code, text, sizeof text);
    if (error && size) snprintf(error, size, "libavformat %s: %s", doing, text);
}

static void demux_say(char *error, size_t size, const char *text) {
    if (error && size) snprintf(error, size, "%s", text);
}

struct cafconv_av_demuxer {
    AVFormatContext *format;
    AVBSFContext *filter;  // ADTS: aac_adtstoasc
    AVPacket *packet;
    int stream;
    int audio_streams;
    int ended;
    uint8_t config[64];  // ADTS: the AudioSpecificConfig the filter made (its first packet's side data)
    int config_size;
    int64_t frames;      // ADTS: the frames sent to the filter
    int adts_config;     // ADTS: the first frame's profile, rate index and channel configuration; -1 before it
};

// Opens the container: local files only (a playlist would make libavformat open other files or
// URLs a hostile input names), only the containers asked for.
// `ignore_edits`: MP4's edit list is not applied (timestamps and the stream's duration are the
// sample table's).
static int open_container(cafconv_av_demuxer *demuxer, const char *path, const char *formats, int ignore_edits,
                          char *error, size_t size) {
    AVDictionary *options = NULL;
    dx.dict_set(&options, "protocol_whitelist", "file", 0);
    dx.dict_set(&options, "format_whitelist", formats, 0);
    if (ignore_edits) dx.dict_set(&options, "ignore_editlist", "1", 0);
    size_t length = strlen(path);
    char *url = malloc(length + 6);
    if (!url) {
        dx.dict_free(&options);
        demux_say(error, size, "out of memory");
        return -1;
    }
    // "file:" first, so that a name with a colon is never taken for another protocol.
    memcpy(url, "file:", 5);
    memcpy(url + 5, path, length + 1);
    int status = dx.open_input(&demuxer->format, url, NULL, &options);
    free(url);
    dx.dict_free(&options);
    if (status < 0) {
        demux_describe(status, "cannot open it", error, size);
        return -1;
    }
    status = dx.find_stream_info(demuxer->format, NULL);
    if (status < 0) {
        demux_describe(status, "cannot read its streams", error, size);
        return -1;
    }
    for (unsigned index = 0; index < demuxer->format->nb_streams; index++)
        if (demuxer->format->streams[index]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) demuxer->audio_streams++;
    status = dx.find_best_stream(demuxer->format, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
    if (status < 0) {
        demux_say(error, size, "libavformat finds no audio stream in it");
        return -1;
    }
    demuxer->stream = status;
    return 0;
}

// ADTS: an ADTS header's profile, sampling frequency index and channel configuration as one
// number (9 bits), or -1 when the packet does not start with an ADTS header.
static int adts_config(const AVPacket *packet) {
    const uint8_t *b = packet->data;
    if (!b || packet->size < 7 || b[0] != 0xFF || (b[1] & 0xF6) != 0xF0) return -1;
    return (b[2] >> 2 & 0x3F) << 3 | (b[2] & 1) << 2 | b[3] >> 6;
}

// `config` (adts_config's number) in words: "AAC LC, 48000 Hz, 2 channels".
static void adts_describe(int config, char *text, size_t size) {
    static const int rates[13] = {96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350};
    static const char *profiles[4] = {"AAC Main", "AAC LC", "AAC SSR", "AAC LTP"};
    int index = config >> 3 & 15, channels = config & 7;
    char rate[32];
    if (index < 13) snprintf(rate, sizeof rate, "%d Hz", rates[index]);
    else snprintf(rate, sizeof rate, "rate index %d", index);
    if (channels == 0) snprintf(text, size, "%s, %s, channels set in the stream", profiles[config >> 7 & 3], rate);
    else snprintf(text, size, "%s, %s, %d channel%s", profiles[config >> 7 & 3], rate, channels == 7 ? 8 : channels, channels == 1 ? "" : "s");
}

// ADTS: refuses a frame cut short, whose header's frame_length (header included) runs past the
// bytes libavformat hands back (the file ends inside it): no decoder can decode its part.
static int adts_cut(const cafconv_av_demuxer *demuxer, int64_t frame, char *error, size_t size) {
    const uint8_t *b = demuxer->packet->data;
    int length = (b[3] & 3) << 11 | b[4] << 3 | b[5] >> 5;
    if (length <= demuxer->packet->size) return 0;
    char at[48] = "";
    if (demuxer->packet->pos >= 0) snprintf(at, sizeof at, " (at byte %lld)", (long long)demuxer->packet->pos);
    if (error && size)
        snprintf(error, size, "it is cut short: its ADTS frame %lld%s holds %d of the %d bytes its header says",
                 (long long)frame, at, demuxer->packet->size, length);
    return -1;
}

// ADTS: refuses a frame cut short (adts_cut), or whose header's profile, rate or channel
// configuration is not the first frame's (concatenated streams): the stream is one
// configuration, as a CAF's `desc` is.
static int adts_check(cafconv_av_demuxer *demuxer, char *error, size_t size) {
    int config = adts_config(demuxer->packet);
    int64_t frame = demuxer->frames++;
    if (config < 0) return 0;
    if (adts_cut(demuxer, frame, error, size) != 0) return -1;
    if (demuxer->adts_config < 0) demuxer->adts_config = config;
    if (config == demuxer->adts_config) return 0;
    char first[64], changed[64], at[48] = "";
    adts_describe(demuxer->adts_config, first, sizeof first);
    adts_describe(config, changed, sizeof changed);
    if (demuxer->packet->pos >= 0) snprintf(at, sizeof at, " (at byte %lld)", (long long)demuxer->packet->pos);
    if (error && size)
        snprintf(error, size, "its configuration changes at ADTS frame %lld%s, from %s to %s; cafconv reads one configuration a file: split it there",
                 (long long)frame, at, first, changed);
    return -1;
}

// ADTS: every frame's header is stripped and the AudioSpecificConfig made by `aac_adtstoasc`.
static int open_filter(cafconv_av_demuxer *demuxer, char *error, size_t size) {
    const AVBitStreamFilter *filter = dx.bsf_by_name("aac_adtstoasc");
    if (!filter) {
        demux_say(error, size, "this libavcodec has no 'aac_adtstoasc' filter, which reading ADTS needs");
        return -1;
    }
    int status = dx.bsf_alloc(filter, &demuxer->filter);
    AVStream *stream = demuxer->format->streams[demuxer->stream];
    if (status >= 0) status = dx.parameters_copy(demuxer->filter->par_in, stream->codecpar);
    if (status >= 0) {
        demuxer->filter->time_base_in = stream->time_base;
        status = dx.bsf_init(demuxer->filter);
    }
    if (status < 0) {
        demux_describe(status, "cannot open the ADTS filter", error, size);
        return -1;
    }
    return 0;
}

cafconv_av_demuxer *cafconv_av_demuxer_open(const char *path, const char *formats, char *error, size_t size) {
    pthread_once(&demux_once, demux_load);
    if (demux_status != 0) {
        demux_say(error, size, demux_error);
        return NULL;
    }
    cafconv_av_demuxer *demuxer = calloc(1, sizeof *demuxer);
    if (demuxer) demuxer->adts_config = -1;
    if (!demuxer || !(demuxer->packet = dx.packet_alloc())) {
        demux_say(error, size, "out of memory");
        cafconv_av_demuxer_close(demuxer);
        return NULL;
    }
    if (open_container(demuxer, path, formats, 0, error, size) != 0) {
        cafconv_av_demuxer_close(demuxer);
        return NULL;
    }
    const AVCodecParameters *parameters = demuxer->format->streams[demuxer->stream]->codecpar;
    if (parameters->codec_id == AV_CODEC_ID_AAC && strcmp(demuxer->format->iformat->name, "aac") == 0 &&
        open_filter(demuxer, error, size) != 0) {
        cafconv_av_demuxer_close(demuxer);
        return NULL;
    }
    return demuxer;
}

int64_t cafconv_av_demuxer_table_duration(const char *path, const char *formats) {
    pthread_once(&demux_once, demux_load);
    if (demux_status != 0) return -1;
    cafconv_av_demuxer *table = calloc(1, sizeof *table);
    if (!table) return -1;
    int64_t duration = -1;
    if (open_container(table, path, formats, 1, NULL, 0) == 0) {
        duration = table->format->streams[table->stream]->duration;
        if (duration == AV_NOPTS_VALUE || duration < 0) duration = -1;
    }
    cafconv_av_demuxer_close(table);
    return duration;
}

static const AVCodecParameters *parameters(const cafconv_av_demuxer *demuxer) {
    if (demuxer->filter) return demuxer->filter->par_out;
    return demuxer->format->streams[demuxer->stream]->codecpar;
}

const char *cafconv_av_demuxer_container(const cafconv_av_demuxer *demuxer) { return demuxer->format->iformat->name; }
const char *cafconv_av_demuxer_codec(const cafconv_av_demuxer *demuxer) { return dx.codec_name(parameters(demuxer)->codec_id); }
int cafconv_av_demuxer_channels(const cafconv_av_demuxer *demuxer) { return parameters(demuxer)->ch_layout.nb_channels; }
int cafconv_av_demuxer_rate(const cafconv_av_demuxer *demuxer) { return parameters(demuxer)->sample_rate; }
int64_t cafconv_av_demuxer_bit_rate(const cafconv_av_demuxer *demuxer) { return parameters(demuxer)->bit_rate; }
int cafconv_av_demuxer_audio_streams(const cafconv_av_demuxer *demuxer) { return demuxer->audio_streams; }
int64_t cafconv_av_demuxer_listed_packets(const cafconv_av_demuxer *demuxer) {
    int64_t listed = demuxer->format->streams[demuxer->stream]->nb_frames;
    return listed > 0 ? listed : 0;
}
int64_t cafconv_av_demuxer_indexed_packets(const cafconv_av_demuxer *demuxer) {
    return dx.index_count(demuxer->format->streams[demuxer->stream]);
}

int cafconv_av_demuxer_time_base(const cafconv_av_demuxer *demuxer, int *den) {
    AVRational base = demuxer->format->streams[demuxer->stream]->time_base;
    *den = base.den;
    return base.num;
}

int cafconv_av_demuxer_config(const cafconv_av_demuxer *demuxer, const uint8_t **bytes) {
    if (demuxer->config_size > 0) {
        *bytes = demuxer->config;
        return demuxer->config_size;
    }
    const AVCodecParameters *found = parameters(demuxer);
    *bytes = found->extradata;
    return found->extradata ? found->extradata_size : 0;
}

const char *cafconv_av_demuxer_tag(const cafconv_av_demuxer *demuxer, const char *key) {
    const AVDictionaryEntry *entry = dx.dict_get(demuxer->format->metadata, key, NULL, 0);
    if (!entry) entry = dx.dict_get(demuxer->format->streams[demuxer->stream]->metadata, key, NULL, 0);
    return entry ? entry->value : NULL;
}

int cafconv_av_demuxer_tag_at(const cafconv_av_demuxer *demuxer, int index, const char **key, const char **value) {
    const AVDictionaryEntry *entry = NULL;
    for (int at = 0; at <= index; at++) {
        entry = dx.dict_get(demuxer->format->metadata, "", entry, AV_DICT_IGNORE_SUFFIX);
        if (!entry) return -1;
    }
    *key = entry->key;
    *value = entry->value;
    return 0;
}

static void fill(cafconv_av_demuxer *demuxer, const AVPacket *source, cafconv_av_packet *packet) {
    size_t made = 0;
    const uint8_t *config = dx.side_data(source, AV_PKT_DATA_NEW_EXTRADATA, &made);
    if (config && made > 0 && made <= sizeof demuxer->config && demuxer->config_size == 0) {
        memcpy(demuxer->config, config, made);
        demuxer->config_size = (int)made;
    }
    packet->bytes = source->data;
    packet->size = source->size;
    packet->pts = source->pts == AV_NOPTS_VALUE ? INT64_MIN : source->pts;
    packet->duration = source->duration;
    packet->discard = (source->flags & AV_PKT_FLAG_DISCARD) != 0;
    packet->corrupt = (source->flags & AV_PKT_FLAG_CORRUPT) != 0;
    packet->position = source->pos;
    packet->skip_start = 0;
    packet->skip_end = 0;
    size_t count = 0;
    const uint8_t *skip = dx.side_data(source, AV_PKT_DATA_SKIP_SAMPLES, &count);
    if (skip && count >= 8) {
        packet->skip_start = (int64_t)((uint32_t)skip[0] | (uint32_t)skip[1] << 8 | (uint32_t)skip[2] << 16 | (uint32_t)skip[3] << 24);
        packet->skip_end = (int64_t)((uint32_t)skip[4] | (uint32_t)skip[5] << 8 | (uint32_t)skip[6] << 16 | (uint32_t)skip[7] << 24);
    }
}

int cafconv_av_demuxer_next(cafconv_av_demuxer *demuxer, cafconv_av_packet *packet, char *error, size_t size) {
    while (1) {
        dx.packet_unref(demuxer->packet);
        if (demuxer->filter) {
            int status = dx.bsf_receive(demuxer->filter, demuxer->packet);
            if (status >= 0) {
                fill(demuxer, demuxer->packet, packet);
                return 1;
            }
            if (status == AVERROR_EOF) return 0;
            if (status != AVERROR(EAGAIN)) {
                demux_describe(status, "cannot take an ADTS frame apart", error, size);
                return -1;
            }
        }
        if (demuxer->ended) return 0;
        int status = dx.read_frame(demuxer->format, demuxer->packet);
        if (status == AVERROR_EOF) {
            demuxer->ended = 1;
            if (demuxer->filter) dx.bsf_send(demuxer->filter, NULL);
            continue;
        }
        if (status < 0) {
            demux_describe(status, "cannot read a packet", error, size);
            return -1;
        }
        if (demuxer->packet->stream_index != demuxer->stream) continue;
        if (!demuxer->filter) {
            fill(demuxer, demuxer->packet, packet);
            return 1;
        }
        if (adts_check(demuxer, error, size) != 0) return -1;
        status = dx.bsf_send(demuxer->filter, demuxer->packet);
        if (status < 0) {
            demux_describe(status, "cannot take an ADTS frame apart", error, size);
            return -1;
        }
    }
}

void cafconv_av_demuxer_close(cafconv_av_demuxer *demuxer) {
    if (!demuxer) return;
    if (demuxer->packet) dx.packet_free(&demuxer->packet);
    if (demuxer->filter) dx.bsf_free(&demuxer->filter);
    if (demuxer->format) dx.close_input(&demuxer->format);
    free(demuxer);
}

#else  // built without the libavformat headers

static const char *no_demuxer = "cafconv was built without the libavformat headers, so it cannot read MP4 or ADTS; install the Debian package libavformat-dev and rebuild";

cafconv_av_demuxer *cafconv_av_demuxer_open(const char *path, const char *formats, char *error, size_t size) {
    (void)path; (void)formats;
    if (error && size) snprintf(error, size, "%s", no_demuxer);
    return NULL;
}
const char *cafconv_av_demuxer_container(const cafconv_av_demuxer *demuxer) { (void)demuxer; return ""; }
const char *cafconv_av_demuxer_codec(const cafconv_av_demuxer *demuxer) { (void)demuxer; return ""; }
int cafconv_av_demuxer_channels(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int cafconv_av_demuxer_rate(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int64_t cafconv_av_demuxer_bit_rate(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int cafconv_av_demuxer_audio_streams(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int64_t cafconv_av_demuxer_listed_packets(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int64_t cafconv_av_demuxer_indexed_packets(const cafconv_av_demuxer *demuxer) { (void)demuxer; return 0; }
int cafconv_av_demuxer_time_base(const cafconv_av_demuxer *demuxer, int *den) { (void)demuxer; *den = 1; return 0; }
int cafconv_av_demuxer_config(const cafconv_av_demuxer *demuxer, const uint8_t **bytes) { (void)demuxer; *bytes = NULL; return 0; }
const char *cafconv_av_demuxer_tag(const cafconv_av_demuxer *demuxer, const char *key) { (void)demuxer; (void)key; return NULL; }
int cafconv_av_demuxer_tag_at(const cafconv_av_demuxer *demuxer, int index, const char **key, const char **value) {
    (void)demuxer; (void)index; (void)key; (void)value;
    return -1;
}
int cafconv_av_demuxer_next(cafconv_av_demuxer *demuxer, cafconv_av_packet *packet, char *error, size_t size) {
    (void)demuxer; (void)packet;
    if (error && size) snprintf(error, size, "%s", no_demuxer);
    return -1;
}
void cafconv_av_demuxer_close(cafconv_av_demuxer *demuxer) { (void)demuxer; }
int64_t cafconv_av_demuxer_table_duration(const char *path, const char *formats) { (void)path; (void)formats; return -1; }

#endif
