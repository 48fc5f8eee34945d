/* Fingers from MediaPipe hand landmarks (crowd.h section 9a) on one block of CV_W rows, on cv_
 * types: per hand the hand bone and the 15 VRM 1.0 finger bones, trust and easing as the limbs'
 * (SPEC 5.1), optional One Euro. Degenerate cases are masks and selects, so every lane runs the
 * same instructions.
 *
 * The first part is plain C (the settings and columns the engine hands the kernels; fingers.c
 * reads it too); the second, in the kernel source only (kernels/stages.h defines
 * CROWDI_STAGES), is the stage cvk_fingers(view, dt, i0, i1), which runs after the limbs' and
 * reads their lower arm and hand rotations. */
#ifndef CROWDI_FINGERS_H
#define CROWDI_FINGERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_table.h"
#include "limbs.h"

#define CROWDI_HAND_LMS 21
#define CROWDI_HAND_FLOATS (3 * CROWDI_HAND_LMS + 1) /* x, y, z per landmark, then presence */
#define CROWDI_HAND_BONES 16                          /* the hand, then 15 finger bones */
#define CROWDI_FINGER_BONES (2 * CROWDI_HAND_BONES)
/* per hand: 63 filtered coordinates, 63 derivatives, 63 last raw values, 1 "has a sample" flag */
#define CROWDI_HAND_FILTER (3 * 3 * CROWDI_HAND_LMS + 1)

/* Each bone of a hand: its parent within the hand (-1: the limbs' lower arm, or identity) and
 * the landmarks its direction runs between (the hand: wrist to the midpoint of 5 and 17). */
static const int crowdi_hand_parent[CROWDI_HAND_BONES] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};
static const int crowdi_hand_from[CROWDI_HAND_BONES] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};

/* The fingers' view of the rig: settings and columns, stride rows apart, from `cols` on:
 * hands (2 * 64: landmarks then presence per hand), world and local (4 per bone, 32 bones),
 * then track (when the threshold is above 0: per hand the progress r, -1 after an untrusted
 * tick) and filter (smoothing: 2 * 190). */
typedef struct crowdi_fingers_view {
    uint32_t flip_y, flip_x, smoothing;
    float threshold, hold_half_life, reacquire_half_life;
    float bend_sin_min, bend_sin_range; /* sin(bend_min), sin(bend_full) - sin(bend_min) */
    float min_cutoff, beta, d_cutoff;
    uint32_t limits;   /* joint limits on: the four fingers' flexion (crowd.h section 9a) */
    float limit[3][8]; /* MCP, PIP, DIP: cos and sin of the lower limit, of the upper, cos of
                          the zone 180 - (upper - lower) each holds, cos and sin of lower + upper
                          - 180 (the far side's mirror), 0 */
    float fix[CROWDI_FINGER_BONES][4], rest_local[CROWDI_FINGER_BONES][4], rest_world[CROWDI_FINGER_BONES][4];
    uint8_t fix_kind[CROWDI_FINGER_BONES];
    size_t stride;
    float *hands, *world, *local, *track, *filter;
} crowdi_fingers_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_FINGERS_FIELDS(X, ctl)                                                                      \
    X(HAND_LANDMARKS, "hand_landmarks", ctl, CROWD_HAND_FLOATS, CROWDI_INDEX_HAND, CROWDI_RULE_HAND, true) \
    X(FINGER_WORLD, "finger_world", ctl, 4, CROWDI_INDEX_FINGER_BONE, CROWDI_RULE_QUAT, false)             \
    X(FINGER_LOCAL, "finger_local", ctl, 4, CROWDI_INDEX_FINGER_BONE, CROWDI_RULE_QUAT, false)

/* ---- the stage: in the kernel source only ---- */
#ifdef CROWDI_STAGES
#include "common.h"
#include "cv_geom.h"
#include "cv_math.h"
#include "one_euro.h"

typedef struct cvk_fingers_tick {
    float dt, alpha_d, frequency, two_pi_dt;
    float step, k_in, k_out; /* as the limbs' (cvk_limb_tick) */
    bool track;
} cvk_fingers_tick;

/* Landmark k of the hand whose columns start at base, row i, as stored. */
static inline cv_v3 cvk_hand_lm(const float *base, size_t st, int k, size_t i) {
    return (cv_v3){cv_loadu(base + (size_t)(3 * k) * st + i), cv_loadu(base + (size_t)(3 * k + 1) * st + i),
                   cv_loadu(base + (size_t)(3 * k + 2) * st + i)};
}

/* The plain solve of one hand (crowd.h section 9a), in two parts: the frame every bone shares
 * (the palm's forward and side axes, the thumb's side), then each bone's fixed, normalised
 * world rotation and |q|^2 before normalising (the sanity check's input) as the hierarchy
 * loop reaches it, so that no array of all 16 directions and rotations stays alive. */
typedef struct cvk_hand_frame {
    cv_v3 f, a, thumb, dir1, dir3;
} cvk_hand_frame;

static inline cv_v3 cvk_hand_dir(const cv_v3 p[CROWDI_HAND_LMS], int b) {
    return cv_v3_normalized(cv_v3_sub(p[crowdi_hand_from[b] + 1], p[crowdi_hand_from[b]]));
}

static inline __attribute__((always_inline)) cvk_hand_frame cvk_hand_frame_of(const crowdi_fingers_view *v,
                                                                              const cv_v3 p[CROWDI_HAND_LMS]) {
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    cvk_hand_frame h;
    h.a = cv_v3_sub(p[17], p[5]); /* the palm's side axis, index to little */
    h.f = cv_v3_normalized(cv_v3_sub(cv_v3_mid(p[5], p[17]), p[0]));
    h.dir1 = cvk_hand_dir(p, 1);
    h.dir3 = cvk_hand_dir(p, 3);
    /* the thumb's own side: its reference blended with its bend plane by how much it bends */
    cv_v3 ref = cv_v3_normalized(cv_v3_cross(h.f, h.a));
    cv_v3 c = cv_v3_cross(h.dir1, h.dir3);
    cv_f b = cv_sqrt(cv_v3_dot(c, c));
    cv_m straight = cv_lt(cv_v3_dot(c, ref), zero); /* bent backward counts as straight */
    cv_f u = cv_div(cv_sub(b, cv_set1(v->bend_sin_min)), cv_set1(v->bend_sin_range));
    u = cv_select(straight, zero, cv_min(cv_max(u, zero), one));
    cv_m none = cv_le(u, zero);
    cv_v3 mix = cv_v3_add(cv_v3_scale(c, cv_div(u, cv_select(none, one, b))), cv_v3_scale(ref, cv_sub(one, u)));
    h.thumb = cv_v3_select(none, ref, cv_v3_normalized(mix));
    return h;
}

/* A finger's joints as the bone loop walks them: the direction of the bone before (the hand's
 * for the first), and per lane whether a limit turned the finger so far and by how much (cos,
 * sin about the flexion axis): the bones after it turn with it, keeping their own flexion. */
typedef struct cvk_finger_chain {
    cv_v3 parent;
    cv_f c, s;
    cv_m lanes;
    bool turned; /* some lane of the block: only then is the turn worked out */
} cvk_finger_chain;

/* d turned about the unit axis h by the angle whose cos and sin are c, s (Rodrigues) */
static inline cv_v3 cvk_turn_about(cv_v3 h, cv_f c, cv_f s, cv_v3 d) {
    cv_v3 r = cv_v3_add(cv_v3_scale(d, c), cv_v3_scale(cv_v3_cross(h, d), s));
    return cv_v3_add(r, cv_v3_scale(h, cv_mul(cv_v3_dot(h, d), cv_sub(cv_set1(1.0f), c))));
}

/* A finger bone's direction d (unit or zero) within its joint's limits lo, hi (crowd.h section
 * 9a): the joint's flexion t is the turn from the parent's direction p to d about the flexion
 * axis h (the palm's side axis, signed so that flexion is positive), both projected off h:
 * (cos t, sin t) = (x, y) / |(x, y)| with x = p . d - (p . h)(d . h), y = h . (p x d). Beyond a
 * limit by at most z = 180 - (hi - lo) degrees, d turns about h to that limit; farther round
 * (pointing back, where no finger goes) to lo + hi - 180 - t, which joins the two limits
 * continuously, so a noisy direction never jumps between them. All by cross and dot products of
 * (cos, sin) pairs, no angle taken. A lane within its limits keeps d's bits; its sideways part
 * (d . h) always stays. */
static inline __attribute__((always_inline)) cv_v3 cvk_finger_limit(const float lim[8], cv_v3 h, cv_m h_ok, cv_v3 d,
                                                                     cvk_finger_chain *ch) {
    if (ch->turned) d = cv_v3_select(ch->lanes, cvk_turn_about(h, ch->c, ch->s, d), d);
    const cv_v3 p = ch->parent;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    const cv_f cl = cv_set1(lim[0]), sl = cv_set1(lim[1]), chi = cv_set1(lim[2]), shi = cv_set1(lim[3]);
    const cv_f x = cv_sub(cv_v3_dot(p, d), cv_mul(cv_v3_dot(p, h), cv_v3_dot(d, h)));
    const cv_f y = cv_v3_dot(h, cv_v3_cross(p, d));
    const cv_m below = cv_lt(cv_sub(cv_mul(cl, y), cv_mul(sl, x)), zero);   /* sin(t - lo) < 0 */
    const cv_m above = cv_lt(cv_sub(cv_mul(shi, x), cv_mul(chi, y)), zero); /* sin(hi - t) < 0 */
    const cv_f r2 = cv_add(cv_mul(x, x), cv_mul(y, y));
    /* a direction along the axis (or none) has no flexion to limit */
    const cv_m out = cv_mand(cv_mand(cv_mor(below, above), h_ok), cv_gt(r2, cv_set1(1e-6f)));
    if (cv_any(out)) {
        const cv_f inv = cv_div(one, cv_sqrt(cv_select(out, r2, one)));
        const cv_f wc = cv_mul(x, inv), ws = cv_mul(y, inv); /* cos t, sin t */
        const cv_f cz = cv_set1(lim[4]), cm = cv_set1(lim[5]), sm = cv_set1(lim[6]);
        /* within z of a limit on its side: that limit; else the mirror (cos, sin)(m - t) */
        const cv_m at_lo = cv_mand(below, cv_ge(cv_add(cv_mul(wc, cl), cv_mul(ws, sl)), cz));
        const cv_m at_hi = cv_mand(above, cv_ge(cv_add(cv_mul(wc, chi), cv_mul(ws, shi)), cz));
        cv_f lc = cv_add(cv_mul(cm, wc), cv_mul(sm, ws)), ls = cv_sub(cv_mul(sm, wc), cv_mul(cm, ws));
        lc = cv_select(at_lo, cl, cv_select(at_hi, chi, lc));
        ls = cv_select(at_lo, sl, cv_select(at_hi, shi, ls));
        /* the turn from t to the target */
        const cv_f tc = cv_select(out, cv_add(cv_mul(wc, lc), cv_mul(ws, ls)), one);
        const cv_f ts = cv_select(out, cv_sub(cv_mul(wc, ls), cv_mul(ws, lc)), zero);
        d = cv_v3_select(out, cvk_turn_about(h, tc, ts, d), d);
        if (ch->turned) {
            const cv_f c = cv_sub(cv_mul(ch->c, tc), cv_mul(ch->s, ts)), s = cv_add(cv_mul(ch->s, tc), cv_mul(ch->c, ts));
            ch->c = cv_select(out, c, ch->c), ch->s = cv_select(out, s, ch->s);
            ch->lanes = cv_mor(ch->lanes, out);
        } else {
            ch->c = tc, ch->s = ts, ch->lanes = out, ch->turned = true;
        }
    }
    ch->parent = d;
    return d;
}

/* bone k's world rotation from its direction (k a constant at each call) */
static inline __attribute__((always_inline)) cv_q cvk_hand_bone(const crowdi_fingers_view *v, const cvk_hand_frame *h,
                                                                int hand, int k, cv_v3 dir, cv_f *n2) {
    const int b0 = hand * CROWDI_HAND_BONES;
    const cv_v3 side = k >= 1 && k <= 3 ? h->thumb : h->a;
    cv_q look = cvk_look_rotation_by(dir, cv_v3_cross(dir, side), CVK_LOOK_UNIT);
    return cv_q_canonical_n(cvk_q_mul_fix(look, v->fix[b0 + k], v->fix_kind[b0 + k]), n2);
}

/* One hand of the block at row i: inputs (flips, smoothing), the solve, trust and easing, the
 * stores. `limbs`: the rig's limbs view when it stores world rotations, else NULL (constant). */
static inline __attribute__((always_inline)) void cvk_hand_block(const crowdi_fingers_view *v, const crowdi_limbs_view *limbs,
                                                                  const cvk_fingers_tick *t, int hand, size_t i) {
    const size_t st = v->stride;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    const float *in = v->hands + (size_t)(hand * CROWDI_HAND_FLOATS) * st;
    const cv_f presence = cv_loadu(in + (size_t)(3 * CROWDI_HAND_LMS) * st + i);
    const cv_m trusted = cv_ge(presence, cv_set1(v->threshold));
    cv_v3 p[CROWDI_HAND_LMS];
    const cv_f sy = cv_set1(v->flip_y ? -1.0f : 1.0f), sx = cv_set1(v->flip_x ? -1.0f : 1.0f);
    for (int k = 0; k < CROWDI_HAND_LMS; k++) {
        p[k] = cvk_hand_lm(in, st, k, i);
        if (v->flip_x) p[k].x = cv_mul(p[k].x, sx);
        if (v->flip_y) p[k].y = cv_mul(p[k].y, sy);
    }
    if (v->smoothing) {
        float *const f0 = v->filter + (size_t)(hand * CROWDI_HAND_FILTER) * st;
        float *const ready = f0 + (size_t)(9 * CROWDI_HAND_LMS) * st;
        const cv_m first = cv_eq(cv_loadu(ready + i), zero);
        for (int k = 0; k < CROWDI_HAND_LMS; k++) {
            cv_f *xyz[3] = {&p[k].x, &p[k].y, &p[k].z};
            for (int c = 0; c < 3; c++) {
                float *xhat = f0 + (size_t)(3 * k + c) * st, *dxhat = f0 + (size_t)(3 * CROWDI_HAND_LMS + 3 * k + c) * st;
                float *rawc = f0 + (size_t)(6 * CROWDI_HAND_LMS + 3 * k + c) * st;
                cv_f x = *xyz[c];
                if (t->dt > 0.0f) {
                    *xyz[c] = cvk_one_euro(v->min_cutoff, v->beta, t->frequency, t->two_pi_dt, t->alpha_d, xhat, dxhat,
                                           rawc, i, x, first);
                } else { /* dt = 0 adds no information: the filtered value stands */
                    cv_f kept = cv_select(first, x, cv_loadu(xhat + i));
                    cv_storeu(rawc + i, cv_select(first, x, cv_loadu(rawc + i)));
                    cv_storeu(xhat + i, kept);
                    *xyz[c] = kept;
                }
            }
        }
        /* an untrusted hand's filter restarts: its landmarks are no sample of the hand */
        cv_storeu(ready + i, cv_select(trusted, one, zero));
    }
    const cvk_hand_frame frame = cvk_hand_frame_of(v, p);
    /* the fingers' flexion axis: the palm's side axis, index to little, which a right hand's
     * fingers flex positively about and a left hand's negatively */
    cv_v3 flex_axis = cv_v3_normalized(frame.a);
    if (hand == 0) flex_axis = cv_v3_neg(flex_axis);
    const cv_m flex_ok = cv_gt(cv_v3_dot(flex_axis, flex_axis), cv_set1(0.5f));
    cvk_finger_chain chain = {.parent = frame.f, .c = one, .s = zero, .lanes = cv_mfalse(), .turned = false};

    /* the hand's parent, and the limbs' hand (relative to the parent: a lost hand's rest,
     * worked out only in the blocks that ease) */
    const int b0 = hand * CROWDI_HAND_BONES;
    cv_q parent0 = {zero, zero, zero, one}, body_hand = parent0;
    if (limbs) {
        const size_t ls = limbs->limb_stride;
        const int lower = hand == 0 ? CROWD_BONE_LEFT_LOWER_ARM : CROWD_BONE_RIGHT_LOWER_ARM;
        parent0 = cv_q_loadu_cols(limbs->limb_world + (size_t)(4 * lower) * ls, ls, i);
        body_hand = cv_q_loadu_cols(limbs->limb_world + (size_t)(4 * (lower + 1)) * ls, ls, i);
    }
    /* trust and easing (SPEC 5.1 revision 2, one progress per hand) */
    cv_m plain_lane = cv_mtrue();
    cv_f a = zero;
    float *track_col = NULL;
    if (t->track) {
        track_col = v->track + (size_t)hand * st;
        cv_f r = cv_loadu(track_col + i);
        if (!cv_all(cv_mand(trusted, cv_eq(r, one)))) {
            const cv_f k_in = cv_set1(t->k_in);
            cv_m reacquired = cv_mand(trusted, cv_lt(r, zero));
            r = cv_select(reacquired, cv_sub(one, k_in), cv_sub(one, cv_mul(cv_sub(one, r), k_in)));
            cv_m eased_in = cv_ge(r, cv_set1(1.0f - 0x1p-10f));
            r = cv_select(eased_in, one, r);
            plain_lane = cv_mand(trusted, eased_in);
            cv_f x = cv_div(cv_set1(t->step), cv_select(eased_in, one, cv_sub(one, r)));
            a = cv_sub(one, cv_exp2(cv_neg(cv_min(x, cv_set1(64.0f)))));
        }
        cv_storeu(track_col + i, cv_select(trusted, r, cv_set1(-1.0f)));
    }
    const bool all_plain = cv_all(plain_lane);
    cv_q out_world[CROWDI_HAND_BONES];
#pragma GCC unroll 16
    for (int k = 0; k < CROWDI_HAND_BONES; k++) {
        const int bone = b0 + k;
        cv_q parent = crowdi_hand_parent[k] < 0 ? parent0 : out_world[crowdi_hand_parent[k]];
        cv_f n2;
        cv_v3 dir = k == 0 ? frame.f : k == 1 ? frame.dir1 : k == 3 ? frame.dir3 : cvk_hand_dir(p, k);
        if (v->limits && k >= 4) {
            if ((k - 4) % 3 == 0) chain = (cvk_finger_chain){.parent = frame.f, .c = one, .s = zero, .lanes = cv_mfalse()};
            dir = cvk_finger_limit(v->limit[(k - 4) % 3], flex_axis, flex_ok, dir, &chain);
        }
        cv_q w = cvk_hand_bone(v, &frame, hand, k, dir, &n2);
        cv_q local = cvk_q_positive(cvk_q_conj_mul(parent, w));
        float *wcol = v->world + (size_t)(4 * bone) * st, *lcol = v->local + (size_t)(4 * bone) * st;
        cv_m sane = cv_mand(cv_gt(n2, cv_set1(1e-30f)), cv_lt(n2, cv_set1(1e30f)));
        if (!all_plain || !cv_all(sane)) {
            cv_q prev = cv_q_loadu_cols(lcol, st, i);
            cv_q rest = k == 0 && limbs ? cv_q_canonical(cvk_q_conj_mul(parent0, body_hand)) : cv_q_set1(v->rest_local[bone]);
            /* an insane solve (landmarks too far apart for float) is no rotation: hold */
            cv_q target = cv_q_select(sane, local, prev);
            cv_q shown = cv_q_select(trusted, cv_q_nlerp(prev, target, a), cv_q_nlerp(rest, prev, cv_set1(t->k_out)));
            cv_m keep_plain = cv_mand(plain_lane, sane);
            local = cv_q_select(keep_plain, local, shown);
            w = cv_q_select(keep_plain, w, cv_q_canonical(cv_q_mul(parent, shown)));
        }
        out_world[k] = w;
        cv_q_storeu_cols(wcol, st, i, w);
        cv_q_storeu_cols(lcol, st, i, local);
    }
}

static inline void cvk_fingers_range(const crowdi_fingers_view *v, const crowdi_limbs_view *limbs, float dt, size_t i0,
                                     size_t i1) {
    cvk_fingers_tick t = {.dt = dt};
    if (v->smoothing && dt > 0.0f) {
        t.alpha_d = 1.0f / (1.0f + (1.0f / (6.2831855f * v->d_cutoff)) / dt);
        t.frequency = fminf(1.0f / dt, 1e30f);
        t.two_pi_dt = 6.2831855f * dt;
    }
    t.track = v->track != NULL;
    if (t.track) {
        t.step = dt / v->reacquire_half_life;
        t.k_in = exp2f(-t.step);
        t.k_out = exp2f(-(dt / v->hold_half_life));
    }
    for (size_t i = i0; i < i1; i += CV_W) {
        if (limbs) {
            cvk_hand_block(v, limbs, &t, 0, i);
            cvk_hand_block(v, limbs, &t, 1, i);
        } else {
            cvk_hand_block(v, NULL, &t, 0, i);
            cvk_hand_block(v, NULL, &t, 1, i);
        }
    }
}

/* The fingers stage: rows [i0, i1), whole blocks, after the limbs'. */
static inline void cvk_fingers(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_fingers_view *f = v->controller[CROWDI_CTL_FINGERS];
    if (!f) return;
    const crowdi_limbs_view *l = v->controller[CROWDI_CTL_LIMBS];
    cvk_fingers_range(f, l && l->limb_world ? l : NULL, dt, i0, i1);
}

#endif /* CROWDI_STAGES */
#endif
