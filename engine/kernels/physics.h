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
} crowdi_physics_input_k;

typedef struct crowdi_physics_particle_k {
    float mobility, delay, acceleration, radius;
} crowdi_physics_particle_k;

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
