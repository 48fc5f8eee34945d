/* The landmark JSON reader's fast path (landmark_json.c): a scanner for the frame objects that
 * trackers write, which reads the numbers straight from the text instead of building a jansson
 * tree of 33 objects a frame. It accepts a strict subset of JSON (no escapes and only ASCII in
 * strings, nesting at most 32 deep, no repeated field that it reads) and reads numbers exactly
 * as jansson does (strtod for reals, strtoll for integers), so wherever it accepts a text the
 * frames are the ones the jansson path gives. Anything else, and every error, goes to the
 * jansson path, which accepts it or names the problem. */
#ifndef CROWD_TOOLS_LANDMARK_SCAN_H
#define CROWD_TOOLS_LANDMARK_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "clip.h"

typedef enum scan_kind { SCAN_TASKS = 0, SCAN_TFJS } scan_kind;

/* A field read as a number: absent, a number (value), or something else. */
typedef enum scan_state { SCAN_ABSENT = 0, SCAN_NUMBER, SCAN_OTHER } scan_state;

typedef struct scan_number {
    scan_state state;
    double value;
} scan_number;

typedef struct scan_frame {
    scan_kind kind;
    scan_number timestamp_ms, frame_num, ticks_per_second;
    size_t count;      /* landmarks of the first pose (Tasks) or keypoints (TF.js); 0: none / empty list */
    double lm[CLIP_FLOATS]; /* x, y, z, visibility as read (visibility 1 when absent), count == 33 only */
} scan_frame;

/* One frame object at *p (white space before it allowed); on success *p is just past it. */
bool scan_frame_object(const char **p, const char *end, scan_frame *out);
/* White space. */
const char *scan_ws(const char *p, const char *end);
/* Any JSON value the scanner accepts; NULL when it does not. */
const char *scan_skip(const char *p, const char *end, int depth);
/* A string without escapes: its bytes [*s, *s + *n); NULL when not one. */
const char *scan_string(const char *p, const char *end, const char **s, size_t *n);
/* A number: NULL when not one (or too long, or out of range as jansson would refuse it). */
const char *scan_number_value(const char *p, const char *end, double *out);

#endif
