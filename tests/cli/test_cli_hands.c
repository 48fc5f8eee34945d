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
 * - stream_vrma: `crowd stream --hands --vrma` writes crowd pose --hands --vrma's bytes (the finger
 *   bones too), three-vrm-animation plays its fingers along their landmark segments, and the
 *   same run's bones trace is crowd pose's;
 * - scene_hands: a scene whose group plays the pose clip and the hand recording (a rig with
 *   "fingers") gives, with `crowd run --bones/--bvh --instance 0`, crowd pose --hands' bytes on
 *   the same files (the split pair, and a Holistic recording as both clips); a fingers-only rig
 *   playing the hands on their own clock gives the same finger world rotations; `--vrma` played
 *   by three-vrm-animation and `--vmc` received by osc have the fingers along their landmark
 *   segments;
 * - scene_resume: a run with hands saved and resumed ends with the uninterrupted checksum (which
 *   covers the finger bones), and --resume refuses it once the hand file changed;
 * - scene_gestures: MediaPipe's own gesture results (../shared/data) as a hand recording played by
 *   a scene on a fingers-only rig: every hand bone along MediaPipe's landmark segments;
 * - scene_bad_hands: bad hand keys and settings refused naming the scene and the JSON path (a
 *   bad hand file: its file, line and path too); nothing written.
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


/* The lines of a text without those starting with `skip` (malloc'd). */
static char *without_lines(const char *text, const char *skip) {
    cli_buf b = {0};
    cli_buf_printf(&b, "%s", "");
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, skip, strlen(skip)) != 0) cli_buf_printf(&b, "%.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
    return b.text;
}

/* The rows of a bones trace whose bone is a finger's (not the hands', not the body's). */
static char *finger_rows(const char *text) {
    static const char *const fingers[] = {"_thumb_", "_index_", "_middle_", "_ring_", "_little_"};
    cli_buf b = {0};
    cli_buf_printf(&b, "%s", "");
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char row[512];
        snprintf(row, sizeof row, "%.*s", (int)n, p);
        bool finger = false;
        for (size_t k = 0; k < 5; k++) finger |= strstr(row, fingers[k]) != NULL;
        if (finger) cli_buf_printf(&b, "%s\n", row);
        p += n + (p[n] == '\n');
    }
    return b.text;
}

static void expect_same_file(const char *a, const char *b, const char *what) {
    char *ta = cli_read(a, NULL), *tb = cli_read(b, NULL);
    if (!ta || !tb) fail_msg("%s: %s or %s is missing", what, a, b);
    if (strcmp(ta, tb) != 0) fail_msg("%s: %s and %s differ", what, a, b);
    free(ta);
    free(tb);
}

/* Do the n bytes at data hold the text? */
static bool contains(const char *data, size_t n, const char *text) {
    size_t len = strlen(text);
    for (size_t k = 0; k + len <= n; k++)
        if (memcmp(data + k, text, len) == 0) return true;
    return false;
}

/* crowd stream --hands --vrma: the finger bones in the .vrma (crowd pose's bytes, played by
 * three-vrm-animation) and the same run's bones trace crowd pose's. */
static void test_stream_vrma(void **state) {
    (void)state;
    static double lm[ROWS][2][21][3];
    write_inputs("sv_clip.csv", "sv_hands.ndjson", "sv_holistic.ndjson", lm);
    char hol[1400], pose_vrma[1400], vrma_s[1400], pose_bones[1400], stream_bones[1400], cmd[8192];
    snprintf(hol, sizeof hol, "%s", cli_path("sv_holistic.ndjson"));
    snprintf(pose_vrma, sizeof pose_vrma, "%s", cli_path("sv_pose.vrma"));
    snprintf(vrma_s, sizeof vrma_s, "%s", cli_path("sv_stream.vrma"));
    snprintf(pose_bones, sizeof pose_bones, "%s", cli_path("sv_pose.csv"));
    snprintf(stream_bones, sizeof stream_bones, "%s", cli_path("sv_stream.csv"));
    cli_result r = cli_run("pose", hol, "--hand-threshold", "0", "--vrma", pose_vrma, "--bones", pose_bones);
    cli_expect_ok(&r);
    cli_result_free(&r);
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --hands --hand-threshold 0 --vrma '%s' --bones '%s' < '%s'",
             cli_target, cli_exe, vrma_s, stream_bones, hol);
    assert_int_equal(system(cmd), 0);
    expect_same_file(pose_bones, stream_bones, "stream --hands --bones against crowd pose --hands");
    expect_same_file(pose_vrma, vrma_s, "stream --hands --vrma against crowd pose --hands --vrma");
    size_t n;
    char *text = cli_read(vrma_s, &n);
    assert_non_null(text);
    assert_true(contains(text, n, "\"leftThumbMetacarpal\""));
    assert_true(contains(text, n, "\"rightLittleDistal\""));
    free(text);
    cli_buf b = {0};
    for (int k = 0; k < ROWS; k++) {
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < 21; j++) cli_buf_printf(&b, " %.9g %.9g %.9g", lm[k][s][j][0], lm[k][s][j][1], lm[k][s][j][2]);
        cli_buf_printf(&b, "\n");
    }
    char txt[1400];
    snprintf(txt, sizeof txt, "%s", cli_write("sv_hands.txt", b.text));
    free(b.text);
    char pkg[1400];
    snprintf(pkg, sizeof pkg, "%s/node_modules/@pixiv/three-vrm-animation/package.json", CROWD_VMC_NPM_DIR);
    if (!cli_exists(pkg) || system("node --version >/dev/null 2>&1") != 0) {
        print_message("node or @pixiv/three-vrm-animation (the npm_vmc fixture) is missing: the .vrma finger check skipped\n");
        skip();
    }
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' %d %.17g 2>&1", CROWD_VRMA_FINGERS_SCRIPT, CROWD_VMC_NPM_DIR, vrma_s,
             txt, ROWS, FPS);
    cli_run_script(cmd, "three-vrm-animation's finger check of crowd stream --hands --vrma");
}

/* A scene of `count` instances of a rig with limbs (frame `frame`) and fingers (`fingers`: the
 * settings object), the group playing `clip` and `hands` ({"clip": ...} and more). */
static const char *write_scene(const char *name, const char *frame, const char *fingers, const char *clip, const char *hands,
                               int count) {
    cli_buf b = {0};
    cli_buf_printf(&b,
                   "{\"dt\": %.17g, \"frames\": %d,\n"
                   " \"rigs\": [{\"name\": \"hands\", \"limbs\": {\"frame\": \"%s\"}, \"fingers\": %s}],\n"
                   " \"groups\": [{\"rig\": \"hands\", \"count\": %d, \"pose\": {\"clip\": \"%s\", \"loop\": false},\n"
                   "             \"hands\": %s}]}\n",
                   1.0 / FPS, ROWS, frame, fingers, count, clip, hands);
    const char *path = cli_write(name, b.text);
    free(b.text);
    return path;
}

static void test_scene_hands(void **state) {
    (void)state;
    static double lm[ROWS][2][21][3];
    write_inputs("sh_clip.csv", "sh_hands.ndjson", "sh_holistic.ndjson", lm);
    char scene[1400], a[1400], b[1400], c[1400];
    snprintf(a, sizeof a, "%s", cli_path("sh_pose.csv"));
    snprintf(b, sizeof b, "%s", cli_path("sh_run.csv"));
    /* the split pair: the pose clip in the engine frame, the hands in MediaPipe's; 3 instances */
    snprintf(scene, sizeof scene, "%s",
             write_scene("sh_scene.json", "engine", "{}", "sh_clip.csv", "{\"clip\": \"sh_hands.ndjson\"}", 3));
    cli_result r = cli_run("pose", cli_path("sh_clip.csv"), "--frame", "engine", "--hands", cli_path("sh_hands.ndjson"),
                           "--bones", a);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--bones", b, "--instance", "2", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    /* instance 2's rows but for the instance column: crowd pose's */
    char *tp = cli_read(a, NULL), *tr = cli_read(b, NULL);
    assert_non_null(tp);
    assert_non_null(tr);
    char *tr0 = replace_all(tr, ",2,", ",0,");
    assert_non_null(strstr(tp, ",right_little_distal,"));
    assert_string_equal(tp, tr0);
    free(tp);
    free(tr);
    free(tr0);
    /* BVH (all but the Frame Time: the clip's mean interval against the scene's dt) */
    char pb[1400], rb[1400];
    snprintf(pb, sizeof pb, "%s", cli_path("sh_pose.bvh"));
    snprintf(rb, sizeof rb, "%s", cli_path("sh_run.bvh"));
    r = cli_run("pose", cli_path("sh_clip.csv"), "--frame", "engine", "--hands", cli_path("sh_hands.ndjson"), "--bvh", pb);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--bvh", rb, "--instance", "1", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *bp = cli_read(pb, NULL), *br = cli_read(rb, NULL);
    assert_non_null(strstr(bp, "JOINT LeftThumbMetacarpal"));
    char *bp2 = without_lines(bp, "Frame Time:"), *br2 = without_lines(br, "Frame Time:");
    assert_string_equal(bp2, br2);
    free(bp), free(br), free(bp2), free(br2);

    /* one Holistic recording as the pose clip and the hand track (MediaPipe's frame: the default) */
    snprintf(scene, sizeof scene, "%s",
             write_scene("sh_hol.json", "mediapipe_world", "{\"presence_threshold\": 0}", "sh_holistic.ndjson",
                         "{\"clip\": \"sh_holistic.ndjson\"}", 1));
    r = cli_run("pose", cli_path("sh_holistic.ndjson"), "--hand-threshold", "0", "--bones", a);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--bones", b, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    expect_same_file(a, b, "a scene on a Holistic recording against crowd pose");

    /* a fingers-only rig, the hands on their own clock: the finger world rotations of crowd pose.
     * Frames 50 ms apart, written exactly (a pose row's t_s and its hand frame's the same double;
     * float32 0.05 is above 0.05, so the scene's frame k falls on row k - 1) */
    float *pose = malloc(sizeof *pose * 132 * ROWS);
    char t50[ROWS][16];
    const char *tp50[ROWS];
    for (int k = 0; k < ROWS; k++) {
        cli_synthetic_pose(k * 0.05, 1, &pose[k * 132]);
        snprintf(t50[k], sizeof t50[k], "%d.%02d", k * 5 / 100, k * 5 % 100);
        tp50[k] = t50[k];
    }
    char *clip50 = cli_clip_text(ROWS, tp50, pose);
    cli_write("sh_clip50.csv", clip50);
    free(clip50);
    free(pose);
    char *hands = cli_read(cli_path("sh_hands.ndjson"), NULL);
    cli_buf h50 = {0};
    int line = 0;
    for (const char *p = hands; *p; line++) {
        const char *rest = strchr(p, ',');
        size_t len = strcspn(p, "\n");
        cli_buf_printf(&h50, "{\"timestampMs\": %d%.*s\n", 50 * line, (int)(p + len - rest), rest);
        p += len + (p[len] == '\n');
    }
    cli_write("sh_hands50.ndjson", h50.text);
    free(h50.text);
    free(hands);
    cli_write("sh_only.json", "{\"dt\": 0.05, \"frames\": 24, \"rigs\": [{\"name\": \"f\", \"fingers\": {}}],\n"
                              " \"groups\": [{\"rig\": \"f\", \"count\": 2, \"hands\": {\"clip\": \"sh_hands50.ndjson\", \"loop\": false}}]}\n");
    snprintf(c, sizeof c, "%s", cli_path("sh_only.csv"));
    r = cli_run("pose", cli_path("sh_clip50.csv"), "--frame", "engine", "--hands", cli_path("sh_hands50.ndjson"), "--bones", a);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", cli_path("sh_only.json"), "--bones", c, "--instance", "0", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    tp = cli_read(a, NULL), tr = cli_read(c, NULL);
    char *fp = finger_rows(tp), *fr = finger_rows(tr);
    assert_int_equal(strlen(fp) > 0, 1);
    assert_string_equal(fp, fr);
    free(tp), free(tr), free(fp), free(fr);

    /* --vrma of a scene instance, played by three-vrm-animation */
    char vrma[1400], cmd[8192];
    snprintf(vrma, sizeof vrma, "%s", cli_path("sh_run.vrma"));
    snprintf(scene, sizeof scene, "%s",
             write_scene("sh_vrma.json", "engine", "{\"presence_threshold\": 0}", "sh_clip.csv",
                         "{\"clip\": \"sh_hands.ndjson\"}", 2));
    r = cli_run("run", scene, "--vrma", vrma, "--instance", "1", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    cli_buf t = {0};
    for (int k = 0; k < ROWS; k++) {
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < 21; j++) cli_buf_printf(&t, " %.9g %.9g %.9g", lm[k][s][j][0], lm[k][s][j][1], lm[k][s][j][2]);
        cli_buf_printf(&t, "\n");
    }
    char txt[1400];
    snprintf(txt, sizeof txt, "%s", cli_write("sh_hands.txt", t.text));
    free(t.text);
    char pkg[1400];
    snprintf(pkg, sizeof pkg, "%s/node_modules/@pixiv/three-vrm-animation/package.json", CROWD_VMC_NPM_DIR);
    if (!cli_exists(pkg) || system("node --version >/dev/null 2>&1") != 0) {
        print_message("node or @pixiv/three-vrm-animation (the npm_vmc fixture) is missing: the .vrma finger check skipped\n");
        skip();
    }
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' %d %.17g 2>&1", CROWD_VRMA_FINGERS_SCRIPT, CROWD_VMC_NPM_DIR, vrma, txt,
             ROWS, FPS);
    cli_run_script(cmd, "three-vrm-animation's finger check of crowd run --vrma");
    /* --vmc of a scene instance, received by the npm package osc (vmc_fingers.mjs) */
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s node '%s' '%s' '%s' '%s' '%s' '%s' %d '%s' 1 2>&1", cli_target,
             CROWD_VMC_FINGERS_SCRIPT, CROWD_VMC_NPM_DIR, cli_exe, cli_path("sh_clip.csv"), cli_path("sh_hands.ndjson"), txt,
             ROWS, scene);
    cli_run_script(cmd, "the osc receiver's finger check of crowd run --vmc");
}

/* The label ("Left", "Right") and the 21 world landmarks of a MediaPipe hand result in the
 * proto's text form (its "world_landmarks {" block); false when absent. */
static bool read_result(const char *path, char label[16], double lm[21][3]) {
    char *text = cli_read(path, NULL);
    if (!text) return false;
    const char *l = strstr(text, "label: \""), *p = strstr(text, "\nworld_landmarks {");
    bool ok = l && p && sscanf(l, "label: \"%15[A-Za-z]\"", label) == 1;
    for (int k = 0; ok && k < 63; k++) {
        static const char *const axes[3] = {"x: ", "y: ", "z: "};
        ok = (p = strstr(p, axes[k % 3])) != NULL;
        if (ok) lm[k / 3][k % 3] = strtod(p + 3, NULL), p += 3;
    }
    free(text);
    return ok;
}

/* MediaPipe's own results for its gesture photos (../shared/data/mediapipe/hands), one a frame,
 * played by a scene's group on a fingers-only rig: every hand bone of every instance points
 * along MediaPipe's landmark segment (its world landmarks, y negated into the engine's frame).
 * Each frame holds the photo's hand under its label and the same hand mirrored (x negated)
 * under the other, so both hands are seen on every frame (a hand seen again eases in). The
 * rig's joint limits are off: the mirrored hand bends backward, and a bone turned to its limit
 * leaves its segment by design (crowd.h's fingers section). */
static void test_scene_gestures(void **state) {
    (void)state;
    static const char *const files[] = {"fist_landmarks.pbtxt",     "pointing_up_landmarks.pbtxt", "pointing_up_rotated_landmarks.pbtxt",
                                        "victory_landmarks.pbtxt", "thumb_up_landmarks.pbtxt",     "thumb_up_rotated_landmarks.pbtxt"};
    enum { G = sizeof files / sizeof files[0] };
    static double lm[G][2][21][3]; /* engine frame, per hand slot */
    cli_buf rec = {0};
    for (int g = 0; g < G; g++) {
        char rel[128], label[16];
        snprintf(rel, sizeof rel, "mediapipe/hands/%s", files[g]);
        const char *path = crowd_test_data(rel);
        if (!path) skip();
        double mp[21][3];
        if (!read_result(path, label, mp)) fail_msg("%s: no label or world landmarks", path);
        int right = strcmp(label, "Right") == 0; /* the label's slot (not mirrored) */
        for (int k = 0; k < 21; k++)
            for (int c = 0; c < 3; c++) {
                lm[g][right][k][c] = c == 1 ? -mp[k][c] : mp[k][c];
                lm[g][!right][k][c] = c == 0 ? -mp[k][c] : c == 1 ? -mp[k][c] : mp[k][c];
            }
        cli_buf_printf(&rec, "{\"timestampMs\": %d, \"handedness\": [[{\"score\": 1, \"categoryName\": \"%s\"}], "
                             "[{\"score\": 1, \"categoryName\": \"%s\"}]], \"worldLandmarks\": [[",
                       100 * g, label, right ? "Left" : "Right");
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 21; k++)
                cli_buf_printf(&rec, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g}", k ? ", " : m ? "], [" : "",
                               m ? -mp[k][0] : mp[k][0], mp[k][1], mp[k][2]);
        cli_buf_printf(&rec, "]]}\n");
    }
    cli_write("sg_gestures.ndjson", rec.text);
    free(rec.text);
    char scene[1400], bones[1400];
    snprintf(scene, sizeof scene, "%s",
             cli_write("sg_scene.json", "{\"dt\": 0.1, \"frames\": 6, \"rigs\": [{\"name\": \"g\", \"fingers\": {\"joint_limits\": false}}],\n"
                                        " \"groups\": [{\"rig\": \"g\", \"count\": 3,\n"
                                        "             \"hands\": {\"clip\": \"sg_gestures.ndjson\", \"loop\": false}}]}\n"));
    snprintf(bones, sizeof bones, "%s", cli_path("sg_bones.csv"));
    cli_result r = cli_run("run", scene, "--bones", bones, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bones, NULL);
    assert_non_null(text);
    int checked = 0;
    double worst = 0;
    for (char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        int frame, inst;
        char name[64];
        double q[4];
        assert_int_equal(sscanf(line, "%d,%d,%63[^,],%lf,%lf,%lf,%lf", &frame, &inst, name, &q[0], &q[1], &q[2], &q[3]), 7);
        int side = strncmp(name, "left_", 5) == 0 ? 0 : 1;
        for (int b = 0; b < 16; b++) {
            if (strcmp(name + (side ? 6 : 5), bone_names[b]) != 0) continue;
            const double(*h)[3] = lm[frame - 1][side];
            double want[3], got[3], axis[3] = {0, b ? 1 : 0, b ? 0 : 1};
            for (int c = 0; c < 3; c++)
                want[c] = b ? h[bone_from[b] + 1][c] - h[bone_from[b]][c] : 0.5 * (h[5][c] + h[17][c]) - h[0][c];
            q_rotate(q, axis, got);
            double a = angle(got, want);
            if (a > worst) worst = a;
            if (a > 1e-4) fail_msg("frame %d instance %d %s: %.6f rad from MediaPipe's landmark segment", frame, inst, name, a);
            checked++;
        }
        if (!strchr(line, '\n')) break;
    }
    free(text);
    assert_int_equal(checked, G * 3 * 32);
    print_message("%d hand bones of MediaPipe's gesture results, worst direction %.3g rad\n", checked, worst);
}

/* The checksum of a run's --json summary ("0x..."), malloc'd. */
static char *checksum_of(const char *out) {
    const char *p = strstr(out, "\"checksum\": \"");
    assert_non_null(p);
    p += 13;
    return strndup(p, strcspn(p, "\""));
}

static void test_scene_resume(void **state) {
    (void)state;
    write_inputs("sr_clip.csv", "sr_hands.ndjson", NULL, NULL);
    char scene[1400], snap[1400];
    /* random pose offsets, looped: each instance's hands follow its own clip row */
    cli_write("sr_scene.json",
              "{\"dt\": 0.03, \"frames\": 40, \"seed\": 5,\n"
              " \"rigs\": [{\"name\": \"h\", \"limbs\": {\"frame\": \"engine\", \"smoothing\": \"one_euro\"},\n"
              "            \"fingers\": {\"smoothing\": \"one_euro\", \"one_euro\": {\"beta\": 20}}},\n"
              "           {\"name\": \"f\", \"fingers\": {\"hold_half_life\": 0.2}}],\n"
              " \"groups\": [{\"rig\": \"h\", \"count\": 7, \"pose\": {\"clip\": \"sr_clip.csv\", \"offset\": \"random\"},\n"
              "             \"hands\": {\"clip\": \"sr_hands.ndjson\"}},\n"
              "            {\"rig\": \"f\", \"count\": 5, \"hands\": {\"clip\": \"sr_hands.ndjson\", \"offset\": \"random\"}}]}\n");
    snprintf(scene, sizeof scene, "%s", cli_path("sr_scene.json"));
    snprintf(snap, sizeof snap, "%s", cli_path("sr_snap.bin"));
    cli_result r = cli_run("run", scene, "--json", "--quiet");
    cli_expect_ok(&r);
    char *whole = checksum_of(r.out);
    cli_result_free(&r);
    r = cli_run("run", scene, "--snapshot-at", "17", snap, "--json", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--resume", snap, "--json", "--quiet");
    cli_expect_ok(&r);
    char *resumed = checksum_of(r.out);
    cli_result_free(&r);
    assert_string_equal(whole, resumed);
    free(resumed);
    /* the checksum covers the fingers: another hand file (one landmark moved) gives another */
    char *hands = cli_read(cli_path("sr_hands.ndjson"), NULL);
    char *moved = cli_replace(hands, "{\"x\": ", "{\"x\": 0.5, \"q\": ");
    cli_write("sr_hands.ndjson", moved);
    free(moved);
    free(hands);
    r = cli_run("run", scene, "--json", "--quiet");
    cli_expect_ok(&r);
    char *other = checksum_of(r.out);
    cli_result_free(&r);
    if (strcmp(other, whole) == 0) fail_msg("a changed hand file left the checksum at %s", whole);
    free(other);
    free(whole);
    r = cli_run("run", scene, "--resume", snap, "--json", "--quiet");
    cli_expect_fail(&r, 2, snap, "sr_hands.ndjson", "changed since");
    assert_int_equal(strlen(r.out), 0);
    cli_result_free(&r);
}

static void test_scene_bad_hands(void **state) {
    (void)state;
    write_inputs("sb_clip.csv", "sb_hands.ndjson", NULL, NULL);
    char *good = cli_read(cli_path("sb_hands.ndjson"), NULL);
    const char *second = strchr(good, '\n') + 1;
    char *broken = cli_replace(second, "\"z\": ", "\"z\": null, \"w\": ");
    cli_buf b = {0};
    cli_buf_printf(&b, "%.*s%s", (int)(second - good), good, broken);
    cli_write("sb_broken.ndjson", b.text);
    free(b.text);
    free(broken);
    free(good);
    static const char base[] = "{\"frames\": 5, \"rigs\": [{\"name\": \"h\", \"limbs\": {}, \"fingers\": {}}, {\"name\": \"l\", \"limbs\": {}}],\n"
                               " \"groups\": [{\"rig\": \"h\", \"pose\": {\"clip\": \"sb_clip.csv\"}, \"hands\": {\"clip\": \"sb_hands.ndjson\"}}]}\n";
    struct { const char *from, *to, *want[4]; } cases[] = {
        {"{\"rig\": \"h\"", "{\"rig\": \"l\"", {"groups[0].hands", "rig \"l\" has no fingers", NULL}},
        {"\"hands\": {\"clip\"", "\"hands\": {\"lop\": true, \"clip\"", {"groups[0].hands.lop", "did you mean 'loop'", NULL}},
        {"\"hands\": {\"clip\"", "\"hands\": {\"offset\": \"random\", \"clip\"", {"groups[0].hands.offset", "pose clip", NULL}},
        {"\"hands\": {\"clip\": \"sb_hands.ndjson\"}", "\"hands\": {\"loop\": false}", {"groups[0].hands.clip", "is required", NULL}},
        {"\"hands\": {\"clip\": \"sb_hands.ndjson\"}", "\"hands\": [1]", {"groups[0].hands", "expected an object", NULL}},
        {"sb_hands.ndjson", "sb_broken.ndjson", {"sb_broken.ndjson:2:", "worldLandmarks[0][0].z", "groups[0].hands.clip"}},
        {"sb_hands.ndjson", "sb_none.ndjson", {"sb_none.ndjson", "groups[0].hands.clip", NULL}},
        {"\"fingers\": {}", "\"fingers\": {\"presence_threshold\": 2}", {"rigs[0].fingers.presence_threshold", "out of range", NULL}},
        {"\"fingers\": {}", "\"fingers\": {\"one_euro\": {\"beta\": -1}}", {"rigs[0].fingers.one_euro.beta", NULL}},
        {"\"fingers\": {}", "\"fingers\": {\"bend_min\": 50}", {"rigs[0].fingers.bend_min", "bend_full", NULL}},
        {"\"fingers\": {}", "\"fingers\": {\"axis_fix\": \"custom\"}", {"rigs[0].fingers.axis_fix", "y_along_bone", NULL}},
        {"\"fingers\": {}", "\"fingers\": {\"mirror\": true}", {"rigs[0].fingers.mirror", "did you mean 'mirrored'", NULL}},
    };
    char bones[1400];
    snprintf(bones, sizeof bones, "%s", cli_path("sb_bones.csv"));
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *text = cli_replace(base, cases[k].from, cases[k].to);
        const char *path = cli_write("sb_scene.json", text);
        free(text);
        cli_result r = cli_run("run", path, "--bones", bones, "--quiet");
        const char *want[5] = {"sb_scene.json", cases[k].want[0], cases[k].want[1], cases[k].want[2], NULL};
        cli_expect_fail_(&r, 2, want, __FILE__, __LINE__);
        cli_result_free(&r);
        assert_false(cli_exists(bones));
    }
    /* the base is good */
    cli_result r = cli_run("run", cli_write("sb_scene.json", base), "--bones", bones, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *text = cli_read(bones, NULL);
    assert_non_null(strstr(text, "5,0,right_little_distal,"));
    free(text);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hands_bones), cmocka_unit_test(test_holistic), cmocka_unit_test(test_mirrored),
        cmocka_unit_test(test_bad_hands),   cmocka_unit_test(test_blender_hands), cmocka_unit_test(test_vmc_fingers),
        cmocka_unit_test(test_stream_hands), cmocka_unit_test(test_vrma_fingers), cmocka_unit_test(test_stream_vrma),
        cmocka_unit_test(test_scene_hands),  cmocka_unit_test(test_scene_resume), cmocka_unit_test(test_scene_bad_hands),
        cmocka_unit_test(test_scene_gestures),
    };
    return cmocka_run_group_tests_name("cli_hands", tests, NULL, NULL);
}
