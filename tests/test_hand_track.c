/* The hand track reader (io/pose/hand_track.c): MediaPipe Hand Landmarker results in the
 * JavaScript and Python shapes, Holistic's per-side keys, frames with no, one and two hands,
 * mirrored input and image landmarks; and every refusal naming the file, line, JSON path and
 * field. Plain C outside the engine: registered once. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hand_track.h"

static int failures;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            failures++;                                                    \
        }                                                                  \
    } while (0)

/* 21 landmarks, landmark k at (base + k, 2 * (base + k), 3 * (base + k)) / 1000 */
static void landmarks(char *out, size_t cap, int base) {
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "[");
    for (int k = 0; k < 21; k++)
        n += (size_t)snprintf(out + n, cap - n, "%s{\"x\": %g, \"y\": %g, \"z\": %g}", k ? "," : "", (base + k) / 1000.0,
                              2 * (base + k) / 1000.0, 3 * (base + k) / 1000.0);
    snprintf(out + n, cap - n, "]");
}

static bool is_hand(const float *h, int base, float presence, float xscale) {
    for (int k = 0; k < 21; k++)
        if (fabsf(h[3 * k] - xscale * (float)((base + k) / 1000.0)) > 1e-6f || fabsf(h[3 * k + 1] - (float)(2 * (base + k) / 1000.0)) > 1e-6f ||
            fabsf(h[3 * k + 2] - xscale * (float)(3 * (base + k) / 1000.0)) > 1e-6f)
            return false;
    return h[63] == presence;
}

static char *text_of(const char *fmt, const char *a, const char *b) {
    size_t cap = strlen(fmt) + strlen(a) + strlen(b) + 64;
    char *t = malloc(cap);
    snprintf(t, cap, fmt, a, b);
    return t;
}

/* a refusal: the status, and a message naming what it names (stderr is the message; the
 * reader prints it through tool_error) */
static void refused(const char *what, const char *text) {
    hand_track t;
    hand_track_options o = {false, 0};
    int st = hand_track_parse("bad.ndjson", text, strlen(text), &o, &t);
    CHECK(st != 0, "%s: accepted", what);
}

int main(void) {
    static char a[4096], b[4096];
    landmarks(a, sizeof a, 100);
    landmarks(b, sizeof b, 500);
    hand_track_options plain = {false, 0}, mirrored = {true, 0}, wide = {false, 1.5f};
    hand_track t;

    /* JavaScript shape: two hands, then one, then none */
    {
        char *text = text_of("{\"timestampMs\": 0, \"worldLandmarks\": [%s, %s], \"handedness\": [[{\"score\": 0.9, \"index\": 0, "
                             "\"categoryName\": \"Left\", \"displayName\": \"Left\"}], [{\"score\": 0.8, \"categoryName\": \"Right\"}]]}\n",
                             a, b);
        size_t n = strlen(text);
        char *more = text_of("%s{\"timestampMs\": 33, \"worldLandmarks\": [%s], \"handedness\": [[{\"score\": 0.7, \"categoryName\": \"Right\"}]]}\n"
                             "\n{\"timestampMs\": 66, \"worldLandmarks\": [], \"handedness\": []}\n",
                             text, a);
        (void)n;
        CHECK(hand_track_parse("js.ndjson", more, strlen(more), &plain, &t) == 0, "the JavaScript shape");
        CHECK(t.count == 3, "3 frames, got %u", t.count);
        if (t.count == 3) {
            CHECK(is_hand(t.frames[0].hands[CROWD_HAND_LEFT], 100, 0.9f, 1) && is_hand(t.frames[0].hands[CROWD_HAND_RIGHT], 500, 0.8f, 1),
                  "frame 0: the labels name the slots");
            CHECK(is_hand(t.frames[1].hands[CROWD_HAND_RIGHT], 100, 0.7f, 1), "frame 1: one right hand");
            CHECK(t.frames[1].hands[CROWD_HAND_LEFT][63] == 0 && is_hand(t.frames[1].hands[CROWD_HAND_LEFT], 100, 0, 1),
                  "frame 1: the left hand is absent (presence 0) and keeps its landmarks");
            CHECK(t.frames[2].hands[0][63] == 0 && t.frames[2].hands[1][63] == 0, "frame 2: no hands");
            CHECK(fabs(t.frames[1].t_s - 0.033) < 1e-12 && t.frames[2].line == 4, "times and lines");
        }
        hand_track_free(&t);
        /* mirrored: the slots swap */
        CHECK(hand_track_parse("js.ndjson", text, strlen(text), &mirrored, &t) == 0, "mirrored");
        if (t.count == 1)
            CHECK(is_hand(t.frames[0].hands[CROWD_HAND_RIGHT], 100, 0.9f, 1) && is_hand(t.frames[0].hands[CROWD_HAND_LEFT], 500, 0.8f, 1),
                  "mirrored: a \"Left\" hand is the subject's right");
        hand_track_free(&t);
        free(text);
        free(more);
    }
    /* Python shape, image landmarks only (x and z scaled by the aspect) */
    {
        char *text = text_of("{\"timestamp_ms\": 5, \"hand_landmarks\": [%s], \"handedness\": [[{\"score\": 1, \"category_name\": \"Left\"}]]}%s\n", a, "");
        CHECK(hand_track_parse("py.ndjson", text, strlen(text), &wide, &t) == 0, "the Python shape");
        if (t.count == 1) CHECK(is_hand(t.frames[0].hands[CROWD_HAND_LEFT], 100, 1, 1.5f), "image landmarks scaled by the aspect");
        hand_track_free(&t);
        free(text);
    }
    /* Holistic: per-side keys, world preferred, a list or a list of one list */
    {
        char *text = text_of("{\"timestamp_ms\": 0, \"left_hand_world_landmarks\": [%s], \"right_hand_landmarks\": %s}\n", a, b);
        CHECK(hand_track_parse("holistic.ndjson", text, strlen(text), &plain, &t) == 0, "the Holistic shape");
        if (t.count == 1)
            CHECK(is_hand(t.frames[0].hands[CROWD_HAND_LEFT], 100, 1, 1) && is_hand(t.frames[0].hands[CROWD_HAND_RIGHT], 500, 1, 1),
                  "Holistic: left and right by key");
        hand_track_free(&t);
        free(text);
        text = text_of("{\"timestampMs\": 0, \"leftHandWorldLandmarks\": [%s], \"worldLandmarks\": [%s], "
                       "\"handedness\": [[{\"score\": 1, \"categoryName\": \"Left\"}]]}\n", a, b);
        refused("two left hands", text);
        free(text);
    }
    /* refusals */
    {
        char bad_z[4096];
        landmarks(bad_z, sizeof bad_z, 100);
        char *z = strstr(bad_z, "\"z\": 0.36"); /* landmark 20's z (3 * 120 / 1000) */
        if (z) memcpy(z + 5, "\"no\"", 4);
        char *text = text_of("{\"timestampMs\": 0, \"worldLandmarks\": [%s], \"handedness\": [[{\"categoryName\": \"Left\"}]]}%s\n", bad_z, "");
        refused("a string coordinate", text);
        free(text);
        text = text_of("{\"timestampMs\": 0, \"worldLandmarks\": [%s], \"handedness\": [[{\"categoryName\": \"Up\"}]]}%s\n", a, "");
        refused("a label but Left or Right", text);
        free(text);
        text = text_of("{\"timestampMs\": 0, \"worldLandmarks\": [%s], \"handedness\": [[{\"score\": 2, \"categoryName\": \"Left\"}]]}%s\n", a, "");
        refused("a score above 1", text);
        free(text);
        text = text_of("{\"timestampMs\": 0, \"worldLandmarks\": [%s]}%s\n", a, "");
        refused("no handedness", text);
        free(text);
        text = text_of("{\"worldLandmarks\": [%s], \"handedness\": [[{\"categoryName\": \"Left\"}]]}%s\n", a, "");
        refused("no timestamp", text);
        free(text);
        refused("20 landmarks", "{\"timestampMs\": 0, \"worldLandmarks\": [[{\"x\": 0, \"y\": 0, \"z\": 0}]], \"handedness\": [[{\"categoryName\": \"Left\"}]]}\n");
        refused("time going back", "{\"timestampMs\": 5}\n{\"timestampMs\": 4}\n");
        refused("not JSON", "{\"timestampMs\": \n");
        refused("empty", "\n\n");
    }
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("hand_track: all checks passed\n");
    return failures ? 1 : 0;
}
