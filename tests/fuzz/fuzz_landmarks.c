/* libFuzzer target: the landmark JSON reader (io/pose/landmark_json.c) on any bytes, and the clip
 * it gives. Oracles (abort: a finding): a known status; an accepted clip has at least one row,
 * finite non-decreasing t_s, finite landmark values, visibilities in [0, 1], rows before any
 * detection counted at the start (rest_rows <= row_count), every row's line within the text's
 * lines (0 in a document), and clip_landmarks gives finite values for every row in both frames.
 * The fast path (landmark_scan.h) and jansson alone give the same status and, when accepted, the
 * same clip bit for bit. Run with -close_fd_mask=2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "diag.h"
#include "landmark_json.h"

#define CHECK(cond, what)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "fuzz_landmarks: %s\n", what); \
            abort();                                       \
        }                                                  \
    } while (0)

/* The same clip (or both refused the same way). */
static void same_as_jansson(const uint8_t *data, size_t size, int st, const pose_clip *fast) {
    pose_clip slow;
    landmark_json_fast = false;
    int st2 = landmark_json_parse("fuzz.json", (const char *)data, size, &slow);
    landmark_json_fast = true;
    CHECK(st == st2, "the fast path and jansson disagree on accepting the text");
    if (st != TOOL_OK) return;
    CHECK(slow.row_count == fast->row_count && slow.rest_rows == fast->rest_rows, "the fast path reads other rows");
    CHECK(memcmp(slow.t_s, fast->t_s, slow.row_count * sizeof *slow.t_s) == 0, "the fast path reads other times");
    CHECK(memcmp(slow.landmarks, fast->landmarks, (size_t)slow.row_count * CLIP_FLOATS * sizeof *slow.landmarks) == 0,
          "the fast path reads other landmarks");
    CHECK(memcmp(slow.line, fast->line, slow.row_count * sizeof *slow.line) == 0, "the fast path gives other lines");
    clip_free(&slow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pose_clip clip;
    int st = landmark_json_parse("fuzz.json", (const char *)data, size, &clip);
    same_as_jansson(data, size, st, &clip);
    CHECK(st == TOOL_OK || st == TOOL_BAD_INPUT || st == TOOL_FAILED, "an unknown status");
    if (st != TOOL_OK) {
        CHECK(clip.row_count == 0 && clip.landmarks == NULL, "a refused clip is not left empty");
        return 0;
    }
    size_t lines = 1;
    for (size_t k = 0; k < size; k++) lines += data[k] == '\n';
    CHECK(clip.row_count >= 1, "a clip without rows");
    CHECK(clip.rest_rows <= clip.row_count, "more rows before a detection than rows");
    for (uint32_t r = 0; r < clip.row_count; r++) {
        CHECK(isfinite(clip.t_s[r]), "a t_s is not finite");
        CHECK(r == 0 || clip.t_s[r] >= clip.t_s[r - 1], "t_s decreases");
        CHECK(clip.line[r] <= lines, "a row from past the last line");
        for (int frame = 0; frame < CROWD_FRAME_COUNT; frame++) {
            const float *lm = clip_landmarks(&clip, r, (crowd_pose_frame)frame);
            for (uint32_t c = 0; c < CLIP_FLOATS; c++) {
                CHECK(isfinite(lm[c]), "a landmark value is not finite");
                CHECK(c % 4 != 3 || (lm[c] >= 0 && lm[c] <= 1), "a visibility outside [0, 1]");
                CHECK(c % 4 != 3 || r >= clip.rest_rows || lm[c] == 0, "a row before any detection is visible");
            }
        }
    }
    clip_free(&clip);
    return 0;
}
