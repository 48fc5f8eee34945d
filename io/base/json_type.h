/* How the JSON readers (scenes, landmark recordings, face tracks) name a value's type in their
 * messages: "... is a string, want a number". */
#ifndef CROWD_TOOLS_JSON_TYPE_H
#define CROWD_TOOLS_JSON_TYPE_H

#include <jansson.h>

static inline const char *tool_json_type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

#endif
