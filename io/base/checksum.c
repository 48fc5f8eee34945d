#include "checksum.h"

#include <string.h>

#define FNV1A64_PRIME 0x100000001b3ull

uint64_t fnv1a64_bytes(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t k = 0; k < size; k++) h = (h ^ p[k]) * FNV1A64_PRIME;
    return h;
}

uint64_t fnv1a64_float(uint64_t h, float v) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    for (int k = 0; k < 4; k++) h = (h ^ ((bits >> (8 * k)) & 0xffu)) * FNV1A64_PRIME;
    return h;
}
