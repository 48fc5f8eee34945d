/* Live2D .model3.json import: the parameter ids of a Groups entry (EyeBlink, LipSync). */
#ifndef CROWD_TOOLS_MODEL3_H
#define CROWD_TOOLS_MODEL3_H

#include <stdbool.h>
#include <stdint.h>

#include "scene.h"

/* Reads the group `name` (Target "Parameter") of a .model3.json. *found tells whether the group
 * exists; its ids (possibly none) go to *out_ids / *out_count, owned by the scene. Errors
 * (TOOL_BAD_INPUT) name the file and, for syntax errors, line and column. */
int model3_group(scene *s, const char *path, const char *name, bool *found, const char ***out_ids,
                 uint32_t *out_count);

#endif
