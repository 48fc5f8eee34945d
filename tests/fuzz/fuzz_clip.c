/* libFuzzer target: the pose clip CSV reader (io/pose/clip_read.c) and stepping through what it reads.
 * Oracles (abort: a finding): the reader returns TOOL_OK, TOOL_BAD_INPUT or TOOL_FAILED; an
 * accepted clip has at least one row, t_s finite and non-decreasing, every landmark value finite
 * and every visibility in [0, 1], rows before any detection only at its start, with visibility
 * 0; its period is finite and >= 0, and clip_row_at gives a row of the clip for any time, looped
 * or not. (Text that starts like JSON goes to the landmark JSON reader.) Run with -close_fd_mask=2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clip.h"
#include "diag.h"

#define CHECK(cond, what)                                \
    do {                                                 \
        if (!(cond)) {                                   \
            fprintf(stderr, "fuzz_clip: %s\n", what);     \
            abort();                                     \
        }                                                \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    pose_clip clip;
    int st = clip_parse("fuzz.csv", (const char *)data, size, &clip);
    CHECK(st == TOOL_OK || st == TOOL_BAD_INPUT || st == TOOL_FAILED, "an unknown status");
    if (st != TOOL_OK) return 0;
    CHECK(clip.row_count >= 1, "a clip without rows");
    CHECK(clip.rest_rows <= clip.row_count, "more rows before a detection than rows");
    for (uint32_t r = 0; r < clip.rest_rows; r++)
        for (uint32_t c = 3; c < CLIP_FLOATS; c += 4)
            CHECK(clip_landmarks(&clip, r, CROWD_FRAME_ENGINE)[c] == 0, "a row before any detection is visible");
    for (uint32_t r = 0; r < clip.row_count; r++) {
        CHECK(isfinite(clip.t_s[r]), "a t_s is not finite");
        CHECK(r == 0 || clip.t_s[r] >= clip.t_s[r - 1], "t_s decreases");
        for (uint32_t c = 0; c < CLIP_FLOATS; c++) {
            float v = clip.landmarks[(size_t)r * CLIP_FLOATS + c];
            CHECK(isfinite(v), "a landmark value is not finite");
            CHECK(c % 4 != 3 || (v >= 0 && v <= 1), "a visibility outside [0, 1]");
        }
    }
    double period = clip_period(&clip);
    CHECK(isfinite(period) && period >= 0, "the period is not finite or negative");
    const double taus[] = {0, 1e-9, 0.5 * period, period, period * 1.5, 3 * period + 0.01, 1e6, 1e15};
    for (size_t k = 0; k < sizeof taus / sizeof taus[0]; k++)
        for (int loop = 0; loop < 2; loop++) CHECK(clip_row_at(&clip, taus[k], loop) < clip.row_count, "a row past the end");
    clip_free(&clip);
    return 0;
}
