/* WAV files for lip sync (issue 26): decoded with libsndfile into the float samples the Cubism
 * samples' WAV handler (LAppWavFileHandler) makes, which crowd_lipsync_rms takes.
 *
 * Accepted: RIFF/WAVE with 8-bit unsigned, 16-bit or 24-bit linear PCM (what the handler reads;
 * WAVE_FORMAT_EXTENSIBLE holding those too), any channel count and rate. A sample s of b bits,
 * widened to 32 (s << (32 - b), 8-bit as (u - 128) << 24), becomes (float)(s / 2147483647.0).
 * Refused with TOOL_BAD_INPUT, naming the file, the byte offset and the value: not a RIFF/WAVE
 * file, a chunk or the data running past the end of the file (truncated), an unsupported
 * encoding (float, 32-bit, compressed), no fmt or data chunk, 0 channels or rate; and, as every
 * input (tools/files.h), a file that is not regular or is larger than tool_max_file_bytes. */
#ifndef CROWD_TOOLS_WAV_H
#define CROWD_TOOLS_WAV_H

#include <stddef.h>
#include <stdint.h>

typedef struct wav_audio {
    float *samples; /* frames * channels, interleaved */
    size_t frames;
    uint32_t channels, rate, bits;
} wav_audio;

/* Reads path into *out (untouched on error; free with wav_free). TOOL_OK, TOOL_BAD_INPUT or
 * TOOL_FAILED (out of memory, or libsndfile failing on a file the checks passed). */
int wav_read(const char *path, wav_audio *out);
void wav_free(wav_audio *w);

/* The handler's block for a frame: after `seconds` of playback in total, samples up to
 * floor(seconds * rate) (at most frames) have been consumed; the frame's block is
 * [*offset, that), and *offset moves there. Returns the block's frame count (0 at the end, where
 * the handler's level is 0). */
size_t wav_block(const wav_audio *w, double seconds, size_t *offset);

#endif
