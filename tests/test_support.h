/* Shared by the test programs: the SIMD target under test comes from argv[1]. */
#ifndef CROWD_TEST_SUPPORT_H
#define CROWD_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* Path of a file in the shared data folder, or NULL (and a printed skip reason) when absent. */
const char *crowd_test_data(const char *relative);

#endif
