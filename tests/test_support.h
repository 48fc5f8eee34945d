/* Shared by the test programs: the SIMD target under test comes from argv[1]. */
#ifndef CROWD_TEST_SUPPORT_H
#define CROWD_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
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

/* Path of a file in the shared data folder, or NULL (and a printed skip reason) when absent. */
const char *crowd_test_data(const char *relative);

#endif
