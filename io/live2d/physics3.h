/* Live2D .physics3.json import into a crowd_physics_desc (crowd.h).
 *
 * Read: Meta (Fps, EffectiveForces, and the counts, which must agree with the settings),
 * PhysicsSettings[*] (Input, Output, Vertices, Normalization). Refused, with the file, the JSON
 * path and the value (TOOL_BAD_INPUT): a field missing or of the wrong type, a Type other than
 * "X", "Y", "Angle", a Target other than "Parameter", an empty id, a number that is not finite,
 * a weight outside [0, 100], an Fps outside [0, CROWD_PHYSICS_MAX_FPS], a VertexIndex outside
 * 1 .. the sub-rig's vertex count - 1, a particle after the first whose Radius is not > 0 (its
 * direction would be 0/0), a Delay or Mobility < 0, a Normalization whose Minimum > Maximum,
 * counts beyond the CROWD_PHYSICS_MAX_* limits or disagreeing with Meta. Reflect may be absent
 * (false), as the framework reads it; Meta.Fps and EffectiveForces may be absent. */
#ifndef CROWD_TOOLS_PHYSICS3_H
#define CROWD_TOOLS_PHYSICS3_H

#include <stddef.h>

#include "crowd.h"

/* A read file: desc points into storage owned by this value. */
typedef struct physics3 {
    crowd_physics_desc desc;
    crowd_physics_subrig *subrigs;
    crowd_physics_input *inputs;
    crowd_physics_output *outputs;
    crowd_physics_particle *particles;
    char *ids; /* every id, NUL-terminated, back to back */
    double effective_gravity[2], effective_wind[2]; /* Meta.EffectiveForces (0, 0 when absent) */
} physics3;

/* Reads path into *out (untouched on error; free with physics3_free). TOOL_OK, TOOL_BAD_INPUT
 * (message printed) or TOOL_FAILED (out of memory). */
int physics3_read(const char *path, physics3 *out);
/* The same from text already in memory; path names it in messages. */
int physics3_parse(const char *path, const char *text, size_t size, physics3 *out);
void physics3_free(physics3 *p);

#endif
