/* The face and body ticks of `crowd bench` (bench/workloads.h: the 12-parameter face rig, and
 * face + 15 bones from the walk as the default crowd has them; a ring of copies over 8 MiB so
 * that every tick reads fresh columns) in the WebAssembly module, in Node:
 *   node build-wasm/bench/bench_face.js [N]        (default 10000 instances)
 * prints M instance-updates/s for wasm128 and scalar: the median of blocks of ticks, as
 * `crowd bench` times them, on the process's CPU time (Node's process.cpuUsage: the module has
 * no thread CPU clock; after the first ticks the process runs only this thread), so that a
 * shared machine's load counts as little as in `crowd bench`'s thread CPU time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <emscripten.h>

#include "walk.h"
#include "workloads.h"

EM_JS(double, cpu_seconds, (void), {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
});

#define BLOCK_SECONDS 0.02
#define CELL_SECONDS 1.0
#define MAX_BLOCKS 4096

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double time_ring(bench_ring *r) {
    static double blocks[MAX_BLOCKS];
    uint32_t nblocks = 0, in_block = 0;
    double total = 0.0, block = 0.0;
    for (uint32_t k = 0; k < r->copies; k++) { /* one pass through the ring first */
        bench_ring_tick(r, BENCH_DT, 0, r->n);
        bench_ring_advance(r);
    }
    while ((total < CELL_SECONDS || in_block) && nblocks < MAX_BLOCKS) {
        if (bench_ring_due(r)) bench_ring_refresh(r); /* not timed */
        double t0 = cpu_seconds();
        bench_ring_tick(r, BENCH_DT, 0, r->n);
        double dt = cpu_seconds() - t0;
        bench_ring_advance(r);
        total += dt;
        block += dt;
        in_block++;
        if (block >= BLOCK_SECONDS) {
            blocks[nblocks++] = block / in_block;
            block = 0.0;
            in_block = 0;
        }
    }
    qsort(blocks, nblocks, sizeof *blocks, cmp_double);
    return nblocks % 2 ? blocks[nblocks / 2] : 0.5 * (blocks[nblocks / 2 - 1] + blocks[nblocks / 2]);
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 10000;
    const int impls[] = {CROWD_SIMD_WASM128, CROWD_SIMD_SCALAR};
    static float walk[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
    bench_walk_rows(walk);
    const bench_clip clip = {walk, BENCH_WALK_ROWS};
    /* face: the 12-parameter face rig; body: face + 15 bones from the walk (the default crowd's
     * rig, `crowd bench`'s "body" rows) */
    const bench_workload workloads[] = {BENCH_FACE, BENCH_BODY};
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++)
        for (size_t k = 0; k < sizeof impls / sizeof impls[0]; k++) {
            bench_ring r;
            char err[256];
            if (bench_ring_create(&r, workloads[w], impls[k], n, &clip, err, sizeof err) != 0) {
                fprintf(stderr, "bench_face: %s\n", err);
                return 1;
            }
            double s = time_ring(&r);
            printf("%s tick, %u instances, %-7s %.1f M instance-updates/s (%.3f ms a tick, ring of %u copies)\n",
                   bench_workload_name(workloads[w]), n, crowd_simd_name((crowd_simd)impls[k]), n / s / 1e6, s * 1e3,
                   r.copies);
            bench_ring_destroy(&r);
        }
    return 0;
}
