/* Pose clips (SPEC §7): CSV, header
 *   frame,t_s,lm0_x,lm0_y,lm0_z,lm0_vis,...,lm32_x,lm32_y,lm32_z,lm32_vis
 * one row per frame, 33 landmarks, t_s non-decreasing, every number finite, visibility in
 * [0, 1]. Errors name the file, line, column and field. Or landmark JSON, as trackers write it
 * (landmark_json.h): clip_load and clip_parse tell the two apart by the content.
 *
 * No detection: a CSV row whose 132 landmark fields are all empty (",,,...") is a frame in which
 * the tracker found nobody (JSON: an empty pose list, fewer than 33 TF.js keypoints). The row
 * repeats the previous row's landmarks with visibility 0; rows before any detection hold the
 * canonical rest pose (crowd_rest_landmarks) with visibility 0, in the frame the clip is fed in
 * (clip_landmarks). So every bone is untrusted and eases toward rest, the torso and side state
 * read landmarks that do not jump, and the One Euro filter sees an unchanged input.
 *
 * Stepping: a clip holds each row from its t_s until the next row's; time tau counts from the
 * first row's t_s. Looped, the clip's period is (last t_s - first t_s) plus the last row's
 * interval (last t_s - the one before), so the last row holds as long as the one before it,
 * then the first row comes back. Not looped, the last row holds forever. */
#ifndef CROWD_TOOLS_CLIP_H
#define CROWD_TOOLS_CLIP_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd.h"

#define CLIP_FLOATS (CROWD_LANDMARK_COUNT * 4) /* x, y, z, visibility per landmark */

typedef struct pose_clip {
    char *path;          /* for messages */
    uint32_t row_count;  /* >= 1 */
    double *t_s;         /* [row_count] as read (double) */
    float *landmarks;    /* [row_count * CLIP_FLOATS], each rounded once from double */
    uint32_t *line;      /* [row_count] the line each row came from (0: built in code) */
    uint32_t rest_rows;  /* rows 0 .. rest_rows-1 came before any detection (see above) */
    uint32_t capacity;   /* rows allocated (clip_push) */
    uint8_t document;    /* rows from one landmark JSON document (line 0): CLIP_DOC_* */
} pose_clip;

enum { CLIP_DOC_NONE = 0, CLIP_DOC_ARRAY, CLIP_DOC_FRAMES, CLIP_DOC_ONE };
/* Where row k came from, for messages: "FILE:LINE", or in a one-document landmark JSON file its
 * JSON path "FILE: frames[k]" ("FILE: [k]", "FILE"), never a line 0. */
const char *clip_row_where(const pose_clip *clip, uint32_t k, char *buf, size_t size);

/* Reading (clip_read.c): */
/* Reads a clip. TOOL_OK, TOOL_BAD_INPUT (a message naming file, line, column and field was
 * printed) or TOOL_FAILED. On error *clip is left empty. */
int clip_load(const char *path, pose_clip *clip);
/* Parses a clip held in memory (path only names it in messages). */
int clip_parse(const char *path, const char *text, size_t size, pose_clip *clip);
/* Allocates an empty clip of row_count rows (t_s and landmarks zero). */
int clip_alloc(pose_clip *clip, const char *name, uint32_t row_count);
void clip_free(pose_clip *clip);
/* Appends a row (the readers): landmarks NULL is a frame with no detection. TOOL_OK or
 * TOOL_FAILED (out of memory, or more than 2^31 rows; printed). */
int clip_push(pose_clip *clip, double t_s, const float *landmarks, uint32_t line);
/* Makes row k (< row_count, rows before it filled) a row with no detection. */
void clip_no_detection(pose_clip *clip, uint32_t k);
/* Row `row`'s 132 values as fed to a rig whose landmarks are in `frame`: the clip's, or for a
 * row before any detection the canonical rest pose in that frame with visibility 0. */
const float *clip_landmarks(const pose_clip *clip, uint32_t row, crowd_pose_frame frame);

/* A clip read in the wrong frame stands on its head: when the head (mid-ears) is below the hips
 * (mid-hips) in `frame` on more than half of the rows where all four are seen, prints a warning
 * naming `setting` (the flag or scene field that chooses the frame) and returns true. */
bool clip_frame_warning(const pose_clip *clip, crowd_pose_frame frame, const char *setting);

/* The looping period in seconds (0 when every row has the same t_s). */
double clip_period(const pose_clip *clip);
/* The row in effect tau >= 0 seconds after the clip's start. */
uint32_t clip_row_at(const pose_clip *clip, double tau, bool loop);

/* The column names of the header, in order ("frame", "t_s", "lm0_x", ...): name of column k. */
void clip_column_name(uint32_t column, char *buf, size_t size);

#endif
