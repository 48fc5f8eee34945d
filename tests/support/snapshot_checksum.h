/* Tests that forge snapshots recompute their checksum from crowd.h's description, written
 * here once, independently of the engine's code (tests/support, linked into the tests). */
#ifndef CROWD_TEST_SNAPSHOT_CHECKSUM_H
#define CROWD_TEST_SNAPSHOT_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The snapshot payload checksum as crowd.h section 10 documents it: FNV-1a 64 over
 * little-endian u64 words in four lanes (word i into lane i mod 4, lane k from basis ^ k, a
 * last partial word zero-padded), the lanes folded in order by the same step. */
uint64_t snapshot_checksum(const unsigned char *p, size_t n);

#endif
