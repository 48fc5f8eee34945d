/* The `_defaults()` functions of the descs whose defaults are all zero (crowd.h §1: every desc
 * has one). The controllers' own are next to their validation. */
#include "crowd.h"

crowd_engine_desc crowd_engine_defaults(void) { return (crowd_engine_desc){.simd = CROWD_SIMD_AUTO}; }

crowd_rig_desc crowd_rig_defaults(void) { return (crowd_rig_desc){.name = NULL}; }

crowd_parameter_desc crowd_parameter_defaults(const char *id) {
    return (crowd_parameter_desc){.id = id, .min = 0.0f, .max = 1.0f, .default_value = 0.0f};
}

crowd_look_parameter_desc crowd_look_parameter_defaults(const char *id) {
    return (crowd_look_parameter_desc){.id = id, .axis = CROWD_AXIS_X, .factor = 1.0f};
}

crowd_add_desc crowd_add_defaults(crowd_rig rig, uint32_t count) {
    return (crowd_add_desc){.rig = rig, .count = count, .blink_start = CROWD_BLINK_START_RANDOM,
                            .harmonic_phase = CROWD_HARMONIC_PHASE_ZERO};
}
