#include "gif_out.h"

#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"

#define BINS 32768u
#define TRANSPARENT 255

static uint16_t bin_of(uint8_t r, uint8_t g, uint8_t b) {
    return (uint16_t)((uint32_t)(r >> 3) << 10 | (uint32_t)(g >> 3) << 5 | (uint32_t)(b >> 3));
}

int gif_begin(gif_clip *g, uint32_t width, uint32_t height, uint32_t frames) {
    memset(g, 0, sizeof *g);
    double bytes = (double)width * height * frames * 2.0;
    if (bytes > (double)GIF_MAX_BYTES)
        return tool_error(TOOL_BAD_INPUT, "render: --gif: %u frames of %ux%u take %.0f MiB; at most %u MiB (fewer "
                          "--frames or a smaller --size)", frames, width, height, bytes / 1048576.0,
                          GIF_MAX_BYTES >> 20);
    g->width = width;
    g->height = height;
    g->frames = frames;
    g->bins = tool_malloc((size_t)width * height * frames * sizeof *g->bins);
    g->sum = tool_calloc(BINS * 4, sizeof *g->sum);
    if (!g->bins || !g->sum) {
        gif_free(g);
        return TOOL_FAILED;
    }
    return TOOL_OK;
}

void gif_add(gif_clip *g, const canvas *c) {
    if (g->added >= g->frames) return;
    size_t n = (size_t)g->width * g->height;
    uint16_t *out = g->bins + n * g->added++;
    const uint8_t *p = c->pixels;
    for (size_t k = 0; k < n; k++, p += 3) {
        uint16_t b = bin_of(p[0], p[1], p[2]);
        out[k] = b;
        uint64_t *s = &g->sum[(size_t)b * 4];
        s[0] += p[0], s[1] += p[1], s[2] += p[2], s[3]++;
    }
}

void gif_free(gif_clip *g) {
    free(g->bins);
    free(g->sum);
    memset(g, 0, sizeof *g);
}

typedef struct by_count {
    uint64_t count;
    uint16_t bin;
} by_count;

static int most_first(const void *a, const void *b) {
    const by_count *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return (x->bin > y->bin) - (x->bin < y->bin);
}

/* The palette (at most 255 colours) and each bin's entry. */
static uint32_t build_palette(const gif_clip *g, const rgb *exact, uint32_t exact_count, GifColorType pal[256],
                              uint8_t *lut) {
    static by_count order[BINS];
    uint8_t taken[BINS] = {0};
    uint32_t n = 0;
    for (uint32_t k = 0; k < exact_count && n < 255; k++) {
        uint16_t b = bin_of(exact[k].r, exact[k].g, exact[k].b);
        if (taken[b]) continue;
        taken[b] = 1;
        pal[n] = (GifColorType){exact[k].r, exact[k].g, exact[k].b};
        lut[b] = (uint8_t)n++;
    }
    uint32_t used = 0;
    for (uint32_t b = 0; b < BINS; b++)
        if (g->sum[b * 4 + 3] && !taken[b]) order[used++] = (by_count){g->sum[b * 4 + 3], (uint16_t)b};
    qsort(order, used, sizeof *order, most_first);
    for (uint32_t k = 0; k < used && n < 255; k++) {
        const uint64_t *s = &g->sum[(size_t)order[k].bin * 4];
        pal[n] = (GifColorType){(uint8_t)((s[0] + s[3] / 2) / s[3]), (uint8_t)((s[1] + s[3] / 2) / s[3]),
                                (uint8_t)((s[2] + s[3] / 2) / s[3])};
        taken[order[k].bin] = 1;
        lut[order[k].bin] = (uint8_t)n++;
    }
    /* every other bin that occurs: the nearest entry to its mean colour */
    for (uint32_t k = 0; k < used; k++) {
        uint16_t b = order[k].bin;
        if (taken[b]) continue;
        const uint64_t *s = &g->sum[(size_t)b * 4];
        int r = (int)(s[0] / s[3]), gg = (int)(s[1] / s[3]), bb = (int)(s[2] / s[3]);
        int best = 0, best_d = 1 << 30;
        for (uint32_t e = 0; e < n; e++) {
            int dr = r - pal[e].Red, dg = gg - pal[e].Green, db = bb - pal[e].Blue;
            int d = 2 * dr * dr + 4 * dg * dg + 3 * db * db; /* (eyes weigh green most) */
            if (d < best_d) best_d = d, best = (int)e;
        }
        lut[b] = (uint8_t)best;
    }
    for (uint32_t e = n; e < 256; e++) pal[e] = (GifColorType){0, 0, 0};
    return n;
}

static int put_frame(GifFileType *gif, const uint8_t *cur, const uint8_t *prev, uint32_t width, uint32_t height,
                     int delay, uint8_t *line) {
    uint32_t x0 = 0, y0 = 0, x1 = width, y1 = height; /* [x0, x1) x [y0, y1) */
    if (prev) {
        x0 = width, y0 = height, x1 = 0, y1 = 0;
        for (uint32_t y = 0; y < height; y++)
            for (uint32_t x = 0; x < width; x++)
                if (cur[(size_t)y * width + x] != prev[(size_t)y * width + x]) {
                    if (x < x0) x0 = x;
                    if (x >= x1) x1 = x + 1;
                    if (y < y0) y0 = y;
                    if (y >= y1) y1 = y + 1;
                }
        if (x1 == 0) x0 = 0, y0 = 0, x1 = 1, y1 = 1; /* nothing changed: one transparent pixel */
    }
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT, .UserInputFlag = false, .DelayTime = delay,
                                .TransparentColor = prev ? TRANSPARENT : NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    size_t len = EGifGCBToExtension(&gcb, ext);
    if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) != GIF_OK) return GIF_ERROR;
    if (EGifPutImageDesc(gif, (int)x0, (int)y0, (int)(x1 - x0), (int)(y1 - y0), false, NULL) != GIF_OK) return GIF_ERROR;
    for (uint32_t y = y0; y < y1; y++) {
        for (uint32_t x = x0; x < x1; x++) {
            size_t k = (size_t)y * width + x;
            line[x - x0] = prev && cur[k] == prev[k] ? TRANSPARENT : cur[k];
        }
        if (EGifPutLine(gif, line, (int)(x1 - x0)) != GIF_OK) return GIF_ERROR;
    }
    return GIF_OK;
}

int gif_write(const gif_clip *g, const char *path, double fps, const rgb *exact, uint32_t exact_count) {
    size_t n = (size_t)g->width * g->height;
    uint8_t *lut = tool_calloc(BINS, 1);
    uint8_t *cur = tool_malloc(n), *prev = tool_malloc(n), *line = tool_malloc(g->width);
    ColorMapObject *map = NULL;
    GifFileType *gif = NULL;
    int st = TOOL_FAILED, err = 0;
    if (!lut || !cur || !prev || !line) goto done;
    GifColorType pal[256];
    build_palette(g, exact, exact_count, pal, lut);
    if (!(map = GifMakeMapObject(256, pal))) {
        tool_error(TOOL_FAILED, "out of memory");
        goto done;
    }
    /* the temporary is created exclusively beside the target (no symlink followed, SPEC 6);
     * giflib writes through a duplicate of its descriptor and closes that */
    tool_output out;
    if (tool_output_open(&out, path, "GIF") != TOOL_OK) goto done;
    int fd = dup(fileno(out.f));
    if (fd < 0 || !(gif = EGifOpenFileHandle(fd, &err))) {
        if (fd >= 0) close(fd);
        tool_output_abort(&out);
        tool_error(TOOL_FAILED, "%s: cannot write the GIF: %s", path, fd < 0 ? strerror(errno) : GifErrorString(err));
        goto done;
    }
    EGifSetGifVersion(gif, true);
    bool ok = EGifPutScreenDesc(gif, (int)g->width, (int)g->height, 8, 0, map) == GIF_OK;
    static const GifByteType loop[3] = {1, 0, 0}; /* loop forever */
    ok = ok && EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
         EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") == GIF_OK && EGifPutExtensionBlock(gif, 3, loop) == GIF_OK &&
         EGifPutExtensionTrailer(gif) == GIF_OK;
    for (uint32_t f = 0; ok && f < g->added; f++) {
        const uint16_t *bins = g->bins + n * f;
        for (size_t k = 0; k < n; k++) cur[k] = lut[bins[k]];
        int delay = (int)(lround(100.0 * (f + 1) / fps) - lround(100.0 * f / fps));
        ok = put_frame(gif, cur, f ? prev : NULL, g->width, g->height, delay, line) == GIF_OK;
        uint8_t *t = prev;
        prev = cur;
        cur = t;
    }
    if (!ok) err = gif->Error;
    int close_err = 0;
    if (EGifCloseFile(gif, &close_err) != GIF_OK && ok) ok = false, err = close_err;
    gif = NULL;
    if (!ok) {
        tool_error(TOOL_FAILED, "%s: cannot write the GIF: %s", path, GifErrorString(err));
        tool_output_abort(&out);
        goto done;
    }
    st = tool_output_commit(&out, "GIF");
done:
    GifFreeMapObject(map);
    free(lut);
    free(cur);
    free(prev);
    free(line);
    return st;
}
