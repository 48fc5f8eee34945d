/* test_cli_pose.c — `crowd pose CLIP` against the engine's API: one instance, root identity,
 * one tick per row with dt = (float)(t_s[k] - t_s[k-1]) (0 on the first row), bone world (or
 * local) rotations of every row, bit for bit. On a generated clip (irregular t_s, low
 * visibilities) with every flag, and on the shared CMU walk when ../shared/data is present.
 *
 * argv: TARGET CROWD_EXE (the engine target reaches `crowd pose` through CROWD_SIMD) */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"

static const char *const bone_names[15] = {
    "hips", "chest", "head", "left_upper_arm", "left_lower_arm", "left_hand", "right_upper_arm", "right_lower_arm",
    "right_hand", "left_upper_leg", "left_lower_leg", "left_foot", "right_upper_leg", "right_lower_leg", "right_foot"};

typedef struct clip {
    uint32_t rows;
    double *t;
    float *lm;
} clip;

/* Reads a clip the simple way (the test's own reader: strtod, float once). */
static clip read_clip(const char *path) {
    char *text = cli_read(path, NULL);
    assert_non_null(text);
    clip c = {0};
    char *save, *line = strtok_r(text, "\n", &save); /* header */
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        if (!line[0] || line[0] == '\r') continue;
        c.t = realloc(c.t, sizeof *c.t * (c.rows + 1));
        c.lm = realloc(c.lm, sizeof *c.lm * 132 * (c.rows + 1));
        char *p = strchr(line, ',') + 1;
        c.t[c.rows] = strtod(p, &p);
        for (int k = 0; k < 132; k++) c.lm[c.rows * 132 + k] = (float)strtod(p + 1, &p);
        c.rows++;
    }
    free(text);
    return c;
}

/* The bones the API gives for the clip with these limb settings. */
static float *api_bones(const clip *c, const crowd_limbs_desc *limbs, bool local) {
    crowd_engine *e = crowd_test_engine(0);
    crowd_rig rig;
    crowd_rig_desc rd = {.name = "pose", .limbs = limbs};
    assert_int_equal(crowd_rig_create(e, &rd, &rig), CROWD_OK);
    crowd_instance h;
    crowd_add_desc add = {.rig = rig, .count = 1};
    assert_int_equal(crowd_instances_add(e, &add, &h), CROWD_OK);
    float *q = malloc(sizeof *q * c->rows * 60);
    for (uint32_t k = 0; k < c->rows; k++) {
        float dt = k ? (float)(c->t[k] - c->t[k - 1]) : 0.0f;
        assert_int_equal(crowd_set(e, h, CROWD_FIELD_POSE, 0, &c->lm[k * 132]), CROWD_OK);
        assert_int_equal(crowd_tick(e, dt), CROWD_OK);
        for (uint32_t b = 0; b < 15; b++)
            assert_int_equal(crowd_get(e, h, local ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD, b, &q[(k * 15 + b) * 4]),
                             CROWD_OK);
    }
    crowd_engine_destroy(e);
    return q;
}

static void compare(const char *text, const float *q, uint32_t rows, const char *what) {
    char *copy = strdup(text), *save, *line = strtok_r(copy, "\n", &save);
    assert_string_equal(line, "frame,instance,bone,qx,qy,qz,qw");
    for (uint32_t k = 0; k < rows; k++)
        for (uint32_t b = 0; b < 15; b++) {
            line = strtok_r(NULL, "\n", &save);
            if (!line) fail_msg("%s: the output ends at row %u bone %u", what, k + 1, b);
            char head[64];
            snprintf(head, sizeof head, "%u,0,%s,", k + 1, bone_names[b]);
            if (strncmp(line, head, strlen(head)) != 0) fail_msg("%s: \"%s\" should start \"%s\"", what, line, head);
            char *p = line + strlen(head);
            for (int c = 0; c < 4; c++) {
                float got = strtof(p, &p);
                if (*p == ',') p++;
                float want = q[(k * 15 + b) * 4 + c];
                if (cli_bits(got) != cli_bits(want))
                    fail_msg("%s: row %u %s component %d: %.9g, the API gives %.9g", what, k + 1, bone_names[b], c,
                             (double)got, (double)want);
            }
        }
    assert_null(strtok_r(NULL, "\n", &save));
    free(copy);
}

/* Runs crowd pose on the clip with the flags; compares to the API with the matching desc. */
static void check(const char *path, const char *const *flags, const crowd_limbs_desc *limbs, bool local, bool to_file) {
    const char *args[32] = {"pose", path};
    size_t n = 2;
    for (size_t k = 0; flags[k]; k++) args[n++] = flags[k];
    const char *out = cli_path("bones_out.csv");
    remove(out);
    if (to_file) {
        args[n++] = "--bones";
        args[n++] = out;
    }
    cli_result r = cli_run_argv(args, NULL);
    cli_expect_ok(&r);
    clip c = read_clip(path);
    float *q = api_bones(&c, limbs, local);
    char *text = to_file ? cli_read(out, NULL) : strdup(r.out);
    assert_non_null(text);
    if (to_file) {
        assert_string_equal(r.out, "");
        assert_false(cli_exists_prefix(cli_path("bones_out.csv.")));
    }
    compare(text, q, c.rows, path);
    free(text);
    free(q);
    free(c.t);
    free(c.lm);
    cli_result_free(&r);
}

static const char *generated_clip(void) {
    enum { ROWS = 40 };
    static char path[1400];
    if (path[0]) return path;
    float lm[ROWS * 132];
    char t_text[ROWS][24];
    const char *t[ROWS];
    double time = 0;
    for (int k = 0; k < ROWS; k++) {
        /* irregular steps, one repeated time stamp (dt 0) */
        if (k) time += k == 7 ? 0.0 : 0.02 + 0.013 * (k % 3);
        snprintf(t_text[k], sizeof t_text[k], "%.6f", time);
        t[k] = t_text[k];
        cli_synthetic_pose(time, 2, &lm[k * 132]);
        /* MediaPipe-world flavour for the default frame: y down */
        if (k >= 10 && k < 14) lm[k * 132 + 13 * 4 + 3] = 0.3f; /* left elbow not trusted */
        if (k >= 20 && k < 22) lm[k * 132 + 26 * 4 + 3] = 0.05f; /* right knee not trusted */
    }
    char *text = cli_clip_text(ROWS, t, lm);
    snprintf(path, sizeof path, "%s", cli_write("generated.csv", text));
    free(text);
    return path;
}

static void test_defaults(void **state) {
    (void)state;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    const char *none[] = {NULL};
    check(generated_clip(), none, &limbs, false, false);
    check(generated_clip(), none, &limbs, false, true);
}

static void test_every_flag(void **state) {
    (void)state;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.frame = CROWD_FRAME_ENGINE;
    limbs.axis_fix = CROWD_AXIS_FIX_Z_ALONG_BONE;
    limbs.fallback = CROWD_FALLBACK_PREVIOUS;
    limbs.visibility_threshold = 0.25f;
    limbs.smoothing = true;
    const char *flags[] = {"--frame", "engine", "--axis-fix", "z_along_bone", "--fallback", "previous",
                           "--visibility-threshold", "0.25", "--smoothing", "one_euro", NULL};
    check(generated_clip(), flags, &limbs, false, true);
    const char *local_flags[] = {"--frame", "engine", "--axis-fix", "z_along_bone", "--fallback", "previous",
                                 "--visibility-threshold", "0.25", "--smoothing", "one_euro", "--local", NULL};
    check(generated_clip(), local_flags, &limbs, true, true);
    /* SPEC 5.1's settings */
    limbs = crowd_limbs_defaults();
    limbs.fallback = CROWD_FALLBACK_STABLE;
    limbs.smoothing = true;
    limbs.min_cutoff = 1.5f, limbs.beta = 0.25f, limbs.d_cutoff = 2.0f;
    limbs.hold_half_life = 0.7f, limbs.reacquire_half_life = 0.05f;
    limbs.bend_min = 5.0f, limbs.bend_full = 30.0f, limbs.arm_image_bend = 35.0f;
    const char *track_flags[] = {"--fallback", "stable", "--smoothing", "one_euro", "--min-cutoff", "1.5", "--beta", "0.25",
                                 "--d-cutoff=2", "--hold-half-life", "0.7", "--reacquire-half-life", "0.05",
                                 "--bend-min", "5", "--bend-full", "30", "--arm-image-bend", "35", NULL};
    check(generated_clip(), track_flags, &limbs, false, true);
    limbs.fallback = CROWD_FALLBACK_ROOT;
    const char *root_flags[] = {"--fallback", "root", "--smoothing", "one_euro", "--min-cutoff", "1.5", "--beta", "0.25",
                                "--d-cutoff=2", "--hold-half-life", "0.7", "--reacquire-half-life", "0.05",
                                "--bend-min", "5", "--bend-full", "30", "--arm-image-bend=35", "--local", NULL};
    check(generated_clip(), root_flags, &limbs, true, true);
    limbs = crowd_limbs_defaults();
    limbs.axis_fix = CROWD_AXIS_FIX_Y_ALONG_BONE;
    limbs.smoothing = false;
    limbs.visibility_threshold = 0;
    const char *y_flags[] = {"--axis-fix=y_along_bone", "--smoothing=off", "--visibility-threshold=0", "--local", NULL};
    check(generated_clip(), y_flags, &limbs, true, false);
}

/* --outputs: the kind asked for is what both gives, bit for bit; asking an output for the
 * other kind is refused before anything is written. */
static void test_outputs(void **state) {
    (void)state;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    const char *world[] = {"--outputs", "world", NULL}, *local[] = {"--outputs=local", "--local", NULL};
    check(generated_clip(), world, &limbs, false, true);
    check(generated_clip(), local, &limbs, true, true);
    const char *out = cli_path("refused.csv");
    remove(out);
    cli_result r = cli_run("pose", generated_clip(), "--outputs", "local", "--bones", out);
    cli_expect_fail(&r, 2, "pose: the bones trace without --local needs world rotations", "--outputs local");
    cli_result_free(&r);
    assert_false(cli_exists(out));
    r = cli_run("pose", generated_clip(), "--outputs", "world", "--local");
    cli_expect_fail(&r, 2, "pose: --local needs local rotations", "--outputs world stores world rotations only");
    cli_result_free(&r);
    r = cli_run("pose", generated_clip(), "--outputs", "world", "--bvh", cli_path("refused.bvh"));
    cli_expect_fail(&r, 2, "pose: --bvh needs local rotations");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("refused.bvh")));
    r = cli_run("pose", generated_clip(), "--outputs", "local", "--local", "--vmc", "127.0.0.1:9");
    cli_expect_fail(&r, 2, "pose: --vmc needs world rotations");
    cli_result_free(&r);
    r = cli_run("pose", generated_clip(), "--outputs", "all");
    cli_expect_fail(&r, 2, "--outputs");
    cli_result_free(&r);
    /* crowd stream shares the flag and the checks */
    r = cli_run("stream", "--outputs", "local");
    cli_expect_fail(&r, 2, "stream: the bones trace without --local needs world rotations");
    cli_result_free(&r);
}

static void test_shared_walk(void **state) {
    (void)state;
    const char *rel[] = {"pose/cmu_walk_30fps.csv", "pose/cmu_walk_30fps_noisy.csv", "pose/cmu_hop_30fps.csv"};
    for (int k = 0; k < 3; k++) {
        const char *path = crowd_test_data(rel[k]);
        if (!path) skip();
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", path);
        crowd_limbs_desc limbs = crowd_limbs_defaults();
        limbs.frame = CROWD_FRAME_ENGINE; /* the shared clips are in the engine frame */
        const char *flags[] = {"--frame", "engine", NULL};
        check(copy, flags, &limbs, false, true);
        if (k == 1) {
            limbs.smoothing = true;
            limbs.fallback = CROWD_FALLBACK_PREVIOUS;
            const char *more[] = {"--frame", "engine", "--smoothing", "one_euro", "--fallback", "previous", "--local", NULL};
            check(copy, more, &limbs, true, true);
        }
    }
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_flag),
        cmocka_unit_test(test_outputs),
        cmocka_unit_test(test_shared_walk),
    };
    return cmocka_run_group_tests_name("cli_pose", tests, NULL, NULL);
}
