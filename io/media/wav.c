#include "wav.h"

#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"

static uint32_t le32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Four bytes as text for a message: printable ones as they are, others as \xNN. */
static void show_tag(const unsigned char *b, char out[20]) {
    char *o = out;
    for (int i = 0; i < 4; i++) o += (b[i] >= 32 && b[i] < 127 && b[i] != '"') ? sprintf(o, "%c", b[i]) : sprintf(o, "\\x%02x", b[i]);
}

/* The RIFF structure, checked before libsndfile decodes: the header, every chunk inside the
 * file, a fmt chunk with a linear PCM encoding the handler reads, and a data chunk. */
static int check_structure(const char *path, FILE *f, uint64_t size) {
    unsigned char h[12];
    char tag[20];
    if (fread(h, 1, 12, f) != 12 || memcmp(h, "RIFF", 4) != 0 || memcmp(h + 8, "WAVE", 4) != 0) {
        if (size < 12) return tool_error(TOOL_BAD_INPUT, "%s: not a WAV file: %llu bytes, shorter than a RIFF/WAVE header", path, (unsigned long long)size);
        int at = memcmp(h, "RIFF", 4) != 0 ? 0 : 8;
        show_tag(h + at, tag);
        return tool_error(TOOL_BAD_INPUT, "%s: not a WAV file: byte %d: expected \"%s\", found \"%s\"", path, at,
                          at ? "WAVE" : "RIFF", tag);
    }
    uint64_t at = 12;
    int have_fmt = 0;
    for (;;) {
        unsigned char c[8];
        if (at + 8 > size) {
            if (at < size) return tool_error(TOOL_BAD_INPUT, "%s: truncated: byte %llu: a chunk header needs 8 bytes, the file ends at byte %llu", path, (unsigned long long)at, (unsigned long long)size);
            return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: no \"data\" chunk before the end of the file", path, (unsigned long long)at);
        }
        if (fseek(f, (long)at, SEEK_SET) != 0 || fread(c, 1, 8, f) != 8)
            return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: read error", path, (unsigned long long)at);
        uint64_t len = le32(c + 4);
        show_tag(c, tag);
        if (at + 8 + len > size)
            return tool_error(TOOL_BAD_INPUT, "%s: truncated: byte %llu: chunk \"%s\" declares %llu bytes, the file ends %llu bytes after its header", path,
                              (unsigned long long)at, tag, (unsigned long long)len, (unsigned long long)(size - at - 8));
        if (memcmp(c, "fmt ", 4) == 0) {
            unsigned char fmt[40] = {0};
            if (len < 16) return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: the fmt chunk holds %llu bytes, at least 16 expected", path, (unsigned long long)at, (unsigned long long)len);
            if (fread(fmt, 1, len < 40 ? (size_t)len : 40, f) != (len < 40 ? (size_t)len : 40))
                return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: read error", path, (unsigned long long)at + 8);
            unsigned tagv = fmt[0] | fmt[1] << 8, channels = fmt[2] | fmt[3] << 8, bits = fmt[14] | fmt[15] << 8;
            uint32_t rate = le32(fmt + 4);
            if (tagv == 0xFFFE && len >= 40) tagv = fmt[24] | fmt[25] << 8; /* extensible: its sub-format */
            if (tagv != 1)
                return tool_error(TOOL_BAD_INPUT, "%s: unsupported encoding: byte %llu: format tag %u (the handler reads linear PCM, tag 1)", path, (unsigned long long)at + 8, tagv);
            if (bits != 8 && bits != 16 && bits != 24)
                return tool_error(TOOL_BAD_INPUT, "%s: unsupported encoding: byte %llu: %u bits per sample (8, 16 or 24 are read)", path, (unsigned long long)at + 22, bits);
            if (channels == 0) return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: 0 channels", path, (unsigned long long)at + 10);
            if (rate == 0) return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: a sample rate of 0", path, (unsigned long long)at + 12);
            have_fmt = 1;
        } else if (memcmp(c, "data", 4) == 0) {
            if (!have_fmt) return tool_error(TOOL_BAD_INPUT, "%s: byte %llu: a data chunk before any fmt chunk", path, (unsigned long long)at);
            return TOOL_OK;
        }
        at += 8 + len + (len & 1); /* chunks are word aligned */
    }
}

int wav_read(const char *path, wav_audio *out) {
    FILE *f;
    int st = tool_open_file(path, "WAV file", &f);
    if (st != TOOL_OK) return st;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return tool_error(TOOL_BAD_INPUT, "%s: cannot seek", path);
    }
    uint64_t size = (uint64_t)ftell(f);
    rewind(f);
    st = check_structure(path, f, size);
    fclose(f);
    if (st != TOOL_OK) return st;

    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    if (!sf) return tool_error(TOOL_BAD_INPUT, "%s: libsndfile: %s", path, sf_strerror(NULL));
    int sub = info.format & SF_FORMAT_SUBMASK;
    uint32_t bits = sub == SF_FORMAT_PCM_U8 ? 8 : sub == SF_FORMAT_PCM_16 ? 16 : sub == SF_FORMAT_PCM_24 ? 24 : 0;
    if ((info.format & SF_FORMAT_TYPEMASK) != SF_FORMAT_WAV || bits == 0 || info.channels <= 0 || info.samplerate <= 0 ||
        info.frames < 0) {
        sf_close(sf);
        return tool_error(TOOL_BAD_INPUT, "%s: unsupported encoding: libsndfile format 0x%x (8, 16 or 24-bit linear PCM WAV is read)", path, (unsigned)info.format);
    }
    size_t frames = (size_t)info.frames, channels = (size_t)info.channels;
    int32_t *raw = frames ? tool_calloc(frames * channels, sizeof *raw) : NULL;
    float *samples = tool_calloc(frames * channels + 1, sizeof *samples);
    if ((frames && !raw) || !samples) {
        free(raw);
        free(samples);
        sf_close(sf);
        return TOOL_FAILED;
    }
    /* libsndfile reads integer PCM as ints left-justified to 32 bits (8-bit unsigned as
     * (u - 128) << 24): the handler's pcm32 */
    sf_count_t got = frames ? sf_readf_int(sf, raw, (sf_count_t)frames) : 0;
    sf_close(sf);
    if (got != (sf_count_t)frames) {
        free(raw);
        free(samples);
        return tool_error(TOOL_BAD_INPUT, "%s: truncated: %lld of %zu frames could be read", path, (long long)got, frames);
    }
    for (size_t i = 0; i < frames * channels; i++) samples[i] = (float)((double)raw[i] / 2147483647.0);
    free(raw);
    *out = (wav_audio){.samples = samples, .frames = frames, .channels = (uint32_t)channels,
                       .rate = (uint32_t)info.samplerate, .bits = bits};
    return TOOL_OK;
}

void wav_free(wav_audio *w) {
    if (!w) return;
    free(w->samples);
    memset(w, 0, sizeof *w);
}

size_t wav_block(const wav_audio *w, double seconds, size_t *offset) {
    if (*offset >= w->frames) return 0;
    double goal = floor(seconds * (double)w->rate);
    size_t g = goal >= (double)w->frames ? w->frames : goal <= (double)*offset ? *offset : (size_t)goal;
    size_t n = g - *offset;
    *offset = g;
    return n;
}
