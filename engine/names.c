/* Name and parse functions for the public enums (crowd.h) no one controller owns, from names.h's
 * list (a controller's own are in its module). */
#include <string.h>

#include "crowd.h"
#include "names.h"

int crowdi_name_index(const char *const *names, int count, const char *name) {
    for (int k = 0; name && k < count; k++)
        if (strcmp(names[k], name) == 0) return k;
    return -1;
}

#define CROWDI_X_NAMES_DEFINE(stem, type, count, ...)                                                          \
    const char *const crowdi_##stem##_names[count] = {__VA_ARGS__};                                            \
    _Static_assert(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *) == (count), #type " names every value"); \
    CROWDI_NAME_FUNCTIONS(stem, type, count)
CROWDI_ENUM_NAMES(CROWDI_X_NAMES_DEFINE)
#undef CROWDI_X_NAMES_DEFINE

/* The enums whose names live with them: parse by their name function. */
#define CROWDI_PARSE_BY_NAME(stem, type, count)                                                                \
    crowd_result crowd_##stem##_parse(const char *name, type *out) {                                           \
        if (!name || !out) return CROWD_ERR_NULL;                                                              \
        for (int k = 0; k < (int)(count); k++)                                                                 \
            if (strcmp(crowd_##stem##_name((type)k), name) == 0) {                                             \
                *out = (type)k;                                                                                \
                return CROWD_OK;                                                                               \
            }                                                                                                  \
        return CROWD_ERR_UNKNOWN_ID;                                                                           \
    }
CROWDI_PARSE_BY_NAME(simd, crowd_simd, CROWD_SIMD_COUNT)
CROWDI_PARSE_BY_NAME(bone, crowd_bone, CROWD_BONE_COUNT)
CROWDI_PARSE_BY_NAME(hand_bone, crowd_hand_bone, CROWD_HAND_BONE_COUNT)
CROWDI_PARSE_BY_NAME(face_source, crowd_face_source, CROWD_FACE_SOURCE_COUNT)
CROWDI_PARSE_BY_NAME(field, crowd_field, CROWD_FIELD_COUNT)
#undef CROWDI_PARSE_BY_NAME

static const char *const result_names[CROWD_RESULT_COUNT] = {
#define CROWDI_X_RESULT(code, text) #code,
    CROWD_RESULT_LIST(CROWDI_X_RESULT)
#undef CROWDI_X_RESULT
};
const char *crowd_result_name(crowd_result result) {
    return (unsigned)result < CROWD_RESULT_COUNT ? result_names[result] : NULL;
}
