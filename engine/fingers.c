/* The fingers controller (crowd.h section 9a): settings, validation, axis fixes (presets,
 * custom, calibrated from a bind pose), the rest hand, bone names, columns and snapshots. The
 * solving itself is kernels/fingers.h's stage, which reads the settings from the view kept
 * here. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/fingers.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(hand, crowd_hand, CROWD_HAND_COUNT, "left", "right")

_Static_assert(CROWDI_HAND_LMS == CROWD_HAND_LANDMARK_COUNT && CROWDI_HAND_FLOATS == CROWD_HAND_FLOATS &&
                   CROWDI_HAND_BONES == CROWD_HAND_BONE_COUNT && CROWDI_FINGER_BONES == CROWD_FINGER_BONE_COUNT,
               "crowd.h and kernels/fingers.h agree on the hand");

/* the fingers' part of a rig */
typedef struct fingers_part {
    crowdi_fingers_view view;
    crowd_fingers_desc desc; /* as given, its arrays owned by the rig (for snapshots) */
    uint32_t col_hands, col_world, col_local, col_track, col_filter;
} fingers_part;
#define FINGERS(r) CROWDI_PART(r, FINGERS, fingers_part)

#define FINGERS_FLOAT(member, def, lo, lo_open, hi, hi_open, unit, doc) \
    CROWDI_FLOAT_SETTING(crowd_fingers_desc, fingers_part, desc.member, member, def, lo, lo_open, hi, hi_open, unit, doc)
/* The settings, in snapshot order; the axis fix's arrays follow them in the snapshot. */
static const crowdi_setting fingers_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_fingers_desc, fingers_part, desc.frame, frame, CROWD_FRAME_MEDIAPIPE_WORLD, pose_frame,
                        CROWD_FRAME_COUNT, "the hand landmarks' frame (mediapipe_world: y is negated on input)"),
    CROWDI_BOOL_SETTING(crowd_fingers_desc, fingers_part, desc.mirrored, mirrored, false,
                        "the landmarks come from a mirrored (selfie) image: x is negated on input"),
    CROWDI_ENUM_SETTING(crowd_fingers_desc, fingers_part, desc.axis_fix, axis_fix, CROWD_AXIS_FIX_Y_ALONG_BONE, axis_fix,
                        CROWD_AXIS_FIX_COUNT, "how bone axes are fixed (custom: custom_fix; calibrated: bind_*)"),
    FINGERS_FLOAT(presence_threshold, 0.5, 0, false, 1, false, "", "a hand is trusted while its presence is at least this"),
    FINGERS_FLOAT(hold_half_life, 0.3, 0, true, 3600, false, "s", "a lost hand eases halfway to rest in this time"),
    FINGERS_FLOAT(reacquire_half_life, 0.4, 0, true, 3600, false, "s", "a hand seen again eases in with this half-life"),
    FINGERS_FLOAT(bend_min, 10, 0, false, 90, false, "degrees", "below this bend a thumb keeps its reference roll (< bend_full)"),
    FINGERS_FLOAT(bend_full, 45, 0, true, 90, false, "degrees", "from this bend on the thumb's bend plane decides its roll"),
    CROWDI_BOOL_SETTING(crowd_fingers_desc, fingers_part, desc.smoothing, smoothing, false, "One Euro on the hand landmarks"),
    FINGERS_FLOAT(min_cutoff, 0.1, 0, true, 1e6, false, "Hz", "One Euro's minimum cutoff"),
    FINGERS_FLOAT(beta, 40, 0, false, 1e6, false, "", "One Euro's speed coefficient"),
    FINGERS_FLOAT(d_cutoff, 1, 0, true, 1e6, false, "Hz", "One Euro's derivative cutoff"),
    /* from snapshot format 6 on */
    CROWDI_BOOL_SETTING(crowd_fingers_desc, fingers_part, desc.joint_limits, joint_limits, true,
                        "the four fingers' joints flex only within their limits"),
    FINGERS_FLOAT(mcp_min, -45, -180, false, 180, false, "degrees", "a knuckle's (MCP) least flexion (< mcp_max)"),
    FINGERS_FLOAT(mcp_max, 100, -180, false, 180, false, "degrees", "a knuckle's (MCP) most flexion (< mcp_min + 180)"),
    FINGERS_FLOAT(pip_min, 0, -180, false, 180, false, "degrees", "a middle joint's (PIP) least flexion (< pip_max)"),
    FINGERS_FLOAT(pip_max, 110, -180, false, 180, false, "degrees", "a middle joint's (PIP) most flexion (< pip_min + 180)"),
    FINGERS_FLOAT(dip_min, -10, -180, false, 180, false, "degrees", "a last joint's (DIP) least flexion (< dip_max)"),
    FINGERS_FLOAT(dip_max, 100, -180, false, 180, false, "degrees", "a last joint's (DIP) most flexion (< dip_min + 180)"),
};
#undef FINGERS_FLOAT
#define FINGERS_SETTINGS (uint32_t)(sizeof fingers_settings_table / sizeof fingers_settings_table[0])
#define FINGERS_ROW_JOINT_LIMITS 12u /* joint_limits: the first setting format 5 did not have */

static const char *const hand_bone_names[CROWD_HAND_BONE_COUNT] = {
    "hand", "thumb_metacarpal", "thumb_proximal", "thumb_distal", "index_proximal", "index_intermediate",
    "index_distal", "middle_proximal", "middle_intermediate", "middle_distal", "ring_proximal", "ring_intermediate",
    "ring_distal", "little_proximal", "little_intermediate", "little_distal"};

const char *crowd_hand_bone_name(crowd_hand_bone bone) {
    return (unsigned)bone < CROWD_HAND_BONE_COUNT ? hand_bone_names[bone] : NULL;
}

crowd_hand crowd_hand_from_handedness(bool label_right, bool mirrored) {
    return label_right != mirrored ? CROWD_HAND_RIGHT : CROWD_HAND_LEFT;
}

crowd_fingers_desc crowd_fingers_defaults(void) {
    crowd_fingers_desc d = {0};
    crowdi_settings_defaults(fingers_settings_table, FINGERS_SETTINGS, &d);
    return d;
}

/* The relaxed rest hand (crowd.h documents it): the left hand in the engine frame, metres. */
static const float rest_hand_left[CROWDI_HAND_LMS][3] = {
    {0, 0, 0},
    {-0.010f, -0.020f, -0.025f}, {-0.020f, -0.045f, -0.045f}, {-0.030f, -0.070f, -0.055f}, {-0.040f, -0.090f, -0.060f},
    {0, -0.090f, -0.025f}, {-0.010f, -0.130f, -0.027f}, {-0.020f, -0.153f, -0.028f}, {-0.032f, -0.170f, -0.028f},
    {0, -0.092f, -0.005f}, {-0.010f, -0.137f, -0.005f}, {-0.021f, -0.163f, -0.005f}, {-0.034f, -0.180f, -0.005f},
    {0, -0.088f, 0.013f}, {-0.010f, -0.128f, 0.015f}, {-0.020f, -0.152f, 0.016f}, {-0.031f, -0.168f, 0.016f},
    {0, -0.080f, 0.030f}, {-0.008f, -0.111f, 0.034f}, {-0.016f, -0.130f, 0.036f}, {-0.026f, -0.145f, 0.037f}};

void crowd_rest_hand_landmarks(crowd_pose_frame frame, crowd_hand hand, float out[CROWD_HAND_FLOATS]) {
    if (!out) return;
    const float ys = frame == CROWD_FRAME_MEDIAPIPE_WORLD ? -1.0f : 1.0f, xs = hand == CROWD_HAND_RIGHT ? -1.0f : 1.0f;
    for (int k = 0; k < CROWDI_HAND_LMS; k++) {
        const float *p = rest_hand_left[k];
        out[3 * k] = p[0] == 0.0f ? 0.0f : xs * p[0];
        out[3 * k + 1] = p[1] == 0.0f ? 0.0f : ys * p[1];
        out[3 * k + 2] = p[2];
    }
    out[3 * CROWDI_HAND_LMS] = 1.0f;
}

static float sin_degrees(float deg) { return (float)sin(deg * (3.14159265358979323846 / 180.0)); }
static float cos_degrees(float deg) { return (float)cos(deg * (3.14159265358979323846 / 180.0)); }

/* joint j's limits (0 MCP, 1 PIP, 2 DIP) as the desc holds them */
static const char *const joint_names[3] = {"mcp", "pip", "dip"};
static void joint_limits_of(const crowd_fingers_desc *d, int j, float *lo, float *hi) {
    *lo = j == 0 ? d->mcp_min : j == 1 ? d->pip_min : d->dip_min;
    *hi = j == 0 ? d->mcp_max : j == 1 ? d->pip_max : d->dip_max;
}

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

/* ---- degenerate bind poses: a bone whose direction or side is not well defined ---- */
typedef struct { double x, y, z; } d3;
static d3 dsub(d3 a, d3 b) { return (d3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static d3 dcross(d3 l, d3 r) { return (d3){l.y * r.z - l.z * r.y, l.z * r.x - l.x * r.z, l.x * r.y - l.y * r.x}; }
static double dlen(d3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

/* The first bone (index as the fields') whose direction is shorter than 1e-4 or whose side is
 * within about 1e-2 rad of it (the palm's side for every bone but the thumb: a thumb's side is
 * never parallel to it), or -1. */
static int degenerate_bone(const float *lm) {
    for (int h = 0; h < 2; h++) {
        const float *q = lm + h * CROWDI_HAND_FLOATS;
        d3 p[CROWDI_HAND_LMS];
        for (int k = 0; k < CROWDI_HAND_LMS; k++) p[k] = (d3){q[3 * k], q[3 * k + 1], q[3 * k + 2]};
        d3 a = dsub(p[17], p[5]);
        d3 mid = {(p[5].x + p[17].x) / 2, (p[5].y + p[17].y) / 2, (p[5].z + p[17].z) / 2};
        for (int b = 0; b < CROWDI_HAND_BONES; b++) {
            d3 d = b == 0 ? dsub(mid, p[0]) : dsub(p[crowdi_hand_from[b] + 1], p[crowdi_hand_from[b]]);
            double dl = dlen(d), al = dlen(a);
            if (dl < 1e-4 || al < 1e-4) return h * CROWDI_HAND_BONES + b;
            if (b >= 1 && b <= 3) continue;
            if (dlen(dcross(d, a)) < 1e-2 * dl * al) return h * CROWDI_HAND_BONES + b;
        }
    }
    return -1;
}

static bool fingers_present(const crowd_rig_desc *d) { return d->fingers != NULL; }

static crowd_result fingers_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    if (!ids) return CROWD_OK;
    const crowd_fingers_desc *d = desc->fingers;
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_FINGERS, fingers_settings_table, FINGERS_SETTINGS, d);
    if (res != CROWD_OK) return res;
    CROWDI_RIG_CHECK(d->bend_min < d->bend_full, CROWD_ERR_RANGE, "desc->fingers->bend_min (%g) must be below bend_full (%g)",
                     (double)d->bend_min, (double)d->bend_full);
    CROWDI_RIG_CHECK(sin_degrees(d->bend_full) > sin_degrees(d->bend_min), CROWD_ERR_RANGE,
                     "desc->fingers->bend_full (%g) is too close to bend_min (%g): their sines are equal in float",
                     (double)d->bend_full, (double)d->bend_min);
    for (int j = 0; j < 3; j++) {
        float lo, hi;
        joint_limits_of(d, j, &lo, &hi);
        CROWDI_RIG_CHECK(lo < hi, CROWD_ERR_RANGE, "desc->fingers->%s_min (%g) must be below %s_max (%g)", joint_names[j],
                         (double)lo, joint_names[j], (double)hi);
        CROWDI_RIG_CHECK(hi < lo + 180.0f, CROWD_ERR_RANGE, "desc->fingers->%s_max (%g) must be less than 180 degrees above "
                         "%s_min (%g)", joint_names[j], (double)hi, joint_names[j], (double)lo);
    }
    CROWDI_RIG_CHECK(!desc->limbs || desc->limbs->outputs != CROWD_LIMB_OUTPUTS_LOCAL, CROWD_ERR_RANGE,
                     "desc->fingers: the hands hang from the limbs' lower arms, which desc->limbs->outputs local does "
                     "not keep (use both or world)");
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        CROWDI_RIG_CHECK(d->custom_fix, CROWD_ERR_NULL, "desc->fingers->custom_fix is NULL with axis_fix custom");
        for (int b = 0; b < CROWDI_FINGER_BONES; b++)
            CROWDI_RIG_CHECK(unit_quat(&d->custom_fix[b]), CROWD_ERR_RANGE,
                             "desc->fingers->custom_fix[%d] (%s %s) is not a unit quaternion", b,
                             b < CROWDI_HAND_BONES ? "left" : "right", hand_bone_names[b % CROWDI_HAND_BONES]);
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        CROWDI_RIG_CHECK(d->bind_landmarks, CROWD_ERR_NULL, "desc->fingers->bind_landmarks is NULL with axis_fix calibrated");
        CROWDI_RIG_CHECK(d->bind_rotations, CROWD_ERR_NULL, "desc->fingers->bind_rotations is NULL with axis_fix calibrated");
        for (int k = 0; k < 2 * CROWDI_HAND_FLOATS; k++) {
            CROWDI_RIG_CHECK(crowdi_finite(d->bind_landmarks[k]), CROWD_ERR_NOT_FINITE,
                             "desc->fingers->bind_landmarks[%d] is not finite", k);
            CROWDI_RIG_CHECK(fabsf(d->bind_landmarks[k]) <= CROWDI_MAX_LANDMARK, CROWD_ERR_RANGE,
                             "desc->fingers->bind_landmarks[%d] (%g) must be within +-1e9", k, (double)d->bind_landmarks[k]);
        }
        for (int b = 0; b < CROWDI_FINGER_BONES; b++)
            CROWDI_RIG_CHECK(unit_quat(&d->bind_rotations[b]), CROWD_ERR_RANGE,
                             "desc->fingers->bind_rotations[%d] (%s %s) is not a unit quaternion", b,
                             b < CROWDI_HAND_BONES ? "left" : "right", hand_bone_names[b % CROWDI_HAND_BONES]);
        const int bad = degenerate_bone(d->bind_landmarks);
        CROWDI_RIG_CHECK(bad < 0, CROWD_ERR_RANGE,
                         "desc->fingers->bind_landmarks: bone %s %s is degenerate in the bind pose (coincident landmarks, "
                         "or a finger along the palm's side axis)",
                         bad < CROWDI_HAND_BONES ? "left" : "right", hand_bone_names[(bad < 0 ? 0 : bad) % CROWDI_HAND_BONES]);
    }
    return CROWD_OK;
}

/* Solves both hands once through the scalar kernel (the very code the tick runs) with the
 * given fixes, every hand trusted and no parent (identity). Landmarks as the field holds them.
 * The solve keeps no state between ticks, so a held pose gives this every tick. */
static void solve_once(const crowdi_fingers_view *v, const float *landmarks, bool flip_y, const float fix[CROWDI_FINGER_BONES][4],
                       float world[4 * CROWDI_FINGER_BONES], float local[4 * CROWDI_FINGER_BONES]) {
    float hands[2 * CROWDI_HAND_FLOATS];
    memcpy(hands, landmarks, sizeof hands);
    hands[3 * CROWDI_HAND_LMS] = hands[CROWDI_HAND_FLOATS + 3 * CROWDI_HAND_LMS] = 1.0f;
    crowdi_fingers_view tmp = *v;
    tmp.flip_y = flip_y;
    tmp.flip_x = 0;
    tmp.smoothing = 0;
    tmp.threshold = 0.0f;
    for (int b = 0; b < CROWDI_FINGER_BONES; b++) {
        memcpy(tmp.fix[b], fix[b], sizeof tmp.fix[b]);
        tmp.fix_kind[b] = crowdi_fix_kind(fix[b]);
    }
    tmp.stride = 1; /* column k is element k */
    tmp.hands = hands;
    tmp.world = world;
    tmp.local = local;
    tmp.track = tmp.filter = NULL;
    crowdi_rig_view rig = {.param_count = 0}; /* a rig of the fingers alone */
    rig.controller[CROWDI_CTL_FINGERS] = &tmp;
    crowdi_kernels_for(CROWD_SIMD_SCALAR)->tick(&rig, 0.0f, 0, 1);
}

static crowd_result fingers_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    (void)ids;
    const crowd_fingers_desc *d = desc->fingers;
    fingers_part *part = FINGERS(r);
    crowdi_fingers_view *v = &part->view;
    part->desc = *d;
    part->desc.custom_fix = NULL;
    part->desc.bind_landmarks = NULL;
    part->desc.bind_rotations = NULL;
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        crowd_quat *fix = crowdi_alloc(engine, sizeof *fix * CROWDI_FINGER_BONES);
        if (!fix) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(fix, d->custom_fix, sizeof *fix * CROWDI_FINGER_BONES);
        part->desc.custom_fix = fix;
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        float *lm = crowdi_alloc(engine, sizeof *lm * 2 * CROWDI_HAND_FLOATS);
        crowd_quat *rot = crowdi_alloc(engine, sizeof *rot * CROWDI_FINGER_BONES);
        part->desc.bind_landmarks = lm;
        part->desc.bind_rotations = rot;
        if (!lm || !rot) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(lm, d->bind_landmarks, sizeof *lm * 2 * CROWDI_HAND_FLOATS);
        memcpy(rot, d->bind_rotations, sizeof *rot * CROWDI_FINGER_BONES);
    }
    v->flip_y = d->frame == CROWD_FRAME_MEDIAPIPE_WORLD;
    v->flip_x = d->mirrored;
    v->smoothing = d->smoothing;
    v->threshold = d->presence_threshold;
    v->hold_half_life = d->hold_half_life;
    v->reacquire_half_life = d->reacquire_half_life;
    v->bend_sin_min = sin_degrees(d->bend_min);
    v->bend_sin_range = sin_degrees(d->bend_full) - v->bend_sin_min;
    v->min_cutoff = d->min_cutoff;
    v->beta = d->beta;
    v->d_cutoff = d->d_cutoff;
    v->limits = d->joint_limits;
    for (int j = 0; j < 3; j++) {
        float lo, hi;
        joint_limits_of(d, j, &lo, &hi);
        v->limit[j][0] = cos_degrees(lo), v->limit[j][1] = sin_degrees(lo);
        v->limit[j][2] = cos_degrees(hi), v->limit[j][3] = sin_degrees(hi);
        v->limit[j][4] = cos_degrees(180.0f - (hi - lo));
        v->limit[j][5] = cos_degrees(lo + hi - 180.0f), v->limit[j][6] = sin_degrees(lo + hi - 180.0f);
        v->limit[j][7] = 0.0f;
    }
    for (int b = 0; b < CROWDI_FINGER_BONES; b++) {
        static const float identity[4] = {0, 0, 0, 1}, y_along[4] = {0.70710677f, 0, 0, 0.70710677f};
        const bool finger = b % CROWDI_HAND_BONES != 0;
        const float *fix = d->axis_fix == CROWD_AXIS_FIX_Y_ALONG_BONE && finger ? y_along : identity;
        memcpy(v->fix[b], fix, sizeof v->fix[b]);
        if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
            const crowd_quat *q = &d->custom_fix[b];
            const float custom[4] = {q->x, q->y, q->z, q->w};
            memcpy(v->fix[b], custom, sizeof custom);
        }
    }
    float world[4 * CROWDI_FINGER_BONES], local[4 * CROWDI_FINGER_BONES];
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        /* fix = inverse(the bind landmarks' solve without fix) * bind rotation; the bind
         * rotations are the rest pose */
        float identity[CROWDI_FINGER_BONES][4] = {{0}};
        for (int b = 0; b < CROWDI_FINGER_BONES; b++) identity[b][3] = 1;
        solve_once(v, d->bind_landmarks, v->flip_y, identity, world, local);
        for (int b = 0; b < CROWDI_FINGER_BONES; b++) {
            const float basis_inv[4] = {-world[4 * b], -world[4 * b + 1], -world[4 * b + 2], world[4 * b + 3]};
            const crowd_quat *q = &d->bind_rotations[b];
            const float bind[4] = {q->x, q->y, q->z, q->w}, unit[4] = {0, 0, 0, 1};
            quat_mul(basis_inv, bind, v->fix[b]);
            quat_mul(bind, unit, v->rest_world[b]); /* normalised, w >= 0 */
            const int parent = crowdi_hand_parent[b % CROWDI_HAND_BONES];
            if (parent < 0) {
                memcpy(v->rest_local[b], v->rest_world[b], sizeof bind);
            } else {
                const crowd_quat *pq = &d->bind_rotations[b - b % CROWDI_HAND_BONES + parent];
                const float parent_inv[4] = {-pq->x, -pq->y, -pq->z, pq->w};
                quat_mul(parent_inv, bind, v->rest_local[b]);
            }
        }
    } else {
        float lm[2 * CROWDI_HAND_FLOATS];
        crowd_rest_hand_landmarks(CROWD_FRAME_ENGINE, CROWD_HAND_LEFT, lm);
        crowd_rest_hand_landmarks(CROWD_FRAME_ENGINE, CROWD_HAND_RIGHT, lm + CROWDI_HAND_FLOATS);
        solve_once(v, lm, false, v->fix, world, local);
        for (int b = 0; b < CROWDI_FINGER_BONES; b++)
            for (int c = 0; c < 4; c++) v->rest_world[b][c] = world[4 * b + c], v->rest_local[b][c] = local[4 * b + c];
    }
    /* With limbs the hands hang from the limbs' rest lower arms: a preset or custom rig's rest
     * hand is the limbs' (its fingers carried along), a calibrated one keeps its bind hand. */
    const crowdi_limbs_view *limbs = CROWDI_PART(r, LIMBS, crowdi_limbs_view);
    for (int h = 0; limbs && h < 2; h++) {
        const int lower = h ? CROWD_BONE_RIGHT_LOWER_ARM : CROWD_BONE_LEFT_LOWER_ARM, b0 = h * CROWDI_HAND_BONES;
        if (d->axis_fix != CROWD_AXIS_FIX_CALIBRATED) {
            float carry[4];
            const float *own = v->rest_world[b0], *body = limbs->limb_rest_world[lower + 1];
            const float own_inv[4] = {-own[0], -own[1], -own[2], own[3]};
            quat_mul(body, own_inv, carry);
            for (int k = 1; k < CROWDI_HAND_BONES; k++) {
                float moved[4];
                quat_mul(carry, v->rest_world[b0 + k], moved);
                memcpy(v->rest_world[b0 + k], moved, sizeof moved);
            }
            memcpy(v->rest_world[b0], body, sizeof carry);
        }
        const float *p = limbs->limb_rest_world[lower];
        const float p_inv[4] = {-p[0], -p[1], -p[2], p[3]};
        quat_mul(p_inv, v->rest_world[b0], v->rest_local[b0]);
    }
    for (int b = 0; b < CROWDI_FINGER_BONES; b++) v->fix_kind[b] = crowdi_fix_kind(v->fix[b]);
    return CROWD_OK;
}

static void fingers_free(crowd_engine *engine, crowdi_rig *r) {
    const fingers_part *part = FINGERS(r);
    crowdi_free(engine, (void *)part->desc.custom_fix);
    crowdi_free(engine, (void *)part->desc.bind_landmarks);
    crowdi_free(engine, (void *)part->desc.bind_rotations);
}

static bool fingers_track(const fingers_part *f) { return f->desc.presence_threshold > 0.0f; }

/* hands, world, local, track, filter: one contiguous group the stage walks by stride */
static uint32_t fingers_layout(crowdi_rig *r, uint32_t first) {
    fingers_part *f = FINGERS(r);
    uint32_t n = first;
    f->col_hands = n, n += 2 * CROWDI_HAND_FLOATS;
    f->col_world = n, n += 4 * CROWDI_FINGER_BONES;
    f->col_local = n, n += 4 * CROWDI_FINGER_BONES;
    if (fingers_track(f)) f->col_track = n, n += 2;
    if (f->desc.smoothing) f->col_filter = n, n += 2 * CROWDI_HAND_FILTER;
    return n - first;
}

/* a new instance: no hand (all 0), the rest pose, fully eased in */
static void fingers_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const fingers_part *f = FINGERS(r);
    for (uint32_t b = 0; b < CROWDI_FINGER_BONES; b++)
        for (uint32_t c = 0; c < 4; c++) {
            bits[f->col_world + 4 * b + c] = crowdi_bits(f->view.rest_world[b][c]);
            bits[f->col_local + 4 * b + c] = crowdi_bits(f->view.rest_local[b][c]);
        }
    if (fingers_track(f)) bits[f->col_track] = bits[f->col_track + 1] = crowdi_bits(1.0f);
}

static void fingers_point(crowdi_rig *r) {
    fingers_part *f = FINGERS(r);
    crowdi_fingers_view *v = &f->view;
    v->stride = r->capacity;
    v->hands = r->columns[f->col_hands];
    v->world = r->columns[f->col_world];
    v->local = r->columns[f->col_local];
    v->track = fingers_track(f) ? r->columns[f->col_track] : NULL;
    v->filter = f->desc.smoothing ? r->columns[f->col_filter] : NULL;
}

static void fingers_write(crowdi_writer *w, const crowdi_rig *r) {
    const fingers_part *f = FINGERS(r);
    crowdi_settings_write(w, fingers_settings_table, 0, FINGERS_SETTINGS, f);
    if (f->desc.axis_fix == CROWD_AXIS_FIX_CUSTOM) crowdi_w_words(w, f->desc.custom_fix, 4 * CROWDI_FINGER_BONES);
    if (f->desc.axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        crowdi_w_words(w, f->desc.bind_landmarks, 2 * CROWDI_HAND_FLOATS);
        crowdi_w_words(w, f->desc.bind_rotations, 4 * CROWDI_FINGER_BONES);
    }
}

typedef struct {
    crowd_fingers_desc desc;
    crowd_quat quats[CROWDI_FINGER_BONES];
    float bind_landmarks[2 * CROWDI_HAND_FLOATS];
} fingers_loaded;

static crowd_result fingers_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                 crowd_rig_desc *desc, void **scratch) {
    fingers_loaded *l = crowdi_alloc(tmp, sizeof *l);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].fingers", ld->rig);
    *scratch = l;
    if (ld->version < 5)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u] has fingers, which format version %u "
                           "does not know: the snapshot is corrupt", ld->rig, ld->version);
    crowd_fingers_desc *d = &l->desc;
    *d = (crowd_fingers_desc){0};
    if (ld->version >= 6) {
        crowdi_settings_read(rd, fingers_settings_table, 0, FINGERS_SETTINGS, d);
    } else { /* format 5 knew no joint limits: its rigs solved without them, and keep doing so */
        crowdi_settings_read(rd, fingers_settings_table, 0, FINGERS_ROW_JOINT_LIMITS, d);
        const crowd_fingers_desc def = crowd_fingers_defaults();
        d->joint_limits = false;
        d->mcp_min = def.mcp_min, d->mcp_max = def.mcp_max;
        d->pip_min = def.pip_min, d->pip_max = def.pip_max;
        d->dip_min = def.dip_min, d->dip_max = def.dip_max;
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
        crowdi_r_words(rd, l->quats, 4 * CROWDI_FINGER_BONES);
        d->custom_fix = l->quats;
    }
    if (d->axis_fix == CROWD_AXIS_FIX_CALIBRATED) {
        crowdi_r_words(rd, l->bind_landmarks, 2 * CROWDI_HAND_FLOATS);
        crowdi_r_words(rd, l->quats, 4 * CROWDI_FINGER_BONES);
        d->bind_landmarks = l->bind_landmarks;
        d->bind_rotations = l->quats;
    }
    desc->fingers = d;
    return CROWD_OK;
}

#define ROWS_CHECK(cond, ...) \
    do { if (!(cond)) return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: " __VA_ARGS__); } while (0)

/* Loaded rows: the columns no field rule covers: the progress r (-1 or in [0, 1]) and the One
 * Euro state (finite). */
static crowd_result fingers_check_rows(crowd_engine *e, const crowdi_rig *r, uint32_t k) {
    const fingers_part *f = FINGERS(r);
    for (uint32_t row = 0; fingers_track(f) && row < r->count; row++)
        for (uint32_t h = 0; h < 2; h++) {
            const float rb = r->columns[f->col_track + h][row];
            ROWS_CHECK(rb == -1.0f || (rb >= 0.0f && rb <= 1.0f), "rigs[%u]: %s hand's progress of row %u (%g) is corrupt", k,
                       h ? "right" : "left", row, (double)rb);
        }
    for (uint32_t c = 0; f->desc.smoothing && c < 2 * CROWDI_HAND_FILTER; c++)
        for (uint32_t row = 0; row < r->count; row++)
            ROWS_CHECK(crowdi_finite(r->columns[f->col_filter + c][row]), "rigs[%u]: fingers filter column %u of row %u is not finite",
                       k, c, row);
    return CROWD_OK;
}

static float *fingers_field_column(const crowdi_rig *r, crowd_field fd, uint32_t index, uint32_t comp) {
    const fingers_part *f = FINGERS(r);
    switch (fd) {
    case CROWD_FIELD_HAND_LANDMARKS: return r->columns[f->col_hands + CROWDI_HAND_FLOATS * index + comp];
    case CROWD_FIELD_FINGER_WORLD: return r->columns[f->col_world + 4 * index + comp];
    case CROWD_FIELD_FINGER_LOCAL: return r->columns[f->col_local + 4 * index + comp];
    default: return NULL;
    }
}

const crowdi_controller crowdi_controller_fingers = {
    .name = "fingers",
    .size = sizeof(fingers_part),
    .present = fingers_present,
    .validate = fingers_validate,
    .build = fingers_build,
    .free = fingers_free,
    .layout = fingers_layout,
    .init_bits = fingers_init_bits,
    .point = fingers_point,
    .write = fingers_write,
    .read = fingers_read,
    .check_rows = fingers_check_rows,
    .field_column = fingers_field_column,
    .setting_rows = fingers_settings_table,
    .setting_count = FINGERS_SETTINGS,
    .leaves_parameters = true,
};

crowd_result crowd_rig_rest_hands(crowd_engine *engine, crowd_rig rig, crowd_quat world[CROWD_FINGER_BONE_COUNT],
                                  crowd_quat local[CROWD_FINGER_BONE_COUNT]) {
    if (!engine) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    CROWDI_CHECK(engine, r, CROWD_ERR_HANDLE, "crowd_rig_rest_hands: rig is not a rig of this engine");
    CROWDI_CHECK(engine, r->has[CROWDI_CTL_FINGERS], CROWD_ERR_NO_CONTROLLER, "crowd_rig_rest_hands: rig \"%s\" has no fingers",
                 r->name);
    const crowdi_fingers_view *v = &FINGERS(r)->view;
    for (int b = 0; b < CROWDI_FINGER_BONES; b++) {
        const float *w = v->rest_world[b], *l = v->rest_local[b];
        if (world) world[b] = (crowd_quat){w[0], w[1], w[2], w[3]};
        if (local) local[b] = (crowd_quat){l[0], l[1], l[2], l[3]};
    }
    return CROWD_OK;
}
