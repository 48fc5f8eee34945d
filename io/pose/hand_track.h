/* Hand tracks (SPEC §7's landmark JSON family): MediaPipe hand results as NDJSON, one result a
 * line, for the fingers controller (crowd.h section 9a):
 *   Hand Landmarker (JavaScript names, then Python's):
 *     {"timestampMs" | "timestamp_ms": T,
 *      "worldLandmarks" | "hand_world_landmarks": [[{"x","y","z"} x 21], ...],   per hand
 *      "landmarks" | "hand_landmarks": [[{"x","y","z"} x 21], ...],               per hand
 *      "handedness" | "handednesses": [[{"score", "categoryName" | "category_name": "Left" |
 *                                        "Right", ...}], ...]}                       per hand
 *   Holistic Landmarker: "leftHandWorldLandmarks" | "left_hand_world_landmarks", "rightHand…",
 *   and the image landmarks "leftHandLandmarks" | "left_hand_landmarks", "rightHand…": a list
 *   of 21 landmarks, or a list holding one such list (no hand: absent or empty).
 * Zero, one or two hands a frame. World landmarks are used where a hand has them, else its
 * image landmarks with relative z, x and z scaled by `aspect` (the image's width/height; the
 * engine reads only directions). A Hand Landmarker hand goes to the slot its handedness names
 * through crowd_hand_from_handedness(label == "Right", mirrored), a Holistic hand to the slot
 * its key names the same way; its presence is the handedness score (Holistic: 1). A hand not in
 * a frame has presence 0 and keeps its previous landmarks. Two hands in one slot, a landmark
 * list that is not 21 objects with finite x, y, z, a label but Left or Right, a score outside
 * [0, 1], a missing or decreasing timestamp: errors naming the file, the line and the JSON path
 * of the field ("hands.ndjson:3: worldLandmarks[1][20].z: expected a finite number"). */
#ifndef CROWD_TOOLS_HAND_TRACK_H
#define CROWD_TOOLS_HAND_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

typedef struct hand_frame {
    double t_s;
    float hands[CROWD_HAND_COUNT][CROWD_HAND_FLOATS]; /* as CROWD_FIELD_HAND_LANDMARKS holds them */
    uint32_t line;
} hand_frame;

typedef struct hand_track {
    char *path; /* for messages */
    hand_frame *frames;
    uint32_t count, capacity;
} hand_track;

typedef struct hand_track_options {
    bool mirrored; /* the images were mirrored (crowd_fingers_desc.mirrored) */
    float aspect;  /* width/height for image landmarks; 1 when 0 */
} hand_track_options;

/* Reads a track file (a regular file within the size limit). TOOL_OK, TOOL_BAD_INPUT (message
 * printed) or TOOL_FAILED. On error *t is left empty. */
int hand_track_load(const char *path, const hand_track_options *opt, hand_track *t);
int hand_track_parse(const char *path, const char *text, size_t size, const hand_track_options *opt, hand_track *t);
void hand_track_free(hand_track *t);
/* Decodes one line into *out, continuing from *prev (or NULL). TOOL_OK or TOOL_BAD_INPUT. */
int hand_track_line(const char *path, const char *text, size_t len, uint32_t line, const hand_track_options *opt,
                    const hand_frame *prev, hand_frame *out);
/* Does a JSON line hold hand results (any of the keys above)? For readers that take several. */
bool hand_track_sniff(const char *text, size_t len);

#endif
