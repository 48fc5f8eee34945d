/* FNV-1a 64, and the run checksum that combines per-instance FNV-1a digests in order. */
#ifndef CROWD_TOOLS_CHECKSUM_H
#define CROWD_TOOLS_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325ull

uint64_t fnv1a64_bytes(uint64_t h, const void *data, size_t size);
/* The 4 bytes of v's IEEE binary32 encoding, least significant first (any host order). */
uint64_t fnv1a64_float(uint64_t h, float v);

/* The run checksum of a sequence of digests d_0 .. d_{n-1} (world.h): sum = the polynomial
 * d_0*B^(n-1) + ... + d_{n-1} mod 2^64 with B = CHECKSUM_BASE (odd), by Horner's rule, and
 * scale = B^n. Two consecutive parts combine exactly (an affine map's composition, so any
 * bracketing of parts in order gives the same sum): the sequence a then b has sum
 * a.sum*b.scale + b.sum and scale a.scale*b.scale. An empty sequence is {0, 1}. */
#define CHECKSUM_BASE 0x100000001b3ull /* the FNV-1a 64 prime */
typedef struct checksum_part {
    uint64_t sum, scale;
} checksum_part;

static inline checksum_part checksum_empty(void) { return (checksum_part){0, 1}; }
static inline void checksum_add(checksum_part *p, uint64_t digest) {
    p->sum = p->sum * CHECKSUM_BASE + digest;
    p->scale *= CHECKSUM_BASE;
}
static inline checksum_part checksum_combine(checksum_part a, checksum_part b) {
    return (checksum_part){a.sum * b.scale + b.sum, a.scale * b.scale};
}

#endif
