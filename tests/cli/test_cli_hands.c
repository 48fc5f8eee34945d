/* test_cli_hands.c — fingers out of `crowd pose` (crowd.h section 9a): a pose clip plus a
 * MediaPipe Hand Landmarker recording (--hands), or one Holistic Landmarker recording.
 * - hands_bones: the bones trace holds the body's 15 rows and the 30 finger bones, and every
 *   finger bone's direction (y_along_bone: local +y) is its landmark segment, taken from
 *   MediaPipe's frame into the engine's (y negated), within 1e-4 rad on every frame (presence
 *   threshold 0: the plain solve); the hand rows are the palms' (wrist to the middle of 5, 17);
 *   the local trace (easing, the limbs' smoothing) the same bytes as the scalar target's;
 * - holistic: the same body and hands as one Holistic recording (JavaScript names) give the same
 *   finger rows as the two files, and the Python API's names the same bytes as JavaScript's;
 * - mirrored: --mirrored swaps the hands (MediaPipe's "Left" label of a selfie is the right hand)
 *   and mirrors x;
 * - bad_hands: a non-finite coordinate, a wrong landmark count, a bad label are refused with the
 *   file, the line and the JSON path; --mirrored without hands is bad usage; nothing is written;
 * - stream_hands: `crowd stream --hands` on a Holistic recording, and on hand lines beside pose
 *   lines, writes crowd pose's bytes;
 * - vmc_fingers: `--vmc` received by the npm package osc (vmc_fingers.mjs): the 30 finger bones
 *   by Unity's names, and the composed rotations turn vmc.h's T-pose hand onto the landmarks;
 * - vrma_fingers: `--vrma` played by @pixiv/three-vrm-animation on a VRM humanoid with finger
 *   bones (vrma_fingers.mjs): every finger bone along its landmark segment within 0.05 degrees;
 * - blender_hands: Debian's Blender imports the BVH with finger joints (bvh_blender.py --hands):
 *   every finger bone's direction equals its landmark segment within 0.05 degrees, as the body's.
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli_support.h"

#define ROWS 24
#define FPS 24.0
#define PI_ 3.14159265358979323846

/* A right hand in its own frame (x index -> little, y wrist -> fingers, z out of the palm),
 * its fingers flexing over time, turned by a wrist rotation; the left hand mirrors x. Metres. */
static void hand_at(double t, int right, double lm[21][3]) {
    static const double mcp[4][2] = {{-0.024, 0.088}, {-0.004, 0.090}, {0.014, 0.085}, {0.030, 0.077}};
    static const double len[4][3] = {{0.040, 0.024, 0.018}, {0.044, 0.027, 0.019}, {0.041, 0.026, 0.019}, {0.032, 0.019, 0.017}};
    double p[21][3] = {{0}};
    for (int f = 0; f < 4; f++) {
        double flex = (10 + 35 * (1 + sin(2.0 * t + f))) * PI_ / 180, a = 0;
        double at[3] = {mcp[f][0], mcp[f][1], 0};
        memcpy(p[5 + 4 * f], at, sizeof at);
        for (int j = 0; j < 3; j++) {
            a += flex * (j == 0 ? 0.8 : 1.0);
            at[1] += len[f][j] * cos(a), at[2] += len[f][j] * sin(a);
            memcpy(p[6 + 4 * f + j], at, sizeof at);
        }
    }
    double th[3] = {-0.022, 0.022, 0.010}, tb = (20 + 25 * (1 + sin(1.5 * t))) * PI_ / 180;
    memcpy(p[1], th, sizeof th);
    for (int j = 0; j < 3; j++) { /* out toward -x and up, bending across the palm */
        double a = 0.6 + tb * j * 0.5;
        th[0] -= 0.03 * cos(a) * 0.7, th[1] += 0.03 * sin(0.9 + 0.2 * j), th[2] += 0.03 * sin(a) * 0.5;
        memcpy(p[2 + j], th, sizeof th);
    }
    double yaw = 0.4 * sin(t), pitch = 0.3 * cos(0.7 * t), cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch);
    for (int k = 0; k < 21; k++) {
        double x = p[k][0], y = p[k][1], z = p[k][2];
        double y2 = cp * y - sp * z, z2 = sp * y + cp * z; /* pitch about x, then yaw about y */
        lm[k][0] = (cy * x + sy * z2) * (right ? 1 : -1), lm[k][1] = y2, lm[k][2] = -sy * x + cy * z2;
    }
}

/* MediaPipe's frame (y down) of an engine-frame point. */
static void to_mediapipe(const double e[3], double m[3]) { m[0] = e[0], m[1] = -e[1], m[2] = e[2]; }

static void landmark_list(cli_buf *b, const double lm[21][3]) {
    cli_buf_printf(b, "[");
    for (int k = 0; k < 21; k++) {
        double m[3];
        to_mediapipe(lm[k], m);
        cli_buf_printf(b, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g}", k ? ", " : "", m[0], m[1], m[2]);
    }
    cli_buf_printf(b, "]");
}

/* The pose clip (CSV, engine frame), the hand recording (Hand Landmarker, JavaScript names) and
 * the same as one Holistic recording (its pose in MediaPipe's frame); the hands' landmarks in the
 * engine frame per row into lm (may be NULL). */
static void write_inputs(const char *clip_name, const char *hands_name, const char *holistic_name, double (*lm)[2][21][3]) {
    float *pose = malloc(sizeof *pose * 132 * ROWS);
    char t[ROWS][32];
    const char *tp[ROWS];
    cli_buf hands = {0}, hol = {0};
    for (int r = 0; r < ROWS; r++) {
        double tt = r / FPS, h[2][21][3];
        cli_synthetic_pose(tt, 2, &pose[r * 132]);
        snprintf(t[r], sizeof t[r], "%.17g", tt);
        tp[r] = t[r];
        for (int s = 0; s < 2; s++) hand_at(tt, s, h[s]);
        if (lm) memcpy(lm[r], h, sizeof h);
        /* the Hand Landmarker lists the right hand first here: order is not the slot */
        cli_buf_printf(&hands, "{\"timestampMs\": %.17g, \"handedness\": [[{\"score\": 0.97, \"categoryName\": \"Right\"}], "
                               "[{\"score\": 0.96, \"categoryName\": \"Left\"}]], \"worldLandmarks\": [",
                       tt * 1000);
        landmark_list(&hands, h[1]);
        cli_buf_printf(&hands, ", ");
        landmark_list(&hands, h[0]);
        cli_buf_printf(&hands, "]}\n");
        cli_buf_printf(&hol, "{\"timestampMs\": %.17g, \"poseWorldLandmarks\": [[", tt * 1000);
        for (int k = 0; k < 33; k++) {
            const float *p = &pose[r * 132 + k * 4];
            cli_buf_printf(&hol, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"visibility\": %.9g}", k ? ", " : "", (double)p[0],
                           -(double)p[1], (double)p[2], (double)p[3]);
        }
        cli_buf_printf(&hol, "]], \"leftHandWorldLandmarks\": [");
        landmark_list(&hol, h[0]);
        cli_buf_printf(&hol, "], \"rightHandWorldLandmarks\": [");
        landmark_list(&hol, h[1]);
        cli_buf_printf(&hol, "]}\n");
    }
    char *text = cli_clip_text(ROWS, tp, pose);
    cli_write(clip_name, text);
    free(text);
    if (hands_name) cli_write(hands_name, hands.text);
    if (holistic_name) cli_write(holistic_name, hol.text);
    free(hands.text);
    free(hol.text);
    free(pose);
}

static void q_rotate(const double q[4], const double v[3], double out[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    out[0] = v[0] + w * tx + (y * tz - z * ty);
    out[1] = v[1] + w * ty + (z * tx - x * tz);
    out[2] = v[2] + w * tz + (x * ty - y * tx);
}

static double angle(const double a[3], const double b[3]) {
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

static const char *const bone_names[16] = {"hand", "thumb_metacarpal", "thumb_proximal", "thumb_distal", "index_proximal",
                                           "index_intermediate", "index_distal", "middle_proximal", "middle_intermediate",
                                           "middle_distal", "ring_proximal", "ring_intermediate", "ring_distal",
                                           "little_proximal", "little_intermediate", "little_distal"};
static const int bone_from[16] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};

static void test_hands_bones(void **state) {
    (void)state;
    static double lm[ROWS][2][21][3];
    write_inputs("hb_clip.csv", "hb_hands.ndjson", NULL, lm);
    const char *bones = cli_path("hb_bones.csv");
    cli_result r = cli_run("pose", cli_path("hb_clip.csv"), "--frame", "engine", "--hands", cli_path("hb_hands.ndjson"),
                           "--hand-threshold", "0", "--bones", bones);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bones, NULL);
    assert_non_null(text);
    int rows = 0, checked = 0;
    double worst = 0;
    for (char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        int frame, inst;
        char name[64];
        double q[4];
        assert_int_equal(sscanf(line, "%d,%d,%63[^,],%lf,%lf,%lf,%lf", &frame, &inst, name, &q[0], &q[1], &q[2], &q[3]), 7);
        rows++;
        int side = strncmp(name, "left_", 5) == 0 ? 0 : strncmp(name, "right_", 6) == 0 ? 1 : -1;
        const char *bone = side < 0 ? "" : name + (side ? 6 : 5);
        for (int b = 0; side >= 0 && b < 16; b++) {
            if (strcmp(bone, bone_names[b]) != 0) continue;
            const double(*h)[3] = lm[frame - 1][side];
            double want[3], got[3], axis[3] = {0, b ? 1 : 0, b ? 0 : 1};
            for (int c = 0; c < 3; c++)
                want[c] = b ? h[bone_from[b] + 1][c] - h[bone_from[b]][c] : 0.5 * (h[5][c] + h[17][c]) - h[0][c];
            q_rotate(q, axis, got);
            double a = angle(got, want);
            if (a > worst) worst = a;
            if (a > 1e-4) fail_msg("frame %d %s: %.6f rad from its landmark segment", frame, name, a);
            checked++;
        }
        if (!strchr(line, '\n')) break;
    }
    free(text);
    assert_int_equal(rows, ROWS * 45);
    assert_int_equal(checked, ROWS * 32);
    print_message("%d hand bones, worst direction %.3g rad\n", checked, worst);
    /* the same bytes as the scalar target's, with smoothing and easing on (the defaults but
     * One Euro) */
    char cmd[6000], here[1400], scalar[1400];
    snprintf(here, sizeof here, "%s", cli_path("hb_here.csv"));
    snprintf(scalar, sizeof scalar, "%s", cli_path("hb_scalar.csv"));
    r = cli_run("pose", cli_path("hb_clip.csv"), "--frame", "engine", "--hands", cli_path("hb_hands.ndjson"), "--smoothing",
                "one_euro", "--local", "--bones", here);
    cli_expect_ok(&r);
    cli_result_free(&r);
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=scalar '%s' pose '%s' --frame engine --hands '%s' --smoothing one_euro --local --bones '%s'",
             cli_exe, cli_path("hb_clip.csv"), cli_path("hb_hands.ndjson"), scalar);
    assert_int_equal(system(cmd), 0);
    char *a = cli_read(here, NULL), *b = cli_read(scalar, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* base with every occurrence of from (which to does not contain) replaced. malloc'd. */
static char *replace_all(const char *base, const char *from, const char *to) {
    char *s = cli_replace(base, from, to);
    while (strstr(s, from)) {
        char *next = cli_replace(s, from, to);
        free(s);
        s = next;
    }
    return s;
}

static void test_holistic(void **state) {
    (void)state;
    write_inputs("ho_clip.csv", "ho_hands.ndjson", "ho_holistic.ndjson", NULL);
    const char *a = cli_path("ho_split.csv"), *b = cli_path("ho_one.csv");
    /* the split pair read in MediaPipe's frame: the clip's y negated as the Holistic pose has it */
    cli_result r = cli_run("pose", cli_path("ho_holistic.ndjson"), "--bones", b);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("pose", cli_path("ho_clip.csv"), "--frame", "engine", "--hands", cli_path("ho_hands.ndjson"), "--bones", a);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *ta = cli_read(a, NULL), *tb = cli_read(b, NULL);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_non_null(strstr(tb, ",left_index_distal,"));
    /* the finger rows do not depend on the body's frame; compare them */
    int lines = 0;
    for (char *la = ta, *lb = tb; la && lb; la = strchr(la, '\n'), lb = strchr(lb, '\n')) {
        if (*la == '\n') la++, lb++;
        if (!*la) break;
        size_t na = strcspn(la, "\n"), nb = strcspn(lb, "\n");
        if (strstr(la, "thumb") && strstr(la, "thumb") < la + na) {
            assert_int_equal(na, nb);
            assert_memory_equal(la, lb, na);
            lines++;
        }
    }
    assert_int_equal(lines, ROWS * 6);
    free(ta);
    /* the Python API's names: timestamp_ms, and pose_world_landmarks holding the one pose's
     * landmarks directly: the same bytes */
    char *js = cli_read(cli_path("ho_holistic.ndjson"), NULL);
    char *p1 = replace_all(js, "\"timestampMs\"", "\"timestamp_ms\"");
    char *p2 = replace_all(p1, "\"poseWorldLandmarks\": [[", "\"pose_world_landmarks\": [");
    char *p3 = replace_all(p2, "]], \"leftHandWorldLandmarks\"", "], \"left_hand_world_landmarks\"");
    char *p4 = replace_all(p3, "\"rightHandWorldLandmarks\"", "\"right_hand_world_landmarks\"");
    assert_null(strstr(p4, "WorldLandmarks"));
    char py[1400];
    snprintf(py, sizeof py, "%s", cli_write("ho_python.ndjson", p4));
    r = cli_run("pose", py, "--bones", cli_path("ho_python.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *tp = cli_read(cli_path("ho_python.csv"), NULL);
    assert_non_null(tp);
    assert_string_equal(tp, tb);
    free(tp);
    free(js);
    free(p1);
    free(p2);
    free(p3);
    free(p4);
    free(tb);
}

static void test_mirrored(void **state) {
    (void)state;
    write_inputs("mi_clip.csv", "mi_hands.ndjson", NULL, NULL);
    /* the same hands seen mirrored: x negated and the labels as a selfie camera gives them */
    char *text = cli_read(cli_path("mi_hands.ndjson"), NULL);
    cli_buf b = {0};
    for (char *p = text; *p;) {
        if (strncmp(p, "\"x\": ", 5) == 0) {
            double x = strtod(p + 5, &p);
            cli_buf_printf(&b, "\"x\": %.9g", -x);
        } else if (strncmp(p, "\"Right\"", 7) == 0 || strncmp(p, "\"Left\"", 6) == 0) {
            bool right = p[1] == 'R';
            cli_buf_printf(&b, right ? "\"Left\"" : "\"Right\"");
            p += right ? 7 : 6;
        } else {
            cli_buf_printf(&b, "%c", *p++);
        }
    }
    free(text);
    cli_write("mi_selfie.ndjson", b.text);
    free(b.text);
    const char *plain = cli_path("mi_plain.csv"), *selfie = cli_path("mi_selfie.csv");
    cli_result r = cli_run("pose", cli_path("mi_clip.csv"), "--frame", "engine", "--hands", cli_path("mi_hands.ndjson"),
                           "--bones", plain);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("pose", cli_path("mi_clip.csv"), "--frame", "engine", "--hands", cli_path("mi_selfie.ndjson"), "--mirrored",
                "--bones", selfie);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *ta = cli_read(plain, NULL), *tb = cli_read(selfie, NULL);
    assert_string_equal(ta, tb); /* x negated twice: the same numbers, bit for bit */
    free(ta);
    free(tb);
}

static void test_bad_hands(void **state) {
    (void)state;
    write_inputs("bad_clip.csv", "bad_hands.ndjson", NULL, NULL);
    char *good = cli_read(cli_path("bad_hands.ndjson"), NULL);
    const char *second = strchr(good, '\n') + 1;
    size_t first_len = (size_t)(second - good);
    struct { const char *from, *to, *want[3]; } cases[] = {
        {"\"z\": ", "\"z\": \"deep\", \"w\": ", {"bad_in.ndjson:2:", "worldLandmarks[0][0].z", NULL}},
        {"\"categoryName\": \"Left\"", "\"categoryName\": \"Middle\"", {"bad_in.ndjson:2:", "categoryName", NULL}},
        {", {\"x\"", ", {\"q\"", {"bad_in.ndjson:2:", "worldLandmarks[0][1]", NULL}},
    };
    char bones[1400];
    snprintf(bones, sizeof bones, "%s", cli_path("bad_bones.csv")); /* (cli_path's slots rotate) */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        /* line 2 broken, the rest intact */
        char *line2 = strndup(second, strcspn(second, "\n") + 1);
        char *broken = cli_replace(line2, cases[k].from, cases[k].to);
        cli_buf b = {0};
        cli_buf_printf(&b, "%.*s%s%s", (int)first_len, good, broken, second + strlen(line2));
        cli_write("bad_in.ndjson", b.text);
        cli_result r = cli_run("pose", cli_path("bad_clip.csv"), "--frame", "engine", "--hands", cli_path("bad_in.ndjson"),
                               "--bones", bones);
        cli_expect_fail_(&r, 2, cases[k].want, __FILE__, __LINE__);
        cli_result_free(&r);
        assert_false(cli_exists(bones));
        free(b.text);
        free(broken);
        free(line2);
    }
    free(good);
    cli_result r = cli_run("pose", cli_path("bad_clip.csv"), "--mirrored", "--bones", bones);
    cli_expect_fail(&r, 2, "--mirrored and --hand-threshold need hands");
    cli_result_free(&r);
    assert_false(cli_exists(bones));
}

static void test_blender_hands(void **state) {
    (void)state;
    if (strcmp(cli_target, "scalar") != 0) {
        print_message("Blender's import runs on the scalar target only (the same BVH bytes on every target)\n");
        skip();
    }
    static double lm[ROWS][2][21][3];
    write_inputs("bl_clip.csv", "bl_hands.ndjson", NULL, lm);
    const char *bvh = cli_path("bl_hands.bvh");
    cli_result r = cli_run("pose", cli_path("bl_clip.csv"), "--frame", "engine", "--hands", cli_path("bl_hands.ndjson"),
                           "--hand-threshold", "0", "--bvh", bvh);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bvh, NULL);
    assert_non_null(strstr(text, "JOINT LeftThumbMetacarpal"));
    assert_non_null(strstr(text, "JOINT RightLittleDistal"));
    free(text);
    /* the hands' landmarks in the file's right-handed frame (the engine's with x negated) */
    cli_buf b = {0};
    for (int r2 = 0; r2 < ROWS; r2++) {
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 21; k++)
                cli_buf_printf(&b, " %.9g %.9g %.9g", -lm[r2][s][k][0], lm[r2][s][k][1], lm[r2][s][k][2]);
        cli_buf_printf(&b, "\n");
    }
    const char *hands_txt = cli_write("bl_hands.txt", b.text);
    free(b.text);
    if (system("blender --version >/dev/null 2>&1") != 0) {
        print_message("blender is not installed (Debian: apt-get install blender): Blender checks skipped\n");
        skip();
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "blender -b --factory-startup --python-exit-code 1 --python '%s' -- --hands '%s' '%s' '%s' engine %d %.17g 2>&1",
             CROWD_BVH_BLENDER_SCRIPT, hands_txt, bvh, cli_path("bl_clip.csv"), ROWS, 1.0 / FPS);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    cli_buf out = {0};
    char line[4096];
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "bvh_blender", 11) == 0 || strstr(line, "Error") || strstr(line, "Traceback"))
            cli_buf_printf(&out, "%s", line);
    int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("Blender's BVH import failed:\n%s", out.text ? out.text : "");
    assert_non_null(out.text);
    assert_non_null(strstr(out.text, ", 0 failures"));
    assert_non_null(strstr(out.text, "finger bones"));
    print_message("%s", out.text);
    free(out.text);
}

/* crowd stream --hands on a Holistic recording (pose and hands on each line) writes the bytes
 * crowd pose writes for the same file; and hand lines beside pose lines (the Hand Landmarker's
 * shape) the same as the split files given to crowd pose. */
static void test_stream_hands(void **state) {
    (void)state;
    write_inputs("st_clip.csv", "st_hands.ndjson", "st_holistic.ndjson", NULL);
    char hol[1400], a[1400], b[1400], cmd[6000];
    snprintf(hol, sizeof hol, "%s", cli_path("st_holistic.ndjson"));
    snprintf(a, sizeof a, "%s", cli_path("st_pose.csv"));
    snprintf(b, sizeof b, "%s", cli_path("st_stream.csv"));
    cli_result r = cli_run("pose", hol, "--bones", a);
    cli_expect_ok(&r);
    cli_result_free(&r);
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --hands --bones '%s' < '%s'", cli_target, cli_exe, b, hol);
    assert_int_equal(system(cmd), 0);
    char *ta = cli_read(a, NULL), *tb = cli_read(b, NULL);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_non_null(strstr(ta, ",right_little_distal,"));
    assert_string_equal(ta, tb);
    free(tb);
    /* the Holistic lines split: a hand line (Hand Landmarker), then its pose line (Tasks) */
    char *text = cli_read(hol, NULL), *hands = cli_read(cli_path("st_hands.ndjson"), NULL);
    cli_buf split = {0};
    for (char *p = text, *h = hands; *p; p = strchr(p, '\n') + 1, h = strchr(h, '\n') + 1) {
        char *pose = strstr(p, "\"poseWorldLandmarks\""), *end = strstr(p, "]], \"leftHand");
        cli_buf_printf(&split, "%.*s", (int)(strchr(h, '\n') + 1 - h), h);
        cli_buf_printf(&split, "{\"timestamp_ms\": %.17g, \"worldLandmarks\"%.*s]]}\n", strtod(p + 15, NULL),
                       (int)(end - pose - 20), pose + 20);
    }
    const char *split_path = cli_write("st_split.ndjson", split.text);
    free(split.text);
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --hands --bones '%s' < '%s'", cli_target, cli_exe, b, split_path);
    assert_int_equal(system(cmd), 0);
    tb = cli_read(b, NULL);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    free(text);
    free(hands);
}

/* crowd pose --hands --vrma played by @pixiv/three-vrm-animation (vrma_fingers.mjs). */
static void test_vrma_fingers(void **state) {
    (void)state;
    static double lm[ROWS][2][21][3];
    write_inputs("vr_clip.csv", "vr_hands.ndjson", NULL, lm);
    cli_buf b = {0};
    for (int r = 0; r < ROWS; r++) {
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 21; k++) cli_buf_printf(&b, " %.9g %.9g %.9g", lm[r][s][k][0], lm[r][s][k][1], lm[r][s][k][2]);
        cli_buf_printf(&b, "\n");
    }
    char txt[1400], vrma[1400];
    snprintf(txt, sizeof txt, "%s", cli_write("vr_hands.txt", b.text));
    snprintf(vrma, sizeof vrma, "%s", cli_path("vr.vrma"));
    free(b.text);
    cli_result r = cli_run("pose", cli_path("vr_clip.csv"), "--frame", "engine", "--hands", cli_path("vr_hands.ndjson"),
                           "--hand-threshold", "0", "--vrma", vrma);
    cli_expect_ok(&r);
    cli_result_free(&r);
    char pkg[1400];
    snprintf(pkg, sizeof pkg, "%s/node_modules/@pixiv/three-vrm-animation/package.json", CROWD_VMC_NPM_DIR);
    if (!cli_exists(pkg) || system("node --version >/dev/null 2>&1") != 0) {
        print_message("node or @pixiv/three-vrm-animation (the npm_vmc fixture) is missing: the .vrma finger check skipped\n");
        skip();
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' %d %.17g 2>&1", CROWD_VRMA_FINGERS_SCRIPT, CROWD_VMC_NPM_DIR, vrma, txt,
             ROWS, FPS);
    cli_run_script(cmd, "three-vrm-animation's finger check");
}

/* crowd pose --hands --vmc received by the npm package osc (vmc_fingers.mjs): names and values. */
static void test_vmc_fingers(void **state) {
    (void)state;
    static double lm[ROWS][2][21][3];
    write_inputs("vm_clip.csv", "vm_hands.ndjson", NULL, lm);
    cli_buf b = {0};
    for (int r = 0; r < ROWS; r++) {
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 21; k++) cli_buf_printf(&b, " %.9g %.9g %.9g", lm[r][s][k][0], lm[r][s][k][1], lm[r][s][k][2]);
        cli_buf_printf(&b, "\n");
    }
    char txt[1400], clip[1400], hands[1400];
    snprintf(txt, sizeof txt, "%s", cli_write("vm_hands.txt", b.text));
    snprintf(clip, sizeof clip, "%s", cli_path("vm_clip.csv"));
    snprintf(hands, sizeof hands, "%s", cli_path("vm_hands.ndjson"));
    free(b.text);
    char pkg[1400];
    snprintf(pkg, sizeof pkg, "%s/node_modules/osc/package.json", CROWD_VMC_NPM_DIR);
    if (!cli_exists(pkg) || system("node --version >/dev/null 2>&1") != 0) {
        print_message("node or the npm package osc (the npm_vmc fixture) is missing: the VMC finger check skipped\n");
        skip();
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s node '%s' '%s' '%s' '%s' '%s' '%s' %d 2>&1", cli_target, CROWD_VMC_FINGERS_SCRIPT,
             CROWD_VMC_NPM_DIR, cli_exe, clip, hands, txt, ROWS);
    cli_run_script(cmd, "the osc receiver's finger check");
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hands_bones), cmocka_unit_test(test_holistic), cmocka_unit_test(test_mirrored),
        cmocka_unit_test(test_bad_hands),   cmocka_unit_test(test_blender_hands), cmocka_unit_test(test_vmc_fingers),
        cmocka_unit_test(test_stream_hands), cmocka_unit_test(test_vrma_fingers),
    };
    return cmocka_run_group_tests_name("cli_hands", tests, NULL, NULL);
}
