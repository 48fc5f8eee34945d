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

/* The file a .model3.json's FileReferences.<key> names (e.g. "Physics"), as a path beside the
 * model3 (malloc'd, the caller frees it), or *out_path = NULL when the entry is absent. Errors
 * (TOOL_BAD_INPUT) name the file and the field and show the value. */
int model3_file_reference(const char *path, const char *key, char **out_path);

#endif
