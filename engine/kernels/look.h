/* The look controller's kernel side (SPEC §2, engine/look.c): its view of the rig and, in the
 * stage part, the stage cvk_look: gaze by Unity's Vector3.SmoothDamp with its freeze, blended
 * into parameters by axis and factor. */
#ifndef CROWDI_LOOK_H
#define CROWDI_LOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"

/* Gaze columns, in this order. */
enum {
    CROWDI_LOOK_POS_X, CROWDI_LOOK_POS_Y, CROWDI_LOOK_POS_Z,
    CROWDI_LOOK_VEL_X, CROWDI_LOOK_VEL_Y, CROWDI_LOOK_VEL_Z,
    CROWDI_LOOK_TARGET_X, CROWDI_LOOK_TARGET_Y, CROWDI_LOOK_TARGET_Z,
    CROWDI_LOOK_CENTER_X, CROWDI_LOOK_CENTER_Y, CROWDI_LOOK_CENTER_Z,
    CROWDI_LOOK_ACTIVE, CROWDI_LOOK_DAMPING, CROWDI_LOOK_WEIGHT,
    CROWDI_LOOK_NCOLS
};
/* gaze state bounds: |target - centre| <= 2e15, so the squares below stay finite */
#define CROWDI_LOOK_MAX_POSITION 1e18f
#define CROWDI_LOOK_MAX_VELOCITY 1e24f

typedef struct crowdi_look_entry {
    uint32_t param, axis;
    float factor;
} crowdi_look_entry;

/* The settings as crowd_rig_create took them (blend in kernel form; the damping is the
 * DAMPING column's start value) and the columns; setting columns (target, centre, active,
 * damping, weight) are NULL while uniform, their value in `value`. */
typedef struct crowdi_look_view {
    uint32_t blend, count;
    float max_speed;
    const crowdi_look_entry *entries; /* [count] */
    float *col[CROWDI_LOOK_NCOLS];
    float value[CROWDI_LOOK_NCOLS];
} crowdi_look_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_LOOK_FIELDS(X, ctl)                                                           \
    X(LOOK_TARGET, "look_target", ctl, 3, CROWDI_INDEX_NONE, CROWDI_RULE_COORD, true)        \
    X(LOOK_ACTIVE, "look_active", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SWITCH, true)       \
    X(LOOK_CENTER, "look_center", ctl, 3, CROWDI_INDEX_NONE, CROWDI_RULE_COORD, true)        \
    X(LOOK_DAMPING, "look_damping", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)    \
    X(LOOK_WEIGHT, "look_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)       \
    X(LOOK_POSITION, "look_position", ctl, 3, CROWDI_INDEX_NONE, CROWDI_RULE_LOOK_POS, true) \
    X(LOOK_VELOCITY, "look_velocity", ctl, 3, CROWDI_INDEX_NONE, CROWDI_RULE_LOOK_VEL, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES
#include "common.h"

/* The gaze settings a block reads (target, centre, active, damping), copied to locals by
 * cvk_look: stores to float columns could otherwise alias the view's values. `fixed`: centre
 * and damping are one value for the whole rig (the usual case), held in registers. */
typedef struct cvk_look_in {
    const float *col[CROWDI_LOOK_NCOLS];
    float value[CROWDI_LOOK_NCOLS];
    float st, omega, e; /* fixed: SmoothDamp's smooth time, omega and exp factor, one per rig */
} cvk_look_in;

static inline __attribute__((always_inline)) void cvk_look_state(const crowdi_look_view *v, const cvk_look_in *in, bool fixed,
                                                                float dt, size_t i) {
    float *const *c = v->col;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), vdt = cv_set1(dt);
    cv_f pos[3], vel[3], goal[3];
    cv_m active = cv_gt(cvk_col(in->col[CROWDI_LOOK_ACTIVE], in->value[CROWDI_LOOK_ACTIVE], i), zero);
    for (int a = 0; a < 3; a++) {
        pos[a] = cv_loadu(c[CROWDI_LOOK_POS_X + a] + i);
        vel[a] = cv_loadu(c[CROWDI_LOOK_VEL_X + a] + i);
        const int tc = CROWDI_LOOK_TARGET_X + a, cc = CROWDI_LOOK_CENTER_X + a;
        cv_f center = fixed ? cv_set1(in->value[cc]) : cvk_col(in->col[cc], in->value[cc], i);
        cv_f t = cv_sub(cvk_col(in->col[tc], in->value[tc], i), center);
        goal[a] = cv_select(active, t, zero);
    }
    cv_f d[3];
    for (int a = 0; a < 3; a++) d[a] = cv_sub(pos[a], goal[a]);
    cv_f dist2 = cv_add(cv_add(cv_mul(d[0], d[0]), cv_mul(d[1], d[1])), cv_mul(d[2], d[2]));
    cv_m update = cv_ge(dist2, cv_set1(1e-5f * 1e-5f));

    if (cv_any(update)) {
        const int dc = CROWDI_LOOK_DAMPING;
        cv_f st, omega, e;
        if (fixed) {
            st = cv_set1(in->st), omega = cv_set1(in->omega), e = cv_set1(in->e);
        } else { /* the same operations as cvk_look's scalar ones, per lane */
            st = cv_max(cv_set1(0.0001f), cvk_col(in->col[dc], in->value[dc], i));
            omega = cv_div(cv_set1(2.0f), st);
            cv_f x = cv_mul(omega, vdt);
            e = cv_div(one, cv_add(cv_add(cv_add(one, x), cv_mul(cv_mul(cv_set1(0.48f), x), x)),
                                   cv_mul(cv_mul(cv_mul(cv_set1(0.235f), x), x), x)));
        }
        cv_f ch[3];
        for (int a = 0; a < 3; a++) ch[a] = cv_sub(pos[a], goal[a]);
        if (v->max_speed < INFINITY) {
            cv_f maxC = cv_mul(cv_set1(v->max_speed), st);
            cv_f sum = cv_add(cv_add(cv_mul(ch[0], ch[0]), cv_mul(ch[1], ch[1])), cv_mul(ch[2], ch[2]));
            cv_m limit = cv_gt(sum, cv_mul(maxC, maxC));
            if (cv_any(limit)) {
                cv_f mag = cv_sqrt(sum);
                for (int a = 0; a < 3; a++)
                    ch[a] = cv_select(limit, cv_mul(cv_div(ch[a], mag), maxC), ch[a]);
            }
        }
        cv_f out[3], nvel[3];
        for (int a = 0; a < 3; a++) {
            cv_f tgt = cv_sub(pos[a], ch[a]);
            cv_f temp = cv_mul(cv_add(vel[a], cv_mul(omega, ch[a])), vdt);
            nvel[a] = cv_mul(cv_sub(vel[a], cv_mul(omega, temp)), e);
            out[a] = cv_add(tgt, cv_mul(cv_add(ch[a], temp), e));
        }
        cv_f dot = zero;
        for (int a = 0; a < 3; a++)
            dot = cv_add(dot, cv_mul(cv_sub(goal[a], pos[a]), cv_sub(out[a], goal[a])));
        cv_m overshoot = cv_gt(dot, zero);
        /* Bounds no sane input reaches, keeping every product above finite (so that the state
         * stays within what crowd_instances_set and snapshots accept) */
        const cv_f pos_lim = cv_set1(CROWDI_LOOK_MAX_POSITION), vel_lim = cv_set1(CROWDI_LOOK_MAX_VELOCITY);
        for (int a = 0; a < 3; a++) {
            out[a] = cv_min(pos_lim, cv_max(cv_neg(pos_lim), cv_select(overshoot, goal[a], out[a])));
            nvel[a] = cv_min(vel_lim, cv_max(cv_neg(vel_lim), cv_select(overshoot, zero, nvel[a])));
            pos[a] = cv_select(update, out[a], pos[a]);
            vel[a] = cv_select(update, nvel[a], vel[a]);
            cv_storeu(c[CROWDI_LOOK_POS_X + a] + i, pos[a]);
            cv_storeu(c[CROWDI_LOOK_VEL_X + a] + i, vel[a]);
        }
    }
}

/* The look stage: the gaze state of rows [i0, i1), then its blend into every look parameter. */
static inline void cvk_look(const crowdi_rig_view *rv, float dt, size_t i0, size_t i1) {
    const crowdi_look_view *v = rv->controller[CROWDI_CTL_LOOK];
    if (!v) return;
    cvk_look_in in;
    for (int c = 0; c < CROWDI_LOOK_NCOLS; c++) in.col[c] = v->col[c], in.value[c] = v->value[c];
    if (!in.col[CROWDI_LOOK_CENTER_X] && !in.col[CROWDI_LOOK_CENTER_Y] && !in.col[CROWDI_LOOK_CENTER_Z] &&
        !in.col[CROWDI_LOOK_DAMPING]) {
        /* one damping for the rig: SmoothDamp's factors once, in the order the lanes would
         * compute them (cv_max(a, b) is a > b ? a : b; IEEE single, never fused) */
        const float d = in.value[CROWDI_LOOK_DAMPING], x0 = 0.0001f > d ? 0.0001f : d;
        in.st = x0;
        in.omega = 2.0f / x0;
        const float x = in.omega * dt;
        in.e = 1.0f / (((1.0f + x) + (0.48f * x) * x) + ((0.235f * x) * x) * x);
        for (size_t i = i0; i < i1; i += CV_W) cvk_look_state(v, &in, true, dt, i);
    } else {
        for (size_t i = i0; i < i1; i += CV_W) cvk_look_state(v, &in, false, dt, i);
    }
    for (uint32_t k = 0; k < v->count; k++) {
        const crowdi_look_entry e = v->entries[k];
        cvk_blend_rows(rv->out[e.param], v->col[CROWDI_LOOK_POS_X + e.axis], 1, e.factor, v->col[CROWDI_LOOK_WEIGHT],
                       v->value[CROWDI_LOOK_WEIGHT], v->blend, &rv->params[e.param], i0, i1);
    }
}

#endif /* CROWDI_STAGES */
#endif
