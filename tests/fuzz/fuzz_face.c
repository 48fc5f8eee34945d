/* libFuzzer target: the face track reader (io/pose/face_track.c) on any bytes, and the track it
 * gives. Oracles (abort: a finding): a known status; a refused track is left empty; an accepted
 * track has frames with finite non-decreasing t_s, scores in [0, 1], a finite unit rotation,
 * presence 0 or 1, every frame's line within the text's lines, and face_track_row_at stays in
 * the track, looped or not, at any time. Run with -close_fd_mask=2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "face_track.h"

#define CHECK(cond, what)                             \
    do {                                              \
        if (!(cond)) {                                \
            fprintf(stderr, "fuzz_face: %s\n", what); \
            abort();                                  \
        }                                             \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    face_track t;
    int st = face_track_parse("fuzz.ndjson", (const char *)data, size, &t);
    CHECK(st == TOOL_OK || st == TOOL_BAD_INPUT || st == TOOL_FAILED, "an unknown status");
    if (st != TOOL_OK) {
        CHECK(t.count == 0 && t.frames == NULL, "a refused track is not left empty");
        return 0;
    }
    size_t lines = 1;
    for (size_t k = 0; k < size; k++) lines += data[k] == '\n';
    CHECK(t.count >= 1, "a track without frames");
    for (uint32_t k = 0; k < t.count; k++) {
        const face_frame *f = &t.frames[k];
        CHECK(isfinite(f->t_s), "a t_s is not finite");
        CHECK(k == 0 || f->t_s >= t.frames[k - 1].t_s, "t_s decreases");
        CHECK(f->line >= 1 && f->line <= lines, "a frame from outside the text's lines");
        CHECK(f->presence == 0.0f || f->presence == 1.0f, "a presence other than 0 or 1");
        for (int s = 0; s < CROWD_FACE_SCORE_COUNT; s++)
            CHECK(f->scores[s] >= 0.0f && f->scores[s] <= 1.0f, "a score outside [0, 1]");
        double n = 0;
        for (int c = 0; c < 4; c++) {
            CHECK(isfinite(f->rotation[c]), "a rotation is not finite");
            n += (double)f->rotation[c] * f->rotation[c];
        }
        CHECK(fabs(n - 1.0) < 1e-3, "a rotation is not a unit quaternion");
    }
    double span = t.frames[t.count - 1].t_s - t.frames[0].t_s;
    const double taus[] = {0.0, 0.5 * span, span, 2.5 * span + 0.1, 1e300};
    for (size_t k = 0; k < sizeof taus / sizeof *taus; k++) {
        CHECK(face_track_row_at(&t, taus[k], false) < t.count, "face_track_row_at past the track");
        CHECK(face_track_row_at(&t, taus[k], true) < t.count, "face_track_row_at (looped) past the track");
    }
    face_track_free(&t);
    return 0;
}
