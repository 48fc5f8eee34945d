/* test_cli_landmarks.c — landmark JSON as trackers write it (SPEC §7 "Landmark JSON") and frames
 * with no detection ("Pose clip"):
 * - one recording written as CSV, as MediaPipe Tasks NDJSON, as a pretty-printed Tasks array (the
 *   Python API's pose_world_landmarks, a second pose that must be ignored, extra fields), as a
 *   TF.js recording and as TF.js frames one a line gives the same bytes from `crowd pose`, and
 *   those bones are what the engine's API gives on the rows SPEC §7 prescribes for frames with
 *   no detection (before any detection the canonical rest pose, later the previous frame, each
 *   with visibility 0);
 * - a scene whose pose.clip is the NDJSON runs to the same checksum as with the CSV;
 * - bad JSON at every level exits 2 naming the file, the line or JSON path and the field, and
 *   writes nothing;
 * - in process, the reader's fast path and jansson alone give the same clip, bit for bit, for
 *   every layout, and refuse every bad text alike.
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"
#include "clip.h"
#include "diag.h"
#include "landmark_json.h"

/* The fast path and jansson alone: the same status and clip. */
static int both_paths(const char *name, const char *text) {
    pose_clip a, b;
    int sa = landmark_json_parse(name, text, strlen(text), &a);
    landmark_json_fast = false;
    int sb = landmark_json_parse(name, text, strlen(text), &b);
    landmark_json_fast = true;
    if (sa != sb) fail_msg("%s: the fast path says %d, jansson %d", name, sa, sb);
    if (sa == TOOL_OK) {
        assert_int_equal(a.row_count, b.row_count);
        assert_int_equal(a.rest_rows, b.rest_rows);
        assert_memory_equal(a.t_s, b.t_s, a.row_count * sizeof *a.t_s);
        assert_memory_equal(a.landmarks, b.landmarks, (size_t)a.row_count * CLIP_FLOATS * sizeof *a.landmarks);
        assert_memory_equal(a.line, b.line, a.row_count * sizeof *a.line);
        clip_free(&a);
        clip_free(&b);
    }
    return sa;
}

enum { ROWS = 40 };
#define FPS 16 /* t = k / 16: exact in binary, so every layout's time stamp gives the same double */

/* rows with no detection: two before any (0, 1), three later */
static bool undetected(int k) { return k == 0 || k == 1 || k == 12 || k == 13 || k == 25; }

static float recording[ROWS][132];

static void make_recording(void) {
    for (int k = 0; k < ROWS; k++) {
        cli_synthetic_pose((double)k / FPS, 1, recording[k]);
        for (int j = 0; j < 33; j++) {
            recording[k][j * 4 + 1] = -recording[k][j * 4 + 1]; /* MediaPipe world: +y down */
            recording[k][j * 4 + 3] = 0.6f + 0.4f * (float)((k * 7 + j) % 10) / 10.0f;
        }
        if (k >= 5 && k < 8) recording[k][15 * 4 + 3] = 0.2f; /* left wrist unseen for a while */
    }
}

static char *csv_text(void) {
    cli_buf b = {0};
    cli_buf_printf(&b, "frame,t_s");
    for (int k = 0; k < 33; k++) cli_buf_printf(&b, ",lm%d_x,lm%d_y,lm%d_z,lm%d_vis", k, k, k, k);
    cli_buf_printf(&b, "\n");
    for (int r = 0; r < ROWS; r++) {
        cli_buf_printf(&b, "%d,%.17g", r + 1, (double)r / FPS);
        for (int k = 0; k < 132; k++) {
            if (undetected(r)) cli_buf_printf(&b, ",");
            else cli_buf_printf(&b, ",%.9g", (double)recording[r][k]);
        }
        cli_buf_printf(&b, "\n");
    }
    return b.text;
}

static void landmark_list(cli_buf *b, int r, const char *vis, bool presence, const char *sep) {
    cli_buf_printf(b, "[");
    for (int j = 0; j < 33; j++) {
        const float *p = &recording[r][j * 4];
        cli_buf_printf(b, "%s%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"%s\": %.9g", j ? "," : "", sep, (double)p[0],
                       (double)p[1], (double)p[2], vis, (double)p[3]);
        if (presence) cli_buf_printf(b, ", \"presence\": 0.98");
        cli_buf_printf(b, "}");
    }
    cli_buf_printf(b, "]");
}

/* Tasks results, one a line (worldLandmarks, as the JavaScript API names it). */
static char *tasks_ndjson(void) {
    cli_buf b = {0};
    for (int r = 0; r < ROWS; r++) {
        cli_buf_printf(&b, "{\"timestamp_ms\": %.17g, \"worldLandmarks\": [", r * 1000.0 / FPS);
        if (!undetected(r)) landmark_list(&b, r, "visibility", true, "");
        cli_buf_printf(&b, "]}\n");
        if (r == 20) cli_buf_printf(&b, "\n"); /* a blank line is skipped */
    }
    return b.text;
}

/* A pretty-printed array of Python-style results, with a second pose and image landmarks. */
static char *tasks_array(void) {
    cli_buf b = {0};
    cli_buf_printf(&b, "\xEF\xBB\xBF[\n");
    for (int r = 0; r < ROWS; r++) {
        cli_buf_printf(&b, "  {\n    \"pose_landmarks\": [[{\"x\": 0.5, \"y\": 0.5, \"z\": 0}]],\n");
        cli_buf_printf(&b, "    \"timestamp_ms\": %.17g,\n    \"pose_world_landmarks\": [", r * 1000.0 / FPS);
        if (!undetected(r)) {
            landmark_list(&b, r, "visibility", true, "\n      ");
            cli_buf_printf(&b, ", ");
            landmark_list(&b, (r + 3) % ROWS, "visibility", true, ""); /* a second person: not used */
        }
        cli_buf_printf(&b, "]\n  }%s\n", r + 1 < ROWS ? "," : "");
    }
    cli_buf_printf(&b, "]\n");
    return b.text;
}

static void tfjs_frame(cli_buf *b, int r, bool own_rate) {
    cli_buf_printf(b, "{\"frameNum\": %d, %s\"keypoints3D\": ", r, own_rate ? "\"ticksPerSecond\": 16, " : "");
    if (undetected(r)) {
        /* fewer than 33 points is no detection: none, or a few */
        if (r == 12) cli_buf_printf(b, "[{\"x\": 0, \"y\": 0, \"z\": 0, \"score\": 0.1, \"name\": \"nose\"}]");
        else cli_buf_printf(b, "[]");
    } else {
        landmark_list(b, r, "score", false, "");
    }
    cli_buf_printf(b, "}");
}

static char *tfjs_recording(void) {
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"ticksPerSecond\": 16,\n \"frames\": [\n");
    for (int r = 0; r < ROWS; r++) {
        tfjs_frame(&b, r, false);
        cli_buf_printf(&b, "%s\n", r + 1 < ROWS ? "," : "");
    }
    cli_buf_printf(&b, "]}\n");
    return b.text;
}

static char *tfjs_lines(void) {
    cli_buf b = {0};
    for (int r = 0; r < ROWS; r++) {
        tfjs_frame(&b, r, true);
        cli_buf_printf(&b, "\r\n");
    }
    return b.text;
}

static char *pose_output(const char *path) {
    cli_result r = cli_run("pose", path, "--local");
    cli_expect_ok(&r);
    char *out = strdup(r.out);
    cli_result_free(&r);
    return out;
}

/* The rows SPEC §7 prescribes, through the API: local bones of every row. */
static void expect_api_bones(const char *text) {
    float rows[ROWS][132], rest[132];
    crowd_rest_landmarks(CROWD_FRAME_MEDIAPIPE_WORLD, rest);
    bool seen = false;
    for (int r = 0; r < ROWS; r++) {
        if (!undetected(r)) {
            memcpy(rows[r], recording[r], sizeof rows[r]);
            seen = true;
            continue;
        }
        memcpy(rows[r], seen ? rows[r - 1] : rest, sizeof rows[r]);
        for (int j = 0; j < 33; j++) rows[r][j * 4 + 3] = 0.0f;
    }
    crowd_engine *e = crowd_test_engine(0);
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    crowd_rig_desc rd = {.name = "pose", .limbs = &limbs};
    crowd_rig rig;
    assert_int_equal(crowd_rig_create(e, &rd, &rig), CROWD_OK);
    crowd_instance h;
    crowd_add_desc add = {.rig = rig, .count = 1};
    assert_int_equal(crowd_instances_add(e, &add, &h), CROWD_OK);
    char *copy = strdup(text), *save, *line = strtok_r(copy, "\n", &save);
    assert_string_equal(line, "frame,instance,bone,qx,qy,qz,qw");
    for (int r = 0; r < ROWS; r++) {
        assert_int_equal(crowd_set(e, h, CROWD_FIELD_POSE, 0, rows[r]), CROWD_OK);
        assert_int_equal(crowd_tick(e, r ? 1.0f / FPS : 0.0f), CROWD_OK);
        for (int b = 0; b < 15; b++) {
            float q[4];
            assert_int_equal(crowd_get(e, h, CROWD_FIELD_BONE_LOCAL, (uint32_t)b, q), CROWD_OK);
            line = strtok_r(NULL, "\n", &save);
            assert_non_null(line);
            char *p = line;
            for (int skip = 0; skip < 3; skip++) p = strchr(p, ',') + 1;
            for (int c = 0; c < 4; c++) {
                float got = strtof(p, &p);
                if (*p == ',') p++;
                if (cli_bits(got) != cli_bits(q[c]))
                    fail_msg("row %d bone %d component %d: crowd pose %.9g, the API %.9g", r + 1, b, c, (double)got,
                             (double)q[c]);
            }
        }
    }
    assert_null(strtok_r(NULL, "\n", &save));
    free(copy);
    crowd_engine_destroy(e);
}

static void test_same_bones_every_layout(void **state) {
    (void)state;
    make_recording();
    struct {
        const char *name;
        char *(*make)(void);
    } layouts[] = {{"rec.csv", csv_text},           {"rec.ndjson", tasks_ndjson}, {"rec_py.json", tasks_array},
                   {"rec_tfjs.json", tfjs_recording}, {"rec_tfjs.ndjson", tfjs_lines}};
    char *want = NULL;
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
        char *text = layouts[k].make();
        if (k) assert_int_equal(both_paths(layouts[k].name, text), TOOL_OK);
        const char *path = cli_write(layouts[k].name, text);
        free(text);
        char *got = pose_output(path);
        if (!want) {
            want = got;
            expect_api_bones(want);
            continue;
        }
        if (strcmp(got, want) != 0) fail_msg("%s gives other bones than the CSV", layouts[k].name);
        free(got);
    }
    free(want);
}

/* A partly empty CSV row is still an error: only all 132 landmark fields empty is no detection. */
static void test_csv_partly_empty(void **state) {
    (void)state;
    make_recording();
    char *text = csv_text();
    /* row 3 (line 4): empty its first landmark field only */
    char *line = text;
    for (int k = 0; k < 3; k++) line = strchr(line, '\n') + 1;
    char *field = strchr(strchr(line, ',') + 1, ',') + 1, *end = strchr(field, ',');
    memmove(field, end, strlen(end) + 1);
    const char *path = cli_write("partly.csv", text);
    free(text);
    cli_result r = cli_run("pose", path);
    cli_expect_fail(&r, 2, "partly.csv:4:", "lm0_x: empty field");
    cli_result_free(&r);
}

static void test_scene_reads_json(void **state) {
    (void)state;
    make_recording();
    char *csv = csv_text(), *nd = tasks_ndjson();
    cli_write("scene_clip.csv", csv);
    cli_write("scene_clip.ndjson", nd);
    free(csv);
    free(nd);
    const char *scene =
        "{\"frames\": 50, \"rigs\": [{\"name\": \"b\", \"limbs\": {}}],\n"
        " \"groups\": [{\"rig\": \"b\", \"count\": 5, \"pose\": {\"clip\": \"%s\", \"offset\": \"random\"}}]}\n";
    char text[512];
    snprintf(text, sizeof text, scene, "scene_clip.csv");
    const char *a = cli_write("scene_csv.json", text);
    snprintf(text, sizeof text, scene, "scene_clip.ndjson");
    const char *b = cli_write("scene_json.json", text);
    cli_result ra = cli_run("run", a, "--json", "--quiet", "--simd", cli_target);
    cli_result rb = cli_run("run", b, "--json", "--quiet", "--simd", cli_target);
    cli_expect_ok(&ra);
    cli_expect_ok(&rb);
    const char *sa = strstr(ra.out, "\"checksum\""), *sb = strstr(rb.out, "\"checksum\"");
    assert_non_null(sa);
    assert_non_null(sb);
    assert_string_equal(sa, sb);
    cli_result_free(&ra);
    cli_result_free(&rb);
}

/* ---- bad JSON ---- */
static char *one_frame_tasks(int r, int points) {
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"timestamp_ms\": %d, \"worldLandmarks\": [[", r * 50);
    for (int j = 0; j < points; j++)
        cli_buf_printf(&b, "%s{\"x\": 0.%d, \"y\": -0.5, \"z\": 0.1, \"visibility\": 0.9}", j ? ", " : "", j);
    cli_buf_printf(&b, "]]}");
    return b.text;
}

/* NDJSON of `lines` good frames with line `bad` (1-based) replaced by text. */
static char *ndjson_with(int lines, int bad, const char *text) {
    cli_buf b = {0};
    for (int k = 1; k <= lines; k++) {
        if (k == bad) {
            cli_buf_printf(&b, "%s\n", text);
            continue;
        }
        char *f = one_frame_tasks(k, 33);
        cli_buf_printf(&b, "%s\n", f);
        free(f);
    }
    return b.text;
}

static char *tfjs_with(int frames, int bad_frame, int bad_point, const char *point_text) {
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frames\": [\n");
    for (int k = 0; k < frames; k++) {
        cli_buf_printf(&b, "  {\"frameNum\": %d, \"keypoints3D\": [", k);
        for (int j = 0; j < 33; j++) {
            if (k == bad_frame && j == bad_point) cli_buf_printf(&b, "%s%s", j ? ", " : "", point_text);
            else cli_buf_printf(&b, "%s{\"x\": 0.1, \"y\": -0.5, \"z\": 0.%d, \"score\": 0.9, \"name\": \"p\"}", j ? ", " : "", j);
        }
        cli_buf_printf(&b, "]}%s\n", k + 1 < frames ? "," : "");
    }
    cli_buf_printf(&b, "], \"ticksPerSecond\": 30}\n");
    return b.text;
}

/* crowd pose FILE --bones out.csv: exit 2, stderr has the file's name and each text, no output. */
static void expect_bad(const char *name, char *text, const char *const *want) {
    assert_int_equal(both_paths(name, text), TOOL_BAD_INPUT);
    const char *path = cli_write(name, text);
    free(text);
    const char *out = cli_path("bad_out.csv");
    remove(out);
    cli_result r = cli_run("pose", path, "--bones", out);
    cli_expect_fail_(&r, 2, want, __FILE__, __LINE__);
    if (!strstr(r.err, name)) fail_msg("%s: the message does not name the file: %s", name, r.err);
    if (strchr(r.err, '\n') != r.err + strlen(r.err) - 1) fail_msg("%s: more than one line: %s", name, r.err);
    cli_result_free(&r);
    assert_false(cli_exists(out));
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    assert_false(cli_exists(tmp));
}
#define BAD(name, text, ...) expect_bad((name), (text), (const char *const[]){__VA_ARGS__, NULL})

static void test_bad_json(void **state) {
    (void)state;
    char *f = one_frame_tasks(3, 33);
    char *wrong = cli_replace(f, "\"x\": 0.4,", "\"x\": \"0.4\",");
    free(f);
    BAD("wrong_type.ndjson", ndjson_with(5, 3, wrong), "wrong_type.ndjson:3: worldLandmarks[0][4].x: expected a number, got a string");
    free(wrong);
    f = one_frame_tasks(2, 33);
    char *no_y = cli_replace(f, "{\"x\": 0.7, \"y\": -0.5, ", "{\"x\": 0.7, ");
    free(f);
    BAD("missing_y.ndjson", ndjson_with(4, 2, no_y), "missing_y.ndjson:2: worldLandmarks[0][7].y: missing");
    free(no_y);
    BAD("missing_z.json", tfjs_with(14, 12, 4, "{\"x\": 0.1, \"y\": 0.2, \"score\": 1}"), "frames[12].keypoints3D[4].z: missing");
    f = one_frame_tasks(4, 32);
    BAD("points32.ndjson", ndjson_with(6, 4, f), "points32.ndjson:4: worldLandmarks[0]: has 32 landmarks, expected 33");
    free(f);
}

static void test_bad_json_more(void **state) {
    (void)state;
    char *f = one_frame_tasks(2, 33);
    char *nan = cli_replace(f, "\"z\": 0.1", "\"z\": NaN");
    free(f);
    BAD("nan.ndjson", ndjson_with(3, 2, nan), "nan.ndjson:2:", "NaN");
    free(nan);
    BAD("nan_doc.json", tfjs_with(3, 1, 2, "{\"x\": NaN, \"y\": 0, \"z\": 0}"), "nan_doc.json:3:", "NaN");
    BAD("one_point.ndjson", ndjson_with(2, 2, "{\"timestamp_ms\": 5, \"worldLandmarks\": [[{\"x\": 1e39}]]}"),
        "one_point.ndjson:2: worldLandmarks[0]: has 1 landmarks");
    f = one_frame_tasks(2, 33);
    char *big = cli_replace(f, "\"x\": 0.5,", "\"x\": 1e39,");
    free(f);
    BAD("float_range.ndjson", ndjson_with(2, 2, big), "float_range.ndjson:2: worldLandmarks[0][5].x: 1e+39 is outside");
    free(big);
    BAD("unknown.ndjson", ndjson_with(3, 2, "{\"timestamp_ms\": 5, \"landmarks\": []}"), "unknown.ndjson:2:", "unknown shape");
    BAD("unknown_doc.json", strdup("{\"poses\": [1, 2]}\n"), "unknown_doc.json:", "unknown shape");
    BAD("not_object.json", strdup("[{\"timestamp_ms\": 0, \"worldLandmarks\": []}, 7]"), "not_object.json: [1]: expected a frame object");
    BAD("poses_object.ndjson", ndjson_with(2, 1, "{\"timestamp_ms\": 0, \"worldLandmarks\": {}}"),
        "poses_object.ndjson:1: worldLandmarks: expected an array of poses, got an object");
    BAD("no_time.ndjson", ndjson_with(2, 2, "{\"worldLandmarks\": []}"), "no_time.ndjson:2: timestamp_ms: missing");
    BAD("backwards.ndjson", ndjson_with(3, 3, "{\"timestamp_ms\": 1, \"worldLandmarks\": []}"),
        "backwards.ndjson:3: timestamp_ms:", "before the previous frame");
    BAD("vis.json", tfjs_with(3, 2, 0, "{\"x\": 0, \"y\": 0, \"z\": 0, \"score\": 1.5}"), "frames[2].keypoints3D[0].score: 1.5 is outside [0, 1]");
    BAD("kp_type.json", tfjs_with(2, 1, 3, "[0, 0, 0]"), "frames[1].keypoints3D[3]: expected a landmark object");
    BAD("frames_type.json", strdup("{\"frames\": {\"keypoints3D\": []}}"), "frames: expected an array of frames");
    BAD("tps.json", strdup("{\"frames\": [], \"ticksPerSecond\": 0}"), "ticksPerSecond: 0 is outside");
    BAD("empty.json", strdup("[]\n"), "empty.json: the landmark JSON holds no frames");
    BAD("syntax.json", strdup("{\"frames\": [\n  {\"frameNum\": 0, \"keypoints3D\": [}\n]}\n"), "syntax.json:2:", "not valid JSON");
    BAD("trailing.ndjson", ndjson_with(3, 2, "{\"timestamp_ms\": 50, \"worldLandmarks\": []} x"), "trailing.ndjson:2:", "not valid JSON");
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frameNum\": 0, \"keypoints3D\": [");
    for (int j = 0; j < 34; j++) cli_buf_printf(&b, "%s{\"x\": 0, \"y\": 0, \"z\": 0}", j ? ", " : "");
    cli_buf_printf(&b, "]}\n");
    BAD("points34.ndjson", b.text, "points34.ndjson:1: keypoints3D: has 34 keypoints, expected 33");
    /* through a scene: the scene and the clip are named */
    cli_write("bad_clip.ndjson", "{\"timestamp_ms\": 0, \"worldLandmarks\": [[]]}\n");
    const char *scene = cli_write("bad_clip_scene.json", "{\"rigs\": [{\"name\": \"b\", \"limbs\": {}}], \"groups\": "
                                                         "[{\"rig\": \"b\", \"pose\": {\"clip\": \"bad_clip.ndjson\"}}]}");
    cli_result r = cli_run("run", scene, "--quiet");
    cli_expect_fail(&r, 2, "bad_clip.ndjson:1: worldLandmarks[0]: has 0 landmarks", "bad_clip_scene.json");
    cli_result_free(&r);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bones_every_layout),
        cmocka_unit_test(test_csv_partly_empty),
        cmocka_unit_test(test_scene_reads_json),
        cmocka_unit_test(test_bad_json),
        cmocka_unit_test(test_bad_json_more),
    };
    return cmocka_run_group_tests_name("cli_landmarks", tests, NULL, NULL);
}
