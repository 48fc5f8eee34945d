/* test_cli_bvh.c — BVH out (SPEC §7 "BVH"): `crowd pose … --bvh` and `crowd run … --bvh FILE
 * --instance K`, read by three.js's BVHLoader under Node (bvh_three.mjs: hierarchy, channels,
 * frame count and time, rotations against the bones trace within 0.05°, limb directions against
 * the landmarks). Also, without Node: the file's header, FILE.tmp renamed, bad --instance and an
 * unwritable FILE. The three.js checks skip (with the reason) when Node or the npm package
 * `three` (installed into the build folder by the npm_three fixture) is missing.
 * Blender (blender_pose_and_run): Debian's Blender imports `crowd pose --bvh` and `crowd run --bvh
 * --instance K` headless with its own importer (bvh_blender.py): bone directions against the
 * landmark segments within 0.05 degrees, the left limbs on the subject's left, frame count and
 * rate; skipped with the reason when `blender` is not installed (tools/dev test installs it).
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_support.h"

static bool have_three(void) {
    char pkg[1200];
    snprintf(pkg, sizeof pkg, "%s/package.json", CROWD_THREE_DIR);
    if (access(pkg, R_OK) != 0) {
        print_message("three.js is not installed in %s (the npm_three test installs it with npm): three.js checks "
                      "skipped\n", CROWD_THREE_DIR);
        return false;
    }
    if (system("node --version >/dev/null 2>&1") != 0) {
        print_message("node is not on PATH: three.js checks skipped\n");
        return false;
    }
    return true;
}

/* Runs bvh_three.mjs; fails the test with its output unless it exits 0. */
static void three_check(const char *bvh, const char *trace, const char *kind, int instance, int frames,
                        const char *frame_time, const char *clip, const char *frame, int seen_from) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' %s %d %d %s '%s' %s %d 2>&1", CROWD_BVH_SCRIPT, CROWD_THREE_DIR,
             bvh, trace, kind, instance, frames, frame_time, clip, frame, seen_from);
    cli_run_script(cmd, "three.js BVHLoader check");
}

static bool have_blender(void) {
    if (system("blender --version >/dev/null 2>&1") != 0) {
        print_message("blender is not installed (Debian: apt-get install blender; tools/dev test installs it): "
                      "Blender checks skipped\n");
        return false;
    }
    return true;
}

static const char *clip_file(const char *name, int rows, bool mediapipe, bool dropouts, double fps) {
    float *lm = malloc(sizeof *lm * 132 * rows);
    char (*t)[32] = malloc(sizeof *t * rows);
    const char **tp = malloc(sizeof *tp * rows);
    for (int r = 0; r < rows; r++) {
        cli_synthetic_pose(r / fps, 3, &lm[r * 132]);
        if (mediapipe)
            for (int j = 0; j < 33; j++) lm[r * 132 + j * 4 + 1] = -lm[r * 132 + j * 4 + 1];
        if (dropouts && r >= 8 && r < 12) lm[r * 132 + 26 * 4 + 3] = 0.1f; /* right knee unseen */
        if (dropouts && r >= 15 && r < 18) lm[r * 132 + 15 * 4 + 3] = 0.2f; /* left wrist unseen */
        snprintf(t[r], sizeof t[r], "%.17g", r / fps);
        tp[r] = t[r];
    }
    char *text = cli_clip_text((uint32_t)rows, tp, lm);
    if (dropouts) { /* rows 1 (before any detection) and 21 without a detection */
        cli_buf b = {0};
        char *line = text;
        for (int k = 0; *line; k++) {
            char *end = strchr(line, '\n');
            if (k == 1 || k == 21) {
                cli_buf_printf(&b, "%d,%s", k, t[k - 1]);
                for (int j = 0; j < 132; j++) cli_buf_printf(&b, ",");
                cli_buf_printf(&b, "\n");
            } else {
                cli_buf_printf(&b, "%.*s\n", (int)(end - line), line);
            }
            line = end + 1;
        }
        free(text);
        text = b.text;
    }
    const char *path = cli_write(name, text);
    free(text);
    free(lm);
    free(t);
    free(tp);
    return path;
}

static void test_pose_bvh(void **state) {
    (void)state;
    const char *clip = clip_file("clean.csv", 48, false, false, 24.0);
    const char *bvh = cli_path("clean.bvh"), *bones = cli_path("clean_local.csv");
    cli_result r = cli_run("pose", clip, "--frame", "engine", "--bvh", bvh, "--bones", bones, "--local");
    cli_expect_ok(&r);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    char tmp[1500];
    snprintf(tmp, sizeof tmp, "%s.tmp", bvh);
    assert_false(cli_exists(tmp));
    char *text = cli_read(bvh, NULL);
    assert_non_null(text);
    assert_true(strncmp(text, "HIERARCHY\nROOT Hips\n", 20) == 0);
    assert_non_null(strstr(text, "MOTION\nFrames: 48\nFrame Time: 0.0416666667\n"));
    free(text);
    if (!have_three()) skip();
    three_check(bvh, bones, "local", 0, 48, "0.041666666666666664", clip, "engine", 1);
}

static void test_pose_bvh_dropouts(void **state) {
    (void)state;
    /* MediaPipe world frame (the default), unseen joints and frames without a detection */
    const char *clip = clip_file("drop.csv", 30, true, true, 15.0);
    const char *bvh = cli_path("drop.bvh"), *bones = cli_path("drop_local.csv");
    cli_result r = cli_run("pose", clip, "--bvh", bvh, "--bones", bones, "--local", "--smoothing", "one_euro");
    cli_expect_ok(&r);
    cli_result_free(&r);
    if (!have_three()) skip();
    /* geometry on the first frames only: after a dropout a bone eases back in (SPEC §5.1) */
    three_check(bvh, bones, "local", 0, 30, "0.066666666666666666", "-", "mediapipe_world", 0);
}

static void test_run_bvh(void **state) {
    (void)state;
    clip_file("walk24.csv", 40, false, false, 24.0);
    char scene[1400]; /* (cli_path's buffers are reused) */
    snprintf(scene, sizeof scene, "%s", cli_write("bvh_scene.json",
                                  "{\"frames\": 37, \"dt\": 0.025, \"rigs\": [{\"name\": \"f\", \"parameters\": [{\"id\": \"P\"}]},\n"
                                  " {\"name\": \"b\", \"limbs\": {\"frame\": \"engine\"}}],\n"
                                  " \"groups\": [{\"rig\": \"f\", \"count\": 2},\n"
                                  "  {\"rig\": \"b\", \"count\": 4, \"pose\": {\"clip\": \"walk24.csv\", \"offset\": \"random\"}}]}\n"));
    char bvh[1400], bones[1400];
    snprintf(bvh, sizeof bvh, "%s", cli_path("run.bvh"));
    snprintf(bones, sizeof bones, "%s", cli_path("run_bones.csv"));
    cli_result r = cli_run("run", scene, "--bvh", bvh, "--instance", "4", "--bones", bones, "--quiet", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bvh, NULL);
    assert_non_null(strstr(text, "MOTION\nFrames: 37\nFrame Time: 0.0250000004\n"));
    free(text);
    /* --bones with --instance: instance 4's lines of the whole crowd's trace, nothing else */
    const char *all = cli_path("run_bones_all.csv");
    r = cli_run("run", scene, "--bones", all, "--quiet", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *all_text = cli_read(all, NULL), *one_text = cli_read(bones, NULL);
    assert_non_null(all_text);
    assert_non_null(one_text);
    cli_buf want = {0};
    int lines = 0;
    for (char *line = all_text; *line;) {
        char *end = strchr(line, '\n');
        int frame, instance;
        if (line == all_text || (sscanf(line, "%d,%d,", &frame, &instance) == 2 && instance == 4)) {
            cli_buf_printf(&want, "%.*s\n", (int)(end - line), line);
            lines++;
        }
        line = end + 1;
    }
    assert_int_equal(lines, 1 + 37 * 15);
    assert_string_equal(one_text, want.text);
    free(want.text);
    free(all_text);
    free(one_text);
    r = cli_run("run", scene, "--bones", cli_path("one.csv"), "--instance", "1", "--quiet");
    cli_expect_fail(&r, 2, "--bones: instance 1's rig \"f\" has no limbs");
    cli_result_free(&r);
    r = cli_run("run", scene, "--bones", cli_path("one.csv"), "--instance", "6", "--quiet");
    cli_expect_fail(&r, 2, "--instance 6: the scene has 6 instances");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("one.csv")));
    /* bad: no limbs, past the end, --instance alone, the same file twice */
    const char *bad = cli_path("bad.bvh");
    r = cli_run("run", scene, "--bvh", bad, "--instance", "1", "--quiet");
    cli_expect_fail(&r, 2, "instance 1's rig \"f\" has no limbs");
    cli_result_free(&r);
    r = cli_run("run", scene, "--bvh", bad, "--instance", "6", "--quiet");
    cli_expect_fail(&r, 2, "--instance 6: the scene has 6 instances");
    cli_result_free(&r);
    r = cli_run("run", scene, "--instance", "2", "--quiet");
    cli_expect_fail(&r, 2, "--instance goes with --bvh FILE, --vmc HOST:PORT or --bones FILE");
    cli_result_free(&r);
    r = cli_run("run", scene, "--bvh", bad, "--bones", bad, "--quiet");
    cli_expect_fail(&r, 2, "--bones and --bvh name the same file");
    cli_result_free(&r);
    assert_false(cli_exists(bad));
    r = cli_run("run", scene, "--bvh", cli_path("no/such/dir/x.bvh"), "--instance", "3", "--quiet");
    cli_expect_fail(&r, 1, "no/such/dir/x.bvh");
    cli_result_free(&r);
    if (!have_three()) skip();
    three_check(bvh, bones, "world", 4, 37, "0.0250000004", "-", "engine", 0);
}

static void test_shared_walk_bvh(void **state) {
    (void)state;
    const char *walk = crowd_test_data("pose/cmu_walk_30fps.csv");
    if (!walk) skip();
    char clip[4096];
    snprintf(clip, sizeof clip, "%s", walk);
    const char *bvh = cli_path("cmu.bvh"), *bones = cli_path("cmu_local.csv");
    cli_result r = cli_run("pose", clip, "--frame", "engine", "--bvh", bvh, "--bones", bones, "--local");
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bvh, NULL);
    char *frames = strstr(text, "Frames: ");
    assert_non_null(frames);
    int n = atoi(frames + 8);
    char frame_time[64];
    sscanf(strstr(text, "Frame Time: ") + 12, "%63s", frame_time);
    free(text);
    if (!have_three()) skip();
    three_check(bvh, bones, "local", 0, n, frame_time, clip, "engine", 1);
}

/* A clip read in the wrong frame (its head below its hips on most frames) gets a warning naming
 * the setting; read right, none. The synthetic walk's y points up (the engine frame). */
static void test_frame_warning(void **state) {
    (void)state;
    const char *up = clip_file("warn_up.csv", 20, false, false, 20.0);
    cli_result r = cli_run("pose", up, "--bones", cli_path("warn.csv"));
    cli_expect_ok(&r);
    assert_non_null(strstr(r.err, "warning: "));
    assert_non_null(strstr(r.err, "the head is below the hips on 20 of the 20 frames"));
    assert_non_null(strstr(r.err, "use --frame engine"));
    cli_result_free(&r);
    r = cli_run("pose", up, "--frame", "engine", "--bones", cli_path("warn.csv"));
    cli_expect_ok(&r);
    assert_string_equal(r.err, "");
    cli_result_free(&r);
    const char *down = clip_file("warn_down.csv", 20, true, false, 20.0);
    r = cli_run("pose", down, "--frame", "engine", "--bones", cli_path("warn.csv"));
    cli_expect_ok(&r);
    assert_non_null(strstr(r.err, "use --frame mediapipe_world"));
    cli_result_free(&r);
    r = cli_run("pose", down, "--bones", cli_path("warn.csv"));
    cli_expect_ok(&r);
    assert_string_equal(r.err, "");
    cli_result_free(&r);
    const char *scene = cli_write("warn_scene.json",
                                  "{\"frames\": 3, \"rigs\": [{\"name\": \"f\", \"parameters\": [{\"id\": \"P\"}]},\n"
                                  " {\"name\": \"b\", \"limbs\": {}}],\n"
                                  " \"groups\": [{\"rig\": \"f\", \"count\": 1},\n"
                                  "  {\"rig\": \"b\", \"count\": 2, \"pose\": {\"clip\": \"warn_up.csv\"}}]}\n");
    r = cli_run("run", scene, "--quiet");
    cli_expect_ok(&r);
    assert_non_null(strstr(r.err, "use rigs[1].limbs.frame engine"));
    cli_result_free(&r);
}

/* `crowd pose --bvh` (engine frame and mediapipe_world) and `crowd run --bvh --instance K`
 * imported by Blender; the run's scene plays its clip from row 0 at the clip's rate (dt 1/16 s,
 * a 16 fps clip: exact in binary), so frame k shows row k - 1 as bvh_blender.py expects. */
static void test_blender_pose_and_run(void **state) {
    (void)state;
    /* Blender reads the file, not the engine: the bytes are the same on every target (the
     * determinism suites hold them so), and one import takes 20-60 s, so one target runs it. */
    if (strcmp(cli_target, "scalar") != 0) {
        print_message("Blender's import runs on the scalar target only (the same BVH bytes on every target)\n");
        skip();
    }
    const char *clean = clip_file("blender_clean.csv", 40, false, false, 30.0);
    const char *mp = clip_file("blender_mp.csv", 25, true, false, 20.0);
    const char *walk16 = clip_file("blender_walk16.csv", 40, false, false, 16.0);
    const char *scene = cli_write("blender_scene.json",
                                  "{\"frames\": 33, \"dt\": 0.0625, \"rigs\": [{\"name\": \"b\", \"limbs\": {\"frame\": \"engine\"}}],\n"
                                  " \"groups\": [{\"rig\": \"b\", \"count\": 3, \"pose\": {\"clip\": \"blender_walk16.csv\"}}]}\n");
    const char *bvh_clean = cli_path("blender_clean.bvh"), *bvh_mp = cli_path("blender_mp.bvh"),
               *bvh_run = cli_path("blender_run.bvh");
    cli_result r = cli_run("pose", clean, "--frame", "engine", "--bvh", bvh_clean);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("pose", mp, "--bvh", bvh_mp);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--bvh", bvh_run, "--instance", "2", "--quiet", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    /* the CMU walk (a real subject), when the shared data is there */
    char walk_job[6000] = "";
    const char *walk = crowd_test_data("pose/cmu_walk_30fps.csv");
    if (walk) {
        const char *bvh_walk = cli_path("blender_cmu.bvh");
        r = cli_run("pose", walk, "--frame", "engine", "--bvh", bvh_walk);
        cli_expect_ok(&r);
        cli_result_free(&r);
        char *text = cli_read(bvh_walk, NULL);
        assert_non_null(text);
        int n = atoi(strstr(text, "Frames: ") + 8);
        char frame_time[64];
        sscanf(strstr(text, "Frame Time: ") + 12, "%63s", frame_time);
        free(text);
        snprintf(walk_job, sizeof walk_job, " '%s' '%s' engine %d %s", bvh_walk, walk, n, frame_time);
    }
    if (!have_blender()) skip();
    char cmd[16000];
    snprintf(cmd, sizeof cmd,
             "blender -b --factory-startup --python-exit-code 1 --python '%s' -- "
             "'%s' '%s' engine 40 0.033333333333333333 '%s' '%s' mediapipe_world 25 0.05 "
             "'%s' '%s' engine 33 0.0625%s 2>&1",
             CROWD_BVH_BLENDER_SCRIPT, bvh_clean, clean, bvh_mp, mp, bvh_run, walk16, walk_job);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    cli_buf out = {0};
    char line[4096];
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "bvh_blender", 11) == 0 || strstr(line, "Error") || strstr(line, "Traceback") ||
            strncmp(line, "  ", 2) == 0)
            cli_buf_printf(&out, "%s", line);
    int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("Blender's BVH import check failed:\n%s", out.text ? out.text : "");
    assert_non_null(out.text);
    assert_non_null(strstr(out.text, ", 0 failures"));
    print_message("%s", out.text);
    free(out.text);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pose_bvh),
        cmocka_unit_test(test_pose_bvh_dropouts),
        cmocka_unit_test(test_run_bvh),
        cmocka_unit_test(test_shared_walk_bvh),
        cmocka_unit_test(test_frame_warning),
        cmocka_unit_test(test_blender_pose_and_run),
    };
    return cmocka_run_group_tests_name("cli_bvh", tests, NULL, NULL);
}
