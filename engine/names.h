/* The names of the public enums' values (names.c), for the settings table's value_names and the
 * name/parse functions crowd.h declares. */
#ifndef CROWDI_NAMES_H
#define CROWDI_NAMES_H

#include "controllers.h" /* the controllers' names: controllers.h's list */
#define CROWDI_X_NAME(NAME, name) #name,

/* X(function stem, enum type, value count, names...) — one row per public enum whose names
 * the library defines here (simd, bone, face source and field name theirs where they live). */
#define CROWDI_ENUM_NAMES(X)                                                                                   \
    X(blend, crowd_blend, CROWD_BLEND_COUNT, "default", "override", "additive", "multiply")                     \
    X(axis, crowd_axis, CROWD_AXIS_COUNT, "x", "y", "z")                                                        \
    X(direction, crowd_direction, CROWD_DIRECTION_COUNT, "centric", "left", "right")                            \
    X(blink_model, crowd_blink_model, CROWD_BLINK_MODEL_COUNT, "sine", "timed")                                 \
    X(pose_frame, crowd_pose_frame, CROWD_FRAME_COUNT, "mediapipe_world", "engine")                             \
    X(axis_fix, crowd_axis_fix, CROWD_AXIS_FIX_COUNT, "y_along_bone", "z_along_bone", "custom", "calibrated")   \
    X(limb_fallback, crowd_limb_fallback, CROWD_FALLBACK_COUNT, "stable", "root", "previous")                   \
    X(limb, crowd_limb, CROWD_LIMB_COUNT, "left_arm", "right_arm", "left_leg", "right_leg")                     \
    X(limb_outputs, crowd_limb_outputs, CROWD_LIMB_OUTPUTS_COUNT, "both", "world", "local")                     \
    X(hand, crowd_hand, CROWD_HAND_COUNT, "left", "right")                                                      \
    X(face_curve, crowd_face_curve, CROWD_FACE_CURVE_COUNT, "linear", "smoothstep")                             \
    X(blink_start, crowd_blink_start, CROWD_BLINK_START_COUNT, "random", "cubism")                              \
    X(harmonic_phase, crowd_harmonic_phase, CROWD_HARMONIC_PHASE_COUNT, "zero", "random")                       \
    X(expression_blend, crowd_expression_blend, CROWD_EXPRESSION_BLEND_COUNT, "add", "multiply", "overwrite")   \
    X(lod_interval, crowd_lod_interval, CROWD_LOD_INTERVAL_COUNT, "1", "2", "4", "8")                           \
    X(motion_priority, crowd_motion_priority, CROWD_MOTION_PRIORITY_COUNT, "none", "idle", "normal", "force")   \
    X(controller, crowd_controller, CROWD_CONTROLLER_COUNT, CROWDI_CONTROLLER_LIST(CROWDI_X_NAME))               \
    X(setting_type, crowd_setting_type, CROWD_SETTING_TYPE_COUNT, "float", "enum", "bool", "bits64")

#define CROWDI_X_NAMES_DECL(stem, type, count, ...) extern const char *const crowdi_##stem##_names[count];
CROWDI_ENUM_NAMES(CROWDI_X_NAMES_DECL)
#undef CROWDI_X_NAMES_DECL

/* The value named `name` among names[0, count): its index, or -1. */
int crowdi_name_index(const char *const *names, int count, const char *name);

#endif
