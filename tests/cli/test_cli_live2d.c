/* test_cli_live2d.c — Live2D motions, expressions and pose in scenes, against the real Cubism
 * Framework's golden traces (../shared/data/cubism; each test skips without them):
 * - motion: a rig with Hiyori's model3 and "motions", a group playing Motions "Idle" 0: `crowd
 *   run --trace` gives every parameter within 1e-5 of its range of the framework's at every frame
 *   (motion_Hiyori_m01_60fps_noloop; the scene's dt is float32, the trace's 1/60 double), the
 *   same for each instance, and with `--motion Idle:0` instead of the group's "motion";
 *   bad --motion and --expression values refused; "random" gives each instance a clip of the group (not all the same),
 *   "stagger" puts instance 1 further into the clip
 * - expression: Haru's F04 from its model3 by name on the golden's base state (its parameters'
 *   defaults): the parameters as expression_Haru_F04_F05_F02_60fps before F05 starts
 * - pose: Haru's pose3 from its model3, the golden's pseudo-parameter schedule written between
 *   ticks: the part opacities as pose_Haru_60fps
 * - stream: audio level lines ({"timestamp_ms", "mouth"}) through `crowd stream --params`, the
 *   levels the framework's RMS of haru_talk_13.wav: ParamMouthOpenY as the framework's after
 *   addParameterValueById(rms, 0.8) (lipsync_haru_talk_13_60fps); a bad level named by line
 * - render: Haru with its physics3 (2 instances side by side, 0.5 s apart in a TapBody motion)
 *   against the same scene without physics: the pictures differ (only the hair parameters
 *   differ: physics writes nothing else drawn) in each instance's half, and differently at two
 *   frames; a WAV through lip sync shows more mouth-red pixels than the same scene silent
 * - resume: a run saved mid-motion (random looping clips, jittered speeds, an idle group,
 *   physics) and resumed ends with the uninterrupted run's checksum; the motion3 files are among
 *   the scene's inputs (what the run fingerprint hashes)
 * - ranges: the resume scene split into two worlds of consecutive instances (as crowd run --mpi
 *   splits it) gives every instance the whole world's bytes each frame
 * - bad fields: each refused (exit 2) with its JSON path named */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "cli_support.h"
#include "files.h"
#include "ticker.h"
#include "scene.h"
#include "world.h"

static char g_model3[4096];

static json_t *golden(const char *relative) {
    const char *p = crowd_test_data(relative);
    if (!p) return NULL;
    json_t *g = json_load_file(p, 0, NULL);
    assert_non_null(g);
    return g;
}

static bool model3(const char *model) {
    char rel[256];
    snprintf(rel, sizeof rel, "cubism/inputs/%s/%s.model3.json", model, model);
    const char *p = crowd_test_data(rel);
    if (!p) return false;
    snprintf(g_model3, sizeof g_model3, "%s", p);
    return true;
}

/* The golden's parameters as a rig's, defaults from `base` (an array of values) when given. */
static json_t *parameters(json_t *g, json_t *base) {
    json_t *out = json_array(), *p;
    size_t k;
    json_array_foreach(json_object_get(g, "parameters"), k, p) {
        json_t *d = base ? json_array_get(base, k) : json_object_get(p, "default");
        json_array_append_new(out, json_pack("{s:O, s:O, s:O, s:O}", "id", json_object_get(p, "id"), "min",
                                             json_object_get(p, "min"), "max", json_object_get(p, "max"), "default", d));
    }
    return out;
}

/* The trace CSV (frame,instance,id,value) of instance `instance`: value of (frame, id) in a
 * frames x ids table, ids in the golden's parameter order. */
static float *read_trace(const char *path, json_t *g, uint32_t frames, uint32_t instance) {
    json_t *params = json_object_get(g, "parameters");
    size_t P = json_array_size(params);
    float *t = calloc((size_t)frames * P, sizeof *t);
    assert_non_null(t);
    for (size_t k = 0; k < (size_t)frames * P; k++) t[k] = NAN;
    size_t size;
    char *text = cli_read(path, &size);
    assert_non_null(text);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned f, i;
        char id[256];
        float v;
        if (sscanf(line, "%u,%u,%255[^,],%g", &f, &i, id, &v) != 4 || i != instance || f < 1 || f > frames) continue;
        size_t k;
        json_t *p;
        json_array_foreach(params, k, p) if (strcmp(json_string_value(json_object_get(p, "id")), id) == 0)
            t[(size_t)(f - 1) * P + k] = v;
    }
    free(text);
    return t;
}

/* Worst |trace - golden| / range over the golden's param: columns and frames [0, frames). */
static double worst_error(json_t *g, const float *t, uint32_t frames) {
    json_t *params = json_object_get(g, "parameters"), *cols = json_object_get(g, "columns");
    size_t P = json_array_size(params);
    double worst = 0;
    for (size_t k = 0; k < P; k++) {
        json_t *p = json_array_get(params, k);
        const char *id = json_string_value(json_object_get(p, "id"));
        double range = json_number_value(json_object_get(p, "max")) - json_number_value(json_object_get(p, "min"));
        size_t col = SIZE_MAX, c;
        json_t *name;
        json_array_foreach(cols, c, name) {
            const char *n = json_string_value(name);
            if (strncmp(n, "param:", 6) == 0 && strcmp(n + 6, id) == 0) col = c;
        }
        if (col == SIZE_MAX) continue;
        for (uint32_t f = 0; f < frames; f++) {
            double want = json_number_value(json_array_get(json_array_get(json_object_get(g, "frames"), f), col));
            double got = t[(size_t)f * P + k];
            assert_false(isnan(got));
            worst = fmax(worst, fabs(got - want) / range);
        }
    }
    return worst;
}

static const char *write_scene(const char *name, json_t *root) {
    char *text = json_dumps(root, JSON_REAL_PRECISION(17));
    const char *p = cli_write(name, text);
    free(text);
    return p;
}

static void test_motion(void **state) {
    (void)state;
    json_t *g = golden("cubism/motion/motion_Hiyori_m01_60fps_noloop.json");
    if (!g || !model3("Hiyori")) skip();
    uint32_t frames = (uint32_t)json_array_size(json_object_get(g, "frames"));
    json_t *root = json_pack("{s:f, s:i, s:[{s:s, s:s, s:o, s:{}}], s:[{s:s, s:i, s:{s:s, s:i}}]}", "dt", 1.0 / 60,
                             "frames", (int)frames, "rigs", "name", "hiyori", "model3", g_model3, "parameters",
                             parameters(g, NULL), "motions", "groups", "rig", "hiyori", "count", 3, "motion", "group",
                             "Idle", "index", 0);
    const char *scene_path = write_scene("motion.json", root);
    const char *trace = cli_path("motion.csv");
    cli_result r = cli_run("run", scene_path, "--trace", trace);
    cli_expect_ok(&r);
    cli_result_free(&r);
    for (uint32_t i = 0; i < 3; i++) {
        float *t = read_trace(trace, g, frames, i);
        double worst = worst_error(g, t, frames);
        printf("motion Hiyori_m01 60fps, instance %u: every parameter within %.3g of its range of the framework's\n",
               i, worst);
        assert_true(worst <= 1e-5);
        free(t);
    }
    /* stagger: instance 1 is 0.5 s further in, so it differs from instance 0 */
    json_object_set_new(json_object_get(json_array_get(json_object_get(root, "groups"), 0), "motion"), "stagger",
                        json_real(0.5));
    scene_path = write_scene("motion_stagger.json", root);
    r = cli_run("run", scene_path, "--trace", trace);
    cli_expect_ok(&r);
    cli_result_free(&r);
    float *t0 = read_trace(trace, g, frames, 0), *t1 = read_trace(trace, g, frames, 1);
    assert_true(worst_error(g, t0, frames) <= 1e-5); /* instance 0 is at offset 0 */
    assert_true(worst_error(g, t1, frames) > 1e-3);
    free(t0), free(t1);
    /* the same clip from the command line: --motion GROUP:INDEX on a group without "motion" */
    json_object_del(json_array_get(json_object_get(root, "groups"), 0), "motion");
    scene_path = write_scene("motion_flag.json", root);
    r = cli_run("run", scene_path, "--trace", trace, "--motion", "Idle:0");
    cli_expect_ok(&r);
    cli_result_free(&r);
    t0 = read_trace(trace, g, frames, 2);
    assert_true(worst_error(g, t0, frames) <= 1e-5);
    free(t0);
    r = cli_run("run", scene_path, "--motion", "Idle:9");
    cli_expect_fail(&r, 2, "--motion: Motions group \"Idle\" of ", "has 9 clips: no index 9");
    cli_result_free(&r);
    r = cli_run("run", scene_path, "--motion", "Idle:-1");
    cli_expect_fail(&r, 2, "--motion \"Idle:-1\": \"-1\" is not a clip index or random");
    cli_result_free(&r);
    r = cli_run("run", scene_path, "--expression", "F01");
    cli_expect_fail(&r, 2, "--expression: no group of ");
    cli_result_free(&r);
    json_decref(root);
    json_decref(g);
}

static void test_random_clips(void **state) {
    (void)state;
    json_t *g = golden("cubism/motion/motion_Hiyori_m01_60fps_noloop.json");
    if (!g || !model3("Hiyori")) skip();
    json_t *root = json_pack("{s:i, s:[{s:s, s:s, s:o, s:{}}], s:[{s:s, s:i, s:{s:s, s:s, s:b}}]}", "frames", 60,
                             "rigs", "name", "hiyori", "model3", g_model3, "parameters", parameters(g, NULL), "motions",
                             "groups", "rig", "hiyori", "count", 16, "motion", "group", "Idle", "index", "random",
                             "loop", 1);
    char *text = json_dumps(root, 0);
    scene sc;
    assert_int_equal(scene_parse("random.json", text, strlen(text), &sc), 0);
    world w;
    assert_int_equal(world_create(&w, &sc, CROWD_SIMD_SCALAR, 1), 0);
    uint32_t seen = 0, idle = sc.rigs[0].motion_group_count;
    for (uint32_t k = 0; k < sc.rigs[0].motion_group_count; k++)
        if (strcmp(sc.rigs[0].motion_group_names[k], "Idle") == 0) idle = k;
    assert_true(idle < sc.rigs[0].motion_group_count);
    for (uint32_t i = 0; i < 16; i++) {
        crowd_motion_status st;
        assert_int_equal(crowd_motion_status_get(w.engine, w.handles[i], &st), CROWD_OK);
        assert_true(st.clip >= (int32_t)sc.rigs[0].motion_group_first[idle] &&
                    st.clip < (int32_t)sc.rigs[0].motion_group_first[idle + 1]);
        seen |= 1u << (st.clip - (int32_t)sc.rigs[0].motion_group_first[idle]);
    }
    assert_true(__builtin_popcount(seen) >= 3); /* 16 draws over 9 clips */
    world_destroy(&w);
    scene_free(&sc);
    free(text);
    json_decref(root);
    json_decref(g);
}

static void test_expression(void **state) {
    (void)state;
    json_t *g = golden("cubism/expression/expression_Haru_F04_F05_F02_60fps.json");
    if (!g || !model3("Haru")) skip();
    json_t *base = json_object_get(json_object_get(g, "baseState"), "valuesFloat32");
    uint32_t frames = 120; /* F05 starts before frame 120 */
    json_t *root = json_pack("{s:f, s:i, s:[{s:s, s:s, s:o, s:{}}], s:[{s:s, s:i, s:s}]}", "dt", 1.0 / 60, "frames",
                             (int)frames, "rigs", "name", "haru", "model3", g_model3, "parameters", parameters(g, base),
                             "expressions", "groups", "rig", "haru", "count", 2, "expression", "F04");
    const char *scene_path = write_scene("expression.json", root);
    const char *trace = cli_path("expression.csv");
    cli_result r = cli_run("run", scene_path, "--trace", trace);
    cli_expect_ok(&r);
    cli_result_free(&r);
    float *t = read_trace(trace, g, frames, 1);
    double worst = worst_error(g, t, frames);
    printf("expression F04 60fps: every parameter within %.3g of its range of the framework's\n", worst);
    assert_true(worst <= 1e-5);
    free(t);
    json_decref(root);
    json_decref(g);
}

static void test_pose(void **state) {
    (void)state;
    json_t *g = golden("cubism/pose/pose_Haru_60fps.json");
    json_t *pg = golden("cubism/expression/expression_Haru_F04_F05_F02_60fps.json"); /* Haru's parameters */
    if (!g || !pg || !model3("Haru")) skip();
    json_t *root = json_pack("{s:[{s:s, s:s, s:o, s:{}}], s:[{s:s, s:i}]}", "rigs", "name", "haru", "model3", g_model3,
                             "parameters", parameters(pg, NULL), "pose", "groups", "rig", "haru", "count", 2);
    char *text = json_dumps(root, 0);
    scene sc;
    assert_int_equal(scene_parse("pose.json", text, strlen(text), &sc), 0);
    world w;
    assert_int_equal(world_create(&w, &sc, CROWD_SIMD_SCALAR, 1), 0);
    json_t *cols = json_object_get(g, "columns"), *frames = json_object_get(g, "frames");
    json_t *schedule = json_object_get(g, "schedule"), *dts = json_object_get(g, "dt");
    /* pose part index of each opacity column: the pose's parts in group order */
    const crowd_pose_desc *pd = &sc.rigs[0].pose;
    double worst = 0;
    for (size_t f = 0; f < json_array_size(frames); f++) {
        size_t k;
        json_t *e;
        json_array_foreach(schedule, k, e) {
            if ((size_t)json_integer_value(json_object_get(e, "beforeUpdateOfFrame")) != f) continue;
            const char *id;
            json_t *v;
            json_object_foreach(json_object_get(e, "setPseudoParameterValues"), id, v) {
                uint32_t part = 0, index = UINT32_MAX;
                for (uint32_t gi = 0; gi < pd->group_count; gi++)
                    for (uint32_t p = 0; p < pd->groups[gi].part_count; p++, part++)
                        if (strcmp(pd->groups[gi].parts[p].id, id) == 0) index = part;
                assert_true(index != UINT32_MAX);
                float value[2] = {(float)json_number_value(v), (float)json_number_value(v)};
                assert_int_equal(crowd_instances_set(w.engine, CROWD_FIELD_PART_PARAMETER, index, w.handles, 2, value),
                                 CROWD_OK);
            }
        }
        assert_int_equal(crowd_tick_exact(w.engine, json_number_value(json_array_get(dts, f))), CROWD_OK);
        json_t *name;
        json_array_foreach(cols, k, name) {
            const char *n = json_string_value(name);
            if (strncmp(n, "partOpacity:", 12) != 0) continue;
            uint32_t part = 0, index = UINT32_MAX;
            for (uint32_t gi = 0; gi < pd->group_count; gi++)
                for (uint32_t p = 0; p < pd->groups[gi].part_count; p++, part++)
                    if (strcmp(pd->groups[gi].parts[p].id, n + 12) == 0) index = part;
            assert_true(index != UINT32_MAX);
            float got[2];
            assert_int_equal(crowd_instances_get(w.engine, CROWD_FIELD_PART_OPACITY, index, w.handles, 2, got),
                             CROWD_OK);
            double want = json_number_value(json_array_get(json_array_get(frames, f), k));
            for (int i = 0; i < 2; i++) worst = fmax(worst, fabs((double)got[i] - want));
        }
    }
    printf("pose Haru 60fps from the scene's model3: part opacities within %.3g of the framework's\n", worst);
    assert_true(worst <= 1e-5);
    world_destroy(&w);
    scene_free(&sc);
    free(text);
    json_decref(root);
    json_decref(pg);
    json_decref(g);
}

/* Each bad field: exit 2 and the message naming the JSON path. */
static void test_bad_fields(void **state) {
    (void)state;
    json_t *g = golden("cubism/motion/motion_Hiyori_m01_60fps_noloop.json");
    if (!g || !model3("Hiyori")) skip();
    static const struct {
        const char *rig_extra, *group_extra, *want;
    } cases[] = {
        {"\"motions\": {\"idle\": \"Sleep\"}", "", "rigs[0].motions.idle: "},
        {"\"motions\": {\"loop_idel\": true}", "", "rigs[0].motions.loop_idel: unknown field (did you mean 'loop_idle'?)"},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Dance\"}", "groups[0].motion.group: "},
        {"\"motions\": {}", ", \"motion\": {\"index\": 0}", "groups[0].motion.group: is required"},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"index\": 9}", "groups[0].motion.index: "},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"index\": \"any\"}", "groups[0].motion.index: "},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"priority\": \"none\"}", "groups[0].motion.priority: "},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"speed\": -1}", "groups[0].motion.speed: "},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"speed_jitter\": 1}", "groups[0].motion.speed_jitter: "},
        {"\"motions\": {}", ", \"motion\": {\"group\": \"Idle\", \"stagger\": \"x\"}", "groups[0].motion.stagger: "},
        {"", ", \"motion\": {\"group\": \"Idle\"}", "groups[0].motion: rig \"hiyori\" has no \"motions\""},
        {"", ", \"expression\": \"F01\"", "groups[0].expression: rig \"hiyori\" has no \"expressions\""},
        {"\"expressions\": {}", "", "rigs[0].expressions: "}, /* Hiyori has no Expressions */
        {"\"pose\": {\"file\": \"missing.pose3.json\"}", "", "missing.pose3.json"},
    };
    json_t *pj = parameters(g, NULL);
    char *params = json_dumps(pj, 0);
    json_decref(pj);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cli_buf b = {0};
        cli_buf_printf(&b, "{\"frames\": 2, \"rigs\": [{\"name\": \"hiyori\", \"model3\": \"%s\", \"parameters\": %s%s%s}],"
                           " \"groups\": [{\"rig\": \"hiyori\", \"count\": 1%s}]}",
                       g_model3, params, cases[k].rig_extra[0] ? ", " : "", cases[k].rig_extra, cases[k].group_extra);
        const char *p = cli_write("bad.json", b.text);
        cli_result r = cli_run("run", p);
        cli_expect_fail(&r, 2, cases[k].want);
        cli_result_free(&r);
        free(b.text);
    }
    /* motions without a model3 */
    const char *p = cli_write("bad.json", "{\"rigs\": [{\"name\": \"r\", \"parameters\": [{\"id\": \"A\"}], "
                                          "\"motions\": {}}]}");
    cli_result r = cli_run("run", p);
    cli_expect_fail(&r, 2, "rigs[0].motions: needs the rig's \"model3\"");
    cli_result_free(&r);
    free(params);
    json_decref(g);
}

static void test_stream_audio(void **state) {
    (void)state;
    json_t *g = golden("cubism/lipsync/lipsync_haru_talk_13_60fps.json");
    if (!g) skip();
    json_t *frames = json_object_get(g, "frames");
    size_t n = json_array_size(frames);
    cli_buf b = {0};
    for (size_t k = 0; k < n; k++) {
        json_t *row = json_array_get(frames, k);
        /* (the trace's wav clock stops at the sound's end: the frame's own time instead) */
        cli_buf_printf(&b, "{\"timestamp_ms\": %.17g, \"mouth\": %.17g}\n", (double)k * 1000.0 / 60.0,
                       json_number_value(json_array_get(row, 5)));
        if (k == 3) cli_buf_printf(&b, "{\"timestamp_ms\": 999999, \"mouth\": 1.5}\n"); /* line 5: refused, skipped */
    }
    const char *in = cli_write("audio.ndjson", b.text);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --params '%s' < '%s' 2> '%s'", cli_target, cli_exe,
             cli_path("audio.csv"), in, cli_path("audio.err"));
    int status = system(cmd);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *err = cli_read(cli_path("audio.err"), NULL), *csv = cli_read(cli_path("audio.csv"), NULL);
    if (!strstr(err, "-:5: mouth: expected a number in [0, 1]")) FAILF("stderr: %s", err);
    double worst = 0;
    size_t seen = 0;
    char *save = NULL;
    for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned f, i;
        float v;
        if (sscanf(line, "%u,%u,ParamMouthOpenY,%g", &f, &i, &v) != 3) continue;
        assert_true(f >= 1 && f <= n);
        double want = json_number_value(json_array_get(json_array_get(frames, f - 1), 6));
        worst = fmax(worst, fabs((double)v - want));
        seen++;
    }
    printf("stream audio lines: %zu mouths within %.3g of the framework's\n", seen, worst);
    assert_int_equal(seen, n);
    assert_true(worst <= 1e-6);
    free(err), free(csv), free(b.text);
    json_decref(g);
}

typedef struct picture {
    uint32_t width, height;
    uint8_t *rgb;
} picture;

static picture read_png(const char *path) {
    picture p = {0};
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) fail_msg("%s: %s", path, image.message);
    image.format = PNG_FORMAT_RGB;
    p.width = image.width, p.height = image.height;
    p.rgb = malloc(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, NULL, p.rgb, 0, NULL)) fail_msg("%s: %s", path, image.message);
    return p;
}

static picture render(const char *name, json_t *root, const char *frame) {
    const char *scene_path = write_scene(name, root);
    char out[1100];
    snprintf(out, sizeof out, "%s.png", scene_path);
    cli_result r = cli_run("render", scene_path, "--out", out, "--frame", frame, "--size", "640x480", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    return read_png(out);
}

/* Pixels that differ between a and b, in the left and the right half; mask[k] set where they do. */
static void differ(const picture *a, const picture *b, size_t half[2], uint8_t *mask) {
    half[0] = half[1] = 0;
    for (uint32_t y = 0; y < a->height; y++)
        for (uint32_t x = 0; x < a->width; x++) {
            size_t k = (size_t)y * a->width + x;
            bool d = memcmp(&a->rgb[k * 3], &b->rgb[k * 3], 3) != 0;
            if (mask) mask[k] = d;
            if (d) half[x >= a->width / 2]++;
        }
}

static size_t mouth_pixels(const picture *p) { /* render.c's mouth colour */
    size_t n = 0;
    for (size_t k = 0; k < (size_t)p->width * p->height; k++)
        n += p->rgb[k * 3] == 176 && p->rgb[k * 3 + 1] == 64 && p->rgb[k * 3 + 2] == 76;
    return n;
}

static void test_render_hair_mouth(void **state) {
    (void)state;
    json_t *pg = golden("cubism/expression/expression_Haru_F04_F05_F02_60fps.json"); /* Haru's parameters */
    const char *wav = crowd_test_data("cubism/inputs/Haru/sounds/haru_talk_13.wav");
    char wav_path[4096]; /* (crowd_test_data's buffer is static) */
    snprintf(wav_path, sizeof wav_path, "%s", wav ? wav : "");
    if (!pg || !wav || !model3("Haru")) skip();
    json_t *root = json_pack("{s:f, s:i, s:[{s:s, s:s, s:o, s:{}, s:{}}], s:[{s:s, s:i, s:{s:[f, f], s:i, s:[f, f]}, "
                             "s:{s:s, s:i, s:b, s:f}}]}",
                             "dt", 1.0 / 30, "frames", 60, "rigs", "name", "haru", "model3", g_model3, "parameters",
                             parameters(pg, NULL), "physics", "motions", "groups", "rig", "haru", "count", 2, "place",
                             "at", 0.0, 1.2, "columns", 2, "spacing", 1.6, 1.0, "motion", "group", "TapBody", "index", 0,
                             "loop", 1, "stagger", 0.5);
    assert_non_null(root);
    json_t *rig = json_array_get(json_object_get(root, "rigs"), 0);
    picture a40 = render("hair.json", root, "40"), a50 = render("hair.json", root, "50");
    json_object_del(rig, "physics");
    picture b40 = render("still.json", root, "40"), b50 = render("still.json", root, "50");
    size_t n = (size_t)a40.width * a40.height, h40[2], h50[2];
    uint8_t *m40 = calloc(n, 1), *m50 = calloc(n, 1);
    differ(&a40, &b40, h40, m40);
    differ(&a50, &b50, h50, m50);
    printf("render: hair pixels moved by physics: frame 40 %zu left, %zu right; frame 50 %zu left, %zu right\n", h40[0],
           h40[1], h50[0], h50[1]);
    assert_true(h40[0] > 20 && h40[1] > 20 && h50[0] > 20 && h50[1] > 20);
    assert_true(memcmp(m40, m50, n) != 0);
    assert_true(h40[0] != h40[1] || h50[0] != h50[1]); /* the two instances' hair swings differently */
    /* lip sync from the WAV opens the mouths */
    json_object_set_new(rig, "lipsync", json_object());
    picture quiet = render("quiet.json", root, "15"); /* (the sound lasts 1.5 s) */
    json_object_set_new(json_array_get(json_object_get(root, "groups"), 0), "audio",
                        json_pack("{s:s, s:f}", "wav", wav_path, "stagger", 0.3));
    picture talk = render("talk.json", root, "15");
    printf("render: mouth pixels silent %zu, talking %zu\n", mouth_pixels(&quiet), mouth_pixels(&talk));
    assert_true(mouth_pixels(&talk) > mouth_pixels(&quiet) + 10);
    free(m40), free(m50);
    free(a40.rgb), free(a50.rgb), free(b40.rgb), free(b50.rgb), free(quiet.rgb), free(talk.rgb);
    json_decref(root);
    json_decref(pg);
}

static const char *checksum_of(const cli_result *r, char *out, size_t size) {
    const char *line = strrchr(r->out, '{');
    assert_non_null(line);
    json_t *j = json_loads(line, 0, NULL);
    assert_non_null(j);
    json_t *c = json_object_get(j, "checksum");
    if (json_is_string(c)) snprintf(out, size, "%s", json_string_value(c));
    else snprintf(out, size, "%.17g", json_number_value(c));
    json_decref(j);
    return out;
}

static void test_resume_mid_motion(void **state) {
    (void)state;
    json_t *g = golden("cubism/motion/motion_Hiyori_m01_60fps_noloop.json");
    if (!g || !model3("Hiyori")) skip();
    /* 8 s: the TapBody clips end and idle clips start, some of them after the save */
    json_t *root = json_pack("{s:f, s:i, s:[{s:s, s:s, s:o, s:{s:s}, s:{}}], s:[{s:s, s:i, s:{s:s, s:s, s:b, s:f, s:f}}]}",
                             "dt", 1.0 / 30, "frames", 240, "rigs", "name", "hiyori", "model3", g_model3, "parameters",
                             parameters(g, NULL), "motions", "idle", "Idle", "physics", "groups", "rig", "hiyori",
                             "count", 9, "motion", "group", "TapBody", "index", "random", "loop", 0, "stagger", 0.3,
                             "speed_jitter", 0.3);
    assert_non_null(root);
    const char *scene_path = write_scene("resume.json", root);
    char whole[64], resumed[64], snap[1100];
    snprintf(snap, sizeof snap, "%s.snap", scene_path);
    cli_result r = cli_run("run", scene_path, "--json");
    cli_expect_ok(&r);
    checksum_of(&r, whole, sizeof whole);
    cli_result_free(&r);
    r = cli_run("run", scene_path, "--json", "--snapshot-at", "100", snap);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene_path, "--json", "--resume", snap);
    cli_expect_ok(&r);
    checksum_of(&r, resumed, sizeof resumed);
    cli_result_free(&r);
    printf("resume mid-motion: whole run %s, resumed after frame 100 %s\n", whole, resumed);
    assert_string_equal(whole, resumed);
    /* the motion3 files are inputs of the scene */
    char *text = json_dumps(root, 0);
    scene sc;
    size_t before = tool_input_count();
    assert_int_equal(scene_parse("resume.json", text, strlen(text), &sc), 0);
    bool m01 = false;
    for (size_t k = 0; k < sc.inputs_count; k++) {
        const tool_input *in = tool_input_at(sc.inputs_first + k);
        m01 |= strstr(in->path, "Hiyori_m01.motion3.json") != NULL;
    }
    assert_true(sc.inputs_first >= before && m01);
    /* the same scene in two ranges: each instance's draws (clip, speed) and stagger are its own */
    world full, part[2];
    assert_int_equal(world_create(&full, &sc, CROWD_SIMD_SCALAR, 1), 0);
    assert_int_equal(world_create_range(&part[0], &sc, CROWD_SIMD_SCALAR, 1, 0, 4), 0);
    assert_int_equal(world_create_range(&part[1], &sc, CROWD_SIMD_SCALAR, 1, 4, 5), 0);
    for (uint32_t k = 1; k <= 90; k++) {
        world *all[3] = {&full, &part[0], &part[1]};
        for (int q = 0; q < 3; q++) {
            double seconds = 0;
            world_prepare_frame(all[q], k, sc.dt);
            assert_int_equal(ticker_tick(all[q], sc.dt, &seconds), 0);
        }
        for (uint32_t i = 0; i < 9; i++)
            assert_true(world_instance_digest(&full, i) == world_instance_digest(&part[i >= 4], i - (i >= 4 ? 4 : 0)));
    }
    world_destroy(&full);
    world_destroy(&part[0]);
    world_destroy(&part[1]);
    scene_free(&sc);
    free(text);
    json_decref(root);
    json_decref(g);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_motion), cmocka_unit_test(test_random_clips), cmocka_unit_test(test_expression),
        cmocka_unit_test(test_pose),   cmocka_unit_test(test_bad_fields), cmocka_unit_test(test_stream_audio),
        cmocka_unit_test(test_render_hair_mouth), cmocka_unit_test(test_resume_mid_motion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
