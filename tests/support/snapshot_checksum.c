/* The snapshot payload checksum of crowd.h section 10, written independently of the engine. */
#include "snapshot_checksum.h"

uint64_t snapshot_checksum(const unsigned char *p, size_t n) {
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
