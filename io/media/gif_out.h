/* Animated GIF for `crowd render --gif` (giflib): frames are collected (5-5-5 bits a pixel), then
 * one palette is built for the whole clip: the colours the avatars are drawn with (exactly,
 * given by the caller), then the most frequent other colours (anti-aliased edges) up to 255
 * entries; index 255 is transparent. The first frame is stored whole, each later one as the
 * rectangle that changed, unchanged pixels in it transparent (disposal: keep), so a still crowd
 * costs almost nothing. Loops forever (NETSCAPE2.0). Written to an exclusive temporary beside
 * FILE, then renamed (files.h). */
#ifndef CROWD_TOOLS_GIF_OUT_H
#define CROWD_TOOLS_GIF_OUT_H

#include <stdint.h>

#include "draw.h"

#define GIF_MAX_BYTES (2u << 30) /* frames * width * height * 2 held in memory at most */

typedef struct gif_clip {
    uint32_t width, height, frames, added;
    uint16_t *bins;    /* [frames][height][width] 5-5-5 colour bins */
    uint64_t *sum;     /* [32768][4]: r, g, b sums and the count of the pixels in each bin */
} gif_clip;

/* TOOL_OK, TOOL_BAD_INPUT (more than GIF_MAX_BYTES; printed) or TOOL_FAILED (memory). */
int gif_begin(gif_clip *g, uint32_t width, uint32_t height, uint32_t frames);
/* Adds the next frame (the canvas has the clip's size). */
void gif_add(gif_clip *g, const canvas *c);
/* Writes the frames added, frame k shown for round(100 (k+1) / fps) - round(100 k / fps)
 * hundredths of a second. `exact` colours (count <= 128) get palette entries of their own. */
int gif_write(const gif_clip *g, const char *path, double fps, const rgb *exact, uint32_t exact_count);
void gif_free(gif_clip *g);

#endif
