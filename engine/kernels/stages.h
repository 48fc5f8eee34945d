/* The tick's stages on one block of CV_W rows, written once on cv_ types and compiled per
 * target. Each formula follows SPEC §1-4 operation by operation: same float32 operations in
 * the same order, no fusing, so every width gives the same bits. Per-lane decisions are
 * masks and selects; rig-level settings are plain branches (uniform across lanes). */
#ifndef CROWDI_STAGES_H
#define CROWDI_STAGES_H

#include <math.h>

#include "cv.h"
#include "cv_math.h"
#include "kernel_table.h"
#include "limbs.h"

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

/* ---- blink (SPEC §4) ---- */
static inline cv_f cvk_next_wait(const crowdi_rig_view *v, size_t i, cv_m need) {
    cv_i draws = cv_iloadu(v->draws + i);
    cv_f u = cvk_draw(cv_iloadu(v->rkey + i), draws);
    cv_istoreu(v->draws + i, cv_iselect(need, cv_iadd(draws, cv_iset1(1)), draws));
    float dev = v->blink_max_deviation;
    return cv_sub(cv_add(cv_set1(v->blink_mean), cv_mul(u, cv_set1(2.0f * dev))), cv_set1(dev));
}

/* Returns eye_opening for the block, state advanced for the lanes not under manual control. */
static inline cv_f cvk_blink_sine(const crowdi_rig_view *v, float dt, size_t i, cv_m run) {
    float *const *c = v->blink_col;
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
    cv_f T2 = cv_add(T, cv_set1(dt * v->blink_timescale));
    cv_f value = cv_abs(cv_sin(T2));
    cv_m to_open = cv_mand(moving, cv_mand(cv_eq(phase, one), cv_gt(value, last)));
    cv_m to_idle = cv_mand(moving, cv_mand(cv_eq(phase, cv_set1(2.0f)), cv_lt(value, last)));
    value = cv_select(to_idle, one, value);
    phase = cv_select(to_open, cv_set1(2.0f), cv_select(to_idle, zero, phase));
    T = cv_select(moving, T2, T);
    if (cv_any(to_idle)) T = cv_select(to_idle, cvk_next_wait(v, i, to_idle), T);
    eye = cv_select(moving, value, eye);
    last = cv_select(moving, value, last);

    cv_storeu(c[CROWDI_BLINK_CLOCK] + i, T);
    cv_storeu(c[CROWDI_BLINK_PHASE] + i, phase);
    cv_storeu(c[CROWDI_BLINK_LAST] + i, last);
    return eye;
}

static inline cv_f cvk_blink_timed(const crowdi_rig_view *v, float dt, size_t i, cv_m run) {
    float *const *c = v->blink_col;
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
    cv_f u = cv_add(cv_max(zero, clock), cv_set1(dt * v->blink_timescale));
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
    if (cv_any(open_done)) new_clock = cv_select(open_done, cvk_next_wait(v, i, open_done), new_clock);

    cv_storeu(c[CROWDI_BLINK_CLOCK] + i, cv_select(run, new_clock, clock));
    cv_storeu(c[CROWDI_BLINK_PHASE] + i, cv_select(run, new_phase, phase));
    return cv_select(run, out, eye);
}

/* The blink stage: eye_opening of rows [i0, i1) into the OPENING column, then its blend into
 * every blink parameter */
static inline void cvk_blink(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    if (!v->blink_enabled) return;
    float *const *c = v->blink_col;
    for (size_t i = i0; i < i1; i += CV_W) {
        cv_f manual = cvk_col(c[CROWDI_BLINK_MANUAL], v->blink_value[CROWDI_BLINK_MANUAL], i);
        cv_m is_manual = cv_ge(manual, cv_zero());
        cv_m run = cv_mnot(is_manual);
        cv_f eye = v->blink_model == CROWDI_BLINK_SINE ? cvk_blink_sine(v, dt, i, run)
                                                       : cvk_blink_timed(v, dt, i, run);
        cv_storeu(c[CROWDI_BLINK_OPENING] + i, cv_select(is_manual, manual, eye));
    }
    for (uint32_t k = 0; k < v->blink_count; k++) {
        uint32_t p = v->blink_param[k];
        cvk_blend_rows(v->out[p], c[CROWDI_BLINK_OPENING], 0, 1.0f, c[CROWDI_BLINK_WEIGHT],
                       v->blink_value[CROWDI_BLINK_WEIGHT], v->blink_blend,
                       &v->params[p], i0, i1);
    }
}

/* ---- face tracking (order 500): kernels/face.h's stage, on the blends above ---- */
#define CROWDI_FACE_WANT_STAGE
#include "face.h"

/* ---- harmonic sines (SPEC §3) ---- */
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
static inline void cvk_harmonic_entry(const crowdi_rig_view *v, float dt, uint32_t h, size_t i0, size_t i1) {
    const crowdi_harm_entry e = v->harm[h];
    const crowdi_param p = v->params[e.param];
    const float min = p.min, max = p.max, VR = p.size;
    const float step = dt * v->timescales[e.channel];
    const float origin0 = min + e.origin * VR;
    const float r2_left = (origin0 - min) / 2.0f, r2_right = (max - origin0) / 2.0f;
    const float nr_left = (r2_left * 2.0f) / VR, nr_right = (r2_right * 2.0f) / VR;
    float *T_col = v->harm_T[h], *NR_col = v->harm_NR[h], *out = v->out[e.param];
    const float *w_col = v->harm_weight, w_value = v->harm_weight_value;
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
        cvk_blend(out, i, value, cvk_col(w_col, w_value, i), v->harm_blend, &p);
    }
}

/* The harmonic stage: every entry over rows [i0, i1). */
static inline void cvk_harmonic(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    if (!v->harm_enabled) return;
    for (uint32_t h = 0; h < v->harm_count; h++) cvk_harmonic_entry(v, dt, h, i0, i1);
}

/* ---- gaze (SPEC §2): Unity's Vector3.SmoothDamp with its freeze ---- */
/* The gaze settings a block reads (target, centre, active, damping), copied to locals by
 * cvk_look: stores to float columns could otherwise alias the view's values. `fixed`: centre
 * and damping are one value for the whole rig (the usual case), held in registers. */
typedef struct cvk_look_in {
    const float *col[CROWDI_LOOK_NCOLS];
    float value[CROWDI_LOOK_NCOLS];
    float st, omega, e; /* fixed: SmoothDamp's smooth time, omega and exp factor, one per rig */
} cvk_look_in;

static inline __attribute__((always_inline)) void cvk_look_state(const crowdi_rig_view *v, const cvk_look_in *in, bool fixed,
                                                                float dt, size_t i) {
    float *const *c = v->look_col;
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
        if (v->look_max_speed < INFINITY) {
            cv_f maxC = cv_mul(cv_set1(v->look_max_speed), st);
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
static inline void cvk_look(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    if (!v->look_enabled) return;
    cvk_look_in in;
    for (int c = 0; c < CROWDI_LOOK_NCOLS; c++) in.col[c] = v->look_col[c], in.value[c] = v->look_value[c];
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
    for (uint32_t k = 0; k < v->look_count; k++) {
        const crowdi_look_entry e = v->look[k];
        cvk_blend_rows(v->out[e.param], v->look_col[CROWDI_LOOK_POS_X + e.axis], 1, e.factor,
                       v->look_col[CROWDI_LOOK_WEIGHT], v->look_value[CROWDI_LOOK_WEIGHT], v->look_blend,
                       &v->params[e.param], i0, i1);
    }
}

/* Every parameter's output starts as its base (SPEC §1), rows [i0, i1). */
static inline void cvk_base(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    (void)dt;
    for (uint32_t p = 0; p < v->param_count; p++) {
        const float *base = v->base[p];
        float *out = v->out[p];
        if (base) {
            for (size_t i = i0; i < i1; i += CV_W) cv_storeu(out + i, cv_loadu(base + i));
        } else { /* nobody wrote a base value of this parameter: it is the rig's default */
            const cv_f value = cv_set1(v->base_value[p]);
            for (size_t i = i0; i < i1; i += CV_W) cv_storeu(out + i, value);
        }
    }
}

/* ---- the fused pass over rows [first, first + count), count a multiple of CV_W ----
 * Rows go in chunks; within a chunk each stage and each entry runs as its own loop, so its
 * settings stay in registers. Chunks of 4096 rows stream each column in 16 KiB runs (1.17x
 * faster at 1M instances than 256, and no slower at 16k). Every lane still sees exactly
 * SPEC's sequence: out = base, then blink, harmonic and look blends in order. */
#define CVK_CHUNK 4096

static inline void cvk_tick(const crowdi_rig_view *v, float dt, uint32_t first, uint32_t count) {
    const size_t end = (size_t)first + count;
    for (size_t i0 = first; i0 < end; i0 += CVK_CHUNK) {
        const size_t i1 = end - i0 < CVK_CHUNK ? end : i0 + CVK_CHUNK;
        cvk_base(v, dt, i0, i1);
        cvk_blink(v, dt, i0, i1);
        cvk_face(v, dt, i0, i1);
        cvk_harmonic(v, dt, i0, i1);
        cvk_look(v, dt, i0, i1);
        cvk_limbs(v, dt, i0, i1);
    }
}

#endif
