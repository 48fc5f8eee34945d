/* Every cv_ op over arrays of lanes, for one target (the including file sets CV_TARGET_*):
 * cv_ops_<target>(a, b, n, out) writes op k of lane i to out[k * n + i] (n a multiple of 4).
 * Built once for scalar (the definition) and once for wasm128, and compared bit by bit. */
#include "cv.h"

#define CV_OPS_COUNT 33

static inline void CV_OPS_NAME(const uint32_t *a, const uint32_t *b, size_t n, uint32_t *out) {
    const cv_i ones = cv_iset1(0xFFFFFFFFu), zero = cv_iset1(0);
    for (size_t i = 0; i < n; i += CV_W) {
        cv_i ia = cv_iloadu(a + i), ib = cv_iloadu(b + i);
        cv_f fa = cv_as_f(ia), fb = cv_as_f(ib);
        cv_i r[CV_OPS_COUNT];
        int k = 0;
        r[k++] = cv_as_i(cv_add(fa, fb));
        r[k++] = cv_as_i(cv_sub(fa, fb));
        r[k++] = cv_as_i(cv_mul(fa, fb));
        r[k++] = cv_as_i(cv_div(fa, fb));
        r[k++] = cv_as_i(cv_sqrt(fa));
        r[k++] = cv_as_i(cv_min(fa, fb));
        r[k++] = cv_as_i(cv_max(fa, fb));
        r[k++] = cv_as_i(cv_abs(fa));
        r[k++] = cv_as_i(cv_neg(fa));
        r[k++] = cv_as_i(cv_round(fa));
        r[k++] = cv_as_i(cv_floor(fa));
        r[k++] = cv_iselect(cv_lt(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_le(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_gt(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_ge(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_eq(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_neq(fa, fb), ones, zero);
        r[k++] = cv_as_i(cv_select(cv_lt(fa, fb), fa, fb));
        r[k++] = cv_iselect(cv_mandnot(cv_ge(fa, fb), cv_eq(fa, fb)), ia, ib);
        r[k++] = cv_iselect(cv_mxor(cv_mnot(cv_lt(fa, fb)), cv_mor(cv_eq(fa, fb), cv_mfalse())), ones, zero);
        r[k++] = cv_iadd(ia, ib);
        r[k++] = cv_isub(ia, ib);
        r[k++] = cv_imul(ia, ib);
        r[k++] = cv_ior(cv_iand(ia, ib), cv_ixor(ia, cv_isrl(ib, 7)));
        r[k++] = cv_isll(ia, 9);
        r[k++] = cv_isrl(ia, 31);
        r[k++] = cv_iselect(cv_ieq(cv_iand(ia, cv_iset1(0xFF)), cv_iand(ib, cv_iset1(0xFF))), ones, zero);
        r[k++] = cv_iselect(cv_igt_s(ia, ib), ones, zero);
        r[k++] = cv_as_i(cv_i2f(ia));
        r[k++] = cv_f2i_trunc(fa);
        r[k++] = cv_as_i(cv_add(cv_mul(fa, fb), cv_set1(1.0f))); /* never fused */
        /* any / all of each block of 4 lanes: the scalar definition folds lane by lane below */
        r[k++] = cv_iselect(cv_lt(fa, fb), ones, zero);
        r[k++] = cv_iselect(cv_mand(cv_lt(fa, fb), cv_mtrue()), ones, zero);
        for (int j = 0; j < CV_OPS_COUNT; j++) cv_istoreu(out + (size_t)j * n + i, r[j]);
    }
}
