/* Live2D file readers: .motion3.json, .exp3.json, .pose3.json and what a player needs of a
 * .model3.json (its Motions groups with their fades, Expressions, Pose, and the EyeBlink and
 * LipSync groups), into the structs of cubism_data.h.
 *
 * Each reader either fills *out completely and returns TOOL_OK, or returns TOOL_BAD_INPUT (a
 * file that does not parse or breaks a rule; the message names the file, the JSON path and the
 * value: "Hiyori_m01.motion3.json: Curves[3].Segments[17]: ...") or TOOL_FAILED (out of memory,
 * unreadable file) and leaves *out as it was: a caller can read into a loaded struct's place and
 * keep the old contents on error. Files are read as every tool reads them (tool_read_file: a
 * regular file of at most the size limit). Counts are bounded by the CUBISM_MAX_* limits of
 * cubism_data.h, checked before anything is allocated.
 *
 * The *_parse variants take the text instead of a file; `name` is what the messages call it.
 * The *_free functions free what a reader filled and zero the struct. */
#ifndef CROWD_TOOLS_CUBISM_FILES_H
#define CROWD_TOOLS_CUBISM_FILES_H

#include <stddef.h>

#include "cubism_data.h"

int cubism_motion_read(const char *path, cubism_motion *out);
int cubism_motion_parse(const char *name, const char *text, size_t size, cubism_motion *out);
void cubism_motion_free(cubism_motion *m);

int cubism_expression_read(const char *path, cubism_expression *out);
int cubism_expression_parse(const char *name, const char *text, size_t size, cubism_expression *out);
void cubism_expression_free(cubism_expression *e);

int cubism_pose_read(const char *path, cubism_pose *out);
int cubism_pose_parse(const char *name, const char *text, size_t size, cubism_pose *out);
void cubism_pose_free(cubism_pose *p);

int cubism_model3_read(const char *path, cubism_model3 *out);
int cubism_model3_parse(const char *name, const char *text, size_t size, cubism_model3 *out);
void cubism_model3_free(cubism_model3 *m);

#endif
