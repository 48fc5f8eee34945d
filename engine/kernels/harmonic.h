/* The harmonic controller's kernel side (SPEC §3, engine/harmonic.c): its view of the rig
 * and, in the stage part, the stage cvk_harmonic: one sine per entry, blended into its
 * parameter. */
#ifndef CROWDI_HARMONIC_H
#define CROWDI_HARMONIC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"

enum { CROWDI_DIR_CENTRIC = 0, CROWDI_DIR_LEFT = 1, CROWDI_DIR_RIGHT = 2 };
#define CROWDI_HARMONIC_CHANNELS 16 /* CROWD_MAX_CHANNELS */

typedef struct crowdi_harm_entry {
    uint32_t param, channel, direction;
    float origin; /* NO */
    float duration;
} crowdi_harm_entry;

/* The settings as crowd_rig_create took them (blend in kernel form; one timescale per
 * channel, channel_count of them) and the columns: per entry its phase T and normalised range
 * NR (each instance starts with the entry's `start_range`), and the weight (NULL while
 * uniform, its value in weight_value). */
typedef struct crowdi_harmonic_view {
    uint32_t blend, count, channel_count;
    float timescales[CROWDI_HARMONIC_CHANNELS];
    const crowdi_harm_entry *entries; /* [count] */
    const float *start_range;         /* [count] */
    float *const *T;                  /* [count] columns */
    float *const *NR;                 /* [count] columns */
    float *weight;
    float weight_value;
} crowdi_harmonic_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_HARMONIC_FIELDS(X, ctl)                                                          \
    X(HARMONIC_WEIGHT, "harmonic_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)  \
    X(HARMONIC_PHASE, "harmonic_phase", ctl, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_PHASE, true)    \
    X(HARMONIC_RANGE, "harmonic_range", ctl, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FRACTION, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES
#include "common.h"

/* Reduces T into [0, D], bounded by construction: up to CVK_WRAP_ROUNDS rounds of T - D,
 * exactly Cubism's `while T > D` (all a tick needs unless it covers more periods than that),
 * then, for what is still above D, one step T - floor(T/D)*D clamped into [0, D]. Every
 * operation is IEEE single, correctly rounded and never fused: the same bits on every target. */
#define CVK_WRAP_ROUNDS 4
static inline cv_f cvk_wrap_period(cv_f T, float duration) {
    const cv_f D = cv_set1(duration), zero = cv_set1(0.0f);
    cv_m over = cv_gt(T, D);
    for (int round = 0; round < CVK_WRAP_ROUNDS && cv_any(over); round++, over = cv_gt(T, D))
        T = cv_select(over, cv_sub(T, D), T);
    if (cv_any(over)) {
        cv_f r = cv_sub(T, cv_mul(cv_floor(cv_div(T, D)), D));
        r = cv_select(cv_lt(r, zero), cv_add(r, D), r);
        T = cv_select(over, cv_min(cv_max(r, zero), D), T);
    }
    return T;
}

/* One harmonic entry over rows [i0, i1): its settings live in locals for the whole loop. */
static inline void cvk_harmonic_entry(const crowdi_rig_view *v, const crowdi_harmonic_view *hv, float dt, uint32_t h,
                                      size_t i0, size_t i1) {
    const crowdi_harm_entry e = hv->entries[h];
    const crowdi_param p = v->params[e.param];
    const float min = p.min, max = p.max, VR = p.size;
    const float step = dt * hv->timescales[e.channel];
    const float origin0 = min + e.origin * VR;
    const float r2_left = (origin0 - min) / 2.0f, r2_right = (max - origin0) / 2.0f;
    const float nr_left = (r2_left * 2.0f) / VR, nr_right = (r2_right * 2.0f) / VR;
    float *T_col = hv->T[h], *NR_col = hv->NR[h], *out = v->out[e.param];
    const float *w_col = hv->weight, w_value = hv->weight_value;
    for (size_t i = i0; i < i1; i += CV_W) {
        cv_f T = cvk_wrap_period(cv_add(cv_loadu(T_col + i), cv_set1(step)), e.duration);
        cv_f NR = cv_loadu(NR_col + i);
        bool store_nr = false; /* NR changes only where a range does not fit */
        cv_f range = cv_mul(NR, cv_set1(VR));
        cv_f origin = cv_set1(origin0);
        if (e.direction == CROWDI_DIR_LEFT) {
            cv_m fits = cv_ge(cv_sub(origin, range), cv_set1(min));
            cv_f r1 = cv_mul(range, cv_set1(0.5f)); /* == range/2 exactly */
            range = cv_select(fits, r1, cv_set1(r2_left));
            origin = cv_select(fits, cv_sub(origin, r1), cv_set1(min + r2_left));
            NR = cv_select(fits, NR, cv_set1(nr_left));
            store_nr = !cv_all(fits);
        } else if (e.direction == CROWDI_DIR_RIGHT) {
            cv_m fits = cv_le(cv_add(origin, range), cv_set1(max));
            cv_f r1 = cv_mul(range, cv_set1(0.5f));
            range = cv_select(fits, r1, cv_set1(r2_right));
            origin = cv_select(fits, cv_add(origin, r1), cv_set1(max - r2_right));
            NR = cv_select(fits, NR, cv_set1(nr_right));
            store_nr = !cv_all(fits);
        }
        cv_m below = cv_lt(cv_sub(origin, range), cv_set1(min));
        cv_m above = cv_mandnot(cv_gt(cv_add(origin, range), cv_set1(max)), below);
        if (cv_any(cv_mor(below, above))) {
            cv_f rA = cv_sub(origin, cv_set1(min)), rB = cv_sub(cv_set1(max), origin);
            range = cv_select(below, rA, cv_select(above, rB, range));
            NR = cv_select(below, cv_div(rA, cv_set1(VR)), cv_select(above, cv_div(rB, cv_set1(VR)), NR));
            store_nr = true;
        }
        cv_f angle = cv_div(cv_mul(T, cv_set1(6.2831855f)), cv_set1(e.duration));
        cv_f value = cv_add(origin, cv_mul(range, cv_sin(angle)));
        cv_storeu(T_col + i, T);
        /* elsewhere (after an instance's first tick, unless its range is written) storing NR
         * again would only cost the column's write traffic */
        if (store_nr) cv_storeu(NR_col + i, NR);
        cvk_blend(out, i, value, cvk_col(w_col, w_value, i), hv->blend, &p);
    }
}

/* The harmonic stage: every entry over rows [i0, i1). */
static inline void cvk_harmonic(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_harmonic_view *hv = v->controller[CROWDI_CTL_HARMONIC];
    if (!hv) return;
    for (uint32_t h = 0; h < hv->count; h++) cvk_harmonic_entry(v, hv, dt, h, i0, i1);
}

#endif /* CROWDI_STAGES */
#endif
