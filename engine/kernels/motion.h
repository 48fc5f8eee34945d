/* The motion controller's kernel side (crowd.h section 15, engine/motion.c): its view of the
 * rig (the motion library, flattened, and the playback columns) and, in the stage part
 * (kernels/stages.h), the stage cvk_motion: each instance's Cubism motion manager update.
 *
 * The stage computes in double, as the framework does: its time, curve and fade arithmetic
 * are +, - , * and / only (the ease's sine is its own), and no row reads another's state, so
 * every SIMD target, split and thread count gives the same bits. The curves are pieces of
 * cubics in the time (crowdi_motion_view), found from each clip's time grid: an evaluation is
 * a table row, a walk of usually no step and four terms, whatever the segment's kind. */
#ifndef CROWDI_MOTION_H
#define CROWDI_MOTION_H

#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernel_table.h"

#define CROWDI_MOTION_QUEUE 2u   /* crowd.h CROWD_MOTION_QUEUE */
#define CROWDI_MOTION_EVENTS 4u  /* crowd.h CROWD_MOTION_EVENTS_PER_TICK */
#define CROWDI_MOTION_EFFECT_IDS 64u
#define CROWDI_MOTION_BLOCK_ROWS 8u      /* rows the stage blends at once (cvk_motion) */
#define CROWDI_MOTION_BLOCK_COLUMNS 128u /* the saved columns that allows (its stack: 8 KiB) */

/* The instance's columns. A double is two columns (low word, high word); CLIP, FLAGS,
 * CURRENT, RESERVE and the events hold uint32 bits, the others floats. */
enum {
    CROWDI_MOTION_CLOCK, /* + 1 */
    CROWDI_MOTION_SPEED = 2, CROWDI_MOTION_WEIGHT, CROWDI_MOTION_OPACITY, CROWDI_MOTION_UPDATED,
    CROWDI_MOTION_CURRENT, CROWDI_MOTION_RESERVE, CROWDI_MOTION_EVENT_COUNT, CROWDI_MOTION_EVENT_LOST,
    CROWDI_MOTION_EVENT, /* clip, event: 2 per kept event */
    CROWDI_MOTION_SLOT = CROWDI_MOTION_EVENT + 2 * CROWDI_MOTION_EVENTS,
    CROWDI_MOTION_NCOLS_FIXED = CROWDI_MOTION_SLOT + 14 * CROWDI_MOTION_QUEUE
};
/* A queue entry's columns from CROWDI_MOTION_SLOT + 14*s: the clip + 1 (0: empty), flags, and
 * doubles start, fade-in start, end, last event check, fade in, fade out. Entries are kept in
 * start order, the empty ones last. Until its first tick (STARTED clear) start holds the
 * offset into the clip and end -1. */
enum {
    CROWDI_SLOT_CLIP, CROWDI_SLOT_FLAGS, CROWDI_SLOT_START, CROWDI_SLOT_FADE_START = 4, CROWDI_SLOT_END = 6,
    CROWDI_SLOT_CHECK = 8, CROWDI_SLOT_FADE_IN = 10, CROWDI_SLOT_FADE_OUT = 12, CROWDI_SLOT_NCOLS = 14
};
enum { CROWDI_SLOT_STARTED = 1u, CROWDI_SLOT_FADING_OUT = 4u, CROWDI_SLOT_LOOP = 8u, CROWDI_SLOT_LOOP_FADE_IN = 16u };
/* A Model curve's kind. */
enum { CROWDI_MODEL_OTHER, CROWDI_MODEL_EYE_BLINK, CROWDI_MODEL_LIP_SYNC, CROWDI_MODEL_OPACITY };

typedef struct crowdi_motion_clip {
    double duration, loop_duration, fade_in, fade_out;
    uint32_t restricted;
    uint32_t first_curve, model_end, parameter_end, curve_end; /* the three target runs */
    uint32_t first_event, event_count;
    /* The clip's time grid: grid_rows rows of grid_scale per second; row b holds, for each of
     * its varying curves (crowdi_motion_curve.varying), the first of its pieces (its index in
     * the view's) that ends after (b - 1/2) / grid_scale, at grid[grid_first + b *
     * varying_count + varying]. A time's piece is then a walk of usually no step from there:
     * the same piece as a search. */
    uint32_t grid_first, grid_rows, varying_count;
    double grid_scale;
    /* A clip whose parameter curves are each a plain blend of its own saved column (no fades of
     * their own, no EyeBlink or LipSync curve in the clip, no column twice): an instance playing
     * only it has its blends done for a block of rows at once (cvk_motion). Its constant curves
     * are fixed_count (column, value) pairs from first_fixed, its others moving_count records
     * from first_moving (crowdi_motion_view). */
    uint32_t blocked, first_fixed, fixed_count, first_moving, moving_count;
    /* Its PartOpacity curves as lists when no two write the same column: the constant ones
     * part_fixed_count (column, value) pairs, the others part_moving_count records. */
    uint32_t parts_listed, first_part_fixed, part_fixed_count, first_part_moving, part_moving_count;
} crowdi_motion_clip;

/* A varying curve as a clip's lists hold it (crowdi_motion_clip: moving and part_moving): its
 * grid column, target, the index of the stop after its pieces (crowdi_motion_view), and the
 * curve. */
typedef struct crowdi_motion_moving {
    uint32_t varying, target, end, curve;
} crowdi_motion_moving;

typedef struct crowdi_motion_curve {
    /* what the stage reads for every curve first: 48 bytes, one cache line */
    uint32_t target; /* Parameter curves: a saved column (< saved_count) or saved_count + a pseudo
                        index; PartOpacity curves: a pseudo index */
    uint32_t constant; /* every point of the curve holds `value` (not -0): the curve is that value */
    uint32_t plain;    /* a parameter curve without eye blink, lip sync or fades of its own */
    uint32_t varying;  /* not constant: its place among the clip's varying curves (the grid's column) */
    uint32_t first_piece, piece_count; /* not constant: its segments as pieces (crowdi_motion_view) */
    double value;
    double low, high;  /* a parameter curve's clamp: its saved column's range, else infinite */
    double fade_in, fade_out;
    uint32_t first_segment, segment_count;
    uint32_t kind;   /* Model curves: CROWDI_MODEL_* */
    int32_t eye_blink, lip_sync; /* position in the id lists, or -1 */
} crowdi_motion_curve;

/* An unrestricted bezier segment's solver terms that do not depend on the time (the
 * framework computes them every evaluation): whether it is the quadratic case, a, b, c, b/a,
 * c/a, the discriminant of f' and f''s roots t1 < t2. Computed once per rig, by the same
 * operations in the same order, so the root is the same double. */
enum { CROWDI_CUBIC_QUAD, CROWDI_CUBIC_A, CROWDI_CUBIC_B, CROWDI_CUBIC_C, CROWDI_CUBIC_BA, CROWDI_CUBIC_CA,
       CROWDI_CUBIC_DISC, CROWDI_CUBIC_T1, CROWDI_CUBIC_T2, CROWDI_CUBIC_N };

typedef struct crowdi_motion_view {
    uint32_t clip_count, idle_count;
    bool loop_idle;
    const crowdi_motion_clip *clips;
    const crowdi_motion_curve *curves;
    const uint32_t *segment_point; /* first point */
    const uint8_t *segment_type;
    const double *point_time, *point_value;
    const double *event_time;
    const double *segment_cubic;   /* CROWDI_CUBIC_N per segment (bezier segments only) */
    /* The varying curves' segments as pieces of polynomials in the time since the piece's
     * start: piece p ends at piece_end[p] and is, at piece_poly[5p .. 5p + 4] = {start, a0, a1,
     * a2, a3}, a0 + a1 u + a2 u^2 + a3 u^3 with u = time - start (at least 0). A linear,
     * stepped or restricted bezier segment is one piece (the framework's formula rewritten in
     * u); an unrestricted bezier (the framework solves a cubic for every time) is cut into
     * pieces each within CROWDI_MOTION_FIT (motion.c) of the solved value. Each curve's pieces
     * are followed by a stop whose end is NaN, which no time passes. */
    const double *piece_end, *piece_poly;
    const uint32_t *grid;          /* the clips' time grids (crowdi_motion_clip) */
    const uint32_t *idle;          /* clip indices */
    /* The blocked clips' curves (crowdi_motion_clip.blocked), and each saved column's range;
     * block_columns: saved_count when the stage blends blocked clips a block at a time (at most
     * CROWDI_MOTION_BLOCK_COLUMNS), else 0 */
    const uint32_t *fixed_column, *part_column;
    const double *fixed_value, *saved_low, *saved_high;
    const float *part_value;
    const crowdi_motion_moving *moving;
    uint32_t block_columns;
    uint32_t eye_blink_count, lip_sync_count;
    const uint32_t *eye_blink, *lip_sync; /* saved columns */
    uint32_t saved_count, pseudo_count;
    const uint32_t *saved_param;   /* the rig parameter of each saved column */
    float *col[CROWDI_MOTION_NCOLS_FIXED];
    /* [saved_count] the motion result kept between ticks, followed by the pseudo columns (pseudo
     * points there): a parameter curve's target indexes both, saved[target] */
    float *const *saved;
    float *const *pseudo;          /* [pseudo_count] */
} crowdi_motion_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_MOTION_FIELDS(X, ctl)                                                          \
    X(MOTION_SPEED, "motion_speed", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)     \
    X(MOTION_WEIGHT, "motion_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)    \
    X(MOTION_OPACITY, "motion_opacity", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_OUTPUT, false) \
    X(MOTION_UPDATED, "motion_updated", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_OUTPUT, false) \
    X(MOTION_PSEUDO, "motion_pseudo", ctl, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true)

/* Column access shared by the stage and engine/motion.c. */
static inline double cvk_md_get(float *const *c, uint32_t k, size_t i) {
    uint64_t lo = ((const uint32_t *)(const void *)c[k])[i], hi = ((const uint32_t *)(const void *)c[k + 1])[i];
    uint64_t bits = lo | hi << 32;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}
static inline void cvk_md_set(float *const *c, uint32_t k, size_t i, double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    ((uint32_t *)(void *)c[k])[i] = (uint32_t)bits;
    ((uint32_t *)(void *)c[k + 1])[i] = (uint32_t)(bits >> 32);
}
static inline uint32_t cvk_mu_get(float *const *c, uint32_t k, size_t i) { return ((const uint32_t *)(const void *)c[k])[i]; }
static inline void cvk_mu_set(float *const *c, uint32_t k, size_t i, uint32_t u) { ((uint32_t *)(void *)c[k])[i] = u; }

typedef struct cvk_md_entry {
    uint32_t clip, flags;
    double start, fade_start, end, check, fade_in, fade_out;
} cvk_md_entry;

static inline void cvk_md_load(float *const *c, size_t i, uint32_t s, cvk_md_entry *e) {
    uint32_t k = CROWDI_MOTION_SLOT + s * CROWDI_SLOT_NCOLS;
    e->clip = cvk_mu_get(c, k + CROWDI_SLOT_CLIP, i);
    e->flags = cvk_mu_get(c, k + CROWDI_SLOT_FLAGS, i);
    e->start = cvk_md_get(c, k + CROWDI_SLOT_START, i);
    e->fade_start = cvk_md_get(c, k + CROWDI_SLOT_FADE_START, i);
    e->end = cvk_md_get(c, k + CROWDI_SLOT_END, i);
    e->check = cvk_md_get(c, k + CROWDI_SLOT_CHECK, i);
    e->fade_in = cvk_md_get(c, k + CROWDI_SLOT_FADE_IN, i);
    e->fade_out = cvk_md_get(c, k + CROWDI_SLOT_FADE_OUT, i);
}

static inline void cvk_md_store(float *const *c, size_t i, uint32_t s, const cvk_md_entry *e) {
    uint32_t k = CROWDI_MOTION_SLOT + s * CROWDI_SLOT_NCOLS;
    cvk_mu_set(c, k + CROWDI_SLOT_CLIP, i, e->clip);
    cvk_mu_set(c, k + CROWDI_SLOT_FLAGS, i, e->flags);
    cvk_md_set(c, k + CROWDI_SLOT_START, i, e->start);
    cvk_md_set(c, k + CROWDI_SLOT_FADE_START, i, e->fade_start);
    cvk_md_set(c, k + CROWDI_SLOT_END, i, e->end);
    cvk_md_set(c, k + CROWDI_SLOT_CHECK, i, e->check);
    cvk_md_set(c, k + CROWDI_SLOT_FADE_IN, i, e->fade_in);
    cvk_md_set(c, k + CROWDI_SLOT_FADE_OUT, i, e->fade_out);
}

/* The time-independent terms of the bezier with times pt[0..3] (x1, cx1, cx2, x2). */
static inline void cvk_md_cubic_setup(const double *pt, double *k) {
    double x1 = pt[0], x2 = pt[3], cx1 = pt[1], cx2 = pt[2];
    double a = x2 - 3.0 * cx2 + 3.0 * cx1 - x1, b = 3.0 * cx2 - 6.0 * cx1 + 3.0 * x1;
    double c = 3.0 * cx1 - 3.0 * x1;
    for (uint32_t n = 0; n < CROWDI_CUBIC_N; n++) k[n] = 0.0;
    k[CROWDI_CUBIC_A] = a, k[CROWDI_CUBIC_B] = b, k[CROWDI_CUBIC_C] = c;
    if (a >= 0.0 && sqrt(a) < 0.00001) {
        k[CROWDI_CUBIC_QUAD] = 1.0;
        return;
    }
    double ba = b / a, ca = c / a;
    double disc = ba * ba - 3.0 * ca; /* of f' = 3t^2 + 2ba t + ca */
    k[CROWDI_CUBIC_BA] = ba, k[CROWDI_CUBIC_CA] = ca, k[CROWDI_CUBIC_DISC] = disc;
    if (disc > 0.0) {
        double sq = sqrt(disc);
        k[CROWDI_CUBIC_T1] = (-ba - sq) / 3.0, k[CROWDI_CUBIC_T2] = (-ba + sq) / 3.0;
    }
}

/* ---- the framework's own evaluation of a segment at a time, exact: the rig's build cuts the
 * segments into pieces from it (motion.c); the stage evaluates the pieces ---- */

static inline double cvk_md_clamp01(double t) { return t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t; }

/* A root of the increasing-or-decreasing cubic f(t) = t^3 + b t^2 + c t + d in [lo, hi] where
 * f changes sign: Newton's steps from `guess` (the midpoint when it is outside), kept inside
 * the bracket, bisection when one leaves it. */
static inline double cvk_md_cubic_root(double b, double c, double d, double lo, double hi, double guess) {
    double flo = ((lo + b) * lo + c) * lo + d;
    bool rising = flo < 0.0;
    double t = guess > lo && guess < hi ? guess : 0.5 * (lo + hi);
    for (int k = 0; k < 100; k++) {
        double f = ((t + b) * t + c) * t + d;
        if (f == 0.0) return t;
        if ((f < 0.0) == rising) lo = t;
        else hi = t;
        double df = (3.0 * t + 2.0 * b) * t + c;
        double next = df != 0.0 ? t - f / df : lo;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        /* converged: a step within 1e-14 (Newton near the root may otherwise hop between two
         * neighbouring doubles) */
        if (fabs(next - t) <= 1e-14 * (1.0 + fabs(t))) return next;
        t = next;
    }
    return t;
}

/* CubismMath.cardanoAlgorithmForBezier(a, b, c, d) with d = x1 - time, the other terms from
 * cvk_md_cubic_setup: the bezier's t for a time. The same root as the framework's
 * trigonometric solution picks: the quadratic when sqrt(a) < 1e-5; otherwise of three real
 * roots the largest if it lies within 0.51 of 0.5, else the smallest if it does, else the
 * middle one; of one real root that one; clamped to [0, 1]. */
static inline double cvk_md_bezier_t(const double *k, double d, double guess) {
    if (k[CROWDI_CUBIC_QUAD] != 0.0) { /* CubismMath.quadraticEquation(b, c, d) */
        double b = k[CROWDI_CUBIC_B], c = k[CROWDI_CUBIC_C], r;
        if (fabs(b) < 0.00001) r = fabs(c) < 0.00001 ? -d : -d / c;
        else r = -(c + sqrt(c * c - 4.0 * b * d)) / (2.0 * b);
        return cvk_md_clamp01(r);
    }
    double ba = k[CROWDI_CUBIC_BA], ca = k[CROWDI_CUBIC_CA], da = d / k[CROWDI_CUBIC_A];
    if (k[CROWDI_CUBIC_DISC] > 0.0) {
        double t1 = k[CROWDI_CUBIC_T1], t2 = k[CROWDI_CUBIC_T2];
        double f1 = ((t1 + ba) * t1 + ca) * t1 + da, f2 = ((t2 + ba) * t2 + ca) * t2 + da;
        if (f1 > 0.0 && f2 < 0.0) { /* three real roots s < m < l: f < 0, > 0, < 0, > 0 between */
            /* a root is taken when it lies in the window (-0.01, 1.01), so each search brackets
             * its branch within the window only (a nearly quadratic curve, a tiny negative a from
             * rounding, puts the other roots near +-1/a) */
            const double wl = -0.01, wh = 1.01;
#define CVK_F(t) ((((t) + ba) * (t) + ca) * (t) + da)
            if (t2 < wh) {
                double lo = t2 > wl ? t2 : wl;
                if (CVK_F(lo) < 0.0 && CVK_F(wh) > 0.0) return cvk_md_clamp01(cvk_md_cubic_root(ba, ca, da, lo, wh, guess));
            }
            if (t1 > wl) {
                double hi = t1 < wh ? t1 : wh;
                if (CVK_F(wl) < 0.0 && CVK_F(hi) > 0.0) return cvk_md_clamp01(cvk_md_cubic_root(ba, ca, da, wl, hi, guess));
            }
            /* the middle root, on the falling branch [t1, t2], clamped to [0, 1] */
            double lo = t1 > 0.0 ? t1 : 0.0, hi = t2 < 1.0 ? t2 : 1.0;
            if (!(lo < hi)) return t2 <= 0.0 ? 0.0 : 1.0;
            if (CVK_F(lo) <= 0.0) return 0.0;
            if (CVK_F(hi) >= 0.0) return 1.0;
#undef CVK_F
            return cvk_md_cubic_root(ba, ca, da, lo, hi, guess);
        }
    }
    /* One real root r: f < 0 below it, > 0 above. Only its place in [0, 1] matters (the
     * result is clamped), so the search brackets [0, 1]. */
    if (da >= 0.0) return 0.0;                  /* f(0) >= 0: r <= 0 */
    if (1.0 + ba + ca + da <= 0.0) return 1.0;  /* f(1) <= 0: r >= 1 */
    return cvk_md_cubic_root(ba, ca, da, 0.0, 1.0, guess);
}

static inline double cvk_md_lerp(double a, double b, double t) { return a + (b - a) * t; }

static inline double cvk_md_bezier_at(const double *v, double t) {
    double v01 = cvk_md_lerp(v[0], v[1], t), v12 = cvk_md_lerp(v[1], v[2], t), v23 = cvk_md_lerp(v[2], v[3], t);
    return cvk_md_lerp(cvk_md_lerp(v01, v12, t), cvk_md_lerp(v12, v23, t), t);
}

static inline double cvk_md_segment(const crowdi_motion_view *m, uint32_t restricted, uint32_t s, double time) {
    uint32_t p = m->segment_point[s];
    const double *pt = m->point_time + p, *pv = m->point_value + p;
    switch (m->segment_type[s]) {
    case 0: { /* linear */
        double t = (time - pt[0]) / (pt[1] - pt[0]);
        if (t < 0.0) t = 0.0;
        return pv[0] + (pv[1] - pv[0]) * t;
    }
    case 1: { /* bezier */
        if (restricted) {
            double t = (time - pt[0]) / (pt[3] - pt[0]);
            if (t < 0.0) t = 0.0;
            return cvk_md_bezier_at(pv, t);
        }
        /* Newton starts from the time's place in the segment rather than the bracket's
         * midpoint: the root itself when the handles sit at a third and two thirds (as
         * restricted beziers have them), near it otherwise; the root found is the same one
         * to the search's 1e-14 */
        double guess = (time - pt[0]) / (pt[3] - pt[0]);
        return cvk_md_bezier_at(pv, cvk_md_bezier_t(m->segment_cubic + (size_t)s * CROWDI_CUBIC_N, pt[0] - time, guess));
    }
    case 2: return pv[0];    /* stepped */
    default: return pv[1];   /* inverse stepped */
    }
}

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES

#include <math.h>

#include "../random.h"
#include "common.h"

/* sin(z) and cos(z) for z in [0, pi/4] by their Taylor series (error below 1e-16). */
static inline double cvk_md_sin(double z) {
    double z2 = z * z, t = 1.0 / 1307674368000.0;
    t = t * z2 - 1.0 / 6227020800.0;
    t = t * z2 + 1.0 / 39916800.0;
    t = t * z2 - 1.0 / 362880.0;
    t = t * z2 + 1.0 / 5040.0;
    t = t * z2 - 1.0 / 120.0;
    t = t * z2 + 1.0 / 6.0;
    return z - z * z2 * t;
}
static inline double cvk_md_cos(double z) {
    double z2 = z * z, t = 1.0 / 20922789888000.0;
    t = t * z2 - 1.0 / 87178291200.0;
    t = t * z2 + 1.0 / 479001600.0;
    t = t * z2 - 1.0 / 3628800.0;
    t = t * z2 + 1.0 / 40320.0;
    t = t * z2 - 1.0 / 720.0;
    t = t * z2 + 1.0 / 24.0;
    t = t * z2 - 0.5;
    return 1.0 + z2 * t;
}

/* CubismMath.getEasingSine: 0.5 - 0.5 cos(pi x) = sin^2(pi x / 2), x clamped to [0, 1]. */
static inline double cvk_md_ease(double x) {
    if (!(x > 0.0)) return 0.0;
    if (x >= 1.0) return 1.0;
    const double half_pi = 1.57079632679489661923;
    double s = x <= 0.5 ? cvk_md_sin(half_pi * x) : cvk_md_cos(half_pi * (1.0 - x));
    return s * s;
}

/* evaluateCurve past the last piece: its last value, or while looping the line back to the
 * first value at loop_end. */
static inline double cvk_md_tail(const crowdi_motion_view *m, const crowdi_motion_curve *cv, double time, bool correction,
                                 double loop_end) {
    uint32_t last_seg = cv->first_segment + cv->segment_count - 1;
    uint32_t last = m->segment_point[last_seg] + (m->segment_type[last_seg] == 1 ? 3u : 1u);
    double last_value = m->point_value[last];
    if (correction && time < loop_end) {
        double first_value = m->point_value[m->segment_point[cv->first_segment]];
        switch (m->segment_type[last_seg]) {
        case 2: return last_value;
        case 3: return first_value;
        default: {
            double t = (time - m->point_time[last]) / (loop_end - m->point_time[last]);
            if (t < 0.0) t = 0.0;
            return last_value + (first_value - last_value) * t;
        }
        }
    }
    return last_value;
}

/* evaluateCurve of curve `curve`: the first piece ending after `time` (a walk from piece
 * `from`, the clip's grid row's: the framework's segment, as its linear search finds it),
 * evaluated; at `end`, the curve's stop, the tail. */
static inline double cvk_md_piece(const crowdi_motion_view *m, uint32_t from, uint32_t end, uint32_t curve, double time,
                                  bool correction, double loop_end) {
    uint32_t p = from;
    while (m->piece_end[p] <= time) p++;
    if (p < end) {
        const double *k = m->piece_poly + (size_t)p * 5u;
        double u = time - k[0];
        if (u < 0.0) u = 0.0;
        return k[1] + u * (k[2] + u * (k[3] + u * k[4]));
    }
    return cvk_md_tail(m, &m->curves[curve], time, correction, loop_end);
}

/* A clip list's varying curve (crowdi_motion_moving) at `time`. */
static inline double cvk_md_moving(const crowdi_motion_view *m, const crowdi_motion_moving *mv, double time,
                                   bool correction, double loop_end, const uint32_t *from) {
    return cvk_md_piece(m, from[mv->varying], mv->end, mv->curve, time, correction, loop_end);
}

static inline double cvk_md_curve(const crowdi_motion_view *m, const crowdi_motion_curve *cv, double time,
                                  bool correction, double loop_end, const uint32_t *from) {
    return cvk_md_piece(m, from[cv->varying], cv->first_piece + cv->piece_count, (uint32_t)(cv - m->curves), time,
                        correction, loop_end);
}

/* A parameter's value into its saved column (clamped, float32) or a pseudo-parameter. */
static inline void cvk_md_write(const crowdi_rig_view *v, const crowdi_motion_view *m, uint32_t target, size_t i,
                                double value) {
    if (target < m->saved_count) {
        const crowdi_param *p = &v->params[m->saved_param[target]];
        if (value < p->min) value = p->min;
        else if (value > p->max) value = p->max;
        m->saved[target][i] = (float)value;
    } else {
        m->pseudo[target - m->saved_count][i] = (float)value;
    }
}

/* A block of rows' blends of blocked clips (crowdi_motion_clip.blocked), done by
 * cvk_md_blend_block: the value of each saved column in each row (NaN: none), the rows'
 * weights, and the row being filled. */
typedef struct cvk_md_block {
    double value[CROWDI_MOTION_BLOCK_COLUMNS][CROWDI_MOTION_BLOCK_ROWS];
    double weight[CROWDI_MOTION_BLOCK_ROWS];
    uint32_t lane;
} cvk_md_block;

/* CubismMotion.doUpdateParameters (MotionBehavior_V2) of one entry. With `block`, a blocked
 * clip's parameter blends go there instead: the same operations, later (the entry is the row's
 * only one, so nothing else in the row reads those columns before). */
static inline void cvk_md_apply(const crowdi_rig_view *v, const crowdi_motion_view *m, size_t i, cvk_md_entry *e,
                                double now, double weight, double motion_weight, bool *finished, cvk_md_block *block) {
    const crowdi_motion_clip *clip = &m->clips[e->clip - 1];
    const bool loop = (e->flags & CROWDI_SLOT_LOOP) != 0;
    double offset = now - e->start;
    if (offset < 0.0) offset = 0.0;
    double eye_blink = 0.0, lip_sync = 0.0;
    bool has_eye_blink = false, has_lip_sync = false;
    uint64_t eye_blink_flags = 0, lip_sync_flags = 0;
    double fade_in = e->fade_in <= 0.0 ? 1.0 : cvk_md_ease((now - e->fade_start) / e->fade_in);
    double fade_out = e->fade_out <= 0.0 || e->end < 0.0 ? 1.0 : cvk_md_ease((e->end - now) / e->fade_out);
    double time = offset, duration = clip->duration;
    if (loop) {
        duration = clip->loop_duration;
        if (time > 64.0 * duration) time -= floor(time / duration - 1.0) * duration; /* huge offsets only */
        while (time > duration) time -= duration;
    }
    /* the time's grid row: each varying curve's piece to walk from */
    double cell = time * clip->grid_scale;
    uint32_t row = cell > 0.0 ? (cell < (double)(clip->grid_rows - 1) ? (uint32_t)cell : clip->grid_rows - 1) : 0u;
    const uint32_t *from = m->grid + clip->grid_first + (size_t)row * clip->varying_count;
    /* a constant curve's value without the call (most curves of most clips) */
#define CVK_CURVE(c) (m->curves[c].constant ? m->curves[c].value : cvk_md_curve(m, &m->curves[c], time, loop, duration, from))
    uint32_t c = clip->first_curve;
    for (; c < clip->model_end; c++) {
        const crowdi_motion_curve *cv = &m->curves[c];
        if (cv->kind == CROWDI_MODEL_OTHER) continue;
        double value = CVK_CURVE(c);
        if (cv->kind == CROWDI_MODEL_EYE_BLINK) eye_blink = value, has_eye_blink = true;
        else if (cv->kind == CROWDI_MODEL_LIP_SYNC) lip_sync = value, has_lip_sync = true;
        else m->col[CROWDI_MOTION_OPACITY][i] = (float)value;
    }
    if (block && clip->blocked) {
        const uint32_t lane = block->lane;
        for (uint32_t f = clip->first_fixed; f < clip->first_fixed + clip->fixed_count; f++)
            block->value[m->fixed_column[f]][lane] = m->fixed_value[f];
        for (uint32_t f = clip->first_moving; f < clip->first_moving + clip->moving_count; f++)
            block->value[m->moving[f].target][lane] = cvk_md_moving(m, &m->moving[f], time, loop, duration, from);
        block->weight[lane] = weight;
        c = clip->parameter_end;
    }
    for (; c < clip->parameter_end; c++) {
        const crowdi_motion_curve *cv = &m->curves[c];
        float *col = m->saved[cv->target];
        const double source = (double)col[i];
        double value = CVK_CURVE(c), w = weight;
        if (!cv->plain) {
            if (has_eye_blink && cv->eye_blink >= 0) {
                value *= eye_blink;
                eye_blink_flags |= 1ull << cv->eye_blink;
            }
            if (has_lip_sync && cv->lip_sync >= 0) {
                value += lip_sync;
                lip_sync_flags |= 1ull << cv->lip_sync;
            }
            if (cv->fade_in >= 0.0 || cv->fade_out >= 0.0) {
                double fin = cv->fade_in < 0.0    ? fade_in
                             : cv->fade_in == 0.0 ? 1.0
                                                  : cvk_md_ease((now - e->fade_start) / cv->fade_in);
                double fout = cv->fade_out < 0.0                      ? fade_out
                              : cv->fade_out == 0.0 || e->end < 0.0 ? 1.0
                                                                    : cvk_md_ease((e->end - now) / cv->fade_out);
                w = motion_weight * fin * fout;
            }
        }
        double out = source + (value - source) * w;
        if (out < cv->low) out = cv->low; /* a saved column's range; a pseudo-parameter's is infinite */
        else if (out > cv->high) out = cv->high;
        col[i] = (float)out;
    }
    if (has_eye_blink)
        for (uint32_t k = 0; k < m->eye_blink_count; k++) {
            if ((eye_blink_flags >> k) & 1) continue;
            double source = m->saved[m->eye_blink[k]][i];
            cvk_md_write(v, m, m->eye_blink[k], i, source + (eye_blink - source) * weight);
        }
    if (has_lip_sync)
        for (uint32_t k = 0; k < m->lip_sync_count; k++) {
            if ((lip_sync_flags >> k) & 1) continue;
            double source = m->saved[m->lip_sync[k]][i];
            cvk_md_write(v, m, m->lip_sync[k], i, source + (lip_sync - source) * weight);
        }
    /* PartOpacity: the pseudo-parameter, unblended */
    if (clip->parts_listed) {
        for (uint32_t f = clip->first_part_fixed; f < clip->first_part_fixed + clip->part_fixed_count; f++)
            m->pseudo[m->part_column[f]][i] = m->part_value[f];
        for (uint32_t f = clip->first_part_moving; f < clip->first_part_moving + clip->part_moving_count; f++)
            m->pseudo[m->moving[f].target][i] = (float)cvk_md_moving(m, &m->moving[f], time, loop, duration, from);
    } else {
        for (; c < clip->curve_end; c++) m->pseudo[m->curves[c].target][i] = (float)CVK_CURVE(c);
    }
#undef CVK_CURVE
    if (offset >= duration) {
        if (loop) {
            e->start = now - time;
            if (e->flags & CROWDI_SLOT_LOOP_FADE_IN) e->fade_start = now - time;
        } else {
            *finished = true;
        }
    }
}

/* One instance's CubismMotionManager.updateMotion (or, when nothing plays and the rig has an
 * idle group, the sample app's random idle start instead). */
static inline void cvk_motion_row(const crowdi_rig_view *v, const crowdi_motion_view *m, double dt, size_t i,
                                  cvk_md_block *block) {
    float *const *c = m->col;
    cvk_md_entry q[CROWDI_MOTION_QUEUE];
    uint32_t count = 0; /* the entries playing come first; the empty ones after are all zero */
    for (; count < CROWDI_MOTION_QUEUE; count++) {
        if (!cvk_mu_get(c, CROWDI_MOTION_SLOT + count * CROWDI_SLOT_NCOLS + CROWDI_SLOT_CLIP, i)) break;
        cvk_md_load(c, i, count, &q[count]);
    }
    uint32_t events = 0, lost = 0;
    if (count == 0 && m->idle_count) {
        uint32_t current = cvk_mu_get(c, CROWDI_MOTION_CURRENT, i), reserve = cvk_mu_get(c, CROWDI_MOTION_RESERVE, i);
        if (1u > reserve && 1u > current) {
            float u = crowdi_draw(v->rkey[i], v->draws[i]++);
            uint32_t k = (uint32_t)(u * (float)m->idle_count);
            if (k >= m->idle_count) k = m->idle_count - 1;
            const crowdi_motion_clip *clip = &m->clips[m->idle[k]];
            cvk_md_entry e = {m->idle[k] + 1, CROWDI_SLOT_LOOP_FADE_IN | (m->loop_idle ? CROWDI_SLOT_LOOP : 0u), 0.0, 0.0, -1.0, 0.0, clip->fade_in,
                              clip->fade_out};
            cvk_md_store(c, i, 0, &e);
            cvk_mu_set(c, CROWDI_MOTION_CURRENT, i, 1u);
        }
        c[CROWDI_MOTION_UPDATED][i] = 0.0f;
        cvk_mu_set(c, CROWDI_MOTION_EVENT_COUNT, i, 0u);
        cvk_mu_set(c, CROWDI_MOTION_EVENT_LOST, i, 0u);
        return;
    }
    double now = cvk_md_get(c, CROWDI_MOTION_CLOCK, i) + dt * (double)c[CROWDI_MOTION_SPEED][i];
    cvk_md_set(c, CROWDI_MOTION_CLOCK, i, now);
    const double motion_weight = (double)c[CROWDI_MOTION_WEIGHT][i];
    uint32_t kept = 0;
    for (uint32_t s = 0; s < count; s++) {
        cvk_md_entry *e = &q[s];
        const crowdi_motion_clip *clip = &m->clips[e->clip - 1];
        bool finished = false;
        if (!(e->flags & CROWDI_SLOT_STARTED)) { /* setupMotionQueueEntry: the offset is in start */
            e->flags |= CROWDI_SLOT_STARTED;
            e->start = now - e->start;
            e->fade_start = now;
            if (e->end < 0.0) e->end = (e->flags & CROWDI_SLOT_LOOP) ? -1.0 : e->start + clip->duration;
        }
        /* updateFadeWeight (a fade of exactly 0 gives 1 here) */
        double fin = e->fade_in == 0.0 ? 1.0 : cvk_md_ease((now - e->fade_start) / e->fade_in);
        double fout = e->fade_out == 0.0 || e->end < 0.0 ? 1.0 : cvk_md_ease((e->end - now) / e->fade_out);
        cvk_md_apply(v, m, i, e, now, motion_weight * fin * fout, motion_weight, &finished, count == 1 ? block : NULL);
        if (e->end > 0.0 && e->end < now) finished = true;
        double before = e->check - e->start, after = now - e->start;
        for (uint32_t k = 0; k < clip->event_count; k++) {
            double t = m->event_time[clip->first_event + k];
            if (!(t > before && t <= after)) continue;
            if (events < CROWDI_MOTION_EVENTS) {
                cvk_mu_set(c, CROWDI_MOTION_EVENT + 2 * events, i, e->clip - 1);
                cvk_mu_set(c, CROWDI_MOTION_EVENT + 2 * events + 1, i, k);
                events++;
            } else {
                lost++;
            }
        }
        e->check = now;
        if (finished) continue;
        if (e->flags & CROWDI_SLOT_FADING_OUT) { /* startFadeOut: the end moves up, never back */
            double end = now + e->fade_out;
            if (e->end < 0.0 || end < e->end) e->end = end;
        }
        if (kept != s) q[kept] = *e; /* (a copy of the entry just written would wait for its stores) */
        kept++;
    }
    for (uint32_t s = 0; s < count; s++) { /* the entries left empty were empty already */
        if (s >= kept) q[s] = (cvk_md_entry){0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        cvk_md_store(c, i, s, &q[s]);
    }
    if (kept == 0) cvk_mu_set(c, CROWDI_MOTION_CURRENT, i, 0u);
    c[CROWDI_MOTION_UPDATED][i] = count ? 1.0f : 0.0f;
    cvk_mu_set(c, CROWDI_MOTION_EVENT_COUNT, i, events);
    cvk_mu_set(c, CROWDI_MOTION_EVENT_LOST, i, lost);
}

/* One column's blends in a block's rows (value NaN: the row keeps its bits), exactly the
 * row-by-row loop's operations; then the values back to NaN for the next block. The range
 * check as max(low, out) and min(high, out): x86's max and min return their second operand
 * when either is NaN and the first only when strictly greater (less), which is the row loop's
 * "out < low ? low : out" and "out > high ? high : out" (the same as its if/else since low <=
 * high), signed zeros and NaN included. */
static inline void cvk_md_blend_rows(float *col, float *out, double *value, const double *weight, double low,
                                     double high, size_t n) {
#if defined(CV_TARGET_AVX512) && defined(SIMDE_X86_AVX512F_NATIVE) /* (SIMDe has no 512-bit conversions) */
    if (n == CROWDI_MOTION_BLOCK_ROWS) {
        const __m256 kept = _mm256_loadu_ps(col);
        const __m512d source = _mm512_cvtps_pd(kept), v = _mm512_loadu_pd(value);
        __m512d r = _mm512_add_pd(source, _mm512_mul_pd(_mm512_sub_pd(v, source), _mm512_loadu_pd(weight)));
        r = _mm512_min_pd(_mm512_set1_pd(high), _mm512_max_pd(_mm512_set1_pd(low), r));
        const __m256 vf = _mm512_cvtpd_ps(v); /* NaN stays NaN, a value stays ordered */
        const __m256 result = _mm256_blendv_ps(kept, _mm512_cvtpd_ps(r), _mm256_cmp_ps(vf, vf, _CMP_ORD_Q));
        _mm256_storeu_ps(col, result);
        _mm256_storeu_ps(out, result);
        _mm512_storeu_pd(value, _mm512_set1_pd((double)NAN));
        return;
    }
#elif defined(CV_TARGET_AVX2) || defined(CV_TARGET_AVX512)
    if (n == CROWDI_MOTION_BLOCK_ROWS) {
        const simde__m256d lo = simde_mm256_set1_pd(low), hi = simde_mm256_set1_pd(high);
        const simde__m256d none = simde_mm256_set1_pd((double)NAN);
        for (uint32_t h = 0; h < CROWDI_MOTION_BLOCK_ROWS; h += 4) {
            const simde__m128 kept = simde_mm_loadu_ps(col + h);
            const simde__m256d source = simde_mm256_cvtps_pd(kept), v = simde_mm256_loadu_pd(value + h);
            simde__m256d r = simde_mm256_add_pd(
                source, simde_mm256_mul_pd(simde_mm256_sub_pd(v, source), simde_mm256_loadu_pd(weight + h)));
            r = simde_mm256_min_pd(hi, simde_mm256_max_pd(lo, r));
            const simde__m128 vf = simde_mm256_cvtpd_ps(v); /* NaN stays NaN, a value stays ordered */
            const simde__m128 result = simde_mm_blendv_ps(kept, simde_mm256_cvtpd_ps(r), simde_mm_cmpord_ps(vf, vf));
            simde_mm_storeu_ps(col + h, result);
            simde_mm_storeu_ps(out + h, result);
            simde_mm256_storeu_pd(value + h, none);
        }
        return;
    }
#endif
    for (size_t j = 0; j < n; j++) {
        const double v = value[j];
        if (v == v) {
            const double source = (double)col[j];
            double r = source + (v - source) * weight[j];
            if (r < low) r = low;
            else if (r > high) r = high;
            col[j] = (float)r;
        }
        out[j] = col[j];
        value[j] = (double)NAN;
    }
}

/* A block's blends, and its rows' motion results into the outputs. */
static inline void cvk_md_blend_block(const crowdi_rig_view *v, const crowdi_motion_view *m, cvk_md_block *block,
                                      size_t i, size_t n) {
    for (uint32_t k = 0; k < m->block_columns; k++)
        cvk_md_blend_rows(m->saved[k] + i, v->out[m->saved_param[k]] + i, block->value[k], block->weight,
                          m->saved_low[k], m->saved_high[k], n);
}

/* The stage: rows [i0, i1), and the motion results into the outputs (every tick: the values
 * a motion left stay when it ends). */
static inline void cvk_motion(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_motion_view *m = v->controller[CROWDI_CTL_MOTION];
    if (!m) return;
    (void)dt;
    const double dt_exact = v->dt_exact;
    if (!m->block_columns) {
        for (size_t i = i0; i < i1; i++) cvk_motion_row(v, m, dt_exact, i, NULL);
    } else { /* rows a block at a time, each block's results into the outputs at its end */
        cvk_md_block block;
        for (uint32_t k = 0; k < m->block_columns; k++)
            for (uint32_t j = 0; j < CROWDI_MOTION_BLOCK_ROWS; j++) block.value[k][j] = (double)NAN;
        for (size_t b = i0; b < i1; b += CROWDI_MOTION_BLOCK_ROWS) {
            const size_t n = i1 - b < CROWDI_MOTION_BLOCK_ROWS ? i1 - b : CROWDI_MOTION_BLOCK_ROWS;
            for (block.lane = 0; block.lane < n; block.lane++) cvk_motion_row(v, m, dt_exact, b + block.lane, &block);
            cvk_md_blend_block(v, m, &block, b, n);
        }
        return;
    }
    for (uint32_t k = 0; k < m->saved_count; k++) {
        const float *saved = m->saved[k];
        float *out = v->out[m->saved_param[k]];
        for (size_t i = i0; i < i1; i++) out[i] = saved[i];
    }
}

#endif /* CROWDI_STAGES */
#endif
