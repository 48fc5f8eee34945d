/* The objects of crowd_io.h: each wraps the struct the crowd command itself uses, so that the
 * library runs the command's own code on them. */
#ifndef CROWD_IO_OBJECTS_H
#define CROWD_IO_OBJECTS_H

#include "clip.h"
#include "crowd_io.h"
#include "diag.h"
#include "scene.h"
#include "trace.h"
#include "world.h"

struct crowd_io_scene {
    scene scene;
};
struct crowd_io_world {
    world world;
};
struct crowd_io_clip {
    pose_clip clip;
};
struct crowd_io_trace {
    trace_file trace;
};

_Static_assert((int)CROWD_IO_OK == TOOL_OK && (int)CROWD_IO_FAILED == TOOL_FAILED && (int)CROWD_IO_BAD_INPUT == TOOL_BAD_INPUT,
               "crowd_io_status is diag.h's exit statuses");

#endif
