/* libcrowd_loaders: the library `python -m crowd` loads. It holds the io library (crowd_io.h:
 * the crowd command's scene and clip readers, its run world, traces and run snapshots; its
 * crowd_io_* functions are exported from here, so that the package finds them in one file beside
 * libcrowd.so) and two helpers of the package's own below. Errors are printed by the io library
 * as "crowd: ..." on stderr and returned as its statuses (0 ok, 1 failed, 2 bad input). */
#include <string.h>
#include <time.h>

#include "crowd.h"
#include "crowd_io.h"

#define EXPORT __attribute__((visibility("default")))

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* For the binding's benchmark (python/bench): n crowd_tick calls in a C loop, their seconds on
 * CLOCK_MONOTONIC; a negative value if a tick failed. */
EXPORT double crowd_loaders_tick_loop(crowd_engine *engine, float dt, uint32_t n) {
    double t0 = now();
    for (uint32_t k = 0; k < n; k++)
        if (crowd_tick(engine, dt) != CROWD_OK) return -1.0;
    return now() - t0;
}

/* The size of each public struct of crowd.h by name (0 for an unknown name): the package's
 * ctypes mirrors are checked against them, so that a field added to the header cannot leave
 * the C side reading past a Python-made struct. */
EXPORT size_t crowd_loaders_sizeof(const char *name) {
    static const struct { const char *name; size_t size; } sizes[] = {
        {"crowd_allocator", sizeof(crowd_allocator)},
        {"crowd_logger", sizeof(crowd_logger)},
        {"crowd_engine_desc", sizeof(crowd_engine_desc)},
        {"crowd_rig", sizeof(crowd_rig)},
        {"crowd_instance", sizeof(crowd_instance)},
        {"crowd_parameter_desc", sizeof(crowd_parameter_desc)},
        {"crowd_look_parameter_desc", sizeof(crowd_look_parameter_desc)},
        {"crowd_look_desc", sizeof(crowd_look_desc)},
        {"crowd_harmonic_parameter_desc", sizeof(crowd_harmonic_parameter_desc)},
        {"crowd_harmonic_desc", sizeof(crowd_harmonic_desc)},
        {"crowd_blink_desc", sizeof(crowd_blink_desc)},
        {"crowd_quat", sizeof(crowd_quat)},
        {"crowd_limbs_desc", sizeof(crowd_limbs_desc)},
        {"crowd_rig_desc", sizeof(crowd_rig_desc)},
        {"crowd_add_desc", sizeof(crowd_add_desc)},
    };
    for (size_t k = 0; name && k < sizeof sizes / sizeof sizes[0]; k++)
        if (strcmp(sizes[k].name, name) == 0) return sizes[k].size;
    return 0;
}
