#ifndef CAFCONV_CAVCODEC_H
#define CAFCONV_CAVCODEC_H
#include <stddef.h>
#include <stdint.h>

// cafconv's AAC codec: libavcodec's native AAC encoder and decoder, loaded with dlopen(3) at the
// first call of cafconv_av_load (never linked: a process that converts PCM does not map it). The
// functions are resolved with dlsym(3); the structures are laid out by the libavcodec headers
// cafconv was built with, so the loaded library must have the headers' major version. Nothing of
// libavcodec appears in this header: Swift sees only these opaque handles.

/// Loads libavcodec and libavutil (once per process; later calls return the first result).
/// Returns 0, or -1 with a sentence in `error` naming the library and the Debian package.
int cafconv_av_load(char *error, size_t size);

/// The loaded libavcodec's version, e.g. "59.37.100" (empty before a successful load).
const char *cafconv_av_version(void);

/// The file name of the libavcodec cafconv loads (libavcodec.so.MAJOR of the build's headers),
/// or an empty string when it was built without the libavcodec headers.
const char *cafconv_av_library_name(void);

/// An AAC-LC encoder (libavcodec's native `aac`) for interleaved float samples.
typedef struct cafconv_aac_encoder cafconv_aac_encoder;

/// Opens an encoder for `channels` channels at `sample_rate` Hz and `bit_rate` bits per second
/// (all channels together). NULL with a sentence in `error` on failure.
cafconv_aac_encoder *cafconv_aac_encoder_open(int sample_rate, int channels, int64_t bit_rate, char *error, size_t size);

/// The encoder's delay in frames (the priming frames a decoder must drop).
int cafconv_aac_encoder_priming(const cafconv_aac_encoder *encoder);

/// Frames per packet (1024 for AAC-LC).
int cafconv_aac_encoder_frame_size(const cafconv_aac_encoder *encoder);

/// The AudioSpecificConfig bytes; returns their count and sets `*bytes`.
int cafconv_aac_encoder_config(const cafconv_aac_encoder *encoder, const uint8_t **bytes);

/// Takes up to `frames` interleaved frames (`frames * channels` floats in [-1, 1]) and returns how
/// many it took (it stops after handing one whole packet's frames to the encoder: drain packets
/// with cafconv_aac_encoder_receive, then send the rest). `samples` NULL ends the stream: the
/// frames held are encoded and the encoder is flushed. -1 with `error` set on failure.
int cafconv_aac_encoder_send(cafconv_aac_encoder *encoder, const float *samples, int frames, char *error, size_t size);

/// The next packet: its byte count (>= 0) with `*bytes` set (valid until the next call), -1 when
/// the encoder needs more frames, -2 at the end of the stream, -3 with `error` set on failure.
int cafconv_aac_encoder_receive(cafconv_aac_encoder *encoder, const uint8_t **bytes, char *error, size_t size);

/// Frees the encoder (NULL is fine).
void cafconv_aac_encoder_close(cafconv_aac_encoder *encoder);

/// An AAC decoder (libavcodec's native `aac`) producing interleaved floats.
typedef struct cafconv_aac_decoder cafconv_aac_decoder;

/// Opens a decoder for the AudioSpecificConfig `config` (from the `kuki`'s ES_Descriptor).
/// NULL with a sentence in `error` on failure.
cafconv_aac_decoder *cafconv_aac_decoder_open(const uint8_t *config, int config_size, int sample_rate, int channels, char *error, size_t size);

/// Hands one packet to the decoder; `packet` NULL ends the stream. 0, or -1 with `error` set.
/// Drain frames with cafconv_aac_decoder_receive after every packet.
int cafconv_aac_decoder_send(cafconv_aac_decoder *decoder, const uint8_t *packet, int size, char *error, size_t error_size);

/// Decodes the next frame block: returns its frame count (>= 0; copy it out with
/// cafconv_aac_decoder_take), -1 when the decoder needs another packet, -2 at the end, -3 with
/// `error` set on failure (including output of a channel count other than the one opened).
int cafconv_aac_decoder_receive(cafconv_aac_decoder *decoder, char *error, size_t size);

/// Copies the block the last receive returned into `out` as interleaved floats (frames x channels).
void cafconv_aac_decoder_take(cafconv_aac_decoder *decoder, float *out);

/// Frees the decoder (NULL is fine).
void cafconv_aac_decoder_close(cafconv_aac_decoder *decoder);

/// A whole-file decoder: libavformat finds the file's first audio stream, libavcodec decodes it to
/// the end. The second decoder of sources libsndfile reads (MP3, Ogg Vorbis and Opus, FLAC), and
/// the only one of lossless sources libsndfile refuses (12-bit FLAC...). libavformat is loaded
/// with dlopen at the first call of cafconv_av_reader_open, like libavcodec.
typedef struct cafconv_av_reader cafconv_av_reader;

/// Opens `path` and its first audio stream's decoder (frame CRCs checked where the codec has
/// them). NULL with a sentence in `error` when libavformat cannot load, open or decode it.
cafconv_av_reader *cafconv_av_reader_open(const char *path, char *error, size_t size);

/// Channels, sample rate, libavcodec's codec name (`mp3`, `flac`, `vorbis`, `opus`...).
int cafconv_av_reader_channels(const cafconv_av_reader *reader);
int cafconv_av_reader_rate(const cafconv_av_reader *reader);
const char *cafconv_av_reader_codec(const cafconv_av_reader *reader);
/// The stream's length in frames as the container states it (an Ogg stream's last granule
/// position, less the pre-skip), or -1 when it does not say.
int64_t cafconv_av_reader_stated_frames(const cafconv_av_reader *reader);
/// Whether samples come as floats (`read` fills `doubles`) rather than integers (`ints`).
int cafconv_av_reader_is_float(const cafconv_av_reader *reader);
/// Bits of the decoded integer container (8, 16 or 32), or 32/64 for floats.
int cafconv_av_reader_container_bits(const cafconv_av_reader *reader);
/// Bits the stream says it codes (12 for a 12-bit FLAC; 0 when it does not say).
int cafconv_av_reader_raw_bits(const cafconv_av_reader *reader);

/// Reads up to `frames` interleaved frames into `ints` (integers left-justified in 32 bits, as
/// libsndfile's sf_read_int gives them) or `doubles` (floats, full scale 1.0). Returns the count,
/// 0 at the end, -1 with `error` set when the file cannot be read. A packet that fails to decode
/// (a CRC error, a damaged frame) is skipped, as ffmpeg does, and recorded (see below).
int cafconv_av_reader_read(cafconv_av_reader *reader, int32_t *ints, double *doubles, int frames, char *error, size_t size);

/// Packets that failed to decode so far, and where the first few were: the frame the decoding
/// had reached and the packet's byte offset in the file (-1 when unknown).
int64_t cafconv_av_reader_damaged(const cafconv_av_reader *reader);
int cafconv_av_reader_damage_at(const cafconv_av_reader *reader, int index, int64_t *frame, int64_t *byte);

/// Frees the reader (NULL is fine).
void cafconv_av_reader_close(cafconv_av_reader *reader);

#include "CAVDemux.h"

#endif
