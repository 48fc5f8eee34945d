/* Face tracking (crowd.h section 11), order 500: blend-shape scores and head pose mapped onto
 * parameters, with the presence hand-off and optional One Euro smoothing.
 *
 * The first part is plain C (the settings and columns the engine hands the kernels; face.c
 * reads it too); the second, in the kernel source only (kernels/stages.h defines
 * CROWDI_STAGES), is the stage:
 *   cvk_face_head(q, &yaw, ...)     head yaw/pitch/roll in degrees from a unit quaternion
 *   cvk_face_curve(curve, s)        linear or smoothstep
 *   cvk_face(view, dt, i0, i1)      the stage over rows [i0, i1) (whole blocks), the rig view's
 *                                   face part, blending into its outputs
 */
#ifndef CROWDI_FACE_H
#define CROWDI_FACE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel_table.h"

#define CROWDI_FACE_SCORES 52
#define CROWDI_FACE_SOURCES 55 /* the scores, then yaw, pitch, roll */
#define CROWDI_FACE_HEAD 52    /* the first head source */
enum { CROWDI_FACE_LINEAR = 0, CROWDI_FACE_SMOOTHSTEP = 1 };
/* Columns, stride rows apart: scores, rotation xyzw, presence, weight, control, then per
 * smoothed source (in face_smoothed order) the filtered value, its derivative and the last raw
 * value, then one "has a first sample" flag. */
enum {
    CROWDI_FACE_COL_ROT = CROWDI_FACE_SCORES,
    CROWDI_FACE_COL_PRESENCE = CROWDI_FACE_COL_ROT + 4,
    CROWDI_FACE_COL_WEIGHT,
    CROWDI_FACE_COL_CONTROL,
    CROWDI_FACE_COL_FILTER
};
/* Below this distance control snaps to its goal (crowd.h section 11). */
#define CROWDI_FACE_SNAP 0x1p-10f
/* Below this cos(pitch) the yaw/roll split is gimbal-locked: roll 0, yaw from the rest. */
#define CROWDI_FACE_GIMBAL 0x1p-10f
#define CROWDI_FACE_DEGREES 57.29578f /* 180/pi in float */

typedef struct crowdi_face_entry {
    uint32_t source, curve;
    float gain, offset;
} crowdi_face_entry;

/* One driven parameter: its entries are entries[first .. first + count). */
typedef struct crowdi_face_target {
    uint32_t param, blend, first, count;
} crowdi_face_target;

typedef struct crowdi_face_view {
    uint32_t target_count, used_count, smoothed_count, need_head;
    const crowdi_face_target *targets;
    const crowdi_face_entry *entries;
    const uint32_t *used;     /* [used_count] sources some entry reads, ascending */
    const uint32_t *smoothed; /* [smoothed_count] sources filtered, ascending */
    float threshold, half_life, min_cutoff, beta, d_cutoff;
    size_t stride;
    float *cols; /* column c at cols + c*stride */
} crowdi_face_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_FACE_FIELDS(X, ctl)                                                                          \
    X(FACE_SCORES, "face_scores", ctl, CROWD_FACE_SCORE_COUNT, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true) \
    X(FACE_ROTATION, "face_rotation", ctl, 4, CROWDI_INDEX_NONE, CROWDI_RULE_QUAT, true)                    \
    X(FACE_PRESENCE, "face_presence", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                  \
    X(FACE_WEIGHT, "face_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                      \
    X(FACE_CONTROL, "face_control", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES
#include <math.h>

#include "common.h"
#include "one_euro.h"

/* Head yaw, pitch and roll in degrees from a unit quaternion (crowd.h section 11). */
static inline void cvk_face_head(cv_f x, cv_f y, cv_f z, cv_f w, cv_f *yaw, cv_f *pitch, cv_f *roll) {
    const cv_f one = cv_set1(1.0f), two = cv_set1(2.0f);
    cv_f xx = cv_mul(x, x), yy = cv_mul(y, y), zz = cv_mul(z, z);
    cv_f r02 = cv_mul(two, cv_add(cv_mul(x, z), cv_mul(w, y)));
    cv_f r22 = cv_sub(one, cv_mul(two, cv_add(xx, yy)));
    cv_f r12 = cv_mul(two, cv_sub(cv_mul(y, z), cv_mul(w, x)));
    cv_f r10 = cv_mul(two, cv_add(cv_mul(x, y), cv_mul(w, z)));
    cv_f r11 = cv_sub(one, cv_mul(two, cv_add(xx, zz)));
    cv_f r00 = cv_sub(one, cv_mul(two, cv_add(yy, zz)));
    cv_f r20 = cv_mul(two, cv_sub(cv_mul(x, z), cv_mul(w, y)));
    cv_f c = cv_sqrt(cv_add(cv_mul(r02, r02), cv_mul(r22, r22)));
    cv_m locked = cv_lt(c, cv_set1(CROWDI_FACE_GIMBAL));
    const cv_f deg = cv_set1(CROWDI_FACE_DEGREES);
    *pitch = cv_mul(cv_atan2(cv_neg(r12), c), deg);
    *yaw = cv_mul(cv_atan2(cv_select(locked, cv_neg(r20), r02), cv_select(locked, r00, r22)), deg);
    *roll = cv_select(locked, cv_zero(), cv_mul(cv_atan2(r10, r11), deg));
}

static inline cv_f cvk_face_curve(uint32_t curve, cv_f s) {
    if (curve == CROWDI_FACE_LINEAR) return s;
    cv_f t = cv_min(cv_set1(1.0f), cv_max(cv_zero(), s));
    return cv_mul(cv_mul(t, t), cv_sub(cv_set1(3.0f), cv_mul(cv_set1(2.0f), t)));
}

/* per tick constants */
typedef struct cvk_face_tick {
    float dt, k, alpha_d, frequency, two_pi_dt;
} cvk_face_tick;

/* One Euro (the limbs' formula, crowd.h section 9) on one source; dt = 0 keeps the filtered
 * value, a first sample passes. */
static inline cv_f cvk_face_one_euro(const crowdi_face_view *f, const cvk_face_tick *t, size_t i, uint32_t k, cv_f x,
                                     cv_m first) {
    float *xhat_col = f->cols + (CROWDI_FACE_COL_FILTER + 3 * (size_t)k) * f->stride;
    float *dxhat_col = xhat_col + f->stride, *raw_col = dxhat_col + f->stride;
    if (!(t->dt > 0.0f)) {
        cv_f kept = cv_select(first, x, cv_loadu(xhat_col + i));
        cv_storeu(xhat_col + i, kept);
        cv_storeu(raw_col + i, cv_select(first, x, cv_loadu(raw_col + i)));
        return kept;
    }
    return cvk_one_euro(f->min_cutoff, f->beta, t->frequency, t->two_pi_dt, t->alpha_d, xhat_col, dxhat_col, raw_col, i,
                        x, first);
}

/* One block of CV_W rows at row i. out: the rig's output columns; params their ranges. */
static inline void cvk_face_block(const crowdi_face_view *f, const cvk_face_tick *t, float *const *out,
                                  const crowdi_param *params, size_t i) {
    const size_t st = f->stride;
    float *const cols = f->cols;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);

    /* hand-off */
    float *control_col = cols + CROWDI_FACE_COL_CONTROL * st;
    cv_f goal = cv_select(cv_gt(cv_loadu(cols + CROWDI_FACE_COL_PRESENCE * st + i), cv_set1(f->threshold)), one, zero);
    cv_f control = cv_loadu(control_col + i);
    control = cv_add(goal, cv_mul(cv_sub(control, goal), cv_set1(t->k)));
    control = cv_select(cv_lt(cv_abs(cv_sub(control, goal)), cv_set1(CROWDI_FACE_SNAP)), goal, control);
    cv_storeu(control_col + i, control);
    cv_f w = cv_mul(cv_loadu(cols + CROWDI_FACE_COL_WEIGHT * st + i), control);

    /* sources */
    cv_f src[CROWDI_FACE_SOURCES];
    for (uint32_t u = 0; u < f->used_count; u++) {
        uint32_t s = f->used[u];
        if (s < CROWDI_FACE_SCORES) src[s] = cv_loadu(cols + (size_t)s * st + i);
    }
    if (f->need_head) {
        const float *rot = cols + CROWDI_FACE_COL_ROT * st;
        cvk_face_head(cv_loadu(rot + i), cv_loadu(rot + st + i), cv_loadu(rot + 2 * st + i), cv_loadu(rot + 3 * st + i),
                      &src[CROWDI_FACE_HEAD], &src[CROWDI_FACE_HEAD + 1], &src[CROWDI_FACE_HEAD + 2]);
    }
    if (f->smoothed_count) {
        float *ready = cols + (CROWDI_FACE_COL_FILTER + 3 * (size_t)f->smoothed_count) * st;
        cv_m first = cv_eq(cv_loadu(ready + i), zero);
        for (uint32_t k = 0; k < f->smoothed_count; k++) {
            uint32_t s = f->smoothed[k];
            src[s] = cvk_face_one_euro(f, t, i, k, src[s], first);
        }
        cv_storeu(ready + i, one);
    }

    /* mapping */
    for (uint32_t g = 0; g < f->target_count; g++) {
        const crowdi_face_target tg = f->targets[g];
        const crowdi_face_entry *e = f->entries + tg.first;
        cv_f sum = cv_add(cv_set1(e[0].offset), cv_mul(cv_set1(e[0].gain), cvk_face_curve(e[0].curve, src[e[0].source])));
        for (uint32_t k = 1; k < tg.count; k++)
            sum = cv_add(sum, cv_add(cv_set1(e[k].offset), cv_mul(cv_set1(e[k].gain), cvk_face_curve(e[k].curve, src[e[k].source]))));
        cvk_blend(out[tg.param], i, sum, w, tg.blend, &params[tg.param]);
    }
}

/* The stage over rows [i0, i1) (whole blocks). */
static inline void cvk_face(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_face_view *f = v->controller[CROWDI_CTL_FACE];
    if (!f) return;
    float *const *out = v->out;
    const crowdi_param *params = v->params;
    cvk_face_tick t = {.dt = dt, .k = exp2f(-(dt / f->half_life))};
    if (f->smoothed_count && dt > 0.0f) {
        t.alpha_d = 1.0f / (1.0f + (1.0f / (6.2831855f * f->d_cutoff)) / dt);
        t.frequency = fminf(1.0f / dt, 1e30f);
        t.two_pi_dt = 6.2831855f * dt;
    }
    for (size_t i = i0; i < i1; i += CV_W) cvk_face_block(f, &t, out, params, i);
}

#endif /* CROWDI_STAGES */
#endif
