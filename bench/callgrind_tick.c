/* callgrind_tick — ticks one workload on one implementation so that callgrind can count the
 * instructions of the tick alone (the function counted_tick). bench/callgrind.sh runs it for
 * every workload and target and prints instructions per instance.
 *
 *   callgrind_tick WORKLOAD IMPL [N [TICKS [WARMUP]]]
 *   valgrind --tool=callgrind --toggle-collect=counted_tick callgrind_tick face avx2 4096 64
 *
 * WORKLOAD: face gaze harmonic blink blend limbs body limbs_smoothed, or avatar (the full avatar of
 * avatar.h, through counted_avatar_tick: --toggle-collect=counted_avatar_tick); IMPL: scalar sse2 avx2 avx512 per_object.
 * One copy of N instances (default 4096) is ticked WARMUP times (default 300: every instance
 * has drawn its first blink wait, so blinks run at their steady rate), then TICKS times
 * (default 64) through counted_tick. Instructions per instance = collected Ir / (N * TICKS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avatar.h"
#include "walk.h"
#include "workloads.h"

__attribute__((noinline)) void counted_tick(bench_ring *r);
__attribute__((noinline)) void counted_tick(bench_ring *r) { bench_ring_tick(r, BENCH_DT, 0, r->n); }

__attribute__((noinline)) void counted_avatar_tick(bench_avatar *a);
__attribute__((noinline)) void counted_avatar_tick(bench_avatar *a) { bench_avatar_tick(a, BENCH_DT); }

static int run_avatar(int impl, uint32_t n, uint32_t ticks, uint32_t warmup, const bench_clip *clip) {
    bench_avatar *a;
    char err[512];
    if (bench_avatar_create(&a, impl, n, 1, clip, err, sizeof err) != 0) {
        fprintf(stderr, "callgrind_tick: avatar %s: %s\n", bench_impl_name(impl), err);
        return 1;
    }
    for (uint32_t t = 0; t < warmup; t++) bench_avatar_tick(a, BENCH_DT);
    for (uint32_t t = 0; t < ticks; t++) counted_avatar_tick(a);
    printf("avatar %s n=%u ticks=%u\n", bench_impl_name(impl), n, ticks);
    bench_avatar_destroy(a);
    return 0;
}

static void step(bench_ring *r, int counted) {
    if (bench_ring_due(r)) bench_ring_refresh(r);
    if (counted)
        counted_tick(r);
    else
        bench_ring_tick(r, BENCH_DT, 0, r->n);
    bench_ring_advance(r);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fputs("usage: callgrind_tick WORKLOAD IMPL [N [TICKS [WARMUP]]]\n", stderr);
        return 2;
    }
    int w = -1, impl = -1;
    for (int k = 0; k < BENCH_WORKLOAD_COUNT; k++)
        if (strcmp(argv[1], bench_workload_name((bench_workload)k)) == 0) w = k;
    if (strcmp(argv[1], "avatar") == 0) w = BENCH_WORKLOAD_COUNT;
    for (int k = CROWD_SIMD_SCALAR; k <= BENCH_PER_OBJECT; k++)
        if (strcmp(argv[2], bench_impl_name(k)) == 0) impl = k;
    if (w < 0 || impl < 0) {
        fprintf(stderr, "callgrind_tick: unknown workload '%s' or implementation '%s'\n", argv[1], argv[2]);
        return 2;
    }
    uint32_t n = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 4096;
    uint32_t ticks = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 64;
    uint32_t warmup = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 300;
    static float walk[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
    bench_walk_rows(walk);
    const bench_clip clip = {walk, BENCH_WALK_ROWS};
    if (w == BENCH_WORKLOAD_COUNT) return run_avatar(impl, n, ticks, warmup, &clip);
    bench_ring r;
    char err[512];
    if (bench_ring_create_copies(&r, (bench_workload)w, impl, n, &clip, 1, err, sizeof err) != 0) {
        fprintf(stderr, "callgrind_tick: %s %s: %s\n", argv[1], argv[2], err);
        return 1;
    }
    for (uint32_t t = 0; t < warmup; t++) step(&r, 0);
    for (uint32_t t = 0; t < ticks; t++) step(&r, 1);
    printf("%s %s n=%u ticks=%u\n", argv[1], argv[2], n, ticks);
    bench_ring_destroy(&r);
    return 0;
}
