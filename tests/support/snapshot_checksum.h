/* Tests that forge snapshots recompute their checksum from crowd.h's description, written
 * here once, independently of the engine's code. */
#ifndef CROWD_TEST_SNAPSHOT_CHECKSUM_H
#define CROWD_TEST_SNAPSHOT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The snapshot payload checksum as crowd.h section 10 documents it: FNV-1a 64 over
 * little-endian u64 words in four lanes (word i into lane i mod 4, lane k from basis ^ k, a
 * last partial word zero-padded), the lanes folded in order by the same step. */
static inline uint64_t snapshot_checksum(const unsigned char *p, size_t n) {
    const uint64_t basis = 0xcbf29ce484222325ull, prime = 0x100000001b3ull;
    uint64_t lane[4] = {basis, basis ^ 1, basis ^ 2, basis ^ 3};
    size_t words = (n + 7) / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t w = 0;
        for (size_t b = 0; b < 8; b++)
            if (8 * i + b < n) w |= (uint64_t)p[8 * i + b] << (8 * b);
        lane[i % 4] = (lane[i % 4] ^ w) * prime;
    }
    uint64_t h = basis;
    for (int k = 0; k < 4; k++) h = (h ^ lane[k]) * prime;
    return h;
}

#endif
