/* Landmark JSON (SPEC §7): what pose trackers write, read into a pose clip (clip.h).
 *
 * Two shapes, told apart by their fields, in two layouts each:
 * - MediaPipe Tasks pose landmarker results: {"timestamp_ms": T, "worldLandmarks": [[{x, y, z,
 *   visibility, presence} x 33], ...]} (or "pose_world_landmarks", as the Python API names it).
 *   The first pose is used; an empty list is a frame with no detection; a pose of other than 33
 *   landmarks is an error. t_s = timestamp_ms / 1000.
 * - TensorFlow.js pose-detection (BlazePose) recordings: {"frames": [{"frameNum": n,
 *   "keypoints3D": [{x, y, z, score, name} x 33]}, ...], "ticksPerSecond": F}. `score` is the
 *   visibility; fewer than 33 keypoints (or none) is a frame with no detection, more is an error.
 *   t_s = frameNum / F; frameNum defaults to the frame's index, F to 30 (a frame may carry its
 *   own ticksPerSecond).
 * Layouts: one JSON document (an array of Tasks results or of TF.js frames, or a TF.js recording
 * object), or NDJSON: one result or frame per line (blank lines skipped). NDJSON is read a line at
 * a time, so a long recording is never held as text and as numbers at once; a document is read
 * whole, then scanned (and only where the scanner gives up, parsed into a jansson tree).
 *
 * visibility / score are optional (default 1) and must lie in [0, 1]; x, y, z are required,
 * finite and within the float32 range; other fields are ignored (trackers write more: image
 * landmarks, masks). timestamps never decrease. A frame without a detection becomes a clip row
 * with no detection (clip.h). Errors name the file, the line (NDJSON; or line and column for
 * JSON that does not parse) or the JSON path (e.g. frames[12].keypoints3D[4].z), and the field. */
#ifndef CROWD_TOOLS_LANDMARK_JSON_H
#define CROWD_TOOLS_LANDMARK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "clip.h"

/* true (the default): frames are read by a scanner where it can (landmark_scan.h), jansson for
 * the rest; false: jansson for everything (the tests and the fuzzer compare the two). */
extern bool landmark_json_fast;

/* Does the text look like JSON (its first byte after a UTF-8 byte order mark and white space is
 * '{' or '[')? A CSV clip starts with its header. */
bool landmark_json_sniff(const char *text, size_t size);

/* Reads landmark JSON held in memory (path names it in messages). TOOL_OK, TOOL_BAD_INPUT (a
 * message was printed) or TOOL_FAILED; on error *clip is left empty. */
int landmark_json_parse(const char *path, const char *text, size_t size, pose_clip *clip);
/* Reads landmark JSON from an open file, positioned at its start (a regular file: a document
 * is parsed from the start again once its layout is known). */
int landmark_json_read(const char *path, FILE *f, pose_clip *clip);

#endif
