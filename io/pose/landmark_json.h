/* Landmark JSON (SPEC §7): what pose trackers write, read into a pose clip (clip.h).
 *
 * Two shapes, told apart by their fields, in two layouts each:
 * - MediaPipe Tasks pose landmarker results: {"timestamp_ms": T, "worldLandmarks": [[{x, y, z,
 *   visibility, presence} x 33], ...]} (or "pose_world_landmarks", as the Python API names it).
 *   Holistic Landmarker results too: "poseWorldLandmarks" (JavaScript, with "timestampMs"), or
 *   "pose_world_landmarks" holding the one pose's 33 landmarks directly (Python); their hands
 *   are read by hand_track.h.
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

/* One NDJSON line at a time, as it arrives (crowd stream): the same decoding, one frame (a Tasks
 * result or a TF.js frame) a line. The state carries what later lines depend on (a TF.js frame's
 * default frameNum and ticksPerSecond). */
typedef struct landmark_json_stream {
    const char *path; /* for messages ("-": standard input) */
    double ticks_per_second;
    uint32_t index;   /* frames decoded so far */
} landmark_json_stream;
void landmark_json_stream_init(landmark_json_stream *s, const char *path);
/* Decodes line number `line` (text[0..len), no newline, not blank) and appends its row to clip.
 * Time order is not checked here: the caller decides what an out-of-order frame means.
 * TOOL_OK, TOOL_BAD_INPUT (printed, naming path:line and the field; clip unchanged) or
 * TOOL_FAILED. */
int landmark_json_line(landmark_json_stream *s, const char *text, size_t len, uint32_t line, pose_clip *clip);

#endif
