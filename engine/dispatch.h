/* Choosing a kernel table: once per engine, from the CPU, a desc field or CROWD_SIMD. */
#ifndef CROWDI_DISPATCH_H
#define CROWDI_DISPATCH_H

#include "kernels/kernel_table.h"

/* target: 1 scalar, 2 sse2, 3 avx2, 4 avx512, 5 wasm128 (crowd_simd values). NULL when the target is
 * not built into the library or the CPU lacks it. */
const crowdi_kernels *crowdi_kernels_for(int target);
/* The widest target available (never fails: scalar is always built). */
int crowdi_best_target(void);

#endif
