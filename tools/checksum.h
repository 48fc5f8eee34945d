/* FNV-1a 64: the checksum of a run's final outputs. */
#ifndef CROWD_TOOLS_CHECKSUM_H
#define CROWD_TOOLS_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_INIT 0xcbf29ce484222325ull

uint64_t fnv1a64_bytes(uint64_t h, const void *data, size_t size);
/* The 4 bytes of v's IEEE binary32 encoding, least significant first (any host order). */
uint64_t fnv1a64_float(uint64_t h, float v);

#endif
