/* The snapshot's byte order: little-endian writers and readers, shared by snapshot.c and the
 * controllers that write and read their own settings (crowd.h, section 10). */
#ifndef CROWDI_SERIAL_H
#define CROWDI_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- little-endian writer (counts only when p is NULL; with hashing, FNV-1a 64 of the
 * bytes into hash) ---- */
typedef struct crowdi_writer { uint8_t *p; size_t n; bool hashing; uint64_t hash; } crowdi_writer;

static inline void crowdi_w_bytes(crowdi_writer *w, const void *src, size_t n) {
    if (w->p && n) memcpy(w->p + w->n, src, n);
    if (w->hashing)
        for (size_t k = 0; k < n; k++) w->hash = (w->hash ^ ((const uint8_t *)src)[k]) * 0x100000001b3ull;
    w->n += n;
}
static inline void crowdi_w_u32(crowdi_writer *w, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    crowdi_w_bytes(w, b, 4);
}
static inline void crowdi_w_u64(crowdi_writer *w, uint64_t v) {
    crowdi_w_u32(w, (uint32_t)v);
    crowdi_w_u32(w, (uint32_t)(v >> 32));
}
static inline void crowdi_w_f32(crowdi_writer *w, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    crowdi_w_u32(w, u);
}
static inline void crowdi_w_str(crowdi_writer *w, const char *s) {
    uint32_t n = (uint32_t)strlen(s);
    crowdi_w_u32(w, n);
    crowdi_w_bytes(w, s, n);
}
/* n 4-byte values, little-endian */
static inline void crowdi_w_words(crowdi_writer *w, const void *src, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    crowdi_w_bytes(w, src, n * 4);
#else
    const uint32_t *u = src;
    for (size_t k = 0; k < n; k++) crowdi_w_u32(w, u[k]);
#endif
}

/* ---- reader: any read past the end sets bad and yields zeros ---- */
typedef struct crowdi_reader { const uint8_t *p; size_t n, off; int bad, oom; } crowdi_reader;

static inline const uint8_t *crowdi_r_take(crowdi_reader *r, size_t n) {
    if (r->bad || n > r->n - r->off) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *at = r->p + r->off;
    r->off += n;
    return at;
}
static inline uint32_t crowdi_r_u32(crowdi_reader *r) {
    const uint8_t *b = crowdi_r_take(r, 4);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}
static inline uint64_t crowdi_r_u64(crowdi_reader *r) {
    uint64_t lo = crowdi_r_u32(r);
    uint64_t hi = crowdi_r_u32(r);
    return lo | hi << 32;
}
static inline float crowdi_r_f32(crowdi_reader *r) {
    uint32_t u = crowdi_r_u32(r);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline void crowdi_r_words(crowdi_reader *r, void *dst, size_t n) {
    const uint8_t *b = crowdi_r_take(r, n * 4);
    if (!b || n == 0) return;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(dst, b, n * 4);
#else
    uint32_t *u = dst;
    for (size_t k = 0; k < n; k++)
        u[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 | (uint32_t)b[4 * k + 3] << 24;
#endif
}

#endif
