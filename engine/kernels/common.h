/* What every stage builds on, written once on cv_ types and compiled per target: the
 * per-instance draws (the vector twin of random.h), C(x) of SPEC §1, reading a setting column
 * (cvk_col) and the blends of SPEC §1. Kernel headers include it in their stage part. */
#ifndef CROWDI_KERNELS_COMMON_H
#define CROWDI_KERNELS_COMMON_H

#include <math.h>
#include <stdbool.h>

#include "cv.h"
#include "cv_math.h"
#include "kernel_table.h"

/* ---- randomness (the vector twin of random.h) ---- */
static inline cv_i cvk_mix32(cv_i x) {
    x = cv_ixor(x, cv_isrl(x, 16));
    x = cv_imul(x, cv_iset1(0x7feb352dU));
    x = cv_ixor(x, cv_isrl(x, 15));
    x = cv_imul(x, cv_iset1(0x846ca68bU));
    x = cv_ixor(x, cv_isrl(x, 16));
    return x;
}

static inline cv_f cvk_draw(cv_i key, cv_i index) {
    cv_i h = cvk_mix32(cv_iadd(key, cvk_mix32(index)));
    return cv_mul(cv_i2f(cv_isrl(h, 8)), cv_set1(0x1p-24f));
}

/* ---- C(x) of SPEC §1 ---- */
/* x < min ? min : (x > max ? max : x): with cv_max(a, b) = a > b ? a : b and cv_min alike,
 * operand order gives exactly SPEC's choice, signed zeros included. */
static inline cv_f cvk_clamp(cv_f x, const crowdi_param *p) {
    return cv_min(cv_set1(p->max), cv_max(cv_set1(p->min), x));
}

static inline float cvk_wrap1(float x, const crowdi_param *p) {
    if (x > p->max) x = p->min + fmodf(x - p->max, p->size);
    if (x < p->min) x = p->max - fmodf(p->min - x, p->size);
    return x != x ? p->min : x;
}

/* Repeat parameters wrap with fmod, which is exact in IEEE arithmetic; lanes out of range are
 * rare, so they go through libm's fmodf one by one. */
static inline cv_f cvk_wrap(cv_f x, const crowdi_param *p) {
    cv_m out = cv_mor(cv_mor(cv_gt(x, cv_set1(p->max)), cv_lt(x, cv_set1(p->min))), cv_neq(x, x));
    if (!cv_any(out)) return x;
    float lanes[CV_W];
    cv_storeu(lanes, x);
    for (int k = 0; k < CV_W; k++) lanes[k] = cvk_wrap1(lanes[k], p);
    return cv_loadu(lanes);
}

/* A setting column's rows [i, i + CV_W): the column, or its one value while every row holds
 * it (the column is NULL then; kernel_table.h). */
static inline cv_f cvk_col(const float *col, float value, size_t i) { return col ? cv_loadu(col + i) : cv_set1(value); }

/* ---- blends of SPEC §1 ---- */
/* P blended with value v at weight w, before C(x) */
static inline cv_f cvk_mix(uint32_t mode, cv_f P, cv_f v, cv_f w) {
    const cv_f one = cv_set1(1.0f);
    if (mode == CROWDI_BLEND_OVERRIDE) return cv_add(cv_mul(P, cv_sub(one, w)), cv_mul(v, w));
    if (mode == CROWDI_BLEND_ADDITIVE) return cv_add(P, cv_mul(v, w));
    return cv_mul(P, cv_add(one, cv_mul(cv_sub(v, one), w))); /* literally: 1 + (v - 1)*w is not always v */
}

/* into column col at row i */
static inline void cvk_blend(float *col, size_t i, cv_f v, cv_f w, uint32_t mode,
                             const crowdi_param *p) {
    cv_f x = cvk_mix(mode, cv_loadu(col + i), v, w);
    x = p->repeat ? cvk_wrap(x, p) : cvk_clamp(x, p);
    cv_storeu(col + i, x);
}

/* Blends src[i] (times factor when scaled) with the weight column (or, NULL, weight_value on
 * every row) into dst over rows [i0, i1). The settings are copied to locals first: stores to
 * float columns could otherwise alias them and force reloads on every row. */
static inline void cvk_blend_rows(float *dst, const float *src, int scaled, float factor, const float *weight,
                                  float weight_value, uint32_t mode, const crowdi_param *param, size_t i0, size_t i1) {
    const crowdi_param p = *param;
    const cv_f f = cv_set1(factor), lo = cv_set1(p.min), hi = cv_set1(p.max), wv = cv_set1(weight_value);
    if (p.repeat || !scaled) { /* wrapping parameters and blink's unscaled value: the general form */
        for (size_t i = i0; i < i1; i += CV_W) {
            cv_f val = cv_loadu(src + i);
            if (scaled) val = cv_mul(val, f);
            cvk_blend(dst, i, val, weight ? cv_loadu(weight + i) : wv, mode, &p);
        }
        return;
    }
    /* the common case, one loop per mode and weight kind (constants after inlining) so that
     * nothing but arithmetic runs per row */
#define CVK_BLEND_LOOP(MODE, W)                                                                         \
    for (size_t i = i0; i < i1; i += CV_W) {                                                            \
        cv_f x = cvk_mix((MODE), cv_loadu(dst + i), cv_mul(cv_loadu(src + i), f), (W));               \
        cv_storeu(dst + i, cv_min(hi, cv_max(lo, x)));                                                  \
    }
#define CVK_BLEND_MODES(W)                                                                              \
    if (mode == CROWDI_BLEND_OVERRIDE) {                                                                \
        CVK_BLEND_LOOP(CROWDI_BLEND_OVERRIDE, W)                                                        \
    } else if (mode == CROWDI_BLEND_ADDITIVE) {                                                         \
        CVK_BLEND_LOOP(CROWDI_BLEND_ADDITIVE, W)                                                        \
    } else {                                                                                            \
        CVK_BLEND_LOOP(CROWDI_BLEND_MULTIPLY, W)                                                        \
    }
    if (weight) {
        CVK_BLEND_MODES(cv_loadu(weight + i))
    } else {
        CVK_BLEND_MODES(wv)
    }
#undef CVK_BLEND_MODES
#undef CVK_BLEND_LOOP
}

#endif
