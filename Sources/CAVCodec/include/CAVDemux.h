#ifndef CAFCONV_CAVDEMUX_H
#define CAFCONV_CAVDEMUX_H
#include <stddef.h>
#include <stdint.h>

// A packet demuxer: libavformat (loaded with dlopen at the first open, like libavcodec) hands out
// the packets of a file's audio stream as they are stored, never decoded. ADTS frames pass
// through libavcodec's `aac_adtstoasc` filter, so every packet is a raw AAC access unit and the
// AudioSpecificConfig is known, as in MP4. Memory: one packet at a time (libavformat keeps an
// MP4's sample tables, which are part of the file).

typedef struct cafconv_av_demuxer cafconv_av_demuxer;

/// Opens `path` (a local file of the containers in `formats`, a comma-separated list of
/// libavformat's names such as "mov,aac") and its best audio stream. NULL with a sentence in
/// `error` when libavformat cannot load or read it, or it holds no audio stream.
cafconv_av_demuxer *cafconv_av_demuxer_open(const char *path, const char *formats, char *error, size_t size);

/// libavformat's name of the container ("mov,mp4,m4a,3gp,3g2,mj2", "aac") and of the codec
/// ("aac", "alac", "mp3"...).
const char *cafconv_av_demuxer_container(const cafconv_av_demuxer *demuxer);
const char *cafconv_av_demuxer_codec(const cafconv_av_demuxer *demuxer);
/// Channels, sample rate, bit rate the container states (0: not stated), audio streams in the file.
int cafconv_av_demuxer_channels(const cafconv_av_demuxer *demuxer);
int cafconv_av_demuxer_rate(const cafconv_av_demuxer *demuxer);
int64_t cafconv_av_demuxer_bit_rate(const cafconv_av_demuxer *demuxer);
int cafconv_av_demuxer_audio_streams(const cafconv_av_demuxer *demuxer);
/// The packets the container's index lists (an MP4's sample table), 0 when it does not say.
int64_t cafconv_av_demuxer_listed_packets(const cafconv_av_demuxer *demuxer);
/// The packets libavformat's index of the stream holds so far: after the last packet, those
/// every fragment's `trun` listed in a fragmented MP4 (whose sample table lists none).
int64_t cafconv_av_demuxer_indexed_packets(const cafconv_av_demuxer *demuxer);
/// The best audio stream's duration in its time base as its sample table gives it, the edit list
/// not applied (a second opening of `path` with libavformat's `ignore_editlist`); -1 when it
/// cannot be opened or does not say.
int64_t cafconv_av_demuxer_table_duration(const char *path, const char *formats);
/// The stream's time base (timestamps are multiples of num/den seconds).
int cafconv_av_demuxer_time_base(const cafconv_av_demuxer *demuxer, int *den);
/// The codec's configuration (an AAC AudioSpecificConfig); its byte count, `*bytes` set.
int cafconv_av_demuxer_config(const cafconv_av_demuxer *demuxer, const uint8_t **bytes);
/// The container's (or the stream's) metadata value for `key` (NULL when absent), and the
/// `index`th key and value (0 when there is one, -1 past the end).
const char *cafconv_av_demuxer_tag(const cafconv_av_demuxer *demuxer, const char *key);
int cafconv_av_demuxer_tag_at(const cafconv_av_demuxer *demuxer, int index, const char **key, const char **value);

/// One packet as stored.
typedef struct {
    const uint8_t *bytes;  // valid until the next call
    int size;
    int64_t pts;           // INT64_MIN when unknown
    int64_t duration;      // 0 when unknown
    int discard;           // the container marks it decoded but not presented (before an edit)
    int corrupt;           // libavformat marks it damaged (AV_PKT_FLAG_CORRUPT: the file ends inside it)
    int64_t position;      // its byte offset in the file, -1 when unknown
    int64_t skip_start;    // frames to drop at its start (libavformat's skip-samples side data)
    int64_t skip_end;      // frames to drop at its end
} cafconv_av_packet;

/// The next packet of the stream: 1 with `*packet` filled, 0 at the end, -1 with `error` set
/// (also for an ADTS frame whose header changes the first frame's profile, rate or channels, or
/// that the file's end cuts short of its header's frame_length).
int cafconv_av_demuxer_next(cafconv_av_demuxer *demuxer, cafconv_av_packet *packet, char *error, size_t size);

/// Frees the demuxer (NULL is fine).
void cafconv_av_demuxer_close(cafconv_av_demuxer *demuxer);

#endif
