/* The names of the public enums' values (names.c), for the settings table's value_names and the
 * name/parse functions crowd.h declares. */
#ifndef CROWDI_NAMES_H
#define CROWDI_NAMES_H

#include "controllers.h" /* the controllers' names: controllers.h's list */
#define CROWDI_X_NAME(NAME, name) #name,

/* X(function stem, enum type, value count, names...) — one row per public enum whose names
 * the library defines here: those no one controller owns (a controller's own enums' names are
 * in its module, CROWDI_ENUM_NAMES_DEFINE below; simd, bone, face source and field name theirs
 * where they live). */
#define CROWDI_ENUM_NAMES(X)                                                                                   \
    X(blend, crowd_blend, CROWD_BLEND_COUNT, "default", "override", "additive", "multiply")                     \
    X(pose_frame, crowd_pose_frame, CROWD_FRAME_COUNT, "mediapipe_world", "engine")                             \
    X(axis_fix, crowd_axis_fix, CROWD_AXIS_FIX_COUNT, "y_along_bone", "z_along_bone", "custom", "calibrated")   \
    X(lod_interval, crowd_lod_interval, CROWD_LOD_INTERVAL_COUNT, "1", "2", "4", "8")                           \
    X(controller, crowd_controller, CROWD_CONTROLLER_COUNT, CROWDI_CONTROLLER_LIST(CROWDI_X_NAME))               \
    X(setting_type, crowd_setting_type, CROWD_SETTING_TYPE_COUNT, "float", "enum", "bool", "bits64")

#define CROWDI_X_NAMES_DECL(stem, type, count, ...) extern const char *const crowdi_##stem##_names[count];
CROWDI_ENUM_NAMES(CROWDI_X_NAMES_DECL)
#undef CROWDI_X_NAMES_DECL

/* The value named `name` among names[0, count): its index, or -1. */
int crowdi_name_index(const char *const *names, int count, const char *name);

/* crowd.h's crowd_<stem>_name and crowd_<stem>_parse over crowdi_<stem>_names[count]. */
#define CROWDI_NAME_FUNCTIONS(stem, type, count)                                                               \
    const char *crowd_##stem##_name(type value) { return (unsigned)value < (count) ? crowdi_##stem##_names[value] : NULL; } \
    crowd_result crowd_##stem##_parse(const char *name, type *out) {                                           \
        if (!name || !out) return CROWD_ERR_NULL;                                                              \
        int k = crowdi_name_index(crowdi_##stem##_names, (count), name);                                       \
        if (k < 0) return CROWD_ERR_UNKNOWN_ID;                                                                \
        *out = (type)k;                                                                                        \
        return CROWD_OK;                                                                                       \
    }
/* A controller's own enum, in its module (before its settings table, whose enum rows read
 * crowdi_<stem>_names): its names, one per value, and its name and parse functions. */
#define CROWDI_ENUM_NAMES_DEFINE(stem, type, count, ...)                                                       \
    static const char *const crowdi_##stem##_names[count] = {__VA_ARGS__};                                     \
    _Static_assert(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *) == (count), #type " names every value"); \
    CROWDI_NAME_FUNCTIONS(stem, type, count)

#endif
