/* The blink controller's kernel side (SPEC §4, engine/blink.c): its view of the rig and, in
 * the stage part (kernels/stages.h), the stage cvk_blink: eye opening by the sine or timed
 * model, then its blend into every blink parameter. */
#ifndef CROWDI_BLINK_H
#define CROWDI_BLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_table.h"
#include "motion.h"

enum { CROWDI_BLINK_SINE = 0, CROWDI_BLINK_TIMED = 1 };
/* Blink columns. CLOCK: sine T; timed next_blink while idling, else u. PHASE as a float. */
enum {
    CROWDI_BLINK_CLOCK, CROWDI_BLINK_PHASE, CROWDI_BLINK_LAST, CROWDI_BLINK_OPENING,
    CROWDI_BLINK_MANUAL, CROWDI_BLINK_WEIGHT,
    CROWDI_BLINK_NCOLS
};

/* The settings as crowd_rig_create took them (kernel forms: blend and model as above) and the
 * columns; a setting column (manual, weight) is NULL while uniform, its value in `value`. */
typedef struct crowdi_blink_view {
    uint32_t blend, model, count;
    float mean, max_deviation, timescale;
    const uint32_t *param; /* [count] the parameters blinked */
    float *col[CROWDI_BLINK_NCOLS];
    float value[CROWDI_BLINK_NCOLS];
} crowdi_blink_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_BLINK_FIELDS(X, ctl)                                                             \
    X(BLINK_WEIGHT, "blink_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)        \
    X(BLINK_MANUAL, "blink_manual", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MANUAL, true)        \
    X(BLINK_OPENING, "blink_opening", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_AT_MOST_ONE, true) \
    X(BLINK_PHASE, "blink_phase", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_OWN, true)     \
    X(BLINK_CLOCK, "blink_clock", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_FINITE, true)          \
    X(BLINK_LAST, "blink_last", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_FINITE, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES

#include "common.h"

/* ---- blink (SPEC §4) ---- */
static inline cv_f cvk_next_wait(const crowdi_rig_view *v, const crowdi_blink_view *b, size_t i, cv_m need) {
    cv_i draws = cv_iloadu(v->draws + i);
    cv_f u = cvk_draw(cv_iloadu(v->rkey + i), draws);
    cv_istoreu(v->draws + i, cv_iselect(need, cv_iadd(draws, cv_iset1(1)), draws));
    float dev = b->max_deviation;
    return cv_sub(cv_add(cv_set1(b->mean), cv_mul(u, cv_set1(2.0f * dev))), cv_set1(dev));
}

/* Returns eye_opening for the block, state advanced for the lanes not under manual control. */
static inline cv_f cvk_blink_sine(const crowdi_rig_view *v, const crowdi_blink_view *b, float dt, size_t i, cv_m run) {
    float *const *c = b->col;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    cv_f T = cv_loadu(c[CROWDI_BLINK_CLOCK] + i), phase = cv_loadu(c[CROWDI_BLINK_PHASE] + i);
    cv_f last = cv_loadu(c[CROWDI_BLINK_LAST] + i), eye = cv_loadu(c[CROWDI_BLINK_OPENING] + i);

    cv_m idle = cv_mand(run, cv_eq(phase, zero));
    T = cv_select(idle, cv_sub(T, cv_set1(dt)), T);
    cv_m start = cv_mand(idle, cv_lt(T, zero));
    T = cv_select(start, cv_set1(-1.5707964f), T);
    last = cv_select(start, one, last);
    phase = cv_select(start, one, phase);
    cv_m moving = cv_mand(run, cv_mor(cv_mnot(idle), start));

    if (!cv_any(moving)) { /* the whole block idles: eye_opening unchanged */
        cv_storeu(c[CROWDI_BLINK_CLOCK] + i, T);
        return eye;
    }
    cv_f T2 = cv_add(T, cv_set1(dt * b->timescale));
    cv_f value = cv_abs(cv_sin(T2));
    cv_m to_open = cv_mand(moving, cv_mand(cv_eq(phase, one), cv_gt(value, last)));
    cv_m to_idle = cv_mand(moving, cv_mand(cv_eq(phase, cv_set1(2.0f)), cv_lt(value, last)));
    value = cv_select(to_idle, one, value);
    phase = cv_select(to_open, cv_set1(2.0f), cv_select(to_idle, zero, phase));
    T = cv_select(moving, T2, T);
    if (cv_any(to_idle)) T = cv_select(to_idle, cvk_next_wait(v, b, i, to_idle), T);
    eye = cv_select(moving, value, eye);
    last = cv_select(moving, value, last);

    cv_storeu(c[CROWDI_BLINK_CLOCK] + i, T);
    cv_storeu(c[CROWDI_BLINK_PHASE] + i, phase);
    cv_storeu(c[CROWDI_BLINK_LAST] + i, last);
    return eye;
}

static inline cv_f cvk_blink_timed(const crowdi_rig_view *v, const crowdi_blink_view *b, float dt, size_t i, cv_m run) {
    float *const *c = b->col;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), two = cv_set1(2.0f), three = cv_set1(3.0f);
    cv_f clock = cv_loadu(c[CROWDI_BLINK_CLOCK] + i), phase = cv_loadu(c[CROWDI_BLINK_PHASE] + i);
    cv_f eye = cv_loadu(c[CROWDI_BLINK_OPENING] + i);

    cv_m idle = cv_mand(run, cv_eq(phase, zero));
    cv_m closing = cv_mand(run, cv_eq(phase, one));
    cv_m closed = cv_mand(run, cv_eq(phase, two));
    cv_m opening = cv_mand(run, cv_eq(phase, three));

    /* idling */
    cv_f next = cv_sub(clock, cv_set1(dt));
    cv_m start = cv_mand(idle, cv_lt(next, zero));
    cv_f new_clock = cv_select(start, zero, next);
    cv_f new_phase = cv_select(start, one, phase);
    cv_f out = one;

    /* the running phases share u = u + dt*timescale; u never goes below 0 on its own, and a
     * negative one written by a caller counts as 0 (so the opening stays <= 1) */
    cv_f u = cv_add(cv_max(zero, clock), cv_set1(dt * b->timescale));
    cv_f t_close = cv_div(u, one), t_closed = cv_div(u, cv_set1(0.5f));
    cv_f t_open = cv_div(u, cv_set1(1.5f));
    cv_m close_done = cv_mand(closing, cv_ge(t_close, one));
    cv_m closed_done = cv_mand(closed, cv_ge(t_closed, one));
    cv_m open_done = cv_mand(opening, cv_ge(t_open, one));

    cv_m running = cv_mor(closing, cv_mor(closed, opening));
    new_clock = cv_select(running, u, new_clock);
    new_clock = cv_select(cv_mor(close_done, closed_done), zero, new_clock);
    new_phase = cv_select(close_done, two, cv_select(closed_done, three, new_phase));
    new_phase = cv_select(open_done, zero, new_phase);
    out = cv_select(closing, cv_sub(one, t_close), out);
    out = cv_select(closed, zero, out);
    out = cv_select(opening, cv_select(open_done, one, t_open), out);
    if (cv_any(open_done)) new_clock = cv_select(open_done, cvk_next_wait(v, b, i, open_done), new_clock);

    cv_storeu(c[CROWDI_BLINK_CLOCK] + i, cv_select(run, new_clock, clock));
    cv_storeu(c[CROWDI_BLINK_PHASE] + i, cv_select(run, new_phase, phase));
    return cv_select(run, out, eye);
}

/* The stage: eye_opening of rows [i0, i1) into the OPENING column, then its blend into every
 * blink parameter. */
static inline void cvk_blink(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_blink_view *b = v->controller[CROWDI_CTL_BLINK];
    if (!b) return;
    float *const *c = b->col;
    /* With a motion controller, as the Cubism samples do: no blink at all (its state stands
     * still, nothing is blended) on an instance a motion updated this tick (motion.h's
     * UPDATED column); the motion's EyeBlink curve drives the eyes then. */
    const crowdi_motion_view *motion = v->controller[CROWDI_CTL_MOTION];
    const float *moved = motion ? motion->col[CROWDI_MOTION_UPDATED] : NULL;
    for (size_t i = i0; i < i1; i += CV_W) {
        cv_f manual = cvk_col(c[CROWDI_BLINK_MANUAL], b->value[CROWDI_BLINK_MANUAL], i);
        cv_m is_manual = cv_ge(manual, cv_zero());
        cv_m run = cv_mnot(is_manual);
        if (moved) run = cv_mand(run, cv_mnot(cv_gt(cv_loadu(moved + i), cv_zero())));
        cv_f eye = b->model == CROWDI_BLINK_SINE ? cvk_blink_sine(v, b, dt, i, run)
                                                 : cvk_blink_timed(v, b, dt, i, run);
        cv_storeu(c[CROWDI_BLINK_OPENING] + i, cv_select(is_manual, manual, eye));
    }
    if (moved) {
        for (uint32_t k = 0; k < b->count; k++) {
            const uint32_t p = b->param[k];
            float *out = v->out[p];
            for (size_t i = i0; i < i1; i += CV_W) {
                cv_f before = cv_loadu(out + i);
                cv_f w = cvk_col(c[CROWDI_BLINK_WEIGHT], b->value[CROWDI_BLINK_WEIGHT], i);
                cvk_blend(out, i, cv_loadu(c[CROWDI_BLINK_OPENING] + i), w, b->blend, &v->params[p]);
                cv_storeu(out + i, cv_select(cv_gt(cv_loadu(moved + i), cv_zero()), before, cv_loadu(out + i)));
            }
        }
        return;
    }
    for (uint32_t k = 0; k < b->count; k++) {
        uint32_t p = b->param[k];
        cvk_blend_rows(v->out[p], c[CROWDI_BLINK_OPENING], 0, 1.0f, c[CROWDI_BLINK_WEIGHT],
                       b->value[CROWDI_BLINK_WEIGHT], b->blend, &v->params[p], i0, i1);
    }
}

#endif /* CROWDI_STAGES */
#endif
