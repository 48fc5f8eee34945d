/* Shared by the test programs: the SIMD target under test comes from argv[1]. */
#ifndef CROWD_TEST_SUPPORT_H
#define CROWD_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "crowd.h"

/* The target named by argv[1] (scalar, sse2, avx2, avx512). Exits with 77 (ctest: skipped)
 * when it is not built or the CPU lacks it, and with 2 on a bad name. */
crowd_simd crowd_test_target(int argc, char **argv);
/* The target chosen by crowd_test_target(). */
extern crowd_simd crowd_test_simd;

/* An engine on the target under test (or the one given), asserting success. */
crowd_engine *crowd_test_engine(uint64_t seed);
crowd_engine *crowd_test_engine_on(uint64_t seed, crowd_simd simd);

/* "CROWD_ERR_RANGE" ... for a result code. */
const char *rname(crowd_result result);

/* Fails the running test with a printf-style message and the line. */
#define FAILF(...)                                               \
    do {                                                         \
        char fail_buf_[8192];                                    \
        snprintf(fail_buf_, sizeof fail_buf_, __VA_ARGS__);      \
        fail_msg("%s:%d: %s", __FILE__, __LINE__, fail_buf_);    \
    } while (0)

/* Fails unless expr returns CROWD_OK, with the engine's message. */
#define OK(e, expr)                                                                          \
    do {                                                                                     \
        crowd_result ok_r_ = (expr);                                                         \
        if (ok_r_ != CROWD_OK) FAILF("%s -> %s (%s)", #expr, rname(ok_r_), crowd_last_error(e)); \
    } while (0)

static inline uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Seconds on a monotonic clock, for the suites' own run-time lines. */
double crowd_test_seconds(void);

/* Runs one cmocka group and prints its run time on the target under test ("group NAME on
 * TARGET: S s"); returns the number of failed tests. */
int crowd_test_group(const char *name, const struct CMUnitTest *tests, size_t count);
#define CROWD_TEST_GROUP(name, tests) crowd_test_group((name), (tests), sizeof(tests) / sizeof((tests)[0]))

/* One test function over the rows of a table: each row is a cmocka test of its own name, and
 * the function reads its row from *state (as cmocka_unit_test_prestate, with a name). */
#define CROWD_TEST_ROW(name, func, row) {(name), (func), NULL, NULL, (void *)(row)}

/* Path of a file in the shared data folder, or NULL (and a printed skip reason) when absent. */
const char *crowd_test_data(const char *relative);

/* ---- one random generator: splitmix64, the tests' own fixed-seed stream (never the engine's
 * draws). rng r = {seed}; ---- */
typedef struct rng { uint64_t s; } rng;
static inline uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* Uniform in [0, 1), 53 bits. */
static inline double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }
/* Uniform in [lo, hi) in double. */
static inline double rng_range(rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }
/* The same rounded to float, kept at most hi (rounding can reach it; it never goes below lo). */
static inline float rng_rangef(rng *r, double lo, double hi) {
    float v = (float)rng_range(r, lo, hi);
    return v > (float)hi ? (float)hi : v;
}
/* Uniform in [0, n), from the top bits. */
static inline uint32_t rng_below(rng *r, uint32_t n) { return (uint32_t)(rng_unit(r) * n); }
/* In [0, n) as the raw draw modulo n. */
static inline uint32_t rng_mod(rng *r, uint32_t n) { return (uint32_t)(rng_next(r) % n); }
static inline bool rng_chance(rng *r, double p) { return rng_unit(r) < p; }

/* ---- one counting allocator: counting c = {.fail_at = -1}; then
 * crowd_engine_desc.allocator = counting_allocator(&c). It counts allocations and frees, keeps
 * the live blocks and their bytes (and the peak), fails allocation number fail_at (counted from 0; -1: never),
 * poisons new memory (0xA5) so code that follows pointers it never wrote fails
 * deterministically, refuses a bad alignment, and counts frees of pointers it never returned
 * (NULL, or freed twice) as bad_frees, leaving them alone. Safe from several threads (the
 * engine's pool). counting_release frees what is still live and the block table. ---- */
typedef struct counting_block { void *p; size_t n; } counting_block;
typedef struct counting {
    long allocs, frees, live, fail_at, bad_frees;
    size_t live_bytes, peak_bytes; /* bytes asked for, now and at most */
    counting_block *blocks;
    size_t nblocks, capblocks;
} counting;
void *counting_alloc(size_t size, size_t align, void *user);
void counting_free(void *ptr, void *user);
void counting_release(counting *c);
static inline crowd_allocator counting_allocator(counting *c) {
    return (crowd_allocator){.alloc = counting_alloc, .free = counting_free, .user = c};
}

/* ---- one validity-table macro. A table is a list of rows ROW(n, change, code, field), each
 * suite defining ROW through VALIDITY_ROWS with its own reset and check: for each variant
 * m = 0 .. n-1 (change may use m), reset restores the valid input, change breaks one thing,
 * and check(what, code, field) makes the call and asserts the exact code, that the message
 * names the field and that nothing stored changed. A row is a statement: ROW(...); ---- */
#define VALIDITY_ROWS(n, reset, change, check, code, field) \
    for (int m = 0; m < (n); m++) {                         \
        (void)m;                                            \
        reset;                                              \
        change;                                             \
        check(#change, code, field);                        \
    }

#endif
