#define CV_TARGET_WASM128 1
#define CV_OPS_NAME cv_ops_wasm128_impl
#include "ops.h"
void cv_ops_wasm128(const uint32_t *a, const uint32_t *b, size_t n, uint32_t *out) { cv_ops_wasm128_impl(a, b, n, out); }
/* cv_any / cv_all of each block of 4 lanes of a < b. */
void cv_anyall_wasm128(const uint32_t *a, const uint32_t *b, size_t n, int *any, int *all) {
    for (size_t i = 0; i < n; i += 4) {
        cv_m m = cv_lt(cv_as_f(cv_iloadu(a + i)), cv_as_f(cv_iloadu(b + i)));
        any[i / 4] = cv_any(m);
        all[i / 4] = cv_all(m);
    }
}
