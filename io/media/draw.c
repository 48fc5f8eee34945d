#include "draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

int canvas_init(canvas *c, uint32_t width, uint32_t height, rgb background) {
    c->width = width;
    c->height = height;
    c->pixels = tool_malloc((size_t)width * height * 3);
    if (!c->pixels) return TOOL_FAILED;
    for (size_t k = 0; k < (size_t)width * height; k++) {
        c->pixels[k * 3 + 0] = background.r;
        c->pixels[k * 3 + 1] = background.g;
        c->pixels[k * 3 + 2] = background.b;
    }
    return TOOL_OK;
}

void canvas_free(canvas *c) {
    free(c->pixels);
    c->pixels = NULL;
}

static void blend(canvas *c, int x, int y, rgb color, float alpha) {
    if (alpha <= 0.0f) return;
    if (alpha > 1.0f) alpha = 1.0f;
    uint8_t *p = &c->pixels[((size_t)y * c->width + (size_t)x) * 3];
    p[0] = (uint8_t)(p[0] + (color.r - p[0]) * alpha + 0.5f);
    p[1] = (uint8_t)(p[1] + (color.g - p[1]) * alpha + 0.5f);
    p[2] = (uint8_t)(p[2] + (color.b - p[2]) * alpha + 0.5f);
}

/* The pixel box [x0, x1) x [y0, y1) covering the bounds, clipped to the canvas. */
static int clip_box(const canvas *c, float fx0, float fy0, float fx1, float fy1, int *x0, int *y0, int *x1, int *y1) {
    if (!(fx1 >= 0 && fy1 >= 0 && fx0 < (float)c->width && fy0 < (float)c->height)) return 0;
    *x0 = fx0 < 0 ? 0 : (int)floorf(fx0);
    *y0 = fy0 < 0 ? 0 : (int)floorf(fy0);
    *x1 = fx1 + 1 > (float)c->width ? (int)c->width : (int)ceilf(fx1 + 1);
    *y1 = fy1 + 1 > (float)c->height ? (int)c->height : (int)ceilf(fy1 + 1);
    return *x0 < *x1 && *y0 < *y1;
}

void draw_rect(canvas *c, float fx0, float fy0, float fx1, float fy1, rgb color) {
    int x0, y0, x1, y1;
    if (!clip_box(c, fx0, fy0, fx1 - 1, fy1 - 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) blend(c, x, y, color, 1.0f);
}

void draw_disc(canvas *c, float cx, float cy, float r, rgb color) {
    int x0, y0, x1, y1;
    if (!(r > 0) || !clip_box(c, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1, &x0, &y0, &x1, &y1)) return;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            blend(c, x, y, color, r + 0.5f - sqrtf(dx * dx + dy * dy));
        }
}

void draw_ellipse(canvas *c, float cx, float cy, float rx, float ry, float angle, rgb color) {
    if (!(rx > 0) || !(ry > 0)) return;
    float r = rx > ry ? rx : ry;
    int x0, y0, x1, y1;
    if (!clip_box(c, cx - r - 1, cy - r - 1, cx + r + 1, cy + r + 1, &x0, &y0, &x1, &y1)) return;
    float ca = cosf(angle), sa = sinf(angle);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            float u = (dx * ca + dy * sa) / rx, v = (-dx * sa + dy * ca) / ry;
            float k = sqrtf(u * u + v * v);
            if (k == 0.0f) {
                blend(c, x, y, color, 1.0f);
                continue;
            }
            /* distance ~ (k - 1) / |grad k| */
            float gu = u / (rx * k), gv = v / (ry * k);
            float d = (k - 1.0f) / sqrtf(gu * gu + gv * gv);
            blend(c, x, y, color, 0.5f - d);
        }
}

void draw_capsule(canvas *c, float ax, float ay, float bx, float by, float r, rgb color) {
    if (!(r > 0)) return;
    int x0, y0, x1, y1;
    float lx = ax < bx ? ax : bx, hx = ax < bx ? bx : ax, ly = ay < by ? ay : by, hy = ay < by ? by : ay;
    if (!clip_box(c, lx - r - 1, ly - r - 1, hx + r + 1, hy + r + 1, &x0, &y0, &x1, &y1)) return;
    float ux = bx - ax, uy = by - ay, len2 = ux * ux + uy * uy;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            float px = (float)x + 0.5f - ax, py = (float)y + 0.5f - ay;
            float t = len2 > 0 ? (px * ux + py * uy) / len2 : 0.0f;
            t = t < 0 ? 0 : (t > 1 ? 1 : t);
            float dx = px - t * ux, dy = py - t * uy;
            blend(c, x, y, color, r + 0.5f - sqrtf(dx * dx + dy * dy));
        }
}

/* 3x5 glyphs, one row per 3-bit number (bit 2 is the left column). */
static const struct {
    char ch;
    uint8_t rows[5];
} glyphs[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 3, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'#', {5, 7, 5, 7, 5}}, {'.', {0, 0, 0, 0, 2}},
    {':', {0, 2, 0, 2, 0}}, {'=', {0, 7, 0, 7, 0}}, {'-', {0, 0, 7, 0, 0}}, {'a', {0, 7, 1, 7, 7}},
    {'b', {4, 4, 7, 5, 7}}, {'c', {0, 7, 4, 4, 7}}, {'d', {1, 1, 7, 5, 7}}, {'e', {7, 5, 7, 4, 7}},
    {'f', {3, 4, 7, 4, 4}}, {'g', {7, 5, 7, 1, 7}}, {'h', {4, 4, 7, 5, 5}}, {'i', {2, 0, 2, 2, 2}},
    {'j', {1, 0, 1, 5, 7}}, {'k', {4, 5, 6, 5, 5}}, {'l', {6, 2, 2, 2, 7}}, {'m', {0, 7, 7, 5, 5}},
    {'n', {0, 6, 5, 5, 5}}, {'o', {0, 7, 5, 5, 7}}, {'p', {0, 7, 5, 7, 4}}, {'q', {0, 7, 5, 7, 1}},
    {'r', {0, 7, 4, 4, 4}}, {'s', {0, 7, 6, 1, 7}}, {'t', {4, 7, 4, 4, 3}}, {'u', {0, 5, 5, 5, 7}},
    {'v', {0, 5, 5, 5, 2}}, {'w', {0, 5, 5, 7, 7}}, {'x', {0, 5, 2, 2, 5}}, {'y', {5, 5, 7, 1, 7}},
    {'z', {0, 7, 1, 6, 7}},
};

void draw_text(canvas *c, float x, float y, float scale, const char *text, rgb color) {
    for (const char *p = text; *p; p++, x += 4 * scale) {
        char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        for (size_t g = 0; g < sizeof glyphs / sizeof glyphs[0]; g++) {
            if (glyphs[g].ch != ch) continue;
            for (int row = 0; row < 5; row++)
                for (int col = 0; col < 3; col++)
                    if (glyphs[g].rows[row] & (4 >> col))
                        draw_rect(c, x + col * scale, y + row * scale, x + (col + 1) * scale, y + (row + 1) * scale, color);
            break;
        }
    }
}

rgb color_hue(float hue, float s, float v) {
    float h = (hue - floorf(hue)) * 6.0f, f = h - floorf(h);
    float p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    float r, g, b;
    switch ((int)h % 6) {
    case 0: r = v, g = t, b = p; break;
    case 1: r = q, g = v, b = p; break;
    case 2: r = p, g = v, b = t; break;
    case 3: r = p, g = q, b = v; break;
    case 4: r = t, g = p, b = v; break;
    default: r = v, g = p, b = q; break;
    }
    return (rgb){(uint8_t)(r * 255 + 0.5f), (uint8_t)(g * 255 + 0.5f), (uint8_t)(b * 255 + 0.5f)};
}
