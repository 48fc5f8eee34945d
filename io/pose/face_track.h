/* Face tracks (SPEC §7's landmark JSON family): MediaPipe Tasks face landmarker results as
 * NDJSON, one result a line:
 *   {"timestamp_ms": T,
 *    "faceBlendshapes": [{"categories": [{"index": i, "score": s, "categoryName": "...",
 *                                         "displayName": "..."} x 52], ...}, ...],
 *    "facialTransformationMatrixes": [{"rows": 4, "columns": 4, "data": [16 numbers]}, ...]}
 * as the JavaScript API gives it (data column-major; the Python API's names face_blendshapes,
 * category_name, facial_transformation_matrixes, with a matrix as 4 rows of 4, are accepted too).
 * The first face is used. Each category's index and categoryName must agree with MediaPipe's
 * order (crowd_face_source_name); scores finite in [0, 1]; the matrix a rotation times a
 * uniform scale (crowd_face_rotation_from_matrix). An empty faceBlendshapes list (or none) is a
 * frame with no face: presence 0, the previous frame's scores and rotation kept (before any
 * face: zeros and identity). A face without a matrix keeps the previous rotation. timestamp_ms
 * (or timestampMs) is required and non-decreasing. Blank lines are skipped. Errors name the
 * file, the line and the JSON path of the field ("track.ndjson:3: faceBlendshapes[0].
 * categories[25].score: ..."). */
#ifndef CROWD_TOOLS_FACE_TRACK_H
#define CROWD_TOOLS_FACE_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

typedef struct face_frame {
    double t_s;
    float scores[CROWD_FACE_SCORE_COUNT];
    float rotation[4]; /* x, y, z, w */
    float presence;    /* 1 with a face, 0 without */
    uint32_t line;
} face_frame;

typedef struct face_track {
    char *path; /* for messages */
    face_frame *frames;
    uint32_t count, capacity;
} face_track;

/* Reads a track file (a regular file within the size limit). TOOL_OK, TOOL_BAD_INPUT (message
 * printed) or TOOL_FAILED. On error *t is left empty. */
int face_track_load(const char *path, face_track *t);
int face_track_parse(const char *path, const char *text, size_t size, face_track *t);
void face_track_free(face_track *t);

/* Decodes one line into *out, continuing from *prev (the frame before, or NULL for the
 * first): scores and rotation carry over a frame without a face. TOOL_OK or TOOL_BAD_INPUT
 * (message printed, naming path and line). */
int face_track_line(const char *path, const char *text, size_t len, uint32_t line, const face_frame *prev,
                    face_frame *out);
/* Does a JSON line look like a face landmarker result (it has faceBlendshapes or
 * face_blendshapes)? For readers that take both face and pose lines. */
bool face_track_sniff(const char *text, size_t len);

/* Stepping as pose clips (clip.h): a frame holds from its t_s until the next one's; looped, the
 * period is (last - first t_s) plus the last interval. The frame in effect tau >= 0 s after the
 * first. */
uint32_t face_track_row_at(const face_track *t, double tau, bool loop);

/* Live2D default binding: the standard mapping entries (crowd_face_standard_mapping) whose
 * parameter the model names, in their order. The ids are the .cdi3.json's Parameters[].Id
 * (the model3's FileReferences.DisplayInfo, resolved beside it) and the model3's Groups' Ids.
 * out (at least CROWD_FACE_STANDARD_MAPPING_COUNT entries) gets the bound entries, *count
 * their number. TOOL_OK, TOOL_BAD_INPUT (naming the file and field), TOOL_FAILED. */
int face_bind_model3(const char *model3_path, crowd_face_mapping_desc *out, uint32_t *count);
/* The same from a list of parameter ids. */
uint32_t face_bind_ids(const char *const *ids, uint32_t id_count, crowd_face_mapping_desc *out);

#endif
