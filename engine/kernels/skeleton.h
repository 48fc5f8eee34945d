/* The skeleton the limb solve works on: MediaPipe Pose's 33 landmarks by name, and one table
 * of the 15 bones (crowd_bone order). The one place bone and landmark numbers are written:
 * engine/limbs.c (validation, calibration) and kernels/limbs.h (the solve) both read it.
 * Plain C: shared by files built with different SIMD flags. */
#ifndef CROWDI_SKELETON_H
#define CROWDI_SKELETON_H

#include <stdbool.h>

#include "crowd.h"

/* MediaPipe Pose landmark numbering. */
typedef enum crowdi_landmark {
    CROWDI_LM_NOSE = 0,
    CROWDI_LM_LEFT_EYE_INNER, CROWDI_LM_LEFT_EYE, CROWDI_LM_LEFT_EYE_OUTER,
    CROWDI_LM_RIGHT_EYE_INNER, CROWDI_LM_RIGHT_EYE, CROWDI_LM_RIGHT_EYE_OUTER,
    CROWDI_LM_LEFT_EAR, CROWDI_LM_RIGHT_EAR,
    CROWDI_LM_MOUTH_LEFT, CROWDI_LM_MOUTH_RIGHT,
    CROWDI_LM_LEFT_SHOULDER, CROWDI_LM_RIGHT_SHOULDER,
    CROWDI_LM_LEFT_ELBOW, CROWDI_LM_RIGHT_ELBOW,
    CROWDI_LM_LEFT_WRIST, CROWDI_LM_RIGHT_WRIST,
    CROWDI_LM_LEFT_PINKY, CROWDI_LM_RIGHT_PINKY,
    CROWDI_LM_LEFT_INDEX, CROWDI_LM_RIGHT_INDEX,
    CROWDI_LM_LEFT_THUMB, CROWDI_LM_RIGHT_THUMB,
    CROWDI_LM_LEFT_HIP, CROWDI_LM_RIGHT_HIP,
    CROWDI_LM_LEFT_KNEE, CROWDI_LM_RIGHT_KNEE,
    CROWDI_LM_LEFT_ANKLE, CROWDI_LM_RIGHT_ANKLE,
    CROWDI_LM_LEFT_HEEL, CROWDI_LM_RIGHT_HEEL,
    CROWDI_LM_LEFT_FOOT_INDEX, CROWDI_LM_RIGHT_FOOT_INDEX,
    CROWDI_LANDMARKS
} crowdi_landmark;
#ifdef __cplusplus
static_assert(CROWDI_LANDMARKS == CROWD_LANDMARK_COUNT, "MediaPipe Pose has 33 landmarks");
#else
_Static_assert(CROWDI_LANDMARKS == CROWD_LANDMARK_COUNT, "MediaPipe Pose has 33 landmarks");
#endif

#define CROWDI_BONES CROWD_BONE_COUNT

/* How a bone's LookRotation arguments come from its landmarks (SPEC §5):
 *   TORSO: forward cross(right - left, up), up = shoulder midpoint - hip midpoint (landmarks
 *          left shoulder, right shoulder, left hip, right hip; hips take the hips' right,
 *          chest the shoulders')
 *   HEAD:  forward nose - ear midpoint, up cross(forward, right ear - left ear)
 *   LIMB:  upper and lower bone of an arm or leg (landmarks joint a, b, c), the side axis by
 *          the rig's fallback
 *   HAND:  forward wrist -> midpoint of index and pinky, side index -> pinky
 *   FOOT:  forward heel -> foot index, up heel -> ankle (landmarks ankle, heel, foot index) */
typedef enum crowdi_bone_kind { CROWDI_BONE_TORSO, CROWDI_BONE_HEAD, CROWDI_BONE_LIMB, CROWDI_BONE_HAND, CROWDI_BONE_FOOT } crowdi_bone_kind;

typedef struct crowdi_bone_info {
    int landmarks[4];  /* the landmarks the bone reads, in the order its kind uses them; -1 ends */
    int parent;        /* crowd_bone of the parent; -1: the root */
    bool unit_forward; /* the solve's forward is normalised (or zero): limbs and hands */
    bool limb;         /* upper or lower arm or leg (the Y-along-bone preset turns these) */
    crowdi_bone_kind kind;
} crowdi_bone_info;

static const crowdi_bone_info crowdi_bones[CROWDI_BONES] = {
#define TORSO_LMS {CROWDI_LM_LEFT_SHOULDER, CROWDI_LM_RIGHT_SHOULDER, CROWDI_LM_LEFT_HIP, CROWDI_LM_RIGHT_HIP}
#define ARM(s) {CROWDI_LM_##s##_SHOULDER, CROWDI_LM_##s##_ELBOW, CROWDI_LM_##s##_WRIST, -1}
#define LEG(s) {CROWDI_LM_##s##_HIP, CROWDI_LM_##s##_KNEE, CROWDI_LM_##s##_ANKLE, -1}
    [CROWD_BONE_HIPS] = {TORSO_LMS, -1, false, false, CROWDI_BONE_TORSO},
    [CROWD_BONE_CHEST] = {TORSO_LMS, CROWD_BONE_HIPS, false, false, CROWDI_BONE_TORSO},
    [CROWD_BONE_HEAD] = {{CROWDI_LM_NOSE, CROWDI_LM_LEFT_EAR, CROWDI_LM_RIGHT_EAR, -1}, CROWD_BONE_CHEST, false, false, CROWDI_BONE_HEAD},
    [CROWD_BONE_LEFT_UPPER_ARM] = {ARM(LEFT), CROWD_BONE_CHEST, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_LEFT_LOWER_ARM] = {ARM(LEFT), CROWD_BONE_LEFT_UPPER_ARM, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_LEFT_HAND] = {{CROWDI_LM_LEFT_WRIST, CROWDI_LM_LEFT_INDEX, CROWDI_LM_LEFT_PINKY, -1}, CROWD_BONE_LEFT_LOWER_ARM, true, false, CROWDI_BONE_HAND},
    [CROWD_BONE_RIGHT_UPPER_ARM] = {ARM(RIGHT), CROWD_BONE_CHEST, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_RIGHT_LOWER_ARM] = {ARM(RIGHT), CROWD_BONE_RIGHT_UPPER_ARM, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_RIGHT_HAND] = {{CROWDI_LM_RIGHT_WRIST, CROWDI_LM_RIGHT_INDEX, CROWDI_LM_RIGHT_PINKY, -1}, CROWD_BONE_RIGHT_LOWER_ARM, true, false, CROWDI_BONE_HAND},
    [CROWD_BONE_LEFT_UPPER_LEG] = {LEG(LEFT), CROWD_BONE_HIPS, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_LEFT_LOWER_LEG] = {LEG(LEFT), CROWD_BONE_LEFT_UPPER_LEG, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_LEFT_FOOT] = {{CROWDI_LM_LEFT_ANKLE, CROWDI_LM_LEFT_HEEL, CROWDI_LM_LEFT_FOOT_INDEX, -1}, CROWD_BONE_LEFT_LOWER_LEG, false, false, CROWDI_BONE_FOOT},
    [CROWD_BONE_RIGHT_UPPER_LEG] = {LEG(RIGHT), CROWD_BONE_HIPS, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_RIGHT_LOWER_LEG] = {LEG(RIGHT), CROWD_BONE_RIGHT_UPPER_LEG, true, true, CROWDI_BONE_LIMB},
    [CROWD_BONE_RIGHT_FOOT] = {{CROWDI_LM_RIGHT_ANKLE, CROWDI_LM_RIGHT_HEEL, CROWDI_LM_RIGHT_FOOT_INDEX, -1}, CROWD_BONE_RIGHT_LOWER_LEG, false, false, CROWDI_BONE_FOOT},
#undef TORSO_LMS
#undef ARM
#undef LEG
};

/* Each limb's upper bone (crowd_limb order); the lower bone follows it. */
static const int crowdi_limb_upper[CROWD_LIMB_COUNT] = {
    [CROWD_LIMB_LEFT_ARM] = CROWD_BONE_LEFT_UPPER_ARM, [CROWD_LIMB_RIGHT_ARM] = CROWD_BONE_RIGHT_UPPER_ARM,
    [CROWD_LIMB_LEFT_LEG] = CROWD_BONE_LEFT_UPPER_LEG, [CROWD_LIMB_RIGHT_LEG] = CROWD_BONE_RIGHT_UPPER_LEG};
static inline bool crowdi_limb_is_leg(int limb) { return limb >= CROWD_LIMB_LEFT_LEG; }

#endif
