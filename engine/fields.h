/* The field table: every crowd_field's name, the controller whose columns hold it, its
 * component count, which indices it has, its value rule and whether callers may write it.
 * crowd_instances_set/get, crowd_rig_column and snapshot loading read their checks from it
 * (fields.c); the controller's field_column hook says where a field's values are. A new
 * controller's fields are rows here and values in crowd.h's crowd_field. */
#ifndef CROWDI_FIELDS_H
#define CROWDI_FIELDS_H

/* Which indices a field has: none (index ignored), one per parameter, per entry of its
 * controller (crowdi_controller.entry_count: the harmonic entries), per bone, per hand or per
 * finger bone (both hands'). */
enum { CROWDI_INDEX_NONE, CROWDI_INDEX_PARAMETER, CROWDI_INDEX_ENTRY, CROWDI_INDEX_BONE, CROWDI_INDEX_HAND,
       CROWDI_INDEX_FINGER_BONE };

/* Value rules (fields.c words and checks them; every rule includes "finite"). */
typedef enum crowdi_rule {
    CROWDI_RULE_FINITE,
    CROWDI_RULE_WEIGHT,       /* [0, 1] */
    CROWDI_RULE_SECONDS,      /* [0, 1e6] */
    CROWDI_RULE_FRACTION,     /* within +-1000 */
    CROWDI_RULE_PHASE,        /* [0, the entry's duration] */
    CROWDI_RULE_COORD,        /* within +-1e15 */
    CROWDI_RULE_LOOK_POS,     /* within +-1e18 */
    CROWDI_RULE_LOOK_VEL,     /* within +-1e24 */
    CROWDI_RULE_AT_MOST_ONE,  /* <= 1 */
    CROWDI_RULE_SWITCH,       /* 0 or 1 */
    CROWDI_RULE_MANUAL,       /* [0, 1] or -1 */
    CROWDI_RULE_BLINK_PHASE,  /* 0, 1, 2 (and 3 for the timed model) */
    CROWDI_RULE_POSE,         /* coordinates within +-1e9, every 4th a visibility in [0, 1] */
    CROWDI_RULE_HAND,         /* 63 coordinates within +-1e9, then a presence in [0, 1] */
    CROWDI_RULE_QUAT,         /* finite, and the whole value a unit quaternion */
    CROWDI_RULE_MULTIPLIER,   /* [0, 100] */
    CROWDI_RULE_EXPRESSION_SLOT, /* expression -1 or a library index; age -1 or >= 0; fade -2, -1 or [0, 1e6] */
    CROWDI_RULE_LOD_INTERVAL, /* 1, 2, 4 or 8 */
    CROWDI_RULE_LOD_ELAPSED,  /* [0, 16] */
    CROWDI_RULE_OUTPUT        /* written by the tick only */
} crowdi_rule;

#define CROWDI_CTL_NONE (-1)
/* X(FIELD, name, controller, width, indices, rule, writable); a controller's field_column
 * hook gives a field's columns (fields.c: base and output). */
#define CROWD_FIELD_LIST(X)                                                                                            \
    X(BASE, "base", CROWDI_CTL_NONE, 1, CROWDI_INDEX_PARAMETER, CROWDI_RULE_FINITE, true)                               \
    X(LOOK_TARGET, "look_target", CROWDI_CTL_LOOK, 3, CROWDI_INDEX_NONE, CROWDI_RULE_COORD, true)                       \
    X(LOOK_ACTIVE, "look_active", CROWDI_CTL_LOOK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SWITCH, true)                      \
    X(LOOK_CENTER, "look_center", CROWDI_CTL_LOOK, 3, CROWDI_INDEX_NONE, CROWDI_RULE_COORD, true)                       \
    X(LOOK_DAMPING, "look_damping", CROWDI_CTL_LOOK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)                   \
    X(LOOK_WEIGHT, "look_weight", CROWDI_CTL_LOOK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                      \
    X(HARMONIC_WEIGHT, "harmonic_weight", CROWDI_CTL_HARMONIC, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)          \
    X(BLINK_WEIGHT, "blink_weight", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                   \
    X(BLINK_MANUAL, "blink_manual", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MANUAL, true)                   \
    X(HARMONIC_PHASE, "harmonic_phase", CROWDI_CTL_HARMONIC, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_PHASE, true)            \
    X(HARMONIC_RANGE, "harmonic_range", CROWDI_CTL_HARMONIC, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FRACTION, true)         \
    X(LOOK_POSITION, "look_position", CROWDI_CTL_LOOK, 3, CROWDI_INDEX_NONE, CROWDI_RULE_LOOK_POS, true)                \
    X(LOOK_VELOCITY, "look_velocity", CROWDI_CTL_LOOK, 3, CROWDI_INDEX_NONE, CROWDI_RULE_LOOK_VEL, true)                \
    X(BLINK_OPENING, "blink_opening", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_AT_MOST_ONE, true)            \
    X(BLINK_PHASE, "blink_phase", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_BLINK_PHASE, true)                \
    X(BLINK_CLOCK, "blink_clock", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_FINITE, true)                     \
    X(BLINK_LAST, "blink_last", CROWDI_CTL_BLINK, 1, CROWDI_INDEX_NONE, CROWDI_RULE_FINITE, true)                       \
    X(POSE, "pose", CROWDI_CTL_LIMBS, 4 * CROWD_LANDMARK_COUNT, CROWDI_INDEX_NONE, CROWDI_RULE_POSE, true)              \
    X(ROOT, "root", CROWDI_CTL_LIMBS, 4, CROWDI_INDEX_NONE, CROWDI_RULE_QUAT, true)                                     \
    X(OUTPUT, "output", CROWDI_CTL_NONE, 1, CROWDI_INDEX_PARAMETER, CROWDI_RULE_OUTPUT, false)                          \
    X(BONE_WORLD, "bone_world", CROWDI_CTL_LIMBS, 4, CROWDI_INDEX_BONE, CROWDI_RULE_QUAT, false)                        \
    X(BONE_LOCAL, "bone_local", CROWDI_CTL_LIMBS, 4, CROWDI_INDEX_BONE, CROWDI_RULE_QUAT, false)                        \
    X(FACE_SCORES, "face_scores", CROWDI_CTL_FACE, CROWD_FACE_SCORE_COUNT, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true) \
    X(FACE_ROTATION, "face_rotation", CROWDI_CTL_FACE, 4, CROWDI_INDEX_NONE, CROWDI_RULE_QUAT, true)                    \
    X(FACE_PRESENCE, "face_presence", CROWDI_CTL_FACE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                  \
    X(FACE_WEIGHT, "face_weight", CROWDI_CTL_FACE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                      \
    X(FACE_CONTROL, "face_control", CROWDI_CTL_FACE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true) \
    X(PHYSICS_STRENGTH, "physics_strength", CROWDI_CTL_PHYSICS, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MULTIPLIER, true)      \
    X(PHYSICS_WIND, "physics_wind", CROWDI_CTL_PHYSICS, 1, CROWDI_INDEX_NONE, CROWDI_RULE_MULTIPLIER, true)              \
    X(PHYSICS_WIND_PHASE, "physics_wind_phase", CROWDI_CTL_PHYSICS, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)      \
    X(PHYSICS_REMAIN, "physics_remain", CROWDI_CTL_PHYSICS, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)             \
    X(LIPSYNC_LEVEL, "lipsync_level", CROWDI_CTL_LIPSYNC, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true) \
    X(PART_PARAMETER, "part_parameter", CROWDI_CTL_POSE, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true)               \
    X(PART_OPACITY, "part_opacity", CROWDI_CTL_POSE, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true)                   \
    X(POSE_RESET, "pose_reset", CROWDI_CTL_POSE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SWITCH, true)                        \
    X(EXPRESSION_WEIGHT, "expression_weight", CROWDI_CTL_EXPRESSION, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)    \
    X(EXPRESSION_SLOT, "expression_slot", CROWDI_CTL_EXPRESSION, 3, CROWDI_INDEX_ENTRY, CROWDI_RULE_EXPRESSION_SLOT, true) \
    X(LOD_INTERVAL, "lod_interval", CROWDI_CTL_NONE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_LOD_INTERVAL, true)              \
    X(LOD_ELAPSED, "lod_elapsed", CROWDI_CTL_NONE, 1, CROWDI_INDEX_NONE, CROWDI_RULE_LOD_ELAPSED, true) \
    X(HAND_LANDMARKS, "hand_landmarks", CROWDI_CTL_FINGERS, CROWD_HAND_FLOATS, CROWDI_INDEX_HAND, CROWDI_RULE_HAND, true)  \
    X(FINGER_WORLD, "finger_world", CROWDI_CTL_FINGERS, 4, CROWDI_INDEX_FINGER_BONE, CROWDI_RULE_QUAT, false)             \
    X(FINGER_LOCAL, "finger_local", CROWDI_CTL_FINGERS, 4, CROWDI_INDEX_FINGER_BONE, CROWDI_RULE_QUAT, false) \
    X(MOTION_SPEED, "motion_speed", CROWDI_CTL_MOTION, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SECONDS, true)                 \
    X(MOTION_WEIGHT, "motion_weight", CROWDI_CTL_MOTION, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)                \
    X(MOTION_OPACITY, "motion_opacity", CROWDI_CTL_MOTION, 1, CROWDI_INDEX_NONE, CROWDI_RULE_OUTPUT, false)             \
    X(MOTION_UPDATED, "motion_updated", CROWDI_CTL_MOTION, 1, CROWDI_INDEX_NONE, CROWDI_RULE_OUTPUT, false)             \
    X(MOTION_PSEUDO, "motion_pseudo", CROWDI_CTL_MOTION, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true)

#endif
