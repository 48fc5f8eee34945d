/* Cubism physics (issue 26): the float32 operations of CubismPhysics.evaluate on cv_ lanes, one
 * instance per lane. The physics stage (next: the controller) transliterates these calls over
 * its columns; bench/physics_reference_f32.c runs the same calls with W = 1 per object and is
 * held to the framework's goldens (tests/test_physics_golden.c), so the kernel's numbers are
 * known before it exists. Include after cv.h and cv_math.h. Nothing here allocates or branches
 * on lane values: every per-lane choice is a select; loops run over the rig's structure.
 *
 * Per-instance state (floats; bytes in physics_f32_state_bytes):
 *   per particle after a sub-rig's first: its offset from its parent x, y and its
 *     velocity x, y                                                           (4)
 *   per sub-rig: particle 0's position (2) and the angle of the gravity the chain last
 *     swung under (1)                                                         (3)
 *     (the framework keeps that vector per particle, but all of a sub-rig's are equal, and
 *     only its atan2 is ever read, so the angle is kept: the same value, one atan2 less)
 *   per output: the last two steps' results (previous, current)               (2)
 *   per parameter read as an input: the input cache (fixed step only)         (1)
 *   the remaining time (1); whether a step ran yet (1: the framework writes nothing before)
 * Particle 0's position is kept because the next step needs how far it moved.
 */
#ifndef CROWDI_PHYSICS_H
#define CROWDI_PHYSICS_H

#include <stdint.h>

/* The framework's constants (cubismphysics.ts). */
#define CROWDI_PHYSICS_AIR_RESISTANCE 5.0f
#define CROWDI_PHYSICS_MOVEMENT_THRESHOLD 0.001f
#define CROWDI_PHYSICS_MAX_REMAIN 5.0f
#define CROWDI_PHYSICS_PI 3.14159274f     /* pi rounded to float (Math.PI in the framework) */
#define CROWDI_PHYSICS_TWO_PI 6.28318548f

/* One input, rounded to float once from the rig and its parameter's range:
 * normalised = (v - middle) * scale + offset, the (scale, offset) pair chosen by the sign of
 * v - middle (v clamped to [pmin, pmax]); a side whose parameter half-range is 0 gives 0, as
 * the framework's `if (pLength != 0)`; then times weight (weight / 100, negated unless the
 * input reflects: the framework negates the normalised value when not inverted). */
typedef struct crowdi_physics_input_k {
    float pmin, pmax, middle;
    float pos_scale, pos_offset, neg_scale, neg_offset, zero_offset;
    float weight;
    uint32_t type; /* crowd_physics_type */
    uint32_t slot; /* the engine's: its parameter's input slot (crowdi_physics_view) */
} crowdi_physics_input_k;

typedef struct crowdi_physics_particle_k {
    float mobility, delay, acceleration, radius;
} crowdi_physics_particle_k;

/* ---- the controller (engine/physics.c) ----
 * Columns, stride rows apart, from the controller's first: the instance's strength and wind
 * multipliers (settings), the gust phase, the remaining time, the stage (0: never evaluated,
 * 1: inputs cached, 2: stepped), then per sub-rig (at its col) particle 0's x, y and the
 * gravity angle, then per later particle its offset x, y and velocity x, y; per output (at its
 * col) the previous and current step's result (without fps only the current: the stage writes
 * the previous one out as it steps); with fps, per input slot its input cache. */
enum {
    CROWDI_PHYSICS_COL_STRENGTH,
    CROWDI_PHYSICS_COL_WIND,
    CROWDI_PHYSICS_COL_PHASE,
    CROWDI_PHYSICS_COL_REMAIN,
    CROWDI_PHYSICS_COL_STAGE,
    CROWDI_PHYSICS_COL_STATE /* the first per-rig state column */
};
/* atan2(1, 0) as cv_atan2 gives it: the gravity angle a chain starts with (initialize()'s
 * last gravity (0, 1)); tests/test_physics_engine.c holds the stage to the per-object float
 * physics, which computes it. */
#define CROWDI_PHYSICS_START_ANGLE 1.57079637f
#define CROWDI_PHYSICS_MAX_SLOTS 64 /* crowd.h's CROWD_PHYSICS_MAX_INPUT_PARAMETERS */
#define CROWDI_PHYSICS_MAX_PARTICLES 64 /* crowd.h's CROWD_PHYSICS_MAX_PARTICLES */

typedef struct crowdi_physics_subrig_k {
    uint32_t input_first, input_count, output_first, output_count, particle_first, particle_count;
    uint32_t col;    /* particle 0's x column (relative to the controller's first) */
    float threshold; /* 0.001 * Normalization.Position.Maximum */
} crowdi_physics_subrig_k;

typedef struct crowdi_physics_output_k {
    uint32_t param, vertex, type, reflect;
    uint32_t slot;  /* its parameter's input slot + 1 (a later sub-rig reads it), 0 for none */
    uint32_t col;   /* previous, current at col + 1 (fps > 0); without fps the current only */
    float scale, weight, pmin, pmax;
} crowdi_physics_output_k;

/* A rig's physics as the stage reads it. */
typedef struct crowdi_physics_view {
    uint32_t subrig_count, slot_count, output_count;
    const crowdi_physics_subrig_k *subrigs;
    const crowdi_physics_input_k *inputs;
    const crowdi_physics_output_k *outputs;
    const crowdi_physics_particle_k *particles; /* the sub-rigs' particles back to back */
    const uint32_t *slot_param;                 /* [slot_count] the parameter of each input slot */
    uint32_t icache_col;                        /* the first input cache column (fps > 0) */
    float fps, step;                            /* step = 1/fps (fps > 0) */
    float gravity_x, gravity_y, wind_x, wind_y, strength, gust, gust_period;
    float *strength_col, *wind_col; /* setting columns, NULL while uniform */
    float strength_value, wind_value;
    size_t stride;
    float *cols; /* column c at cols + c*stride */
} crowdi_physics_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_PHYSICS_FIELDS(X, ctl)                                                                \
    X(PHYSICS_STRENGTH, "physics_strength", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MULTIPLIER, true) \
    X(PHYSICS_WIND, "physics_wind", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MULTIPLIER, true)         \
    X(PHYSICS_WIND_PHASE, "physics_wind_phase", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true) \
    X(PHYSICS_REMAIN, "physics_remain", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)

#endif

#if defined(CV_W) && !defined(CROWDI_PHYSICS_MATH)
#define CROWDI_PHYSICS_MATH

/* An input's share of its sub-rig's translation or angle. */
static inline cv_f cvk_physics_input(const crowdi_physics_input_k *k, cv_f value) {
    cv_f v = cv_max(cv_min(value, cv_set1(k->pmax)), cv_set1(k->pmin));
    cv_f d = cv_sub(v, cv_set1(k->middle));
    cv_f pos = cv_add(cv_mul(d, cv_set1(k->pos_scale)), cv_set1(k->pos_offset));
    cv_f neg = cv_add(cv_mul(d, cv_set1(k->neg_scale)), cv_set1(k->neg_offset));
    cv_f r = cv_select(cv_gt(d, cv_zero()), pos, cv_select(cv_lt(d, cv_zero()), neg, cv_set1(k->zero_offset)));
    return cv_mul(r, cv_set1(k->weight));
}

/* CubismMath.directionToRadian from the two directions' atan2: to - from, brought into
 * [-pi, pi] (one correction suffices: both are in [-pi, pi]). */
static inline cv_f cvk_physics_angle_between(cv_f from, cv_f to) {
    cv_f r = cv_sub(to, from);
    r = cv_select(cv_lt(r, cv_set1(-CROWDI_PHYSICS_PI)), cv_add(r, cv_set1(CROWDI_PHYSICS_TWO_PI)), r);
    return cv_select(cv_gt(r, cv_set1(CROWDI_PHYSICS_PI)), cv_sub(r, cv_set1(CROWDI_PHYSICS_TWO_PI)), r);
}

/* x / |(x, y)|, y / |(x, y)| as CubismVector2.normalize. */
static inline void cvk_physics_normalize(cv_f *x, cv_f *y) {
    cv_f len = cv_sqrt(cv_add(cv_mul(*x, *x), cv_mul(*y, *y)));
    *x = cv_div(*x, len);
    *y = cv_div(*y, len);
}

/* The sub-rig's summed inputs rotated by -angle (degrees), the framework's way: the new x is
 * used for y (`totalTranslation.y = x' * sin + y * cos`). */
static inline void cvk_physics_rotate_translation(cv_f *tx, cv_f *ty, cv_f angle) {
    cv_f rad = cv_mul(cv_div(cv_neg(angle), cv_set1(180.0f)), cv_set1(CROWDI_PHYSICS_PI));
    cv_f s, c;
    cv_sincos(rad, &s, &c);
    *tx = cv_sub(cv_mul(*tx, c), cv_mul(*ty, s));
    *ty = cv_add(cv_mul(*tx, s), cv_mul(*ty, c));
}

/* One pendulum step of a sub-rig (updateParticles). The chain is kept as particle 0's position
 * (sx[0], sy[0]) and each later particle's offset from its parent (sx[i], sy[i], of length
 * radius), not as absolute positions: the same arithmetic in exact numbers, but float32 keeps
 * a segment's direction to ~1e-7 rad where absolute positions 150 units down a chain would lose
 * it to ~1e-6 (an angle output's scale of 30 makes that 1e-5 of the range). Each particle:
 *   dir   = its old position - its parent's new one = offset - the parent's movement
 *   dir'  = dir turned by (the change of gravity's angle) / air resistance 5
 *   q     = dir' + velocity * delay + force * delay^2      (delay = Delay * dt * 30,
 *                                                         force = gravity * Acceleration + wind)
 *   offset = q / |q| * radius; an absolute x within the threshold becomes 0 (as the framework's)
 *   velocity = (its movement) / delay * mobility (kept when delay is 0).
 * Particle 0 moves to (tx, ty). vx/vy hold count entries (entry 0 unused); gravity_angle is the
 * sub-rig's state. dt is the step (the same on every lane); wind per lane; threshold = 0.001 *
 * the sub-rig's Normalization.Position.Maximum. */
static inline void cvk_physics_swing(cv_f tx, cv_f ty, cv_f angle, cv_f *gravity_angle, cv_f *sx, cv_f *sy, cv_f *vx,
                                     cv_f *vy, const crowdi_physics_particle_k *parts, uint32_t count, float dt,
                                     cv_f wind_x, cv_f wind_y, float threshold) {
    cv_f mx = cv_sub(tx, sx[0]), my = cv_sub(ty, sy[0]); /* the parent's movement */
    cv_f ax = tx;                                         /* the parent's absolute x */
    sx[0] = tx;
    sy[0] = ty;
    cv_f rad = cv_mul(cv_div(angle, cv_set1(180.0f)), cv_set1(CROWDI_PHYSICS_PI));
    cv_f gx, gy;
    cv_sincos(rad, &gx, &gy);
    cvk_physics_normalize(&gx, &gy);
    cv_f g_angle = cv_atan2(gy, gx);
    /* Every particle's last gravity is the sub-rig's, so its turn is the same for all. */
    cv_f turn = cv_div(cvk_physics_angle_between(*gravity_angle, g_angle), cv_set1(CROWDI_PHYSICS_AIR_RESISTANCE));
    cv_f ts, tc;
    cv_sincos(turn, &ts, &tc);
    for (uint32_t i = 1; i < count; i++) {
        const crowdi_physics_particle_k *p = &parts[i];
        cv_f fx = cv_add(cv_mul(gx, cv_set1(p->acceleration)), wind_x);
        cv_f fy = cv_add(cv_mul(gy, cv_set1(p->acceleration)), wind_y);
        float delay = p->delay * dt * 30.0f;
        cv_f d = cv_set1(delay);
        cv_f dx = cv_sub(sx[i], mx), dy = cv_sub(sy[i], my);
        dx = cv_sub(cv_mul(tc, dx), cv_mul(dy, ts));
        dy = cv_add(cv_mul(ts, dx), cv_mul(dy, tc));
        cv_f qx = cv_add(cv_add(dx, cv_mul(vx[i], d)), cv_mul(cv_mul(fx, d), d));
        cv_f qy = cv_add(cv_add(dy, cv_mul(vy[i], d)), cv_mul(cv_mul(fy, d), d));
        cvk_physics_normalize(&qx, &qy);
        cv_f nx = cv_mul(qx, cv_set1(p->radius)), ny = cv_mul(qy, cv_set1(p->radius));
        cv_f x = cv_add(ax, nx);
        cv_m snap = cv_lt(cv_abs(x), cv_set1(threshold));
        nx = cv_select(snap, cv_neg(ax), nx);
        ax = cv_select(snap, cv_zero(), x);
        /* its movement: the parent's plus the change of its offset */
        mx = cv_add(mx, cv_sub(nx, sx[i]));
        my = cv_add(my, cv_sub(ny, sy[i]));
        sx[i] = nx;
        sy[i] = ny;
        if (delay != 0.0f) {
            vx[i] = cv_mul(cv_div(mx, d), cv_set1(p->mobility));
            vy[i] = cv_mul(cv_div(my, d), cv_set1(p->mobility));
        }
    }
    *gravity_angle = g_angle;
}

/* An output's raw result (before its scale) from particle v = vertex >= 1 of a chain kept as
 * cvk_physics_swing keeps it. Angle: the turn from the parent segment (offset v-1, or -gravity
 * for v = 1) to offset v; X and Y: offset v's x or y. Negated when the output reflects. */
static inline cv_f cvk_physics_output(uint32_t type, int reflect, const cv_f *sx, const cv_f *sy, uint32_t v,
                                      float gravity_x, float gravity_y) {
    cv_f r;
    if (type == 2u) {
        cv_f parent = v >= 2 ? cv_atan2(sy[v - 1], sx[v - 1]) : cv_atan2(cv_set1(-gravity_y), cv_set1(-gravity_x));
        r = cvk_physics_angle_between(parent, cv_atan2(sy[v], sx[v]));
    } else {
        r = type == 0u ? sx[v] : sy[v];
    }
    return reflect ? cv_neg(r) : r;
}

/* updateOutputParameterValue: value * scale clamped to [pmin, pmax], then blended over the
 * parameter's current value by weight (weight / 100; 1 or more replaces). */
static inline cv_f cvk_physics_apply(cv_f current, cv_f value, float scale, float pmin, float pmax, float weight) {
    cv_f v = cv_mul(value, cv_set1(scale));
    v = cv_select(cv_lt(v, cv_set1(pmin)), cv_set1(pmin), cv_select(cv_gt(v, cv_set1(pmax)), cv_set1(pmax), v));
    if (weight >= 1.0f) return v;
    return cv_add(cv_mul(current, cv_set1(1.0f - weight)), cv_mul(v, cv_set1(weight)));
}

#endif

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#if defined(CROWDI_STAGES) && !defined(CROWDI_PHYSICS_STAGE)
#define CROWDI_PHYSICS_STAGE
#include "common.h"

/* updateOutputParameterValue with the strength: value * scale * strength clamped to
 * [pmin, pmax], blended over the current value by weight (1 or more replaces). strength 1
 * leaves the framework's numbers bit for bit. */
static inline cv_f cvk_physics_apply_strength(cv_f current, cv_f value, const crowdi_physics_output_k *o, cv_f strength) {
    cv_f v = cv_mul(cv_mul(value, cv_set1(o->scale)), strength);
    v = cv_select(cv_lt(v, cv_set1(o->pmin)), cv_set1(o->pmin), cv_select(cv_gt(v, cv_set1(o->pmax)), cv_set1(o->pmax), v));
    if (o->weight >= 1.0f) return v;
    return cv_add(cv_mul(current, cv_set1(1.0f - o->weight)), cv_mul(v, cv_set1(o->weight)));
}

/* Blocks stepped together: a chain's particles are a serial dependency (each reads its
 * parent's movement through a square root and two divisions), so one block leaves the core
 * waiting on latency; four independent blocks interleaved fill it. Every lane does the same
 * operations in the same order, so the numbers are those of one block at a time. */
#define CROWDI_PHYSICS_BLOCKS 4

/* cvk_physics_swing on the columns at base (particle 0's x; stride st) for nb blocks, block b
 * at base + b * CV_W, for the lanes of m[b] only: the others keep every value. nb is a
 * constant at each call (the loops over b unroll). */
static inline __attribute__((always_inline)) void
cvk_physics_swing_cols(const uint32_t nb, const cv_m *m, const cv_f *tx, const cv_f *ty, const cv_f *angle, float *base,
                       size_t st, const crowdi_physics_particle_k *parts, uint32_t count, float dt, const cv_f *wind_x,
                       const cv_f *wind_y, float threshold) {
    cv_f mx[CROWDI_PHYSICS_BLOCKS], my[CROWDI_PHYSICS_BLOCKS], ax[CROWDI_PHYSICS_BLOCKS];
    cv_f gx[CROWDI_PHYSICS_BLOCKS], gy[CROWDI_PHYSICS_BLOCKS], ts[CROWDI_PHYSICS_BLOCKS], tc[CROWDI_PHYSICS_BLOCKS];
    cv_f g_angle[CROWDI_PHYSICS_BLOCKS];
    for (uint32_t b = 0; b < nb; b++) {
        float *bb = base + b * CV_W;
        cv_f p0x = cv_loadu(bb), p0y = cv_loadu(bb + st), g_old = cv_loadu(bb + 2 * st);
        mx[b] = cv_sub(tx[b], p0x), my[b] = cv_sub(ty[b], p0y);
        ax[b] = tx[b];
        cv_storeu(bb, cv_select(m[b], tx[b], p0x));
        cv_storeu(bb + st, cv_select(m[b], ty[b], p0y));
        cv_f rad = cv_mul(cv_div(angle[b], cv_set1(180.0f)), cv_set1(CROWDI_PHYSICS_PI));
        cv_sincos(rad, &gx[b], &gy[b]);
        cvk_physics_normalize(&gx[b], &gy[b]);
        g_angle[b] = cv_atan2(gy[b], gx[b]);
        cv_f turn =
            cv_div(cvk_physics_angle_between(g_old, g_angle[b]), cv_set1(CROWDI_PHYSICS_AIR_RESISTANCE));
        cv_sincos(turn, &ts[b], &tc[b]);
        cv_storeu(bb + 2 * st, cv_select(m[b], g_angle[b], g_old));
    }
    float *pc = base + 3 * st;
    for (uint32_t i = 1; i < count; i++, pc += 4 * st) {
        const crowdi_physics_particle_k *p = &parts[i];
        /* the particle's constants, once for the blocks */
        const float delay = p->delay * dt * 30.0f;
        const cv_f d = cv_set1(delay), acc = cv_set1(p->acceleration), radius = cv_set1(p->radius);
        const cv_f mobility = cv_set1(p->mobility), thr = cv_set1(threshold);
        for (uint32_t b = 0; b < nb; b++) {
            float *q = pc + b * CV_W;
            cv_f sx = cv_loadu(q), sy = cv_loadu(q + st);
            cv_f fx = cv_add(cv_mul(gx[b], acc), wind_x[b]);
            cv_f fy = cv_add(cv_mul(gy[b], acc), wind_y[b]);
            cv_f dx = cv_sub(sx, mx[b]), dy = cv_sub(sy, my[b]);
            dx = cv_sub(cv_mul(tc[b], dx), cv_mul(dy, ts[b]));
            dy = cv_add(cv_mul(ts[b], dx), cv_mul(dy, tc[b]));
            cv_f vx = cv_loadu(q + 2 * st), vy = cv_loadu(q + 3 * st);
            cv_f qx = cv_add(cv_add(dx, cv_mul(vx, d)), cv_mul(cv_mul(fx, d), d));
            cv_f qy = cv_add(cv_add(dy, cv_mul(vy, d)), cv_mul(cv_mul(fy, d), d));
            cvk_physics_normalize(&qx, &qy);
            cv_f nx = cv_mul(qx, radius), ny = cv_mul(qy, radius);
            cv_f x = cv_add(ax[b], nx);
            cv_m snap = cv_lt(cv_abs(x), thr);
            nx = cv_select(snap, cv_neg(ax[b]), nx);
            ax[b] = cv_select(snap, cv_zero(), x);
            mx[b] = cv_add(mx[b], cv_sub(nx, sx));
            my[b] = cv_add(my[b], cv_sub(ny, sy));
            cv_storeu(q, cv_select(m[b], nx, sx));
            cv_storeu(q + st, cv_select(m[b], ny, sy));
            if (delay != 0.0f) {
                cv_storeu(q + 2 * st, cv_select(m[b], cv_mul(cv_div(mx[b], d), mobility), vx));
                cv_storeu(q + 3 * st, cv_select(m[b], cv_mul(cv_div(my[b], d), mobility), vy));
            }
        }
    }
}

/* One step of every sub-rig for nb blocks from row i (block b at i + b * CV_W) and the lanes
 * of m[b] (the others keep their state): inputs from the caches (one per input slot), the
 * pendulum, the outputs' results (previous <- current <- new; into the cache of a parameter a
 * later sub-rig reads, as the framework's parameter caches). direct (no fps: one step per
 * tick, all lanes): an output keeps one column, its last result, and the written value (the
 * previous step's, alpha 0) goes into out here, in output order as the framework's final loop
 * (the step's inputs are the caches, so nothing it reads changes). */
static inline __attribute__((always_inline)) void
cvk_physics_step_n(const uint32_t nb, const crowdi_physics_view *p, size_t i, const cv_m *m,
                   cv_f (*cache)[CROWDI_PHYSICS_MAX_SLOTS], float step, const cv_f *wind_x, const cv_f *wind_y,
                   const cv_f *strength, cv_f parent, float *const *out, int direct) {
    const size_t st = p->stride;
    const cv_f one = cv_set1(1.0f), zero = cv_zero();
    /* atan2 of a particle's offset, once per step */
    cv_f angle_of[CROWDI_PHYSICS_BLOCKS][CROWDI_PHYSICS_MAX_PARTICLES];
    for (uint32_t s = 0; s < p->subrig_count; s++) {
        const crowdi_physics_subrig_k *sub = &p->subrigs[s];
        cv_f tx[CROWDI_PHYSICS_BLOCKS], ty[CROWDI_PHYSICS_BLOCKS], angle[CROWDI_PHYSICS_BLOCKS];
        for (uint32_t b = 0; b < nb; b++) {
            tx[b] = cv_zero(), ty[b] = cv_zero(), angle[b] = cv_zero();
            for (uint32_t k = sub->input_first; k < sub->input_first + sub->input_count; k++) {
                const crowdi_physics_input_k *in = &p->inputs[k];
                cv_f v = cvk_physics_input(in, cache[b][in->slot]);
                if (in->type == 0u) tx[b] = cv_add(tx[b], v);
                else if (in->type == 1u) ty[b] = cv_add(ty[b], v);
                else angle[b] = cv_add(angle[b], v);
            }
            cvk_physics_rotate_translation(&tx[b], &ty[b], angle[b]);
        }
        float *base = p->cols + (size_t)sub->col * st + i;
        cvk_physics_swing_cols(nb, m, tx, ty, angle, base, st, p->particles + sub->particle_first, sub->particle_count,
                               step, wind_x, wind_y, sub->threshold);
        uint64_t have = 0; /* which angle_of are computed (the same for every lane) */
        for (uint32_t k = sub->output_first; k < sub->output_first + sub->output_count; k++) {
            const crowdi_physics_output_k *o = &p->outputs[k];
            const uint32_t v = o->vertex;
            if (o->type == 2u)
                for (uint32_t u = v >= 2 ? v - 1 : v; u <= v; u++)
                    if (!(have >> u & 1)) {
                        const float *pu = base + (size_t)(4 * u - 1) * st;
                        for (uint32_t b = 0; b < nb; b++)
                            angle_of[b][u] = cv_atan2(cv_loadu(pu + st + b * CV_W), cv_loadu(pu + b * CV_W));
                        have |= 1ull << u;
                    }
            for (uint32_t b = 0; b < nb; b++) {
                const size_t ib = i + b * CV_W;
                /* particle v's offset at base + (3 + 4(v - 1)) columns */
                const float *pv = base + (size_t)(4 * v - 1) * st + b * CV_W;
                cv_f r;
                if (o->type == 2u) r = cvk_physics_angle_between(v >= 2 ? angle_of[b][v - 1] : parent, angle_of[b][v]);
                else r = o->type == 0u ? cv_loadu(pv) : cv_loadu(pv + st);
                if (o->reflect) r = cv_neg(r);
                float *cur = p->cols + (size_t)o->col * st + ib;
                if (direct) {
                    cv_f previous = cv_loadu(cur);
                    cv_storeu(cur, r);
                    cv_f blended = cv_add(cv_mul(previous, one), cv_mul(r, zero)); /* alpha 0, as the framework */
                    float *dst = out[o->param] + ib;
                    cv_storeu(dst, cvk_physics_apply_strength(cv_loadu(dst), blended, o, strength[b]));
                } else {
                    float *prev = cur;
                    cur = prev + st;
                    cv_f c = cv_loadu(cur);
                    cv_storeu(prev, cv_select(m[b], c, cv_loadu(prev)));
                    cv_storeu(cur, cv_select(m[b], r, c));
                }
                if (o->slot)
                    cache[b][o->slot - 1] = cvk_physics_apply_strength(cache[b][o->slot - 1], r, o, strength[b]);
            }
        }
    }
}

/* The fixed-step path's step, one block (its lanes step or not by their remaining time). */
static __attribute__((noinline)) void cvk_physics_step(const crowdi_physics_view *p, size_t i, cv_m m, cv_f *cache,
                                                       float step, cv_f wind_x, cv_f wind_y, cv_f strength, cv_f parent,
                                                       float *const *out) {
    cvk_physics_step_n(1, p, i, &m, (cv_f(*)[CROWDI_PHYSICS_MAX_SLOTS])cache, step, &wind_x, &wind_y, &strength, parent,
                       out, 0);
}

/* The direct path's step (no fps: every lane, one step of dt) of nb = 1 or
 * CROWDI_PHYSICS_BLOCKS blocks. */
static __attribute__((noinline)) void cvk_physics_step_direct1(const crowdi_physics_view *p, size_t i,
                                                               cv_f (*cache)[CROWDI_PHYSICS_MAX_SLOTS], float dt,
                                                               const cv_f *wind_x, const cv_f *wind_y,
                                                               const cv_f *strength, cv_f parent, float *const *out) {
    const cv_m m[1] = {cv_mtrue()};
    cvk_physics_step_n(1, p, i, m, cache, dt, wind_x, wind_y, strength, parent, out, 1);
}
static __attribute__((noinline)) void cvk_physics_step_directn(const crowdi_physics_view *p, size_t i,
                                                               cv_f (*cache)[CROWDI_PHYSICS_MAX_SLOTS], float dt,
                                                               const cv_f *wind_x, const cv_f *wind_y,
                                                               const cv_f *strength, cv_f parent, float *const *out) {
    cv_m m[CROWDI_PHYSICS_BLOCKS];
    for (uint32_t b = 0; b < CROWDI_PHYSICS_BLOCKS; b++) m[b] = cv_mtrue();
    cvk_physics_step_n(CROWDI_PHYSICS_BLOCKS, p, i, m, cache, dt, wind_x, wind_y, strength, parent, out, 1);
}

/* A block's strength, wind (advancing its gust phase) and input caches (the parameters' values)
 * at row i. */
static inline void cvk_physics_begin(const crowdi_physics_view *p, float phase_step, float *const *out, size_t i,
                                     cv_f *strength, cv_f *wind_x, cv_f *wind_y, cv_f *cache) {
    const size_t st = p->stride;
    *strength = cv_mul(cv_set1(p->strength), cvk_col(p->strength_col, p->strength_value, i));
    cv_f wind = cvk_col(p->wind_col, p->wind_value, i);
    if (p->gust > 0.0f) { /* the gust: wind * (1 + gust*sin(2 pi phase)), the phase in [0, 1) */
        float *phase_col = p->cols + CROWDI_PHYSICS_COL_PHASE * st + i;
        cv_f phase = cv_add(cv_loadu(phase_col), cv_set1(phase_step));
        phase = cv_sub(phase, cv_floor(phase));
        cv_storeu(phase_col, phase);
        cv_f g = cv_sin(cv_mul(phase, cv_set1(CROWDI_PHYSICS_TWO_PI)));
        wind = cv_mul(wind, cv_add(cv_set1(1.0f), cv_mul(cv_set1(p->gust), g)));
    }
    *wind_x = cv_mul(cv_set1(p->wind_x), wind), *wind_y = cv_mul(cv_set1(p->wind_y), wind);
    for (uint32_t s = 0; s < p->slot_count; s++) cache[s] = cv_loadu(out[p->slot_param[s]] + i);
}

/* nb blocks from row i without fps: one step of dt per tick; the caches are the current
 * values (the framework's weight step / remaining is 1), the remaining time stays 0, and the
 * step writes the previous step's results (alpha = 0 / dt: one step of lag). */
static inline __attribute__((always_inline)) void cvk_physics_direct(const uint32_t nb, const crowdi_physics_view *p,
                                                                     float dt, float phase_step, cv_f parent,
                                                                     float *const *out, size_t i) {
    cv_f strength[CROWDI_PHYSICS_BLOCKS], wind_x[CROWDI_PHYSICS_BLOCKS], wind_y[CROWDI_PHYSICS_BLOCKS];
    cv_f cache[CROWDI_PHYSICS_BLOCKS][CROWDI_PHYSICS_MAX_SLOTS];
    for (uint32_t b = 0; b < nb; b++)
        cvk_physics_begin(p, phase_step, out, i + b * CV_W, &strength[b], &wind_x[b], &wind_y[b], cache[b]);
    if (nb == 1) cvk_physics_step_direct1(p, i, cache, dt, wind_x, wind_y, strength, parent, out);
    else cvk_physics_step_directn(p, i, cache, dt, wind_x, wind_y, strength, parent, out);
    for (uint32_t b = 0; b < nb; b++)
        cv_storeu(p->cols + CROWDI_PHYSICS_COL_STAGE * p->stride + i + b * CV_W, cv_set1(2.0f));
}

/* One block of CV_W rows at row i (dt > 0) with fps. out: the rig's output columns. */
static inline void cvk_physics_block(const crowdi_physics_view *p, float dt, float phase_step, cv_f parent,
                                     float *const *out, size_t i) {
    const size_t st = p->stride;
    float *const cols = p->cols;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), two = cv_set1(2.0f);
    cv_f strength, wind_x, wind_y;
    cv_f cache[CROWDI_PHYSICS_MAX_SLOTS];
    cvk_physics_begin(p, phase_step, out, i, &strength, &wind_x, &wind_y, cache);
    float *stage_col = cols + CROWDI_PHYSICS_COL_STAGE * st + i;
    cv_f stage = cv_loadu(stage_col);
    {
        /* fixed steps of 1/fps, inputs interpolated from the input caches (the framework's
         * `remain += dt; if remain > 5: remain = 0; while remain >= step`) */
        float *remain_col = cols + CROWDI_PHYSICS_COL_REMAIN * st + i;
        const cv_f step = cv_set1(p->step);
        cv_f remain = cv_add(cv_loadu(remain_col), cv_set1(dt));
        remain = cv_select(cv_gt(remain, cv_set1(CROWDI_PHYSICS_MAX_REMAIN)), zero, remain);
        cv_m fresh = cv_eq(stage, zero);
        cv_f value[CROWDI_PHYSICS_MAX_SLOTS], icache[CROWDI_PHYSICS_MAX_SLOTS];
        for (uint32_t s = 0; s < p->slot_count; s++) {
            value[s] = cache[s];
            icache[s] = cv_select(fresh, value[s], cv_loadu(cols + (size_t)(p->icache_col + s) * st + i));
        }
        stage = cv_max(stage, one);
        for (;;) {
            cv_m m = cv_ge(remain, step);
            if (!cv_any(m)) break;
            cv_f w = cv_div(step, cv_select(m, remain, step));
            for (uint32_t s = 0; s < p->slot_count; s++) {
                cache[s] = cv_add(cv_mul(icache[s], cv_sub(one, w)), cv_mul(value[s], w));
                icache[s] = cv_select(m, cache[s], icache[s]);
            }
            cvk_physics_step(p, i, m, cache, p->step, wind_x, wind_y, strength, parent, out);
            remain = cv_select(m, cv_sub(remain, step), remain);
            stage = cv_select(m, two, stage);
        }
        for (uint32_t s = 0; s < p->slot_count; s++) cv_storeu(cols + (size_t)(p->icache_col + s) * st + i, icache[s]);
        cv_storeu(remain_col, remain);
        cv_storeu(stage_col, stage);
        /* the written result: interpolated between the last two steps by alpha = remain / step,
         * nothing before the first step */
        cv_m stepped = cv_eq(stage, two);
        cv_f alpha = cv_div(remain, step);
        for (uint32_t k = 0; k < p->output_count; k++) {
            const crowdi_physics_output_k *o = &p->outputs[k];
            const float *prev = cols + (size_t)o->col * st + i;
            cv_f blended = cv_add(cv_mul(cv_loadu(prev), cv_sub(one, alpha)), cv_mul(cv_loadu(prev + st), alpha));
            float *dst = out[o->param] + i;
            cv_f current = cv_loadu(dst);
            cv_storeu(dst, cv_select(stepped, cvk_physics_apply_strength(current, blended, o, strength), current));
        }
    }
}

/* The stage over rows [i0, i1) (whole blocks). dt = 0 writes nothing and changes nothing (the
 * framework's evaluate returns at once). */
static inline void cvk_physics(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_physics_view *p = v->controller[CROWDI_CTL_PHYSICS];
    if (!p || !(dt > 0.0f)) return;
    const cv_f parent = cv_atan2(cv_set1(-p->gravity_y), cv_set1(-p->gravity_x));
    const float phase_step = dt / p->gust_period;
    if (p->fps > 0.0f) {
        for (size_t i = i0; i < i1; i += CV_W) cvk_physics_block(p, dt, phase_step, parent, v->out, i);
        return;
    }
    size_t i = i0;
    for (; i + CROWDI_PHYSICS_BLOCKS * CV_W <= i1; i += CROWDI_PHYSICS_BLOCKS * CV_W)
        cvk_physics_direct(CROWDI_PHYSICS_BLOCKS, p, dt, phase_step, parent, v->out, i);
    for (; i < i1; i += CV_W) cvk_physics_direct(1, p, dt, phase_step, parent, v->out, i);
}

#endif /* CROWDI_STAGES */
