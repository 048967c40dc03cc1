// libopus's encoder and decoder, reached through dlopen(3) (libopus.so.0, Debian libopus0; the
// header <opus/opus.h> is Debian libopus-dev) on first use, never linked. Without the header this
// builds a stub whose load fails, saying so. No logic here: one trampoline per call, and the
// variadic control calls spelled out for the requests cafconv makes.
#ifndef CAFCONV_COPUS_H
#define CAFCONV_COPUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct cafconv_opus_encoder cafconv_opus_encoder;
typedef struct cafconv_opus_decoder cafconv_opus_decoder;

// Loads libopus once: NULL when it is usable, else why not (a sentence that lives as long as the
// process).
const char *cafconv_opus_load(void);
// libopus's version string ("libopus 1.3.1"); call after a successful load.
const char *cafconv_opus_version(void);
// libopus's sentence for an error code; call after a successful load.
const char *cafconv_opus_strerror(int code);

// An encoder at `rate` (8000, 12000, 16000, 24000, 48000) for `channels` (1, 2), `application`
// (2048 VOIP, 2049 AUDIO, 2051 RESTRICTED_LOWDELAY), `bitrate` bits per second (-1000: OPUS_AUTO),
// `vbr` 0 (hard CBR) or 1 (VBR), `constrained` 1 (constrained VBR) or 0. NULL with libopus's
// error code in `*error` when it cannot be made.
cafconv_opus_encoder *cafconv_opus_encoder_create(int rate, int channels, int application, int bitrate, int vbr,
                                                  int constrained, int *error);
void cafconv_opus_encoder_destroy(cafconv_opus_encoder *encoder);
// OPUS_GET_LOOKAHEAD: the frames of delay the decoder's output starts with (the pre-skip); < 0 on error.
int cafconv_opus_encoder_lookahead(cafconv_opus_encoder *encoder);
// Encodes one frame of `frames` interleaved floats per channel into `packet` (`capacity` bytes):
// the packet's bytes, or a negative libopus error code.
int cafconv_opus_encode_float(cafconv_opus_encoder *encoder, const float *pcm, int frames, unsigned char *packet,
                              int capacity);

// A decoder at `rate` for `channels`; NULL with the error code in `*error`.
cafconv_opus_decoder *cafconv_opus_decoder_create(int rate, int channels, int *error);
void cafconv_opus_decoder_destroy(cafconv_opus_decoder *decoder);
// Decodes one packet into `pcm` (room for `frames` frames, interleaved): the frames decoded, or a
// negative libopus error code.
int cafconv_opus_decode_float(cafconv_opus_decoder *decoder, const unsigned char *packet, int bytes, float *pcm,
                              int frames);
// The frames one packet holds at `rate` (opus_packet_get_nb_samples), or a negative error code.
int cafconv_opus_packet_frames(const unsigned char *packet, int bytes, int rate);

#endif
