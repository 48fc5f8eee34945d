/* Limb bases from 33 pose landmarks (SPEC §5) on one block of CV_W rows, on cv_ types.
 * Degenerate cases (zero directions, LookRotation's parallel forward and up, straight
 * limbs, low visibility) are masks and selects, so every lane runs the same instructions. */
#ifndef CROWDI_LIMBS_H
#define CROWDI_LIMBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_table.h"
#include "skeleton.h"

/* How a limb's side axis is chosen (crowd_limb_fallback as the kernels see it). */
enum { CROWDI_SIDE_STABLE = 0, CROWDI_SIDE_ROOT = 1, CROWDI_SIDE_PREVIOUS = 2 };

/* The limbs' view of the rig: settings and column groups of stride rows each. pose: 4 per
 * landmark (x, y, z, visibility); root, world, local: 4 per quaternion; side: 3 per limb
 * (fallback previous: the last bent side; stable: the side in the torso's frame); filter: 99
 * filtered coordinates, 99 derivatives, 99 last raw values, 1 "has a first sample" flag; track
 * (when the threshold is above 0): per bone the re-acquisition progress r, or -1 after an
 * untrusted tick (a re-acquired bone eases from its previous local rotation: the local
 * columns). The root is NULL while every row holds limb_root_value. */
typedef struct crowdi_limbs_view {
    uint32_t limb_flip_y, limb_side_mode, limb_smoothing;
    uint32_t limb_side_settle; /* stable, calibration only: the side a held pose settles at */
    float limb_sign[4], limb_visibility_threshold, limb_hold_half_life, limb_reacquire_half_life;
    float limb_bend_sin_min, limb_bend_sin_range; /* sin(bend_min), sin(bend_full) - sin(bend_min) */
    float limb_arm_image_sin; /* sin(arm_image_bend): an arm bent this much in the image plane keeps its sign */
    float limb_min_cutoff, limb_beta, limb_d_cutoff;
    float limb_fix[CROWDI_BONES][4], limb_rest_local[CROWDI_BONES][4], limb_rest_world[CROWDI_BONES][4];
    uint8_t limb_fix_kind[CROWDI_BONES]; /* crowdi_fix_kind of each limb_fix */
    size_t limb_stride;
    float *limb_pose, *limb_root, *limb_world, *limb_local, *limb_side, *limb_filter, *limb_track;
    float limb_root_value[4]; /* the root every row holds while limb_root is NULL */
} crowdi_limbs_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_LIMBS_FIELDS(X, ctl)                                                           \
    X(POSE, "pose", ctl, 4 * CROWD_LANDMARK_COUNT, CROWDI_INDEX_NONE, CROWDI_RULE_POSE, true) \
    X(ROOT, "root", ctl, 4, CROWDI_INDEX_NONE, CROWDI_RULE_QUAT, true)                        \
    X(BONE_WORLD, "bone_world", ctl, 4, CROWDI_INDEX_BONE, CROWDI_RULE_QUAT, false)           \
    X(BONE_LOCAL, "bone_local", ctl, 4, CROWDI_INDEX_BONE, CROWDI_RULE_QUAT, false)

/* Which limb state columns a rig has: the side per limb (fallbacks previous and stable), and
 * the trust and re-acquisition state per bone (only where a bone can be untrusted). */
static inline bool crowdi_limbs_have_side(const crowdi_limbs_view *l) { return l->limb_side_mode != CROWDI_SIDE_ROOT; }
static inline bool crowdi_limbs_track(const crowdi_limbs_view *l) { return l->limb_visibility_threshold > 0.0f; }

/* How a bone's axis fix multiplies: the tick normalises after the fix, so a fix need only be
 * known up to a positive factor, and the two presets' fixes take 0 and 4 additions instead of a
 * full product. */
enum { CROWDI_FIX_IDENTITY, CROWDI_FIX_X90, CROWDI_FIX_GENERAL };
static inline uint8_t crowdi_fix_kind(const float q[4]) {
    if (q[1] != 0.0f || q[2] != 0.0f || !(q[3] > 0.0f)) return CROWDI_FIX_GENERAL;
    if (q[0] == 0.0f) return CROWDI_FIX_IDENTITY; /* (0, 0, 0, w): identity up to the factor */
    return q[0] == q[3] ? CROWDI_FIX_X90 : CROWDI_FIX_GENERAL;
}

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES
#include <math.h>

#include "common.h"
#include "cv_geom.h"
#include "cv_math.h"
#include "one_euro.h"

/* q * fix for a fix known up to a positive factor (crowdi_fix_kind): (1, 0, 0, 1) gives
 * (w + x, y + z, z - y, w - x) */
static inline cv_q cvk_q_mul_fix(cv_q q, const float fix[4], uint8_t kind) {
    if (kind == CROWDI_FIX_IDENTITY) return q;
    if (kind == CROWDI_FIX_X90) return (cv_q){cv_add(q.w, q.x), cv_add(q.y, q.z), cv_sub(q.z, q.y), cv_sub(q.w, q.x)};
    return cv_q_mul(q, cv_q_set1(fix));
}
/* The rotation R whose matrix columns are x, y, z, given as the columns of M = scale * R
 * (scale > 0), by the largest of Shepperd's four candidates, left unnormalised: the candidate
 * is the unit quaternion times 2*scale*sqrt(t), and the caller normalises once after the axis
 * fix, so neither a square root nor a division sits on the chain here. */
static inline cv_q cvk_q_from_basis_unnormalised(cv_v3 x, cv_v3 y, cv_v3 z, cv_f scale) {
    cv_f m00 = x.x, m10 = x.y, m20 = x.z, m01 = y.x, m11 = y.y, m21 = y.z, m02 = z.x, m12 = z.y, m22 = z.z;
    /* the four candidates' t = scale +- m00 +- m11 +- m22 (4w^2, 4x^2, 4y^2, 4z^2 times the
     * scale); the largest wins, by a tournament of pairs */
    cv_f sp = cv_add(scale, m00), sm = cv_sub(scale, m00), dp = cv_add(m11, m22), dm = cv_sub(m11, m22);
    cv_f t0 = cv_add(sp, dp), t1 = cv_sub(sp, dp), t2 = cv_add(sm, dm), t3 = cv_sub(sm, dm);
    cv_f a = cv_sub(m21, m12), b = cv_sub(m02, m20), c = cv_sub(m10, m01);
    cv_f d = cv_add(m01, m10), e = cv_add(m02, m20), f = cv_add(m12, m21);
    cv_m pick1 = cv_gt(t1, t0), pick3 = cv_gt(t3, t2);
    cv_m pick23 = cv_gt(cv_max(t3, t2), cv_max(t1, t0));
    cv_q q01 = cv_q_select(pick1, (cv_q){t1, d, e, a}, (cv_q){a, b, c, t0});
    cv_q q23 = cv_q_select(pick3, (cv_q){e, f, t3, c}, (cv_q){d, t2, f, b});
    return cv_q_select(pick23, q23, q01);
}

/* Unity's Quaternion.LookRotation(forward, up) with SPEC §5's degenerate cases, unnormalised
 * (a positive multiple of the rotation; cv_q_canonical makes it unit). `form` is a
 * constant at each call. CVK_LOOK_UNIT: forward is already normalised, or the zero vector,
 * and |up| is at most a landmark distance (limbs and hands); then x = cross(up, z) is not
 * normalised either: with X = |x|, y = cross(z, x) has length X too, so (x, y, X*z) is X
 * times the rotation's matrix, which is all the Shepperd step needs (a division saved, and
 * the result stays below 4X, far from overflow for accepted landmarks). CVK_LOOK_GENERAL:
 * as SPEC writes it, for any forward (torso, head, feet); x is normalised there because up
 * can be as long as a product of two landmark distances (the head's). */
enum { CVK_LOOK_GENERAL, CVK_LOOK_UNIT, CVK_LOOK_STORED /* pass 2 only: cvk_limb_rotations */ };
static inline cv_q cvk_look_rotation_by(cv_v3 forward, cv_v3 up, int form) {
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), tiny = cv_set1(1e-5f);
    cv_m no_forward;
    cv_v3 z;
    if (form == CVK_LOOK_UNIT) {
        no_forward = cv_lt(cv_v3_dot(forward, forward), cv_set1(0.25f));
        z = forward;
    } else {
        cv_f flen = cv_sqrt(cv_v3_dot(forward, forward));
        no_forward = cv_lt(flen, tiny);
        z = cv_v3_scale(forward, cv_div(one, cv_select(no_forward, one, flen)));
    }
    cv_v3 x = cv_v3_cross(up, z);
    cv_f xlen = cv_sqrt(cv_v3_dot(x, x));
    cv_m parallel = cv_lt(xlen, tiny);
    cv_f scale = xlen;
    if (form == CVK_LOOK_GENERAL) {
        x = cv_v3_scale(x, cv_div(one, cv_select(parallel, one, xlen)));
        scale = one;
    }
    cv_v3 y = cv_v3_cross(z, x);
    cv_q r = cvk_q_from_basis_unnormalised(x, y, form == CVK_LOOK_GENERAL ? z : cv_v3_scale(z, xlen), scale);
    /* both degenerate cases in one test: a block where neither occurs (nearly all) skips their
     * selects; the results are the same selects wherever one does */
    if (cv_any(cv_mor(parallel, no_forward))) {
        if (cv_any(parallel)) {
            /* shortest arc (0,0,1) -> z: (cross((0,0,1), z), 1 + z.z); 180 deg about +x when z
             * is (0,0,-1) */
            cv_f aw = cv_add(one, z.z);
            cv_m opposite = cv_lt(aw, cv_set1(1e-6f));
            cv_q arc = {cv_select(opposite, one, cv_neg(z.y)), cv_select(opposite, zero, z.x), zero,
                         cv_select(opposite, zero, aw)};
            r = cv_q_select(parallel, arc, r);
        }
        r = cv_q_select(no_forward, (cv_q){zero, zero, zero, one}, r);
    }
    return r;
}

/* The landmarks the bones use (the face but nose and ears, thumbs and nothing else are left
 * out: no output depends on them, so they are neither loaded nor filtered). */
static const int cvk_used_landmarks[] = {
    CROWDI_LM_NOSE, CROWDI_LM_LEFT_EAR, CROWDI_LM_RIGHT_EAR, CROWDI_LM_LEFT_SHOULDER, CROWDI_LM_RIGHT_SHOULDER,
    CROWDI_LM_LEFT_ELBOW, CROWDI_LM_RIGHT_ELBOW, CROWDI_LM_LEFT_WRIST, CROWDI_LM_RIGHT_WRIST, CROWDI_LM_LEFT_PINKY,
    CROWDI_LM_RIGHT_PINKY, CROWDI_LM_LEFT_INDEX, CROWDI_LM_RIGHT_INDEX, CROWDI_LM_LEFT_HIP, CROWDI_LM_RIGHT_HIP,
    CROWDI_LM_LEFT_KNEE, CROWDI_LM_RIGHT_KNEE, CROWDI_LM_LEFT_ANKLE, CROWDI_LM_RIGHT_ANKLE, CROWDI_LM_LEFT_HEEL,
    CROWDI_LM_RIGHT_HEEL, CROWDI_LM_LEFT_FOOT_INDEX, CROWDI_LM_RIGHT_FOOT_INDEX};
#define CVK_USED_LANDMARKS ((int)(sizeof cvk_used_landmarks / sizeof cvk_used_landmarks[0]))

/* ---- the stage, in three passes over CVK_LIMB_ROWS rows at a time ----
 * Solving all 15 bones of a block in one go keeps far more values alive than there are
 * registers, and each bone's LookRotation is a chain of square roots and divisions that the
 * CPU cannot overlap with the next bone's. So: (1) inputs: landmarks, smoothing and each
 * bone's (forward, up) into a small scratch; (2) rotations: one bone at a time over all the
 * rows, independent iterations the CPU overlaps; (3) outputs: hierarchy, visibility hold and
 * the stores. The arithmetic per lane is the same whatever the split. */
#define CVK_LIMB_ROWS 32 /* a multiple of every CV_W; the scratch (~21 KiB) stays in L1 */

typedef struct cvk_limb_scratch {
    float look[CROWDI_BONES][6][CVK_LIMB_ROWS]; /* LookRotation's forward xyz and up xyz */
    float world[CROWDI_BONES][4][CVK_LIMB_ROWS]; /* fixed, normalised world rotation */
    float norm2[CROWDI_BONES][CVK_LIMB_ROWS];    /* its |q|^2 before normalising */
    bool steady[CVK_LIMB_ROWS];                  /* per block (j / CV_W): see cvk_limb_inputs */
} cvk_limb_scratch;

/* per tick constants */
typedef struct cvk_limb_tick {
    float dt, alpha_d, frequency, two_pi_dt;
    float step;        /* dt/reacquire_half_life */
    float k_in, k_out; /* 0.5^step, 0.5^(dt/hold_half_life) */
    bool track;        /* bones can be untrusted (threshold > 0) */
} cvk_limb_tick;

/* Which bone rotation columns the view has (crowd_limbs_desc.outputs): both, world only (no
 * tracking: with it the local rotations are kept as the ease state, so such a rig is BOTH
 * here) or local only. A constant at each call of cvk_limb_outputs_by. */
enum { CVK_KEEP_BOTH, CVK_KEEP_WORLD, CVK_KEEP_LOCAL };

static inline void cvk_put_look(cvk_limb_scratch *s, int bone, size_t j, cv_v3 forward, cv_v3 up) {
    cv_storeu(&s->look[bone][0][j], forward.x);
    cv_storeu(&s->look[bone][1][j], forward.y);
    cv_storeu(&s->look[bone][2][j], forward.z);
    cv_storeu(&s->look[bone][3][j], up.x);
    cv_storeu(&s->look[bone][4][j], up.y);
    cv_storeu(&s->look[bone][5][j], up.z);
}

static inline void cvk_put_forward(cvk_limb_scratch *s, int bone, size_t j, cv_v3 forward) {
    cv_storeu(&s->look[bone][0][j], forward.x);
    cv_storeu(&s->look[bone][1][j], forward.y);
    cv_storeu(&s->look[bone][2][j], forward.z);
}

/* Is landmark k of the block's rows at or above the visibility threshold? */
static inline cv_m cvk_landmark_seen(const crowdi_limbs_view *v, int k, size_t i) {
    return cv_ge(cv_loadu(v->limb_pose + (size_t)(4 * k + 3) * v->limb_stride + i), cv_set1(v->limb_visibility_threshold));
}

/* An orthonormal basis: the columns of a rotation matrix. */
typedef struct { cv_v3 x, y, z; } cvk_basis;

/* The columns of LookRotation(forward, up) (SPEC 5's degenerate cases: identity without a
 * forward, the shortest arc from +z when up is parallel to it), for the stable side axis.
 * `rotation` (NULL or not, a constant at each call): where to put the rotation itself as
 * cvk_look_rotation_by's CVK_LOOK_GENERAL gives it from the same operations, so that the
 * torso bones' pass 2 takes it from here instead of solving the same basis again. */
static inline __attribute__((always_inline)) cvk_basis cvk_look_basis_by(cv_v3 forward, cv_v3 up, cv_q *rotation) {
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), tiny = cv_set1(1e-5f);
    cv_f flen = cv_sqrt(cv_v3_dot(forward, forward));
    cv_m no_forward = cv_lt(flen, tiny);
    cv_v3 z = cv_v3_scale(forward, cv_div(one, cv_select(no_forward, one, flen)));
    cv_v3 x = cv_v3_cross(up, z);
    cv_f xlen = cv_sqrt(cv_v3_dot(x, x));
    cv_m parallel = cv_lt(xlen, tiny);
    x = cv_v3_scale(x, cv_div(one, cv_select(parallel, one, xlen)));
    cvk_basis t = {x, cv_v3_cross(z, x), z};
    if (rotation) *rotation = cvk_q_from_basis_unnormalised(t.x, t.y, t.z, one);
    if (cv_any(parallel)) {
        cv_f aw = cv_add(one, z.z);
        cv_m opposite = cv_lt(aw, cv_set1(1e-6f));
        cv_q arc_raw = {cv_select(opposite, one, cv_neg(z.y)), cv_select(opposite, zero, z.x), zero,
                        cv_select(opposite, zero, aw)};
        if (rotation) *rotation = cv_q_select(parallel, arc_raw, *rotation);
        cv_q arc = cv_q_canonical(arc_raw);
        cv_v3 ax = cv_q_rotate(arc, (cv_v3){one, zero, zero}), ay = cv_q_rotate(arc, (cv_v3){zero, one, zero});
        t.x = cv_v3_select(parallel, ax, t.x);
        t.y = cv_v3_select(parallel, ay, t.y);
    }
    if (rotation) *rotation = cv_q_select(no_forward, (cv_q){zero, zero, zero, one}, *rotation);
    if (cv_any(no_forward)) {
        t.x = cv_v3_select(no_forward, (cv_v3){one, zero, zero}, t.x);
        t.y = cv_v3_select(no_forward, (cv_v3){zero, one, zero}, t.y);
        t.z = cv_v3_select(no_forward, (cv_v3){zero, zero, one}, t.z);
    }
    return t;
}

static inline cvk_basis cvk_look_basis(cv_v3 forward, cv_v3 up) { return cvk_look_basis_by(forward, up, NULL); }

/* SPEC 5.1's stable side axis of a limb with unit upper direction d, lower direction ld and
 * torso basis T; reads the limb's side (kept in T's frame) and stores it where `trusted` (the
 * limb's three joints seen: landmarks the tracker does not see must not steer the roll it
 * resumes with). */
static inline __attribute__((always_inline)) cv_v3 cvk_stable_side(const crowdi_limbs_view *v, size_t i, int limb, bool leg, cv_v3 d, cv_v3 ld,
                                     const cvk_basis *T, cv_m trusted) {
    const size_t st = v->limb_stride;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    /* reference: the rest hinge carried by the shortest arc from the torso's down to d */
    cv_v3 down = cv_v3_neg(T->y), h = leg ? T->x : cv_v3_neg(T->x);
    cv_f c = cv_v3_dot(down, d), one_c = cv_add(one, c);
    cv_v3 k = cv_v3_cross(down, d);
    cv_m arc = cv_ge(one_c, cv_set1(1e-6f));
    cv_f kh = cv_div(cv_v3_dot(k, h), cv_select(arc, one_c, one));
    cv_v3 ref = cv_v3_add(cv_v3_add(cv_v3_scale(h, c), cv_v3_cross(k, h)), cv_v3_scale(k, kh));
    /* ref is used by its sign in dot products, and as p, which is normalised: it needs no
     * normalising of its own (nor its length: shorter than 1e-3 is |ref|^2 < 1e-6) */
    cv_m ref_ok = cv_mand(arc, cv_ge(cv_v3_dot(ref, ref), cv_set1(1e-6f)));
    if (!cv_all(ref_ok)) { /* cross(d, (0,0,1)) or cross(d, (1,0,0)) */
        cv_m use_z = cv_lt(cv_abs(d.z), cv_set1(0.9f));
        cv_v3 alt = cv_v3_select(use_z, (cv_v3){d.y, cv_neg(d.x), zero}, (cv_v3){zero, d.z, cv_neg(d.y)});
        ref = cv_v3_select(ref_ok, ref, alt);
    }
    /* previous side, turned with the torso and projected off the bone (ref when there is none
     * or the projection is shorter than 1e-3), normalised */
    float *col = v->limb_side + (size_t)(3 * limb) * st;
    cv_v3 kept = {cv_loadu(col + i), cv_loadu(col + st + i), cv_loadu(col + 2 * st + i)};
    cv_m has = cv_gt(cv_v3_dot(kept, kept), zero);
    cv_v3 p = cv_v3_add(cv_v3_add(cv_v3_scale(T->x, kept.x), cv_v3_scale(T->y, kept.y)), cv_v3_scale(T->z, kept.z));
    p = cv_v3_sub(p, cv_v3_scale(d, cv_v3_dot(p, d)));
    cv_m p_ok = cv_mand(has, cv_ge(cv_v3_dot(p, p), cv_set1(1e-6f)));
    p = cv_v3_normalized(cv_v3_select(p_ok, p, ref));
    /* the bend plane, one way for knees, weighted by how much the limb bends */
    cv_v3 bend = cv_v3_cross(d, ld);
    cv_f b = cv_sqrt(cv_v3_dot(bend, bend));
    cv_m straight = cv_mfalse(); /* a knee bent backward counts as straight */
    cv_v3 toward = ref;
    cv_m own_sign = cv_mfalse();
    if (leg) {
        straight = cv_lt(cv_v3_dot(bend, ref), zero);
    } else {
        toward = cv_v3_select(cv_ge(one_c, cv_set1(0.25f)), ref, p);
        /* an arm bent in the image plane keeps its sign: bend.z reads no depth, which trackers
         * give 3-4 times noisier (flipping toward ref there doubles a roll error) */
        own_sign = cv_ge(cv_abs(bend.z), cv_set1(v->limb_arm_image_sin));
    }
    cv_m flip = cv_mandnot(cv_lt(cv_v3_dot(bend, toward), zero), own_sign);
    bend = cv_v3_select(flip, cv_v3_neg(bend), bend);
    cv_f u = cv_div(cv_sub(b, cv_set1(v->limb_bend_sin_min)), cv_set1(v->limb_bend_sin_range));
    u = cv_min(cv_max(u, zero), one);
    u = cv_select(straight, zero, u);
    cv_m none = cv_le(u, zero);
    cv_v3 mix = cv_v3_add(cv_v3_scale(bend, cv_div(u, cv_select(none, one, b))), cv_v3_scale(p, cv_sub(one, u)));
    cv_v3 side = cv_v3_select(none, p, cv_v3_normalized(mix));
    /* calibration solves the bind pose as held: the side the blend settles at */
    if (v->limb_side_settle) side = cv_v3_select(none, p, cv_v3_normalized(bend));
    cv_v3 stored = {cv_v3_dot(T->x, side), cv_v3_dot(T->y, side), cv_v3_dot(T->z, side)};
    if (!cv_all(trusted)) stored = cv_v3_select(trusted, stored, kept);
    cv_storeu(col + i, stored.x);
    cv_storeu(col + st + i, stored.y);
    cv_storeu(col + 2 * st + i, stored.z);
    return side;
}

/* A limb bone pair (upper, lower) from joints a, b, c; the side axis by the rig's mode (in
 * stable mode only the directions: cvk_limb_sides completes them). `right` is the root's right
 * turned to the subject's side (cvk_limb_geometry). */
static inline void cvk_limb(const crowdi_limbs_view *v, size_t i, int limb, cv_v3 a, cv_v3 b, cv_v3 c,
                            cv_v3 right, cvk_limb_scratch *s, int upper_bone, size_t j) {
    cv_v3 upper_dir = cv_v3_normalized(cv_v3_sub(b, a));
    cv_v3 lower_dir = cv_v3_normalized(cv_v3_sub(c, b));
    if (v->limb_side_mode == CROWDI_SIDE_STABLE) { /* the side axis and the ups: cvk_limb_sides */
        cvk_put_forward(s, upper_bone, j, upper_dir);
        cvk_put_forward(s, upper_bone + 1, j, lower_dir);
        return;
    }
    cv_v3 side = cv_v3_cross(upper_dir, lower_dir);
    cv_m straight = cv_lt(cv_v3_dot(side, side), cv_set1(1e-4f));
    cv_v3 fallback = cv_v3_scale(right, cv_set1(v->limb_sign[limb]));
    if (v->limb_side_mode == CROWDI_SIDE_PREVIOUS) {
        const size_t st = v->limb_stride;
        float *col = v->limb_side + (size_t)(3 * limb) * st;
        cv_v3 prev = {cv_loadu(col + i), cv_loadu(col + st + i), cv_loadu(col + 2 * st + i)};
        cv_m has_prev = cv_gt(cv_v3_dot(prev, prev), cv_zero());
        fallback = cv_v3_select(has_prev, prev, fallback);
        /* keep the bend on the side it had: past straight the side axis would reverse and
         * turn both bones half a turn */
        cv_m flip = cv_mand(has_prev, cv_lt(cv_v3_dot(side, prev), cv_zero()));
        side = cv_v3_select(flip, cv_v3_scale(side, cv_set1(-1.0f)), side);
        cv_v3 keep = cv_v3_select(straight, prev, cv_v3_normalized(side));
        cv_storeu(col + i, keep.x);
        cv_storeu(col + st + i, keep.y);
        cv_storeu(col + 2 * st + i, keep.z);
    }
    side = cv_v3_select(straight, fallback, side);
    cvk_put_look(s, upper_bone, j, upper_dir, cv_v3_cross(upper_dir, side));
    cvk_put_look(s, upper_bone + 1, j, lower_dir, cv_v3_cross(lower_dir, side));
}

/* A hand: forward from the wrist to the midpoint of index and pinky, side from index to pinky. */
static inline void cvk_hand(cv_v3 wrist, cv_v3 index, cv_v3 pinky, cvk_limb_scratch *s, int bone, size_t j) {
    cv_v3 dir = cv_v3_normalized(cv_v3_sub(cv_v3_mid(index, pinky), wrist));
    cv_v3 side = cv_v3_sub(pinky, index);
    cvk_put_look(s, bone, j, dir, cv_v3_cross(dir, side));
}

/* Where pass 1 reads landmark k's engine-frame coordinates once the filter (if any) has run:
 * the pose columns (y negated for the mediapipe frame), or the filter's output columns, which
 * hold exactly the values the filter returned. Reading them again where each is used keeps no
 * array of 69 vectors alive across the pass (it spilled to the stack and back). */
typedef struct {
    const float *base;  /* coordinate c of landmark k at base + k*kstride + c*st */
    size_t kstride, st;
    bool flip;          /* negate y (a constant where the geometry is expanded) */
} cvk_landmarks;

static inline cv_v3 cvk_lm(const cvk_landmarks *L, int k, size_t i) {
    const float *col = L->base + (size_t)k * L->kstride + i;
    const cv_f y = cv_loadu(col + L->st);
    return (cv_v3){cv_loadu(col), L->flip ? cv_neg(y) : y, cv_loadu(col + 2 * L->st)};
}

/* The root rotation of rows [i, i + CV_W): its columns, or the one value every row holds
 * (limb_root NULL; kernel_table.h). */
static inline cv_q cvk_limb_root(const crowdi_limbs_view *v, size_t i) {
    return v->limb_root ? cv_q_loadu_cols(v->limb_root, v->limb_stride, i) : cv_q_set1(v->limb_root_value);
}

/* Pass 1's geometry: each bone's LookRotation arguments from the landmarks L. */
static inline __attribute__((always_inline)) void cvk_limb_geometry(const crowdi_limbs_view *v, size_t i,
                                                                     cvk_limb_scratch *s, size_t j,
                                                                     const cvk_landmarks L) {
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    /* the root's right axis, turned to the subject's side for legs and arms: negated where it
     * points against the x column of the hips' or the chest's LookRotation (this tick's
     * landmarks, no axis fix), so that a subject facing away from the root's +z (a webcam's
     * subject faces -z) does not pop half a turn as a limb straightens. Only the root and
     * previous fallbacks read it. */
    cv_v3 right = {zero, zero, zero}, leg_right = right, arm_right = right;
    if (v->limb_side_mode != CROWDI_SIDE_STABLE)
        right = cv_q_rotate(cvk_limb_root(v, i), (cv_v3){one, zero, zero});

    /* crowd_bone order; landmark k of a bone as its kind in crowdi_bones orders them */
#define LM(bone, k) cvk_lm(&L, crowdi_bones[CROWD_BONE_##bone].landmarks[k], i)
    {
        const cv_v3 lsh = LM(HIPS, 0), rsh = LM(HIPS, 1), lhip = LM(HIPS, 2), rhip = LM(HIPS, 3);
        cv_v3 hip_mid = cv_v3_mid(lhip, rhip), shoulder_mid = cv_v3_mid(lsh, rsh);
        cv_v3 up = cv_v3_sub(shoulder_mid, hip_mid);
        cv_v3 hips_right = cv_v3_sub(rhip, lhip), chest_right = cv_v3_sub(LM(CHEST, 1), LM(CHEST, 0));
        cv_v3 hips_fwd = cv_v3_cross(hips_right, up), chest_fwd = cv_v3_cross(chest_right, up);
        cvk_put_look(s, CROWD_BONE_HIPS, j, hips_fwd, up);
        cvk_put_look(s, CROWD_BONE_CHEST, j, chest_fwd, up);
        if (v->limb_side_mode != CROWDI_SIDE_STABLE) {
            cv_v3 hips_x = cvk_look_basis(hips_fwd, up).x, chest_x = cvk_look_basis(chest_fwd, up).x;
            leg_right = cv_v3_select(cv_lt(cv_v3_dot(right, hips_x), zero), cv_v3_neg(right), right);
            arm_right = cv_v3_select(cv_lt(cv_v3_dot(right, chest_x), zero), cv_v3_neg(right), right);
        }
    }
    {
        const cv_v3 lear = LM(HEAD, 1), rear = LM(HEAD, 2);
        cv_v3 head_right = cv_v3_sub(rear, lear);
        cv_v3 head_fwd = cv_v3_sub(LM(HEAD, 0), cv_v3_mid(lear, rear));
        cvk_put_look(s, CROWD_BONE_HEAD, j, head_fwd, cv_v3_cross(head_fwd, head_right));
    }
#define LIMB(limb, upper, right) \
    cvk_limb(v, i, CROWD_LIMB_##limb, LM(upper, 0), LM(upper, 1), LM(upper, 2), right, s, CROWD_BONE_##upper, j)
#define HAND(bone) cvk_hand(LM(bone, 0), LM(bone, 1), LM(bone, 2), s, CROWD_BONE_##bone, j)
#define FOOT(bone)                                                                                          \
    do {                                                                                                    \
        const cv_v3 heel = LM(bone, 1);                                                                     \
        cvk_put_look(s, CROWD_BONE_##bone, j, cv_v3_sub(LM(bone, 2), heel), cv_v3_sub(LM(bone, 0), heel)); \
    } while (0)
    LIMB(LEFT_ARM, LEFT_UPPER_ARM, arm_right);
    HAND(LEFT_HAND);
    LIMB(RIGHT_ARM, RIGHT_UPPER_ARM, arm_right);
    HAND(RIGHT_HAND);
    LIMB(LEFT_LEG, LEFT_UPPER_LEG, leg_right);
    FOOT(LEFT_FOOT);
    LIMB(RIGHT_LEG, RIGHT_UPPER_LEG, leg_right);
    FOOT(RIGHT_FOOT);
#undef LM
#undef LIMB
#undef HAND
#undef FOOT
}

/* Pass 1, one block at row i (scratch offset j): landmarks in (flipped, smoothed), each bone's
 * LookRotation arguments out. */
static inline void cvk_limb_inputs(const crowdi_limbs_view *v, const cvk_limb_tick *t, size_t i, cvk_limb_scratch *s,
                                   size_t j) {
    const size_t st = v->limb_stride;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    cvk_landmarks L = {v->limb_pose, 4 * st, st, v->limb_flip_y != 0};

    if (v->limb_smoothing) {
        float *const filter_ready = v->limb_filter + (size_t)(3 * 3 * CROWDI_LANDMARKS) * st;
        const cv_m first = cv_eq(cv_loadu(filter_ready + i), zero);
        for (int u = 0; u < CVK_USED_LANDMARKS; u++) {
            int k = cvk_used_landmarks[u];
            cv_v3 raw = cvk_lm(&L, k, i);
            cv_f p[3] = {raw.x, raw.y, raw.z};
            for (int c = 0; c < 3; c++) {
                float *xhat = v->limb_filter + (size_t)(3 * k + c) * st;
                float *dxhat = v->limb_filter + (size_t)(3 * CROWDI_LANDMARKS + 3 * k + c) * st;
                float *rawc = v->limb_filter + (size_t)(6 * CROWDI_LANDMARKS + 3 * k + c) * st;
                if (t->dt > 0.0f) {
                    cvk_one_euro(v->limb_min_cutoff, v->limb_beta, t->frequency, t->two_pi_dt, t->alpha_d, xhat, dxhat, rawc, i,
                                 p[c], first);
                } else { /* dt = 0 adds no information: the filtered value stands (a first
                            sample is taken as it is) */
                    cv_f kept = cv_select(first, p[c], cv_loadu(xhat + i));
                    cv_storeu(rawc + i, cv_select(first, p[c], cv_loadu(rawc + i)));
                    cv_storeu(xhat + i, kept);
                }
            }
        }
        cv_storeu(filter_ready + i, one);
        L = (cvk_landmarks){v->limb_filter, 3 * st, st, false}; /* the filtered values, already flipped */
    }
    /* is the block steady (every used landmark seen, every bone eased in)? Then pass 3 is
     * the plain solve (cvk_limb_outputs) */
    if (t->track) {
        cv_m ok = cv_mtrue();
        const float *vis = v->limb_pose + 3 * st + i;
        const cv_f threshold = cv_set1(v->limb_visibility_threshold);
#pragma GCC unroll 23
        for (int u = 0; u < CVK_USED_LANDMARKS; u++)
            ok = cv_mand(ok, cv_le(threshold, cv_loadu(vis + (size_t)(4 * cvk_used_landmarks[u]) * st)));
        const float *track = v->limb_track + i;
#pragma GCC unroll 15
        for (int b = 0; b < CROWDI_BONES; b++) ok = cv_mand(ok, cv_eq(one, cv_loadu(track + (size_t)b * st)));
        s->steady[j / CV_W] = cv_all(ok);
    }
    /* the geometry with the flip a constant (no instruction where there is none) */
    if (L.flip)
        cvk_limb_geometry(v, i, s, j, (cvk_landmarks){L.base, L.kstride, st, true});
    else
        cvk_limb_geometry(v, i, s, j, (cvk_landmarks){L.base, L.kstride, st, false});
}

static inline cv_v3 cvk_get_look(const cvk_limb_scratch *s, int bone, int part, size_t j) {
    return (cv_v3){cv_loadu(&s->look[bone][3 * part][j]), cv_loadu(&s->look[bone][3 * part + 1][j]),
                    cv_loadu(&s->look[bone][3 * part + 2][j])};
}

/* Pass 1b (fallback stable), one block at row i (scratch offset j): each limb's side axis from
 * the directions pass 1 left and the torso rotations' LookRotation arguments, and the limbs'
 * ups. Not inlined: inside the stage it costs the other passes ~20% more instructions (the
 * compiler's inlining and register choices for the whole stage), even where it never runs. */
static inline void cvk_put_up(cvk_limb_scratch *s, int bone, size_t j, cv_v3 up) {
    cv_storeu(&s->look[bone][3][j], up.x);
    cv_storeu(&s->look[bone][4][j], up.y);
    cv_storeu(&s->look[bone][5][j], up.z);
}

/* One limb's side axis and its two bones' ups (their forwards are in the scratch already). */
static inline __attribute__((always_inline)) void cvk_limb_side_pair(const crowdi_limbs_view *v, size_t i,
                                                                      cvk_limb_scratch *s, size_t j, int limb,
                                                                      const cvk_basis *T, const bool check_trust) {
    const int upper = crowdi_limb_upper[limb];
    cv_v3 d = cvk_get_look(s, upper, 0, j), ld = cvk_get_look(s, upper + 1, 0, j);
    cv_m trusted = cv_mtrue();
    if (check_trust)
        for (int k = 0; k < 3; k++) trusted = cv_mand(trusted, cvk_landmark_seen(v, crowdi_bones[upper].landmarks[k], i));
    cv_v3 side = cvk_stable_side(v, i, limb, crowdi_limb_is_leg(limb), d, ld, T, trusted);
    cvk_put_up(s, upper, j, cv_v3_cross(d, side));
    cvk_put_up(s, upper + 1, j, cv_v3_cross(ld, side));
}

/* The torso bone's LookRotation, unnormalised, where pass 2 reads it (cvk_limb_rotations:
 * the stable mode's hips and chest) */
static inline void cvk_put_torso_rotation(cvk_limb_scratch *s, int bone, size_t j, cv_q r) {
    cv_storeu(&s->world[bone][0][j], r.x);
    cv_storeu(&s->world[bone][1][j], r.y);
    cv_storeu(&s->world[bone][2][j], r.z);
    cv_storeu(&s->world[bone][3][j], r.w);
}

/* check_trust (a constant at each call): whether some landmark of the block can be unseen; a
 * steady block (cvk_limb_inputs) or a rig without tracking stores every side */
static inline __attribute__((always_inline)) void cvk_limb_sides_by(const crowdi_limbs_view *v, size_t i,
                                                                     cvk_limb_scratch *s, size_t j,
                                                                     const bool check_trust) {
    /* arms on the chest, then legs on the hips: one torso basis live at a time; written out so
     * that every limb's columns and constants are known where they are used */
    cv_q torso;
    cvk_basis T = cvk_look_basis_by(cvk_get_look(s, CROWD_BONE_CHEST, 0, j), cvk_get_look(s, CROWD_BONE_CHEST, 1, j), &torso);
    cvk_put_torso_rotation(s, CROWD_BONE_CHEST, j, torso);
    cvk_limb_side_pair(v, i, s, j, CROWD_LIMB_LEFT_ARM, &T, check_trust);
    cvk_limb_side_pair(v, i, s, j, CROWD_LIMB_RIGHT_ARM, &T, check_trust);
    T = cvk_look_basis_by(cvk_get_look(s, CROWD_BONE_HIPS, 0, j), cvk_get_look(s, CROWD_BONE_HIPS, 1, j), &torso);
    cvk_put_torso_rotation(s, CROWD_BONE_HIPS, j, torso);
    cvk_limb_side_pair(v, i, s, j, CROWD_LIMB_LEFT_LEG, &T, check_trust);
    cvk_limb_side_pair(v, i, s, j, CROWD_LIMB_RIGHT_LEG, &T, check_trust);
}

__attribute__((noinline)) static void cvk_limb_sides(const crowdi_limbs_view *v, size_t i, cvk_limb_scratch *s, size_t j) {
    if (v->limb_track && !s->steady[j / CV_W])
        cvk_limb_sides_by(v, i, s, j, true);
    else
        cvk_limb_sides_by(v, i, s, j, false);
}

/* Pass 2: one bone's rotation on every row of the scratch; `form` and `kind` are constants at
 * each call (cvk_look_rotation_by, cvk_q_mul_fix), so the loop branches on no setting. Renormalised
 * after the fix: near LookRotation's degenerate threshold the basis is not quite orthogonal. */
static inline __attribute__((always_inline)) void cvk_limb_rotations_by(const crowdi_limbs_view *v, cvk_limb_scratch *s,
                                                                         size_t rows, int b, int form, uint8_t kind) {
    for (size_t j = 0; j < rows; j += CV_W) {
        cv_q look;
        if (form == CVK_LOOK_STORED) {
            look = (cv_q){cv_loadu(&s->world[b][0][j]), cv_loadu(&s->world[b][1][j]), cv_loadu(&s->world[b][2][j]),
                          cv_loadu(&s->world[b][3][j])};
        } else {
            cv_v3 f = {cv_loadu(&s->look[b][0][j]), cv_loadu(&s->look[b][1][j]), cv_loadu(&s->look[b][2][j])};
            cv_v3 u = {cv_loadu(&s->look[b][3][j]), cv_loadu(&s->look[b][4][j]), cv_loadu(&s->look[b][5][j])};
            look = cvk_look_rotation_by(f, u, form);
        }
        cv_f n2;
        cv_q w = cv_q_canonical_n(cvk_q_mul_fix(look, v->limb_fix[b], kind), &n2);
        cv_storeu(&s->world[b][0][j], w.x);
        cv_storeu(&s->world[b][1][j], w.y);
        cv_storeu(&s->world[b][2][j], w.z);
        cv_storeu(&s->world[b][3][j], w.w);
        cv_storeu(&s->norm2[b][j], n2);
    }
}

/* One pass 2 loop per form and fix kind, each with both as constants. */
#define CVK_ROTATIONS_BY_FORM(kind)                                                            \
    do {                                                                                      \
        if (form == CVK_LOOK_UNIT)                                                            \
            cvk_limb_rotations_by(v, s, rows, b, CVK_LOOK_UNIT, kind);                        \
        else if (form == CVK_LOOK_GENERAL)                                                    \
            cvk_limb_rotations_by(v, s, rows, b, CVK_LOOK_GENERAL, kind);                     \
        else                                                                                  \
            cvk_limb_rotations_by(v, s, rows, b, CVK_LOOK_STORED, kind);                      \
    } while (0)

/* Not inlined, like the other passes: each gets its own register allocation. The torso bones
 * in stable mode: the sides pass solved their LookRotation already (cvk_look_basis_by). */
__attribute__((noinline)) static void cvk_limb_rotations(const crowdi_limbs_view *v, cvk_limb_scratch *s, size_t rows,
                                                         int b) {
    const bool stored = v->limb_side_mode == CROWDI_SIDE_STABLE && (b == CROWD_BONE_HIPS || b == CROWD_BONE_CHEST);
    const int form = stored ? CVK_LOOK_STORED : crowdi_bones[b].unit_forward ? CVK_LOOK_UNIT : CVK_LOOK_GENERAL;
    switch (v->limb_fix_kind[b]) {
    case CROWDI_FIX_IDENTITY: CVK_ROTATIONS_BY_FORM(CROWDI_FIX_IDENTITY); break;
    case CROWDI_FIX_X90: CVK_ROTATIONS_BY_FORM(CROWDI_FIX_X90); break;
    default: CVK_ROTATIONS_BY_FORM(CROWDI_FIX_GENERAL); break;
    }
}
#undef CVK_ROTATIONS_BY_FORM

/* inverse(a) * b for unit a, as cv_q_mul(cv_q_conj(a), b) gives it bit for bit: (-x)*y is
 * exactly -(x*y) and s + -t exactly s - t, so the three negations fold into the signs of the
 * sums (only a NaN's sign could differ, and a NaN never reaches an output: cvk_limb_outputs_by
 * keeps the last output where |q|^2 is not sane). */
static inline cv_q cvk_q_conj_mul(cv_q a, cv_q b) {
    cv_q r;
    r.x = cv_add(cv_sub(cv_sub(cv_mul(a.w, b.x), cv_mul(a.x, b.w)), cv_mul(a.y, b.z)), cv_mul(a.z, b.y));
    r.y = cv_sub(cv_sub(cv_add(cv_mul(a.w, b.y), cv_mul(a.x, b.z)), cv_mul(a.y, b.w)), cv_mul(a.z, b.x));
    r.z = cv_sub(cv_add(cv_sub(cv_mul(a.w, b.z), cv_mul(a.x, b.y)), cv_mul(a.y, b.x)), cv_mul(a.z, b.w));
    r.w = cv_add(cv_add(cv_add(cv_mul(a.w, b.w), cv_mul(a.x, b.x)), cv_mul(a.y, b.y)), cv_mul(a.z, b.z));
    return r;
}

/* cv_q_positive's bits with one select instead of four: flipping the sign bit where w < 0 is
 * an xor with the sign bit chosen once (AVX-512 flips under a mask in one instruction). */
static inline cv_q cvk_q_positive(cv_q q) {
#if defined(CV_TARGET_AVX512)
    return cv_q_positive(q);
#else
    const cv_i sign = cv_as_i(cv_select(cv_lt(q.w, cv_zero()), cv_set1(-0.0f), cv_zero()));
    return (cv_q){cv_as_f(cv_ixor(cv_as_i(q.x), sign)), cv_as_f(cv_ixor(cv_as_i(q.y), sign)),
                  cv_as_f(cv_ixor(cv_as_i(q.z), sign)), cv_as_f(cv_ixor(cv_as_i(q.w), sign))};
#endif
}

static inline __attribute__((always_inline)) void cvk_limb_hierarchy(const crowdi_limbs_view *v, const cvk_limb_tick *t,
                                                                      size_t i, const cvk_limb_scratch *s, size_t j,
                                                                      const bool tracking, const int kept,
                                                                      const cv_m *seen, const bool some_unseen,
                                                                      const cv_q root, const cv_m root_unit,
                                                                      const bool check);

/* Pass 3, one block at row i (scratch offset j): local rotations along the hierarchy, trust
 * and re-acquisition (SPEC 5.1) when `tracking`, the stores of the columns `kept` names.
 * `tracking` and `kept` are constants at each call: without tracking every bone is the plain
 * solve; tracking needs the local columns (prev), so it comes with BOTH or LOCAL only. Every
 * value computed is the same whatever is kept: only the stores differ, and the one read of a
 * column not kept (the last world of a bone that cannot be solved, LOCAL) is replaced. */
static inline __attribute__((always_inline)) void cvk_limb_outputs_by(const crowdi_limbs_view *v, const cvk_limb_tick *t,
                                                                       size_t i, const cvk_limb_scratch *s, size_t j,
                                                                       const bool tracking, const int kept) {
    cv_m seen[CROWDI_LANDMARKS], all_seen = cv_mtrue();
    if (tracking)
        for (int u = 0; u < CVK_USED_LANDMARKS; u++) {
            int k = cvk_used_landmarks[u];
            seen[k] = cvk_landmark_seen(v, k, i);
            all_seen = cv_mand(all_seen, seen[k]);
        }
    const bool some_unseen = tracking && !cv_all(all_seen);
    cv_q root = cvk_limb_root(v, i);
    const cv_f root_n2 = cv_q_norm2(root);
    const cv_m root_unit = cv_mand(cv_ge(root_n2, cv_set1(1.0f - 1e-4f)), cv_le(root_n2, cv_set1(1.0f + 1e-4f)));
    /* Without tracking every bone is trusted, and a block where every |q|^2 is sane and the
     * root unit (nearly all) needs no per-bone test: the smallest |q|^2 above 1e-30 and their
     * sum below 1e30 (each is >= 0; a NaN or an infinity makes the sum fail) say it for all 15
     * at once. Any other block takes the per-bone tests, with the same results. */
    if (!tracking) {
        cv_f lo = cv_loadu(&s->norm2[0][j]), sum = lo;
#pragma GCC unroll 15
        for (int b = 1; b < CROWDI_BONES; b++) {
            const cv_f n2 = cv_loadu(&s->norm2[b][j]);
            lo = cv_min(lo, n2);
            sum = cv_add(sum, n2);
        }
        if (cv_all(cv_mand(root_unit, cv_mand(cv_gt(lo, cv_set1(1e-30f)), cv_lt(sum, cv_set1(1e30f)))))) {
            cvk_limb_hierarchy(v, t, i, s, j, false, kept, seen, false, root, root_unit, false);
            return;
        }
    }
    cvk_limb_hierarchy(v, t, i, s, j, tracking, kept, seen, some_unseen, root, root_unit, true);
}

/* cvk_limb_outputs_by's bones from the hips outward; `check` (a constant at each call): test
 * each bone's |q|^2 (and the root's length for the hips) */
static inline __attribute__((always_inline)) void cvk_limb_hierarchy(const crowdi_limbs_view *v, const cvk_limb_tick *t,
                                                                      size_t i, const cvk_limb_scratch *s, size_t j,
                                                                      const bool tracking, const int kept,
                                                                      const cv_m *seen, const bool some_unseen,
                                                                      const cv_q root, const cv_m root_unit,
                                                                      const bool check) {
    const bool keep_world = kept != CVK_KEEP_LOCAL, keep_local = kept != CVK_KEEP_WORLD;
    const size_t st = v->limb_stride;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f);
    cv_q world[CROWDI_BONES];
#pragma GCC unroll 15
    for (int b = 0; b < CROWDI_BONES; b++) {
        cv_q parent = crowdi_bones[b].parent < 0 ? root : world[crowdi_bones[b].parent];
        cv_q w = {cv_loadu(&s->world[b][0][j]), cv_loadu(&s->world[b][1][j]), cv_loadu(&s->world[b][2][j]),
                   cv_loadu(&s->world[b][3][j])};
        cv_q local = cvk_q_positive(cvk_q_conj_mul(parent, w));
        cv_m trusted = cv_mtrue();
        if (tracking) {
            if (some_unseen)
                for (int d = 0; d < 4 && crowdi_bones[b].landmarks[d] >= 0; d++)
                    trusted = cv_mand(trusted, seen[crowdi_bones[b].landmarks[d]]);
            float *track_col = v->limb_track + (size_t)b * st;
            cv_f r = cv_loadu(track_col + i);
            /* steady tracking (trusted, fully eased in) is the plain solve: nothing to do */
            if (!cv_all(cv_mand(trusted, cv_eq(r, one)))) {
                cv_q prev = cv_q_loadu_cols(v->limb_local + (size_t)(4 * b) * st, st, i);
                const cv_f k_in = cv_set1(t->k_in);
                cv_m reacquired = cv_mand(trusted, cv_lt(r, zero));
                r = cv_select(reacquired, cv_sub(one, k_in), cv_sub(one, cv_mul(cv_sub(one, r), k_in)));
                cv_m eased_in = cv_ge(r, cv_set1(1.0f - 0x1p-10f));
                r = cv_select(eased_in, one, r);
                cv_m plain = cv_mand(trusted, eased_in);
                /* from the previous output by a = 1 - 0.5^min(x, 64) of the remaining way, x =
                 * step/(1 - r): a rate that grows as r nears 1, so a moving target is caught
                 * with no lag left when r snaps to 1, and never across the far hemisphere
                 * (nlerp from prev); dt = 0 gives a = 0 */
                cv_f x = cv_div(cv_set1(t->step), cv_select(eased_in, one, cv_sub(one, r)));
                cv_f a = cv_sub(one, cv_exp2(cv_neg(cv_min(x, cv_set1(64.0f)))));
                /* the rest local rotation; the hips' is relative to the root, so that unseen hips
                 * ease to the rest pose in the tracker's frame, as tracked hips are in it */
                cv_q rest = cv_q_set1(v->limb_rest_local[b]);
                if (crowdi_bones[b].parent < 0) rest = cv_q_canonical(cv_q_mul(cv_q_conj(root), rest));
                cv_q shown = cv_q_select(trusted, cv_q_nlerp(prev, local, a), cv_q_nlerp(rest, prev, cv_set1(t->k_out)));
                local = cv_q_select(plain, local, shown);
                w = cv_q_select(plain, w, cv_q_canonical(cv_q_mul(parent, shown)));
                cv_storeu(track_col + i, cv_select(trusted, r, cv_set1(-1.0f)));
            }
        }
        /* What the unchecked columns can hold (landmarks so far apart that the products
         * overflow, a root that is not unit) gives no rotation: keep the bone's last output,
         * never a NaN. Below the root a finite, not tiny |q|^2 before normalising makes w unit,
         * and then local too (the parent is unit); an untrusted bone is an nlerp of unit
         * rotations; the bone on the root (hips) also needs the root to be unit, as crowd_set
         * checks it. */
        cv_m sane = cv_mtrue();
        if (check) {
            const cv_f n2 = cv_loadu(&s->norm2[b][j]);
            sane = cv_mor(cv_mnot(trusted), cv_mand(cv_gt(n2, cv_set1(1e-30f)), cv_lt(n2, cv_set1(1e30f))));
            if (crowdi_bones[b].parent < 0) sane = cv_mand(sane, root_unit);
        }
        if (check && !cv_all(sane)) {
            cv_q held = local;
            if (keep_local) held = cv_q_loadu_cols(v->limb_local + (size_t)(4 * b) * st, st, i);
            if (keep_world) {
                w = cv_q_select(sane, w, cv_q_loadu_cols(v->limb_world + (size_t)(4 * b) * st, st, i));
            } else {
                /* no last world kept (LOCAL): the children hang from parent * held local, the
                 * hips' from the held local alone when the root is not unit (crowd.h: outside
                 * the field rules only, since accepted input always solves) */
                cv_q p = parent;
                if (crowdi_bones[b].parent < 0) p = cv_q_select(root_unit, root, (cv_q){zero, zero, zero, one});
                w = cv_q_select(sane, w, cv_q_canonical(cv_q_mul(p, held)));
            }
            local = cv_q_select(sane, local, held);
        }
        world[b] = w;
        if (keep_world) cv_q_storeu_cols(v->limb_world + (size_t)(4 * b) * st, st, i, w);
        if (keep_local) cv_q_storeu_cols(v->limb_local + (size_t)(4 * b) * st, st, i, local);
    }
}

/* The tracking form, for blocks where some bone is untrusted or easing in, and the plain one,
 * each expanded for the columns the view has (not inlined: the tracking code would cost the
 * plain form's registers, and the choice the stage's other passes theirs). */
__attribute__((noinline)) static void cvk_limb_outputs_tracking(const crowdi_limbs_view *v, const cvk_limb_tick *t, size_t i,
                                                                const cvk_limb_scratch *s, size_t j) {
    if (!v->limb_world)
        cvk_limb_outputs_by(v, t, i, s, j, true, CVK_KEEP_LOCAL);
    else /* tracking keeps the local columns: world only is both here */
        cvk_limb_outputs_by(v, t, i, s, j, true, CVK_KEEP_BOTH);
}

__attribute__((noinline)) static void cvk_limb_outputs_plain(const crowdi_limbs_view *v, const cvk_limb_tick *t, size_t i,
                                                             const cvk_limb_scratch *s, size_t j) {
    cvk_limb_outputs_by(v, t, i, s, j, false, CVK_KEEP_BOTH);
}

__attribute__((noinline)) static void cvk_limb_outputs_plain_one(const crowdi_limbs_view *v, const cvk_limb_tick *t,
                                                                 size_t i, const cvk_limb_scratch *s, size_t j) {
    if (!v->limb_world)
        cvk_limb_outputs_by(v, t, i, s, j, false, CVK_KEEP_LOCAL);
    else
        cvk_limb_outputs_by(v, t, i, s, j, false, CVK_KEEP_WORLD);
}

static inline void cvk_limb_outputs(const crowdi_limbs_view *v, const cvk_limb_tick *t, size_t i,
                                    const cvk_limb_scratch *s, size_t j, bool both) {
    if (t->track && !s->steady[j / CV_W])
        cvk_limb_outputs_tracking(v, t, i, s, j);
    else if (both)
        cvk_limb_outputs_plain(v, t, i, s, j);
    else /* one kind of rotation kept */
        cvk_limb_outputs_plain_one(v, t, i, s, j);
}

/* The limb stage on rows [i0, i1) (whole blocks). */
static inline void cvk_limbs_range(const crowdi_limbs_view *v, float dt, size_t i0, size_t i1) {
    cvk_limb_tick t = {.dt = dt};
    if (v->limb_smoothing && dt > 0.0f) {
        t.alpha_d = 1.0f / (1.0f + (1.0f / (6.2831855f * v->limb_d_cutoff)) / dt);
        t.frequency = fminf(1.0f / dt, 1e30f);
        t.two_pi_dt = 6.2831855f * dt;
    }
    t.track = v->limb_track != NULL;
    if (t.track) {
        t.step = dt / v->limb_reacquire_half_life;
        t.k_in = exp2f(-t.step);
        t.k_out = exp2f(-(dt / v->limb_hold_half_life));
    }
    const bool both = v->limb_world && v->limb_local; /* both kinds of rotation kept */
    cvk_limb_scratch s;
    for (size_t r0 = i0; r0 < i1; r0 += CVK_LIMB_ROWS) {
        const size_t rows = i1 - r0 < CVK_LIMB_ROWS ? i1 - r0 : CVK_LIMB_ROWS;
        for (size_t j = 0; j < rows; j += CV_W) cvk_limb_inputs(v, &t, r0 + j, &s, j);
        if (v->limb_side_mode == CROWDI_SIDE_STABLE)
            for (size_t j = 0; j < rows; j += CV_W) cvk_limb_sides(v, r0 + j, &s, j);
        for (int b = 0; b < CROWDI_BONES; b++) cvk_limb_rotations(v, &s, rows, b);
        for (size_t j = 0; j < rows; j += CV_W) cvk_limb_outputs(v, &t, r0 + j, &s, j, both);
    }
}

/* The limb stage: rows [i0, i1), whole blocks. */
static inline void cvk_limbs(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_limbs_view *l = v->controller[CROWDI_CTL_LIMBS];
    if (l) cvk_limbs_range(l, dt, i0, i1);
}

#endif /* CROWDI_STAGES */
#endif
