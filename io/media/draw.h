/* An RGB picture in memory and a few anti-aliased shapes (coverage from a signed distance):
 * enough to draw avatars for `crowd render`. Coordinates are pixels, y down. */
#ifndef CROWD_TOOLS_DRAW_H
#define CROWD_TOOLS_DRAW_H

#include <stdint.h>

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

typedef struct canvas {
    uint32_t width, height;
    uint8_t *pixels; /* width * height * 3, rows top to bottom */
} canvas;

int canvas_init(canvas *c, uint32_t width, uint32_t height, rgb background);
void canvas_free(canvas *c);

void draw_rect(canvas *c, float x0, float y0, float x1, float y1, rgb color);
void draw_disc(canvas *c, float cx, float cy, float radius, rgb color);
/* An ellipse with radii rx, ry turned by angle (radians, clockwise on screen). */
void draw_ellipse(canvas *c, float cx, float cy, float rx, float ry, float angle, rgb color);
/* A thick line with round ends (radius = half the thickness). */
void draw_capsule(canvas *c, float x0, float y0, float x1, float y1, float radius, rgb color);
/* Text in a 3x5 pixel font scaled by `scale`: digits, a-z (lower case shapes), space # . : = - */
void draw_text(canvas *c, float x, float y, float scale, const char *text, rgb color);

/* Hue in [0, 1) at fixed saturation and value. */
rgb color_hue(float hue, float saturation, float value);

#endif
