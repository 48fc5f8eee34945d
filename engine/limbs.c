/* Limb settings: validation, axis fixes (presets, custom, calibrated from a bind pose), the
 * landmarks each bone depends on, and bone names. The solving itself is kernels/limbs.h's
 * stage, which reads the settings from the limbs' view (kernels/limbs.h) kept here. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/limbs.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(limb_fallback, crowd_limb_fallback, CROWD_FALLBACK_COUNT, "stable", "root", "previous")
CROWDI_ENUM_NAMES_DEFINE(limb, crowd_limb, CROWD_LIMB_COUNT, "left_arm", "right_arm", "left_leg", "right_leg")
CROWDI_ENUM_NAMES_DEFINE(limb_outputs, crowd_limb_outputs, CROWD_LIMB_OUTPUTS_COUNT, "both", "world", "local")

/* the limbs' part of a rig */
typedef struct limbs_part {
    crowdi_limbs_view view;
    crowd_limbs_desc desc; /* as given, its arrays owned by the rig (for snapshots) */
    /* the first column of each group (limbs_layout); 0 for the groups the rig lacks */
    uint32_t col_pose, col_root, col_world, col_local, col_side, col_filter, col_track;
} limbs_part;
#define LIMBS(r) CROWDI_PART(r, LIMBS, limbs_part)

/* The settings, in snapshot order, kept in the part's copy of the desc. In the snapshot,
 * smoothing and outputs share one word (limbs_write), and the axis fix's arrays follow. */
#define LIMBS_FLOAT(member, def, lo, lo_open, hi, hi_open, unit, doc) \
    CROWDI_FLOAT_SETTING(crowd_limbs_desc, limbs_part, desc.member, member, def, lo, lo_open, hi, hi_open, unit, doc)
static const crowdi_setting limbs_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_limbs_desc, limbs_part, desc.frame, frame, CROWD_FRAME_MEDIAPIPE_WORLD, pose_frame,
                        CROWD_FRAME_COUNT, "the landmarks' frame (mediapipe_world: y is negated on input)"),
    CROWDI_ENUM_SETTING(crowd_limbs_desc, limbs_part, desc.axis_fix, axis_fix, CROWD_AXIS_FIX_Y_ALONG_BONE, axis_fix,
                        CROWD_AXIS_FIX_COUNT, "how bone axes are fixed (custom: custom_fix; calibrated: bind_*)"),
    CROWDI_ENUM_SETTING(crowd_limbs_desc, limbs_part, desc.fallback, fallback, CROWD_FALLBACK_STABLE, limb_fallback,
                        CROWD_FALLBACK_COUNT, "how a limb's side axis is chosen"),
    LIMBS_FLOAT(fallback_sign, -1, -1, false, 1, false, "", "per limb, +1 or -1: the side of a straight limb under fallback root"),
    LIMBS_FLOAT(visibility_threshold, 0.5, 0, false, 1, false, "", "a bone is trusted while its landmarks are seen above this"),
    LIMBS_FLOAT(hold_half_life, 0.3, 0, true, 3600, false, "s", "an untrusted bone eases to its last pose in this half-life"),
    LIMBS_FLOAT(reacquire_half_life, 0.4, 0, true, 3600, false, "s", "a re-acquired bone eases in with this half-life"),
    LIMBS_FLOAT(bend_min, 10, 0, false, 90, false, "degrees", "below this bend a limb counts as straight (< bend_full)"),
    LIMBS_FLOAT(bend_full, 45, 0, true, 90, false, "degrees", "from this bend on the bend plane decides the side"),
    CROWDI_BOOL_SETTING(crowd_limbs_desc, limbs_part, desc.smoothing, smoothing, false, "One Euro on the landmarks"),
    CROWDI_ENUM_SETTING(crowd_limbs_desc, limbs_part, desc.outputs, outputs, CROWD_LIMB_OUTPUTS_BOTH, limb_outputs,
                        CROWD_LIMB_OUTPUTS_COUNT, "which bone rotations the rig stores"),
    LIMBS_FLOAT(min_cutoff, 0.1, 0, true, 1e6, false, "Hz", "One Euro's minimum cutoff"),
    LIMBS_FLOAT(beta, 40, 0, false, 1e6, false, "", "One Euro's speed coefficient"),
    LIMBS_FLOAT(d_cutoff, 1, 0, true, 1e6, false, "Hz", "One Euro's derivative cutoff"),
    LIMBS_FLOAT(arm_image_bend, 15, 0, false, 90, false, "degrees",
                "an arm bent this much in the image plane keeps its bend's sign (snapshot version 4 on)"),
};
#undef LIMBS_FLOAT
#define LIMBS_SETTINGS (uint32_t)(sizeof limbs_settings_table / sizeof limbs_settings_table[0])
/* the rows around the shared word, and the row snapshots of versions 2 and 3 lack */
enum { LIMBS_ROW_SMOOTHING = 9, LIMBS_ROW_MIN_CUTOFF = 11, LIMBS_ROW_ARM_IMAGE_BEND = 14 };

/* Which bone rotations a limbs rig stores (crowd_limbs_desc.outputs): world and local are
 * readable unless outputs leaves them out; the local columns are kept, unreadable, for outputs
 * world too where bones can be untrusted, as the previous local rotation an untrusted bone
 * eases from (SPEC 5.1's prev). */
static bool limbs_world(const limbs_part *l) { return l->desc.outputs != CROWD_LIMB_OUTPUTS_LOCAL; }
static bool limbs_local_readable(const limbs_part *l) { return l->desc.outputs != CROWD_LIMB_OUTPUTS_WORLD; }
static bool limbs_local_kept(const limbs_part *l) { return limbs_local_readable(l) || crowdi_limbs_track(&l->view); }

static const char *const bone_names[CROWD_BONE_COUNT] = {
    "hips", "chest", "head", "left_upper_arm", "left_lower_arm", "left_hand", "right_upper_arm",
    "right_lower_arm", "right_hand", "left_upper_leg", "left_lower_leg", "left_foot",
    "right_upper_leg", "right_lower_leg", "right_foot"};

const char *crowd_bone_name(crowd_bone bone) {
    return (unsigned)bone < CROWD_BONE_COUNT ? bone_names[bone] : NULL;
}

crowd_limbs_desc crowd_limbs_defaults(void) {
    crowd_limbs_desc d = {0};
    crowdi_settings_defaults(limbs_settings_table, LIMBS_SETTINGS, &d);
    d.fallback_sign[2] = d.fallback_sign[3] = 1.0f; /* legs +1, arms -1 */
    return d;
}

/* The canonical rest pose (crowd.h documents it): the left side in the engine frame, the right
 * side its mirror in x. */
static const float rest_left[CROWDI_LANDMARKS][3] = {
    [CROWDI_LM_NOSE] = {0.0f, 0.66f, -0.10f},
    [CROWDI_LM_LEFT_EYE_INNER] = {0.03f, 0.69f, -0.075f}, [CROWDI_LM_LEFT_EYE] = {0.04f, 0.69f, -0.075f},
    [CROWDI_LM_LEFT_EYE_OUTER] = {0.05f, 0.69f, -0.07f},
    [CROWDI_LM_LEFT_EAR] = {0.075f, 0.66f, 0.0f}, [CROWDI_LM_MOUTH_LEFT] = {0.02f, 0.62f, -0.085f},
    [CROWDI_LM_LEFT_SHOULDER] = {0.18f, 0.50f, 0.0f}, [CROWDI_LM_LEFT_ELBOW] = {0.20f, 0.22f, 0.0f},
    [CROWDI_LM_LEFT_WRIST] = {0.21f, -0.02f, -0.06f}, [CROWDI_LM_LEFT_PINKY] = {0.215f, -0.10f, -0.045f},
    [CROWDI_LM_LEFT_INDEX] = {0.215f, -0.105f, -0.09f}, [CROWDI_LM_LEFT_THUMB] = {0.20f, -0.06f, -0.10f},
    [CROWDI_LM_LEFT_HIP] = {0.10f, 0.0f, 0.0f}, [CROWDI_LM_LEFT_KNEE] = {0.10f, -0.45f, -0.03f},
    [CROWDI_LM_LEFT_ANKLE] = {0.10f, -0.88f, 0.0f}, [CROWDI_LM_LEFT_HEEL] = {0.10f, -0.93f, 0.04f},
    [CROWDI_LM_LEFT_FOOT_INDEX] = {0.10f, -0.95f, -0.13f}};
/* each right landmark and the left one it mirrors */
#define MIRROR(part) {CROWDI_LM_RIGHT_##part, CROWDI_LM_LEFT_##part}
static const int rest_mirror[][2] = {
    MIRROR(EYE_INNER), MIRROR(EYE), MIRROR(EYE_OUTER), MIRROR(EAR), {CROWDI_LM_MOUTH_RIGHT, CROWDI_LM_MOUTH_LEFT},
    MIRROR(SHOULDER), MIRROR(ELBOW), MIRROR(WRIST), MIRROR(PINKY), MIRROR(INDEX), MIRROR(THUMB), MIRROR(HIP),
    MIRROR(KNEE), MIRROR(ANKLE), MIRROR(HEEL), MIRROR(FOOT_INDEX)};
#undef MIRROR

void crowd_rest_landmarks(crowd_pose_frame frame, float out[CROWD_LANDMARK_COUNT * 4]) {
    if (!out) return;
    const float ys = frame == CROWD_FRAME_MEDIAPIPE_WORLD ? -1.0f : 1.0f;
    for (int k = 0; k < CROWDI_LANDMARKS; k++) {
        const float *p = rest_left[k];
        float sx = 1.0f;
        for (size_t m = 0; m < sizeof rest_mirror / sizeof rest_mirror[0]; m++)
            if (rest_mirror[m][0] == k) p = rest_left[rest_mirror[m][1]], sx = -1.0f;
        out[4 * k] = p[0] == 0.0f ? 0.0f : sx * p[0];
        out[4 * k + 1] = ys * p[1];
        out[4 * k + 2] = p[2];
        out[4 * k + 3] = 1.0f;
    }
}

/* sin of an angle in degrees, in double, rounded once: the bend weights' bounds, the same on
 * every target */
static float sin_degrees(float deg) { return (float)sin(deg * (3.14159265358979323846 / 180.0)); }

static bool unit_quat(const crowd_quat *q) {
    float n = q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w;
    return crowdi_finite(n) && fabsf(n - 1.0f) <= 1e-4f;
}

static void quat_mul(const float a[4], const float b[4], float r[4]) {
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    float n = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (r[3] < 0) n = -n;
    for (int k = 0; k < 4; k++) r[k] /= n;
}

/* ---- degenerate bind poses ---- */
typedef struct { double x, y, z; } d3;
static d3 lmk(const float *lm, int k, bool flip) {
    return (d3){lm[4 * k], flip ? -lm[4 * k + 1] : lm[4 * k + 1], lm[4 * k + 2]};
}
static d3 dsub(d3 a, d3 b) { return (d3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static d3 dmid(d3 a, d3 b) { return (d3){(a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2}; }
static d3 dcross(d3 l, d3 r) { return (d3){l.y * r.z - l.z * r.y, l.z * r.x - l.x * r.z, l.x * r.y - l.y * r.x}; }
static double dlen(d3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
static d3 dnorm(d3 a) { double l = dlen(a); return l > 1e-5 ? (d3){a.x / l, a.y / l, a.z / l} : (d3){0, 0, 0}; }

/* Does LookRotation(forward, up) reach its well-defined branch, with a margin? */
static bool well_defined(d3 forward, d3 up) {
    double f = dlen(forward);
    if (f < 1e-4) return false;
    d3 z = {forward.x / f, forward.y / f, forward.z / f};
    return dlen(dcross(up, z)) >= 1e-4;
}

static d3 dscale(d3 a, double s) { return (d3){a.x * s, a.y * s, a.z * s}; }
static d3 dadd(d3 a, d3 b) { return (d3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static double ddot(d3 a, d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* The x and y columns of LookRotation(forward, up) when well defined (the caller checked). */
static void dlook_xy(d3 forward, d3 up, d3 *x, d3 *y) {
    d3 z = dnorm(forward);
    *x = dnorm(dcross(up, z));
    *y = dcross(z, *x);
}

/* The side axis the stable fallback settles at for a held pose (SPEC 5.1): the bend side when
 * the limb bends past bend_min (a knee not bent backward), else the reference side. */
static d3 stable_settled_side(d3 d, d3 ld, d3 tx, d3 ty, bool leg, double sin_min) {
    d3 down = dscale(ty, -1), h = leg ? tx : dscale(tx, -1);
    double c = ddot(down, d);
    d3 k = dcross(down, d), ref = {0, 0, 0};
    if (1 + c >= 1e-6) ref = dadd(dadd(dscale(h, c), dcross(k, h)), dscale(k, ddot(k, h) / (1 + c)));
    if (dlen(ref) < 1e-3) ref = fabs(d.z) < 0.9 ? dcross(d, (d3){0, 0, 1}) : dcross(d, (d3){1, 0, 0});
    d3 bend = dcross(d, ld);
    bool backward = leg && ddot(bend, ref) < 0;
    return !backward && dlen(bend) > sin_min ? bend : ref;
}

/* The first bone whose LookRotation is not well defined in the bind pose, by the side axis the
 * rig's fallback gives it there, or -1. */
static int degenerate_bone(const float *lm, bool flip, const float sign[4], bool stable, double sin_min) {
    d3 p[CROWDI_LANDMARKS];
    for (int k = 0; k < CROWDI_LANDMARKS; k++) p[k] = lmk(lm, k, flip);
#define P(bone, k) p[crowdi_bones[bone].landmarks[k]]
    /* torso: left shoulder, right shoulder, left hip, right hip */
    d3 up = dsub(dmid(P(CROWD_BONE_HIPS, 0), P(CROWD_BONE_HIPS, 1)), dmid(P(CROWD_BONE_HIPS, 2), P(CROWD_BONE_HIPS, 3)));
    d3 hips_fwd = dcross(dsub(P(CROWD_BONE_HIPS, 3), P(CROWD_BONE_HIPS, 2)), up);
    d3 chest_fwd = dcross(dsub(P(CROWD_BONE_CHEST, 1), P(CROWD_BONE_CHEST, 0)), up);
    if (!well_defined(hips_fwd, up)) return CROWD_BONE_HIPS;
    if (!well_defined(chest_fwd, up)) return CROWD_BONE_CHEST;
    d3 fwd = dsub(P(CROWD_BONE_HEAD, 0), dmid(P(CROWD_BONE_HEAD, 1), P(CROWD_BONE_HEAD, 2)));
    if (!well_defined(fwd, dcross(fwd, dsub(P(CROWD_BONE_HEAD, 2), P(CROWD_BONE_HEAD, 1))))) return CROWD_BONE_HEAD;
    d3 tx[2], ty[2]; /* hips, chest: their rotations' columns, for the stable side */
    dlook_xy(hips_fwd, up, &tx[0], &ty[0]);
    dlook_xy(chest_fwd, up, &tx[1], &ty[1]);
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
        const int upper = crowdi_limb_upper[l];
        const bool leg = crowdi_limb_is_leg(l);
        d3 ud = dnorm(dsub(P(upper, 1), P(upper, 0))), ld = dnorm(dsub(P(upper, 2), P(upper, 1)));
        d3 side = dcross(ud, ld);
        if (stable)
            side = stable_settled_side(ud, ld, tx[!leg], ty[!leg], leg, sin_min);
        else if (side.x * side.x + side.y * side.y + side.z * side.z < 1e-4)
            side = (d3){sign[l], 0, 0};
        if (!well_defined(ud, dcross(ud, side))) return upper;
        if (!well_defined(ld, dcross(ld, side))) return upper + 1;
    }
    /* hands: wrist, index, pinky; feet: ankle, heel, foot index */
    for (int b = 0; b < CROWDI_BONES; b++)
        if (crowdi_bones[b].kind == CROWDI_BONE_HAND) {
            d3 dir = dnorm(dsub(dmid(P(b, 1), P(b, 2)), P(b, 0)));
            if (!well_defined(dir, dcross(dir, dsub(P(b, 2), P(b, 1))))) return b;
        }
    for (int b = 0; b < CROWDI_BONES; b++)
        if (crowdi_bones[b].kind == CROWDI_BONE_FOOT && !well_defined(dsub(P(b, 2), P(b, 1)), dsub(P(b, 0), P(b, 1))))
            return b;
#undef P
    return -1;
}

static bool limbs_present(const crowd_rig_desc *d) { return d->limbs != NULL; }

static crowd_result limbs_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    if (!ids) return CROWD_OK; /* no entry counts */
    const crowd_limbs_desc *d = desc->limbs;
    /* a sign is a choice, not a number: anything but +-1 (NaN too) is out of range */
    for (int l = 0; l < CROWD_LIMB_COUNT; l++)
        CROWDI_RIG_CHECK(d->fallback_sign[l] == 1.0f || d->fallback_sign[l] == -1.0f, CROWD_ERR_RANGE,
                   "desc->limbs->fallback_sign[%d] (%g) must be +1 or -1", l, (double)d->fallback_sign[l]);
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_LIMBS, limbs_settings_table, LIMBS_SETTINGS, d);
    if (res != CROWD_OK) return res;
    /* what the table cannot say */
    CROWDI_RIG_CHECK(d->bend_min < d->bend_full, CROWD_ERR_RANGE, "desc->limbs->bend_min (%g) must be below bend_full (%g)",
                     (double)d->bend_min, (double)d->bend_full);
    CROWDI_RIG_CHECK(sin_degrees(d->bend_full) > sin_degrees(d->bend_min), CROWD_ERR_RANGE,
               "desc->limbs->bend_full (%g) is too close to bend_min (%g): their sines are equal in float",
               (double)d->bend_full, (double)d->bend_min);
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        CROWDI_RIG_CHECK(d->custom_fix, CROWD_ERR_NULL, "desc->limbs->custom_fix is NULL with axis_fix custom");
        for (int b = 0; b < CROWD_BONE_COUNT; b++)
            CROWDI_RIG_CHECK(unit_quat(&d->custom_fix[b]), CROWD_ERR_RANGE, "desc->limbs->custom_fix[%d] (%s) is not a unit quaternion",
                       b, bone_names[b]);
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        CROWDI_RIG_CHECK(d->bind_landmarks, CROWD_ERR_NULL, "desc->limbs->bind_landmarks is NULL with axis_fix calibrated");
        CROWDI_RIG_CHECK(d->bind_rotations, CROWD_ERR_NULL, "desc->limbs->bind_rotations is NULL with axis_fix calibrated");
        for (int k = 0; k < 4 * CROWDI_LANDMARKS; k++)
            CROWDI_RIG_CHECK(crowdi_finite(d->bind_landmarks[k]), CROWD_ERR_NOT_FINITE,
                       "desc->limbs->bind_landmarks[%d] (landmark %d) is not finite", k, k / 4);
        for (int b = 0; b < CROWD_BONE_COUNT; b++)
            CROWDI_RIG_CHECK(unit_quat(&d->bind_rotations[b]), CROWD_ERR_RANGE,
                       "desc->limbs->bind_rotations[%d] (%s) is not a unit quaternion", b, bone_names[b]);
        int bad = degenerate_bone(d->bind_landmarks, d->frame == CROWD_FRAME_MEDIAPIPE_WORLD, d->fallback_sign,
                                  d->fallback == CROWD_FALLBACK_STABLE, sin_degrees(d->bend_min));
        CROWDI_RIG_CHECK(bad < 0, CROWD_ERR_RANGE,
                   "desc->limbs->bind_landmarks: bone %s is degenerate in the bind pose (coincident landmarks, or with "
                   "fallback root or previous a straight limb parallel to the root's right axis: bend it slightly or use "
                   "an A-pose)",
                   bad >= 0 ? bone_names[bad] : "");
    }
    return CROWD_OK;
}

/* Solves 33 landmarks once through the scalar kernel (the very code the tick runs) with the
 * given fixes, root identity and every bone trusted; the side axis by the cross product (`root`
 * mode: the rest pose's limbs are bent, SPEC 5.1), or with `stable_held` the stable side the
 * pose settles at when held. */
static void solve_once(const crowdi_limbs_view *v, const float *landmarks, bool flip_y, const float fix[CROWDI_BONES][4],
                       bool stable_held, float world[4 * CROWDI_BONES], float local[4 * CROWDI_BONES]) {
    float side[3 * CROWD_LIMB_COUNT] = {0};
    float pose[4 * CROWDI_LANDMARKS], root[4] = {0, 0, 0, 1};
    for (int k = 0; k < CROWDI_LANDMARKS; k++) {
        for (int c = 0; c < 3; c++) pose[4 * k + c] = landmarks[4 * k + c];
        pose[4 * k + 3] = 1.0f;
    }
    crowdi_limbs_view tmp = *v;
    tmp.limb_flip_y = flip_y;
    tmp.limb_side_mode = CROWDI_SIDE_ROOT;
    tmp.limb_smoothing = 0;
    tmp.limb_visibility_threshold = 0.0f;
    for (int b = 0; b < CROWDI_BONES; b++) {
        memcpy(tmp.limb_fix[b], fix[b], sizeof tmp.limb_fix[b]);
        tmp.limb_fix_kind[b] = crowdi_fix_kind(fix[b]);
    }
    /* stride 1: column k of a group is element k */
    tmp.limb_stride = 1;
    tmp.limb_pose = pose;
    tmp.limb_root = root;
    tmp.limb_world = world;
    tmp.limb_local = local;
    tmp.limb_side = tmp.limb_filter = tmp.limb_track = NULL;
    if (stable_held) { /* the stable side as the pose, held, settles it */
        tmp.limb_side_mode = CROWDI_SIDE_STABLE;
        tmp.limb_side_settle = 1;
        tmp.limb_side = side;
    }
    crowdi_rig_view rig = {.param_count = 0}; /* a rig of the limbs alone, no parameters */
    rig.controller[CROWDI_CTL_LIMBS] = &tmp;
    crowdi_kernels_for(CROWD_SIMD_SCALAR)->tick(&rig, 0.0f, 0, 1);
}

/* The rest rotations of a preset or custom fix: the canonical rest pose solved with the fix. */
static void rest_pose(crowdi_limbs_view *v) {
    float lm[4 * CROWDI_LANDMARKS], world[4 * CROWDI_BONES], local[4 * CROWDI_BONES];
    crowd_rest_landmarks(CROWD_FRAME_ENGINE, lm);
    solve_once(v, lm, false, v->limb_fix, false, world, local);
    for (int b = 0; b < CROWDI_BONES; b++)
        for (int c = 0; c < 4; c++) {
            v->limb_rest_world[b][c] = world[4 * b + c];
            v->limb_rest_local[b][c] = local[4 * b + c];
        }
}

/* Solves the bind landmarks with identity fixes, so that fix = inverse(basis) * bind
 * reproduces the bind rotations (with fallback stable: the bind landmarks held, once the side
 * has settled); the bind rotations are the rest pose. */
static void calibrate(const crowd_limbs_desc *d, crowdi_limbs_view *v) {
    float world[4 * CROWDI_BONES], local[4 * CROWDI_BONES];
    float identity[CROWDI_BONES][4];
    for (int b = 0; b < CROWDI_BONES; b++) identity[b][0] = identity[b][1] = identity[b][2] = 0, identity[b][3] = 1;
    solve_once(v, d->bind_landmarks, d->frame == CROWD_FRAME_MEDIAPIPE_WORLD, identity,
               v->limb_side_mode == CROWDI_SIDE_STABLE, world, local);
    for (int b = 0; b < CROWDI_BONES; b++) {
        const float basis_inv[4] = {-world[4 * b], -world[4 * b + 1], -world[4 * b + 2], world[4 * b + 3]};
        const crowd_quat *q = &d->bind_rotations[b];
        const float bind[4] = {q->x, q->y, q->z, q->w};
        quat_mul(basis_inv, bind, v->limb_fix[b]);
        const float unit[4] = {0, 0, 0, 1};
        quat_mul(bind, unit, v->limb_rest_world[b]); /* normalised, w >= 0 */
        int parent = crowdi_bones[b].parent;
        if (parent < 0) {
            memcpy(v->limb_rest_local[b], v->limb_rest_world[b], sizeof bind);
        } else {
            const crowd_quat *pq = &d->bind_rotations[parent];
            const float parent_inv[4] = {-pq->x, -pq->y, -pq->z, pq->w};
            quat_mul(parent_inv, bind, v->limb_rest_local[b]);
        }
    }
}

static crowd_result limbs_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    (void)ids;
    const crowd_limbs_desc *d = desc->limbs;
    limbs_part *part = LIMBS(r);
    crowdi_limbs_view *v = &part->view; /* the settings, where the kernel reads them */
    /* keep the desc and its arrays: a snapshot saves the rig as it was asked for */
    part->desc = *d;
    part->desc.custom_fix = NULL;
    part->desc.bind_landmarks = NULL;
    part->desc.bind_rotations = NULL;
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        crowd_quat *fix = crowdi_alloc(engine, sizeof *fix * CROWD_BONE_COUNT);
        if (!fix) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(fix, d->custom_fix, sizeof *fix * CROWD_BONE_COUNT);
        part->desc.custom_fix = fix;
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        float *lm = crowdi_alloc(engine, sizeof *lm * 4 * CROWDI_LANDMARKS);
        crowd_quat *rot = crowdi_alloc(engine, sizeof *rot * CROWD_BONE_COUNT);
        part->desc.bind_landmarks = lm;
        part->desc.bind_rotations = rot;
        if (!lm || !rot) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(lm, d->bind_landmarks, sizeof *lm * 4 * CROWDI_LANDMARKS);
        memcpy(rot, d->bind_rotations, sizeof *rot * CROWD_BONE_COUNT);
    }
    v->limb_flip_y = d->frame == CROWD_FRAME_MEDIAPIPE_WORLD;
    v->limb_side_mode = d->fallback == CROWD_FALLBACK_PREVIOUS ? CROWDI_SIDE_PREVIOUS
                        : d->fallback == CROWD_FALLBACK_ROOT   ? CROWDI_SIDE_ROOT
                                                               : CROWDI_SIDE_STABLE;
    v->limb_smoothing = d->smoothing;
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) v->limb_sign[l] = d->fallback_sign[l];
    v->limb_visibility_threshold = d->visibility_threshold;
    v->limb_hold_half_life = d->hold_half_life;
    v->limb_reacquire_half_life = d->reacquire_half_life;
    v->limb_bend_sin_min = sin_degrees(d->bend_min);
    v->limb_bend_sin_range = sin_degrees(d->bend_full) - v->limb_bend_sin_min;
    v->limb_arm_image_sin = sin_degrees(d->arm_image_bend);
    v->limb_min_cutoff = d->min_cutoff;
    v->limb_beta = d->beta;
    v->limb_d_cutoff = d->d_cutoff;
    for (int b = 0; b < CROWDI_BONES; b++) {
        static const float identity[4] = {0, 0, 0, 1}, y_along[4] = {0.70710677f, 0, 0, 0.70710677f};
        const float *fix = identity;
        if (d->axis_fix == CROWD_AXIS_FIX_Y_ALONG_BONE && crowdi_bones[b].limb) fix = y_along;
        memcpy(v->limb_fix[b], fix, sizeof v->limb_fix[b]);
        if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
            const crowd_quat *q = &d->custom_fix[b];
            const float custom[4] = {q->x, q->y, q->z, q->w};
            memcpy(v->limb_fix[b], custom, sizeof custom);
        }
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED)
        calibrate(d, v);
    else
        rest_pose(v);
    for (int b = 0; b < CROWDI_BONES; b++) v->limb_fix_kind[b] = crowdi_fix_kind(v->limb_fix[b]);
    return CROWD_OK;
}

static void limbs_free(crowd_engine *engine, crowdi_rig *r) {
    const limbs_part *part = LIMBS(r);
    crowdi_free(engine, (void *)part->desc.custom_fix);
    crowdi_free(engine, (void *)part->desc.bind_landmarks);
    crowdi_free(engine, (void *)part->desc.bind_rotations);
}

/* groups of columns the kernel walks by stride: each group contiguous; the bone rotations
 * the rig's outputs leave out have none */
static uint32_t limbs_layout(crowdi_rig *r, uint32_t first) {
    limbs_part *l = LIMBS(r);
    const crowdi_limbs_view *v = &l->view;
    uint32_t n = first;
    l->col_pose = n, n += 4 * CROWDI_LANDMARKS;
    l->col_root = n, n += 4;
    if (limbs_world(l)) l->col_world = n, n += 4 * CROWDI_BONES;
    if (limbs_local_kept(l)) l->col_local = n, n += 4 * CROWDI_BONES;
    if (crowdi_limbs_have_side(v)) l->col_side = n, n += 3 * CROWD_LIMB_COUNT;
    if (v->limb_smoothing) l->col_filter = n, n += 3 * 3 * CROWDI_LANDMARKS + 1;
    if (crowdi_limbs_track(v)) l->col_track = n, n += CROWDI_BONES;
    return n - first;
}

/* a new instance shows the rest pose (root identity), fully eased in */
static void limbs_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const limbs_part *l = LIMBS(r);
    const crowdi_limbs_view *v = &l->view;
    bits[l->col_root + 3] = crowdi_bits(1.0f);
    for (uint32_t b = 0; b < CROWDI_BONES; b++) {
        for (uint32_t c = 0; c < 4; c++) {
            if (limbs_world(l)) bits[l->col_world + 4 * b + c] = crowdi_bits(v->limb_rest_world[b][c]);
            if (limbs_local_kept(l)) bits[l->col_local + 4 * b + c] = crowdi_bits(v->limb_rest_local[b][c]);
        }
        if (crowdi_limbs_track(v)) bits[l->col_track + b] = crowdi_bits(1.0f);
    }
}

/* the root: the tick only reads it */
static void limbs_settings(const crowdi_rig *r, bool *uniform) {
    for (uint32_t c = 0; c < 4; c++) uniform[LIMBS(r)->col_root + c] = true;
}

static void limbs_point(crowdi_rig *r) {
    limbs_part *l = LIMBS(r);
    crowdi_limbs_view *v = &l->view;
    v->limb_stride = r->capacity;
    v->limb_pose = r->columns[l->col_pose];
    bool root_uniform = true;
    for (uint32_t c = 0; c < 4; c++) {
        root_uniform = root_uniform && r->uniform[l->col_root + c];
        v->limb_root_value[c] = crowdi_start_value(r, l->col_root + c);
    }
    v->limb_root = root_uniform ? NULL : r->columns[l->col_root];
    /* NULL: the tick neither stores nor reads that kind (kernels/limbs.h) */
    v->limb_world = limbs_world(l) ? r->columns[l->col_world] : NULL;
    v->limb_local = limbs_local_kept(l) ? r->columns[l->col_local] : NULL;
    v->limb_side = crowdi_limbs_have_side(v) ? r->columns[l->col_side] : NULL;
    v->limb_track = crowdi_limbs_track(v) ? r->columns[l->col_track] : NULL;
    v->limb_filter = v->limb_smoothing ? r->columns[l->col_filter] : NULL;
}

static void limbs_write(crowdi_writer *w, const crowdi_rig *r) {
    const crowd_limbs_desc *d = &LIMBS(r)->desc;
    crowdi_settings_write(w, limbs_settings_table, 0, LIMBS_ROW_SMOOTHING, LIMBS(r));
    /* one word: smoothing in bit 0 (all it held in version 2), outputs in bits 1-2 (0 for
     * both: such a rig's bytes, and so its settings digest, are version 2's) */
    crowdi_w_u32(w, (d->smoothing ? 1u : 0u) | (uint32_t)d->outputs << 1);
    crowdi_settings_write(w, limbs_settings_table, LIMBS_ROW_MIN_CUTOFF, LIMBS_SETTINGS, LIMBS(r));
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) crowdi_w_words(w, d->custom_fix, 4 * CROWD_BONE_COUNT);
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        crowdi_w_words(w, d->bind_landmarks, 4 * CROWDI_LANDMARKS);
        crowdi_w_words(w, d->bind_rotations, 4 * CROWD_BONE_COUNT);
    }
}

typedef struct {
    crowd_limbs_desc desc;
    crowd_quat quats[CROWD_BONE_COUNT];
    float bind_landmarks[4 * CROWDI_LANDMARKS];
} limbs_loaded;

static crowd_result limbs_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                               crowd_rig_desc *desc, void **scratch) {
    limbs_loaded *l = crowdi_alloc(tmp, sizeof *l);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].limbs", ld->rig);
    *scratch = l;
    crowd_limbs_desc *limbs = &l->desc;
    *limbs = (crowd_limbs_desc){0};
    crowdi_settings_read(rd, limbs_settings_table, 0, LIMBS_ROW_SMOOTHING, limbs);
    const uint32_t flags = crowdi_r_u32(rd);
    if (ld->version >= 3) {
        limbs->smoothing = (flags & 1u) != 0;
        limbs->outputs = (crowd_limb_outputs)(flags >> 1); /* validation refuses a value beyond the enum */
    } else { /* version 2: the word is smoothing, read as version 2 read it; outputs both */
        limbs->smoothing = flags != 0;
        limbs->outputs = CROWD_LIMB_OUTPUTS_BOTH;
    }
    crowdi_settings_read(rd, limbs_settings_table, LIMBS_ROW_MIN_CUTOFF, LIMBS_ROW_ARM_IMAGE_BEND, limbs);
    if (ld->version >= 4) {
        crowdi_settings_read(rd, limbs_settings_table, LIMBS_ROW_ARM_IMAGE_BEND, LIMBS_SETTINGS, limbs);
    } else {
        /* Versions 2 and 3 are SPEC 5.1 revision 1: a rig without tracking (threshold 0) keeps
         * what its state means (the side axes) and continues under revision 2's rules with
         * the default arm_image_bend; a tracked rig's state held the rotation a re-acquired
         * bone eased from, which revision 2 has no place for: refused by name */
        limbs->arm_image_bend = crowd_limbs_defaults().arm_image_bend;
        if (limbs->visibility_threshold > 0.0f)
            return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT,
                               "crowd_snapshot_load: rigs[%u].limbs: format version %u holds limb tracking state of SPEC "
                               "5.1 revision 1 (visibility_threshold %g: the ease source), which this library (version 4, "
                               "revision 2) does not continue; save it again from the tracked landmarks",
                               ld->rig, ld->version, (double)limbs->visibility_threshold);
    }
    if (limbs->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        crowdi_r_words(rd, l->quats, 4 * CROWD_BONE_COUNT);
        limbs->custom_fix = l->quats;
    }
    if (limbs->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        crowdi_r_words(rd, l->bind_landmarks, 4 * CROWDI_LANDMARKS);
        crowdi_r_words(rd, l->quats, 4 * CROWD_BONE_COUNT);
        limbs->bind_landmarks = l->bind_landmarks;
        limbs->bind_rotations = l->quats;
    }
    desc->limbs = limbs;
    return CROWD_OK;
}

static bool finite_bits(uint32_t u) { return (u & 0x7f800000u) != 0x7f800000u; }

#define ROWS_CHECK(cond, ...) \
    do { if (!(cond)) return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: " __VA_ARGS__); } while (0)

/* Loaded rows: the columns no field rule covers. Sides and One Euro state finite; the tick
 * multiplies sides by unit vectors, eases from prev and reads r: sides at most unit (2 allows
 * rounding), r -1 or in [0, 1], and the local rotations that outputs world keeps unreadable
 * (prev) unit, as crowd_instances_set's rule for rotations has it. */
static crowd_result limbs_check_rows(crowd_engine *e, const crowdi_rig *r, uint32_t k) {
    const limbs_part *l = LIMBS(r);
    const crowdi_limbs_view *v = &l->view;
    const bool side = crowdi_limbs_have_side(v), track = crowdi_limbs_track(v);
    const bool hidden_local = limbs_local_kept(l) && !limbs_local_readable(l);
    for (uint32_t row = 0; hidden_local && row < r->count; row++)
        for (uint32_t b = 0; b < CROWDI_BONES; b++) {
            float q[4], n2;
            for (uint32_t c = 0; c < 4; c++) q[c] = r->columns[l->col_local + 4 * b + c][row];
            n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            ROWS_CHECK(n2 >= 1.0f - 1e-4f && n2 <= 1.0f + 1e-4f, "rigs[%u]: bone %s's held local rotation of row %u is not unit",
                       k, crowd_bone_name((crowd_bone)b), row);
        }
    const uint32_t spans[2][2] = {{l->col_side, side ? 3u * CROWD_LIMB_COUNT : 0u},
                                  {l->col_filter, v->limb_smoothing ? 3u * 3u * CROWDI_LANDMARKS + 1u : 0u}};
    for (int sp = 0; sp < 2; sp++)
        for (uint32_t c = spans[sp][0]; c < spans[sp][0] + spans[sp][1]; c++) {
            const uint32_t *u = (const uint32_t *)(const void *)r->columns[c];
            for (uint32_t row = 0; row < r->count; row++)
                ROWS_CHECK(finite_bits(u[row]), "rigs[%u]: column %u row %u is not finite", k, c, row);
        }
    for (uint32_t row = 0; side && row < r->count; row++)
        for (uint32_t limb = 0; limb < CROWD_LIMB_COUNT; limb++) {
            const float *x = r->columns[l->col_side + 3 * limb], *y = r->columns[l->col_side + 3 * limb + 1],
                        *z = r->columns[l->col_side + 3 * limb + 2];
            float n2 = x[row] * x[row] + y[row] * y[row] + z[row] * z[row];
            ROWS_CHECK(n2 <= 2.0f, "rigs[%u]: limb %u's side of row %u is longer than unit", k, limb, row);
        }
    for (uint32_t row = 0; track && row < r->count; row++)
        for (uint32_t b = 0; b < CROWDI_BONES; b++) {
            float rb = r->columns[l->col_track + b][row];
            ROWS_CHECK(rb == -1.0f || (rb >= 0.0f && rb <= 1.0f), "rigs[%u]: bone %s's progress of row %u (%g) is corrupt", k,
                       crowd_bone_name((crowd_bone)b), row, (double)rb);
        }
    return CROWD_OK;
}

static float *limbs_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    const limbs_part *l = LIMBS(r);
    switch (f) {
    case CROWD_FIELD_POSE: return r->columns[l->col_pose + comp];
    case CROWD_FIELD_ROOT: return r->columns[l->col_root + comp];
    case CROWD_FIELD_BONE_WORLD: return r->columns[l->col_world + 4 * index + comp];
    case CROWD_FIELD_BONE_LOCAL: return r->columns[l->col_local + 4 * index + comp];
    default: return NULL;
    }
}

/* the bone rotations outputs leaves out */
static bool limbs_field_stored(const crowdi_rig *r, crowd_field f) {
    if (f == CROWD_FIELD_BONE_WORLD) return limbs_world(LIMBS(r));
    if (f == CROWD_FIELD_BONE_LOCAL) return limbs_local_readable(LIMBS(r));
    return true;
}

const crowdi_controller crowdi_controller_limbs = {
    .name = "limbs",
    .size = sizeof(limbs_part),
    .present = limbs_present,
    .validate = limbs_validate,
    .build = limbs_build,
    .free = limbs_free,
    .layout = limbs_layout,
    .init_bits = limbs_init_bits,
    .settings = limbs_settings,
    .point = limbs_point,
    .write = limbs_write,
    .read = limbs_read,
    .check_rows = limbs_check_rows,
    .field_column = limbs_field_column,
    .field_stored = limbs_field_stored,
    .setting_rows = limbs_settings_table,
    .setting_count = LIMBS_SETTINGS,
    .leaves_parameters = true,
};

crowd_result crowd_rig_rest_pose(crowd_engine *engine, crowd_rig rig, crowd_quat world[CROWD_BONE_COUNT],
                                 crowd_quat local[CROWD_BONE_COUNT]) {
    if (!engine) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    CROWDI_CHECK(engine, r, CROWD_ERR_HANDLE, "crowd_rig_rest_pose: rig is not a rig of this engine");
    CROWDI_CHECK(engine, r->has[CROWDI_CTL_LIMBS], CROWD_ERR_NO_CONTROLLER, "crowd_rig_rest_pose: rig \"%s\" has no limbs", r->name);
    for (int b = 0; b < CROWDI_BONES; b++) {
        const crowdi_limbs_view *v = &LIMBS(r)->view;
        const float *w = v->limb_rest_world[b], *l = v->limb_rest_local[b];
        if (world) world[b] = (crowd_quat){w[0], w[1], w[2], w[3]};
        if (local) local[b] = (crowd_quat){l[0], l[1], l[2], l[3]};
    }
    return CROWD_OK;
}
