/* test_cli_vmc.c — VMC (OSC over UDP, loopback only) from `crowd pose --vmc` and `crowd stream`,
 * received by a liblo server in this program (a real third-party OSC decoder).
 * - pose --vmc: one bundle per clip row; in each, Root/Pos, the 15 Unity humanoid bones once
 *   each, OK and T with the protocol's argument types; unit quaternions; and every rotation is
 *   the engine's world rotation (crowd pose --bones) under the conversion io/pose/vmc.h documents:
 *   convert back (products down the hierarchy, undo the facing turn, times the T-pose's
 *   rotation, which crowd pose gives for the documented T-pose landmarks) and compare to 1e-6.
 * - stream: fed through a pipe one line at a time with pauses; each frame's bundle and bones
 *   arrive before the next line is written; bad lines (bad JSON, a wrong landmark count, a line
 *   over --max-line-bytes) and out-of-order times are reported with their line numbers and
 *   skipped; frames with no detection (first and later) are solved as a clip's; the bones equal
 *   crowd pose's on the good lines; end of input exits 0; --strict stops at a bad line (exit 2);
 *   CRLF, blank lines and a last line without a newline read as a file's.
 * - pose --vmc --realtime over a 2 s clip: bundles arrive within 5 ms of the rows' t_s (from the
 *   first); skipped with a message when this machine's own sleeps overshoot too much to judge.
 * - osc_receiver: a second receiver on the npm package osc (vmc_osc.mjs) checks `crowd stream`'s
 *   pose and face bundles against the VMC specification's addresses, argument types, Unity's
 *   HumanBodyBones and the VRM 0 / ARKit blend shape names (case-sensitive), the eyes, blinks,
 *   mouth and visemes against the --params trace and the input scores, the hips' position, and
 *   --vmc-send / --vmc-blend; skipped with the reason without Node or the package.
 * - client_conversions: the README's conversions for Unity, glTF/three-vrm (a humanoid built on
 *   the npm package @pixiv/three-vrm) and Unreal receivers pose each limb along the landmarks
 *   within 0.05 degrees (vmc_clients.mjs).
 * - vrma_pose: crowd pose --vrma played by @pixiv/three-vrm-animation (vrma_three.mjs).
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* SO_RCVBUFFORCE */
#include <errno.h>
#include <fcntl.h>
#include <lo/lo.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_support.h"

extern char **environ;

static const char *const unity_names[15] = {"Hips",          "Spine",         "Head",         "LeftUpperArm",
                                            "LeftLowerArm",  "LeftHand",      "RightUpperArm", "RightLowerArm",
                                            "RightHand",     "LeftUpperLeg",  "LeftLowerLeg", "LeftFoot",
                                            "RightUpperLeg", "RightLowerLeg", "RightFoot"};
static const char *const engine_names[15] = {
    "hips", "chest", "head", "left_upper_arm", "left_lower_arm", "left_hand", "right_upper_arm", "right_lower_arm",
    "right_hand", "left_upper_leg", "left_lower_leg", "left_foot", "right_upper_leg", "right_lower_leg", "right_foot"};
static const int parent_of[15] = {-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the receiver: every bundle's messages as received ---- */
typedef struct vmc_frame {
    int messages, root, ok, t_count, blend, apply, outside;
    float blink[2]; /* Blink_L, Blink_R */
    float vowel[5]; /* A, I, U, E, O */
    int vowel_seen[5], eye_seen[2];
    double eye[2][4]; /* LeftEye, RightEye */
    int bone_seen[15];
    double bone[15][4];
    float t;
    double arrived; /* when the bundle's first message was handled (CLOCK_MONOTONIC) */
    char bad[256];  /* the first thing wrong with it, or "" */
} vmc_frame;

typedef struct receiver {
    lo_server server;
    int port;
    vmc_frame *frames;
    int count, cap;
    bool in_bundle;
    double stamp; /* > 0: the kernel's arrival time of the datagram being dispatched */
} receiver;

static int on_bundle_start(lo_timetag t, void *user) {
    (void)t;
    receiver *r = user;
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->frames = realloc(r->frames, sizeof *r->frames * r->cap);
        assert_non_null(r->frames);
    }
    memset(&r->frames[r->count++], 0, sizeof *r->frames);
    r->frames[r->count - 1].arrived = r->stamp > 0 ? r->stamp : now_s();
    r->in_bundle = true;
    return 0;
}

static int on_bundle_end(void *user) {
    ((receiver *)user)->in_bundle = false;
    return 0;
}

#define BAD(...) (f->bad[0] ? (void)0 : (void)snprintf(f->bad, sizeof f->bad, __VA_ARGS__))

/* liblo's arguments sit in the message's bytes, not aligned for lo_arg: read them by copy */
static float arg_f(const lo_arg *a) {
    float f;
    memcpy(&f, (const void *)a, sizeof f);
    return f;
}

static int32_t arg_i(const lo_arg *a) {
    int32_t i;
    memcpy(&i, (const void *)a, sizeof i);
    return i;
}

static const char *arg_s(const lo_arg *a) { return (const char *)(const void *)a; }

static int on_message(const char *path, const char *types, lo_arg **argv, int argc, lo_message m, void *user) {
    (void)m;
    receiver *r = user;
    if (!r->in_bundle || r->count == 0) {
        fail_msg("%s arrived outside a bundle (each frame is one bundle)", path);
        return 0;
    }
    vmc_frame *f = &r->frames[r->count - 1];
    f->messages++;
    if (strcmp(path, "/VMC/Ext/Bone/Pos") == 0 || strcmp(path, "/VMC/Ext/Root/Pos") == 0) {
        /* Root/Pos in VMC 2.1's long form: the pose, scale (1, 1, 1) and offset (0, 0, 0) */
        bool root = strcmp(path, "/VMC/Ext/Root/Pos") == 0;
        const char *want = root ? "sfffffffffffff" : "sfffffff";
        if (strcmp(types, want) != 0) BAD("%s has types %s, expected %s", path, types, want);
        if (argc != (int)strlen(want) || strcmp(types, want) != 0) return 0;
        if (root)
            for (int c = 8; c < 14; c++)
                if (arg_f(argv[c]) != (c < 11 ? 1.0f : 0.0f)) BAD("Root/Pos argument %d is %g", c, (double)arg_f(argv[c]));
        double q[4] = {arg_f(argv[4]), arg_f(argv[5]), arg_f(argv[6]), arg_f(argv[7])};
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (fabs(n - 1.0) > 1e-6) BAD("%s %s: |q| = %.9g", path, arg_s(argv[0]), n);
        for (int c = 1; c < 8; c++)
            if (!isfinite(arg_f(argv[c]))) BAD("%s %s: argument %d is not finite", path, arg_s(argv[0]), c);
        if (strcmp(path, "/VMC/Ext/Root/Pos") == 0) {
            if (strcmp(arg_s(argv[0]), "root") != 0) BAD("Root/Pos names \"%s\", expected root", arg_s(argv[0]));
            f->root++;
            return 0;
        }
        for (int e = 0; e < 2; e++)
            if (strcmp(arg_s(argv[0]), e ? "RightEye" : "LeftEye") == 0) {
                f->eye_seen[e]++;
                memcpy(f->eye[e], q, sizeof q);
                return 0;
            }
        int b = 0;
        while (b < 15 && strcmp(unity_names[b], arg_s(argv[0])) != 0) b++;
        if (b == 15) {
            BAD("unknown bone name \"%s\"", arg_s(argv[0]));
            return 0;
        }
        f->bone_seen[b]++;
        memcpy(f->bone[b], q, sizeof q);
    } else if (strcmp(path, "/VMC/Ext/OK") == 0) {
        if (strcmp(types, "iiii") != 0 || arg_i(argv[0]) != 1) BAD("/VMC/Ext/OK %s (expected iiii, loaded = 1)", types);
        f->ok++;
    } else if (strcmp(path, "/VMC/Ext/T") == 0) {
        if (strcmp(types, "f") != 0) BAD("/VMC/Ext/T has types %s, expected f", types);
        else f->t = arg_f(argv[0]);
        f->t_count++;
    } else if (strcmp(path, "/VMC/Ext/Blend/Val") == 0) {
        if (strcmp(types, "sf") != 0) BAD("/VMC/Ext/Blend/Val has types %s, expected sf", types);
        else if (strcmp(arg_s(argv[0]), "Blink_L") == 0) f->blink[0] = arg_f(argv[1]);
        else if (strcmp(arg_s(argv[0]), "Blink_R") == 0) f->blink[1] = arg_f(argv[1]);
        else {
            static const char *const vowels[5] = {"A", "I", "U", "E", "O"};
            int v = 0;
            while (v < 5 && strcmp(vowels[v], arg_s(argv[0])) != 0) v++;
            if (v == 5) BAD("unexpected blend shape %s", arg_s(argv[0]));
            else f->vowel[v] = arg_f(argv[1]), f->vowel_seen[v]++;
        }
        if (f->apply) BAD("Blend/Val after Blend/Apply");
        f->blend++;
    } else if (strcmp(path, "/VMC/Ext/Blend/Apply") == 0) {
        f->apply++;
    } else {
        BAD("unexpected address %s", path);
    }
    return 0;
}

static void receiver_open(receiver *r) {
    memset(r, 0, sizeof *r);
    r->server = lo_server_new_with_proto(NULL, LO_UDP, NULL);
    assert_non_null(r->server);
    r->port = lo_server_get_port(r->server);
    assert_true(r->port > 0);
    /* room for a whole run's bundles should this program fall behind (UDP drops what does not fit) */
    int fd = lo_server_get_socket_fd(r->server), size = 8 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    lo_server_add_bundle_handlers(r->server, on_bundle_start, on_bundle_end, r);
    lo_server_add_method(r->server, NULL, NULL, on_message, r);
}

/* Handles what arrives within timeout_ms (returns at the first datagram when until_count is
 * reached). */
static void receiver_poll(receiver *r, int timeout_ms, int until_count) {
    double end = now_s() + timeout_ms / 1000.0;
    while (r->count < until_count || until_count < 0) {
        int left = (int)((end - now_s()) * 1000.0);
        if (left <= 0) break;
        lo_server_recv_noblock(r->server, left);
    }
}

static void receiver_drain(receiver *r) {
    while (lo_server_recv_noblock(r->server, 50) > 0) {
    }
}

static void receiver_close(receiver *r) {
    lo_server_free(r->server);
    free(r->frames);
}

/* Every frame complete and as the protocol says: Root, 15 bones, `eyes` eye bones (0 or 2),
 * `blends` blend shapes and then (with any) one Apply, OK, T. */
static void check_frames_with(const receiver *r, int blends, int eyes) {
    for (int k = 0; k < r->count; k++) {
        const vmc_frame *f = &r->frames[k];
        if (f->bad[0]) fail_msg("bundle %d: %s", k + 1, f->bad);
        if (f->root != 1 || f->ok != 1 || f->t_count != 1 || f->blend != blends || f->apply != (blends ? 1 : 0) ||
            f->messages != 18 + eyes + blends + (blends ? 1 : 0) || f->eye_seen[0] != eyes / 2 || f->eye_seen[1] != eyes / 2)
            fail_msg("bundle %d: %d messages (root %d, OK %d, T %d, blend %d, eyes %d+%d): expected Root, 15 bones, %d "
                     "eyes, %d blend shapes, OK, T", k + 1, f->messages, f->root, f->ok, f->t_count, f->blend,
                     f->eye_seen[0], f->eye_seen[1], eyes, blends);
        for (int b = 0; b < 15; b++)
            if (f->bone_seen[b] != 1) fail_msg("bundle %d: bone %s seen %d times", k + 1, unity_names[b], f->bone_seen[b]);
    }
}

/* Every frame complete; with blink: both eyes' blend shapes and one Apply. */
static void check_frames(const receiver *r, bool blink) { check_frames_with(r, blink ? 2 : 0, 0); }

/* ---- quaternions in double ---- */
static void qmul(const double a[4], const double b[4], double o[4]) {
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* The documented T-pose (io/pose/vmc.h), engine frame, left side; the right mirrors x. */
static void tpose(float lm[132]) {
    static const struct { int l, r; float x, y, z; } p[] = {
        {0, 0, 0, 0.66f, -0.10f},    {1, 4, 0.03f, 0.69f, -0.075f}, {2, 5, 0.04f, 0.69f, -0.075f}, {3, 6, 0.05f, 0.69f, -0.07f},
        {7, 8, 0.075f, 0.66f, 0},    {9, 10, 0.02f, 0.62f, -0.085f}, {11, 12, 0.18f, 0.50f, 0},   {13, 14, 0.46f, 0.50f, 0},
        {15, 16, 0.72f, 0.50f, 0},   {17, 18, 0.80f, 0.50f, 0.03f}, {19, 20, 0.81f, 0.50f, -0.03f}, {21, 22, 0.77f, 0.50f, -0.06f},
        {23, 24, 0.10f, 0, 0},       {25, 26, 0.10f, -0.45f, 0},    {27, 28, 0.10f, -0.88f, 0},    {29, 30, 0.10f, -0.93f, 0.04f},
        {31, 32, 0.10f, -0.93f, -0.13f}};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
        float *a = &lm[p[k].l * 4], *b = &lm[p[k].r * 4];
        a[0] = p[k].x, a[1] = p[k].y, a[2] = p[k].z, a[3] = 1;
        b[0] = -p[k].x, b[1] = p[k].y, b[2] = p[k].z, b[3] = 1;
    }
}

/* A bones trace's rotations of one instance: rows x 15 x 4. */
static double *read_instance_bones(const char *text, int rows, int instance) {
    double *q = calloc((size_t)rows * 60, sizeof *q);
    char *copy = strdup(text), *save, *line = strtok_r(copy, "\n", &save);
    int found = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int frame, inst, used = 0;
        char name[32];
        if (sscanf(line, "%d,%d,%31[^,],%n", &frame, &inst, name, &used) != 3 || used == 0) fail_msg("bad line %s", line);
        if (inst != instance) continue;
        int b = 0;
        while (b < 15 && strcmp(engine_names[b], name) != 0) b++;
        assert_true(b < 15 && frame >= 1 && frame <= rows);
        char *p = line + used;
        for (int c = 0; c < 4; c++) {
            q[((frame - 1) * 15 + b) * 4 + c] = strtod(p, &p);
            if (*p == ',') p++;
        }
        found++;
    }
    assert_int_equal(found, rows * 15);
    free(copy);
    return q;
}

/* A bones trace's rotations: rows x 15 x 4. */
static double *read_bones(const char *text, int rows) {
    double *q = calloc((size_t)rows * 60, sizeof *q);
    char *copy = strdup(text), *save, *line = strtok_r(copy, "\n", &save);
    assert_string_equal(line, "frame,instance,bone,qx,qy,qz,qw");
    for (int k = 0; k < rows; k++)
        for (int b = 0; b < 15; b++) {
            line = strtok_r(NULL, "\n", &save);
            if (!line) fail_msg("the bones trace ends at row %d bone %d", k + 1, b);
            char head[64];
            snprintf(head, sizeof head, "%d,0,%s,", k + 1, engine_names[b]);
            if (strncmp(line, head, strlen(head)) != 0) fail_msg("\"%s\" should start \"%s\"", line, head);
            char *p = line + strlen(head);
            for (int c = 0; c < 4; c++) {
                q[(k * 15 + b) * 4 + c] = strtod(p, &p);
                if (*p == ',') p++;
            }
        }
    free(copy);
    return q;
}

/* Received locals -> engine world rotations (io/pose/vmc.h "Back again"), against `world` (one
 * row of read_bones) and the T-pose's `bind`, up to sign, 1e-6. */
static void check_conversion(const vmc_frame *f, const double *world, const double *bind, int row) {
    double unity[15][4];
    for (int b = 0; b < 15; b++) {
        if (parent_of[b] < 0) memcpy(unity[b], f->bone[b], sizeof unity[b]);
        else qmul(unity[parent_of[b]], f->bone[b], unity[b]);
        double a[4] = {-unity[b][0], unity[b][1], -unity[b][2], unity[b][3]}, w[4];
        qmul(a, &bind[b * 4], w);
        const double *want = &world[b * 4];
        double same = 0, flipped = 0;
        for (int c = 0; c < 4; c++) {
            same = fmax(same, fabs(w[c] - want[c]));
            flipped = fmax(flipped, fabs(w[c] + want[c]));
        }
        if (fmin(same, flipped) > 1e-6)
            fail_msg("row %d %s: converted back (%.9f %.9f %.9f %.9f), the engine's (%.9f %.9f %.9f %.9f): %.3g apart", row,
                     unity_names[b], w[0], w[1], w[2], w[3], want[0], want[1], want[2], want[3], fmin(same, flipped));
    }
}

/* A generated clip: rows at irregular times (engine frame), some low visibilities. */
static char *make_clip(int rows, double step, double *t_out) {
    float *lm = malloc(sizeof *lm * 132 * rows);
    char **tt = malloc(sizeof *tt * rows);
    for (int k = 0; k < rows; k++) {
        double t = k * step + (k % 3 == 1 ? 0.2 * step : 0.0);
        if (t_out) t_out[k] = t;
        cli_synthetic_pose(t, 1, &lm[k * 132]);
        if (k % 7 == 3) lm[k * 132 + 14 * 4 + 3] = 0.2f; /* an elbow not seen now and then */
        tt[k] = malloc(32);
        snprintf(tt[k], 32, "%.17g", t);
    }
    char *text = cli_clip_text((uint32_t)rows, (const char *const *)tt, lm);
    for (int k = 0; k < rows; k++) free(tt[k]);
    free(tt);
    free(lm);
    return text;
}

static char *port_arg(const receiver *r) {
    static char buf[64];
    snprintf(buf, sizeof buf, "127.0.0.1:%d", r->port);
    return buf;
}

static void test_pose_vmc(void **state) {
    (void)state;
    enum { ROWS = 40 };
    double t[ROWS];
    char *text = make_clip(ROWS, 1.0 / 30, t);
    const char *clip = cli_write("vmc_clip.csv", text);
    free(text);
    float lm[132];
    tpose(lm);
    const char *tt[1] = {"0"};
    char *tp = cli_clip_text(1, tt, lm);
    const char *tpose_clip = cli_write("tpose.csv", tp);
    free(tp);
    static const char *const fixes[2] = {"y_along_bone", "z_along_bone"};
    for (int fix = 0; fix < 2; fix++) {
        cli_result bind = cli_run("pose", tpose_clip, "--frame", "engine", "--axis-fix", fixes[fix]);
        cli_expect_ok(&bind);
        double *bq = read_bones(bind.out, 1);
        cli_result bones = cli_run("pose", clip, "--frame", "engine", "--axis-fix", fixes[fix]);
        cli_expect_ok(&bones);
        double *wq = read_bones(bones.out, ROWS);

        receiver r;
        receiver_open(&r);
        cli_result sent = cli_run("pose", clip, "--frame", "engine", "--axis-fix", fixes[fix], "--vmc", port_arg(&r));
        cli_expect_ok(&sent);
        assert_string_equal(sent.out, ""); /* with --vmc alone no trace on standard output */
        receiver_drain(&r); /* (40 bundles fit in the socket's buffer) */
        if (r.count != ROWS) fail_msg("%d bundles for %d clip rows", r.count, ROWS);
        check_frames(&r, false);
        for (int k = 0; k < ROWS; k++) {
            check_conversion(&r.frames[k], &wq[k * 60], bq, k + 1);
            if (r.frames[k].t != (float)(t[k] - t[0])) fail_msg("row %d: T %.9g, t_s %.9g", k + 1, r.frames[k].t, t[k]);
        }
        receiver_close(&r);
        free(bq);
        free(wq);
        cli_result_free(&bind);
        cli_result_free(&bones);
        cli_result_free(&sent);
    }
    cli_result r1 = cli_run("pose", clip, "--vmc", "127.0.0.1");
    cli_expect_fail(&r1, 2, "--vmc", "HOST:PORT");
    cli_result r2 = cli_run("pose", clip, "--vmc", "127.0.0.1:70000");
    cli_expect_fail(&r2, 2, "--vmc", "HOST:PORT");
    cli_result_free(&r1);
    cli_result_free(&r2);
    /* --vmc-send and --vmc-blend choose what --vmc sends: alone they are flag misuse, named */
    cli_result r3 = cli_run("pose", clip, "--vmc-send", "face");
    cli_expect_fail(&r3, 2, "pose: --vmc-send goes with --vmc HOST:PORT");
    cli_result r4 = cli_run("pose", clip, "--vmc-blend", "arkit", "--vrma", cli_path("unused.vrma"));
    cli_expect_fail(&r4, 2, "pose: --vmc-blend goes with --vmc HOST:PORT");
    if (access(cli_path("unused.vrma"), F_OK) == 0) fail_msg("a refused command wrote its --vrma");
    cli_result_free(&r3);
    cli_result_free(&r4);
}

/* ---- crowd stream through a pipe ---- */
typedef struct child {
    pid_t pid;
    int in, out; /* its standard input (we write), its standard output (we read) */
} child;

static child spawn(const char *const *args, const char *err_path) {
    int to[2], from[2];
    assert_int_equal(pipe(to), 0);
    assert_int_equal(pipe(from), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addclose(&fa, to[1]);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    const char *argv[32] = {cli_exe};
    int n = 1;
    while (args[n - 1]) argv[n] = args[n - 1], n++;
    argv[n] = NULL;
    setenv("CROWD_SIMD", cli_target, 1);
    child c = {0};
    assert_int_equal(posix_spawn(&c.pid, cli_exe, &fa, NULL, (char *const *)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(to[0]);
    close(from[1]);
    c.in = to[1];
    c.out = from[0];
    fcntl(c.out, F_SETFL, O_NONBLOCK);
    return c;
}

/* Waits (at most 10 s) for the child's exit status. */
static int reap(child *c) {
    for (int k = 0; k < 1000; k++) {
        int status;
        pid_t got = waitpid(c->pid, &status, WNOHANG);
        if (got == c->pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
    fail_msg("crowd stream did not end within 10 s of the end of its input");
    return -1;
}

/* Runs crowd with args while receiving (so that a fast sender does not overflow the socket),
 * until `count` bundles came and it exited; its exit status. */
static int run_receiving(const char *const *args, receiver *r, int count) {
    child c = spawn(args, cli_path("receiving.err"));
    close(c.in);
    receiver_poll(r, 10000, count);
    int status = reap(&c);
    close(c.out);
    receiver_drain(r);
    if (status != 0) {
        char *err = cli_read(cli_path("receiving.err"), NULL);
        fail_msg("crowd %s exited %d: %s", args[0], status, err ? err : "");
    }
    return status;
}

/* Reads what the child wrote to its standard output until `lines` newlines are in b (5 s). */
static void read_lines(child *c, cli_buf *b, int lines) {
    double end = now_s() + 5;
    for (;;) {
        int have = 0;
        for (size_t k = 0; k < b->len; k++) have += b->text[k] == '\n';
        if (have >= lines) return;
        if (now_s() > end) fail_msg("the bones of a frame did not arrive within 5 s (%d of %d lines)", have, lines);
        struct pollfd p = {c->out, POLLIN, 0};
        poll(&p, 1, 100);
        char chunk[4096];
        ssize_t got = read(c->out, chunk, sizeof chunk);
        if (got > 0) cli_buf_printf(b, "%.*s", (int)got, chunk);
    }
}

/* A Tasks result line (mediapipe_world: y down) or a TF.js frame line for engine-frame lm. */
static char *tasks_line(double t_ms, const float *lm, int count) {
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"timestamp_ms\": %.17g, \"worldLandmarks\": [[", t_ms);
    for (int k = 0; k < count; k++)
        cli_buf_printf(&b, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"visibility\": %.9g}", k ? ", " : "", lm[k * 4],
                       -lm[k * 4 + 1], lm[k * 4 + 2], lm[k * 4 + 3]);
    cli_buf_printf(&b, "]]}\n");
    return b.text;
}

static char *tfjs_line(int frame_num, const float *lm) {
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frameNum\": %d, \"ticksPerSecond\": 30, \"keypoints3D\": [", frame_num);
    for (int k = 0; k < 33; k++)
        cli_buf_printf(&b, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"score\": %.9g, \"name\": \"p%d\"}", k ? ", " : "",
                       lm[k * 4], -lm[k * 4 + 1], lm[k * 4 + 2], lm[k * 4 + 3], k);
    cli_buf_printf(&b, "]}\n");
    return b.text;
}

static void test_stream_pipe(void **state) {
    (void)state;
    /* 10 lines: good frames, then bad ones among them; expect[k] the t of a frame that is solved */
    enum { LINES = 12 };
    char *lines[LINES];
    bool good[LINES];
    float lm[132];
    int frame_of_line[LINES];
    double t_of[LINES];
    int n = 0;
    for (int k = 0; k < LINES; k++) {
        double t = k / 30.0;
        cli_synthetic_pose(t, 0, lm);
        good[k] = true;
        if (k == 0 || k == 9) { /* nobody detected: the rest pose first, later the last landmarks unseen */
            char buf[96];
            snprintf(buf, sizeof buf, "{\"timestamp_ms\": %.17g, \"worldLandmarks\": []}\n", t * 1000.0);
            lines[k] = strdup(buf);
        } else if (k == 3) {
            lines[k] = strdup("{\"timestamp_ms\": 100, \"worldLandmarks\": [[{\"x\": 1}]]}\n"); /* 1 landmark */
            good[k] = false;
        } else if (k == 5) {
            lines[k] = strdup("not json at all\n");
            good[k] = false;
        } else if (k == 7) {
            lines[k] = tasks_line(t_of[6] * 1000.0, lm, 33); /* repeats line 7's time */
            good[k] = false;
        } else if (k == 8) {
            lines[k] = tasks_line(0.05 * 1000.0, lm, 33); /* goes back in time */
            good[k] = false;
        } else if (k == 10) {
            lines[k] = tfjs_line(10, lm); /* the other format, t = 10/30 */
        } else if (k == 11) {
            lines[k] = malloc(200001); /* longer than --max-line-bytes 100000 */
            memset(lines[k], ' ', 200000);
            lines[k][0] = '{', lines[k][199999] = '\n', lines[k][200000] = 0;
            good[k] = false;
        } else {
            lines[k] = tasks_line(t * 1000.0, lm, 33);
        }
        t_of[k] = t;
        frame_of_line[k] = good[k] ? ++n : 0;
    }
    /* what crowd pose gives on the good lines alone (a file of them) */
    cli_buf file = {0};
    for (int k = 0; k < LINES; k++)
        if (good[k]) cli_buf_printf(&file, "%s", lines[k]);
    const char *good_path = cli_write("good.ndjson", file.text);
    free(file.text);
    cli_result want = cli_run("pose", good_path);
    cli_expect_ok(&want);

    receiver r;
    receiver_open(&r);
    const char *err_path = cli_path("stream.err");
    char stream_vrma[1400];
    snprintf(stream_vrma, sizeof stream_vrma, "%s", cli_path("stream.vrma"));
    child c = spawn((const char *const[]){"stream", "--vmc", port_arg(&r), "--bones", "-", "--max-line-bytes", "100000",
                                          "--vrma", stream_vrma, NULL},
                    err_path);
    cli_buf out = {0};
    read_lines(&c, &out, 1); /* the header, before any input */
    for (int k = 0; k < LINES; k++) {
        size_t len = strlen(lines[k]);
        assert_int_equal(write(c.in, lines[k], len), (ssize_t)len);
        if (good[k]) {
            /* this frame's bundle and its 15 bone lines, before the next line is written */
            receiver_poll(&r, 5000, frame_of_line[k]);
            if (r.count != frame_of_line[k])
                fail_msg("line %d: %d bundles after it, expected %d", k + 1, r.count, frame_of_line[k]);
            if (r.frames[r.count - 1].t != (float)(t_of[k] - t_of[0]))
                fail_msg("line %d: T %.9g, expected %.9g", k + 1, r.frames[r.count - 1].t, t_of[k] - t_of[0]);
            read_lines(&c, &out, 1 + 15 * frame_of_line[k]);
        }
        struct timespec pause = {0, 30000000}; /* a tracker's pace */
        nanosleep(&pause, NULL);
    }
    close(c.in);
    assert_int_equal(reap(&c), 0);
    receiver_drain(&r);
    if (r.count != n) fail_msg("%d bundles for %d good lines", r.count, n);
    check_frames(&r, false);
    read_lines(&c, &out, 1 + 15 * n);
    assert_string_equal(out.text, want.out);
    /* --vrma: written at the end of input, the same bytes as crowd pose --vrma gives on the good
     * lines (whose file three-vrm-animation plays in vrma_pose) */
    cli_result pose_vrma = cli_run("pose", good_path, "--vrma", cli_path("stream_want.vrma"));
    cli_expect_ok(&pose_vrma);
    cli_result_free(&pose_vrma);
    size_t got_size = 0, want_size = 0;
    char *got_glb = cli_read(stream_vrma, &got_size), *want_glb = cli_read(cli_path("stream_want.vrma"), &want_size);
    assert_non_null(got_glb);
    assert_non_null(want_glb);
    if (got_size != want_size || memcmp(got_glb, want_glb, got_size) != 0)
        fail_msg("stream --vrma (%zu bytes) differs from pose --vrma on the same frames (%zu bytes)", got_size, want_size);
    free(got_glb);
    free(want_glb);
    char *err = cli_read(err_path, NULL);
    assert_non_null(err);
    static const char *const expected[] = {"-:4:", "has 1 landmarks", "-:6:", "not valid JSON", "-:8:", "repeats",
                                           "-:9:", "comes before", "line skipped", "dropped", "-:12:",
                                           "longer than 100000 bytes"};
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++)
        if (!strstr(err, expected[k])) fail_msg("stderr lacks \"%s\":\n%s", expected[k], err);
    free(err);
    free(out.text);
    close(c.out);
    receiver_close(&r);

    /* --strict: the first bad line ends the stream with exit 2 */
    cli_buf in = {0};
    for (int k = 0; k < 6; k++) cli_buf_printf(&in, "%s", lines[k]);
    child s = spawn((const char *const[]){"stream", "--strict", NULL}, err_path);
    assert_int_equal(write(s.in, in.text, in.len), (ssize_t)in.len);
    close(s.in);
    assert_int_equal(reap(&s), 2);
    cli_buf sout = {0};
    read_lines(&s, &sout, 1 + 15 * 3); /* the three frames before line 4 */
    err = cli_read(err_path, NULL);
    if (!strstr(err, "-:4:")) fail_msg("--strict: stderr lacks the line number:\n%s", err);
    free(err);
    free(sout.text);
    free(in.text);
    close(s.out);
    /* bad usage */
    cli_result u = cli_run("stream", "--vmc", "nowhere");
    cli_expect_fail(&u, 2, "--vmc");
    cli_result_free(&u);
    u = cli_run("stream", "--vmc-blend", "vrm0");
    cli_expect_fail(&u, 2, "stream: --vmc-blend goes with --vmc HOST:PORT");
    cli_result_free(&u);
    cli_result_free(&want);
    for (int k = 0; k < LINES; k++) free(lines[k]);
}

/* Line ends as files have them: CRLF, blank lines, a last line without a newline. */
static void test_stream_line_ends(void **state) {
    (void)state;
    float lm[132];
    cli_buf in = {0}, file = {0};
    for (int k = 0; k < 3; k++) {
        cli_synthetic_pose(k / 25.0, 2, lm);
        char *line = tasks_line(k * 40.0, lm, 33);
        cli_buf_printf(&file, "%s", line);
        line[strlen(line) - 1] = 0;
        cli_buf_printf(&in, "%s%s", line, k == 0 ? "\r\n\n   \t\r\n" : k == 1 ? "\n" : "");
        free(line);
    }
    const char *in_path = cli_write("line_ends.in", in.text);
    const char *file_path = cli_write("line_ends.ndjson", file.text);
    cli_result want = cli_run("pose", file_path);
    cli_expect_ok(&want);
    const char *err_path = cli_path("line_ends.err");
    child c = spawn((const char *const[]){"stream", NULL}, err_path);
    FILE *f = fopen(in_path, "rb");
    assert_non_null(f);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) assert_int_equal(write(c.in, chunk, n), (ssize_t)n);
    fclose(f);
    close(c.in);
    cli_buf out = {0};
    read_lines(&c, &out, 1 + 15 * 3);
    assert_int_equal(reap(&c), 0);
    close(c.out);
    assert_string_equal(out.text, want.out);
    char *err = cli_read(err_path, NULL);
    assert_string_equal(err, ""); /* nothing to report */
    free(err);
    free(out.text);
    free(in.text);
    free(file.text);
    cli_result_free(&want);
}

/* A canary beside each --realtime run: how late this machine wakes a thread from 1 ms sleeps
 * (the worst, in seconds). A run during which the canary itself was held up for milliseconds
 * cannot tell slow pacing from a busy machine. */
typedef struct canary {
    atomic_bool stop;
    double worst;
} canary;

static void *canary_run(void *arg) {
    canary *c = arg;
    while (!atomic_load(&c->stop)) {
        double t0 = now_s();
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        c->worst = fmax(c->worst, now_s() - t0 - 0.001);
    }
    return NULL;
}

/* One --realtime run of the clip: the spread of (arrival - t_s) over the rows, in seconds (the
 * earliest row's offset taken as the origin: every row between 0 and the spread late). The
 * arrival is the kernel's receive timestamp of each datagram (SO_TIMESTAMPNS), decoded by liblo
 * (lo_server_dispatch_data), so this program's own scheduling does not count. */
static double realtime_spread(const char *clip, const double *t, int rows, int *worst_row, double *held_up) {
    canary cn = {.worst = 0};
    atomic_init(&cn.stop, false);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, canary_run, &cn), 0);
    receiver r;
    receiver_open(&r);
    int fd = socket(AF_INET, SOCK_DGRAM, 0), on = 1;
    assert_true(fd >= 0);
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on), 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &alen), 0);
    char target[64];
    snprintf(target, sizeof target, "127.0.0.1:%d", ntohs(addr.sin_port));
    child c = spawn((const char *const[]){"pose", clip, "--frame", "engine", "--vmc", target, "--realtime", NULL},
                    cli_path("realtime.err"));
    close(c.in);
    double end = now_s() + 8;
    while (r.count < rows && now_s() < end) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0) continue;
        static char data[65536];
        char control[256];
        struct iovec iov = {data, sizeof data};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
        ssize_t got = recvmsg(fd, &m, 0);
        if (got <= 0) continue;
        r.stamp = 0;
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
            if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(h), sizeof ts);
                r.stamp = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
            }
        if (!(r.stamp > 0)) fail_msg("no kernel timestamp on a datagram");
        assert_int_equal(lo_server_dispatch_data(r.server, data, (size_t)got), (int)got);
    }
    close(fd);
    atomic_store(&cn.stop, true);
    pthread_join(thread, NULL);
    *held_up = cn.worst;
    assert_int_equal(reap(&c), 0);
    close(c.out);
    if (r.count != rows) fail_msg("%d bundles for %d rows", r.count, rows);
    check_frames(&r, false);
    double lo = 1e9, hi = -1e9;
    for (int k = 0; k < rows; k++) {
        double off = (r.frames[k].arrived - r.frames[0].arrived) - (t[k] - t[0]);
        lo = fmin(lo, off);
        if (off > hi) hi = off, *worst_row = k + 1;
        if (r.frames[k].t != (float)(t[k] - t[0])) fail_msg("row %d: T %.9g, t_s %.9g", k + 1, r.frames[k].t, t[k]);
    }
    receiver_close(&r);
    return hi - lo;
}

static void test_realtime(void **state) {
    (void)state;
    if (strcmp(cli_target, "scalar") != 0) {
        printf("realtime pacing is checked once (on the scalar target): the pacing is not SIMD code\n");
        skip();
    }
    enum { ROWS = 61 };
    double t[ROWS];
    char *text = make_clip(ROWS, 2.0 / (ROWS - 1), t); /* 2 s, irregular steps */
    const char *clip = cli_write("realtime.csv", text);
    free(text);
    /* a busy machine holds a process up now and then: up to three runs; a run that misses while
     * the canary was not held up fails the test */
    double spread = 0, held_up = 0;
    int worst_row = 0;
    for (int attempt = 1; attempt <= 3; attempt++) {
        spread = realtime_spread(clip, t, ROWS, &worst_row, &held_up);
        printf("realtime run %d: bundles arrive within %.3f ms of the rows' t_s (the latest: row %d); this machine "
               "held a 1 ms sleep up by %.3f ms at worst meanwhile\n",
               attempt, spread * 1e3, worst_row, held_up * 1e3);
        if (spread <= 0.005) return;
        if (held_up < 0.002)
            fail_msg("realtime: row %d arrived %.2f ms off its t_s (limit 5 ms) on an idle machine", worst_row,
                     spread * 1e3);
    }
    printf("realtime: skipped: the machine is too loaded to judge pacing within 5 ms (runs %.1f ms off while "
           "a 1 ms sleep took up to %.1f ms longer)\n",
           spread * 1e3, held_up * 1e3);
    skip();
}

/* crowd run --vmc of a rig with a look controller on ParamEyeBallX/Y and a harmonic mouth on
 * ParamMouthOpenY: LeftEye and RightEye each turn Unity's forward (+Z) to the gaze direction
 * (-sin(30 deg x) cos(20 deg y), sin(20 deg y), cos(30 deg x) cos(20 deg y)) with no roll (x: +1
 * the subject's left, which is Unity's -X for an avatar facing +Z; y: +1 up), x and y the
 * parameters' outputs in the trace; A is ParamMouthOpenY's output; no blink controller: no Blink. */
static void test_run_vmc_look(void **state) {
    (void)state;
    enum { FRAMES = 60 };
    char *text = make_clip(30, 1.0 / 30, NULL);
    cli_write("look_clip.csv", text);
    free(text);
    const char *scene = cli_write(
        "look_scene.json",
        "{\"dt\": 0.0333333351, \"frames\": 60,\n"
        " \"rigs\": [{\"name\": \"looker\", \"parameters\": [{\"id\": \"ParamEyeBallX\", \"min\": -1, \"max\": 1},\n"
        "   {\"id\": \"ParamEyeBallY\", \"min\": -1, \"max\": 1}, {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}],\n"
        "   \"look\": {\"parameters\": [{\"id\": \"ParamEyeBallX\", \"axis\": \"x\"}, {\"id\": \"ParamEyeBallY\", \"axis\": \"y\"}]},\n"
        "   \"harmonic\": {\"channel_timescales\": [1], \"parameters\": [{\"id\": \"ParamMouthOpenY\", \"channel\": 0,\n"
        "     \"direction\": \"centric\", \"origin\": 0.5, \"range\": 0.5, \"duration\": 1}]},\n"
        "   \"limbs\": {\"frame\": \"engine\"}}],\n"
        " \"groups\": [{\"rig\": \"looker\", \"count\": 1, \"pose\": {\"clip\": \"look_clip.csv\"},\n"
        "   \"look\": {\"keys\": [{\"t\": 0, \"target\": [-0.9, 0.8, 0]}, {\"t\": 1, \"target\": [0.9, -0.8, 0]}]}}]}\n");
    const char *trace = cli_path("look_trace.csv");
    cli_result ref = cli_run("run", scene, "--quiet", "--trace", trace);
    cli_expect_ok(&ref);
    cli_result_free(&ref);
    float *gx = calloc(FRAMES, sizeof *gx), *gy = calloc(FRAMES, sizeof *gy), *mouth = calloc(FRAMES, sizeof *mouth);
    char *trace_text = cli_read(trace, NULL), *save, *line = strtok_r(trace_text, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int frame, inst;
        float v;
        char id[64];
        if (sscanf(line, "%d,%d,%63[^,],%f", &frame, &inst, id, &v) != 4 || frame < 1 || frame > FRAMES) continue;
        if (strcmp(id, "ParamEyeBallX") == 0) gx[frame - 1] = v;
        if (strcmp(id, "ParamEyeBallY") == 0) gy[frame - 1] = v;
        if (strcmp(id, "ParamMouthOpenY") == 0) mouth[frame - 1] = v;
    }
    free(trace_text);
    receiver r;
    receiver_open(&r);
    run_receiving((const char *const[]){"run", scene, "--quiet", "--vmc", port_arg(&r), NULL}, &r, FRAMES);
    if (r.count != FRAMES) fail_msg("%d bundles for %d frames", r.count, FRAMES);
    check_frames_with(&r, 1, 2);
    const double deg = M_PI / 180.0;
    double worst = 0, lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0, hi_mouth = 0;
    for (int k = 0; k < r.count && k < FRAMES; k++) {
        const vmc_frame *f = &r.frames[k];
        if (f->vowel_seen[0] != 1 || f->vowel[0] != mouth[k])
            fail_msg("frame %d: A %.9g, ParamMouthOpenY %.9g", k + 1, f->vowel[0], mouth[k]);
        double yaw = 30.0 * deg * gx[k], up = 20.0 * deg * gy[k];
        double want[3] = {-sin(yaw) * cos(up), sin(up), cos(yaw) * cos(up)};
        for (int e = 0; e < 2; e++) {
            const double *q = f->eye[e];
            double zq[4] = {0, 0, 1, 0}, xq[4] = {1, 0, 0, 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], z[4], x[4];
            qmul(q, zq, t);
            qmul(t, c, z);
            qmul(q, xq, t);
            qmul(t, c, x);
            double dot = z[0] * want[0] + z[1] * want[1] + z[2] * want[2];
            double cross = sqrt(pow(z[1] * want[2] - z[2] * want[1], 2) + pow(z[2] * want[0] - z[0] * want[2], 2) +
                                pow(z[0] * want[1] - z[1] * want[0], 2));
            double off = atan2(cross, dot) / deg;
            worst = fmax(worst, off);
            if (off > 1e-4 || fabs(x[1]) > 1e-6)
                fail_msg("frame %d %s: looks %.6f deg off the gaze (%.6g, %.6g), its x axis %.3g up", k + 1,
                         e ? "RightEye" : "LeftEye", off, gx[k], gy[k], x[1]);
        }
        lo_x = fmin(lo_x, gx[k]), hi_x = fmax(hi_x, gx[k]), lo_y = fmin(lo_y, gy[k]), hi_y = fmax(hi_y, gy[k]);
        hi_mouth = fmax(hi_mouth, mouth[k]);
    }
    if (!(lo_x < -0.3 && hi_x > 0.3 && lo_y < -0.3 && hi_y > 0.3 && hi_mouth > 0.5))
        fail_msg("the gaze sweeps x %g..%g, y %g..%g and the mouth to %g: too little to prove the axes", lo_x, hi_x, lo_y,
                 hi_y, hi_mouth);
    print_message("run --vmc eyes: worst %.2e deg off the gaze over %d frames\n", worst, r.count);
    receiver_close(&r);
    free(gx);
    free(gy);
    free(mouth);
}

/* crowd run --vmc of a face-track group (a rig with face tracking, the standard mapping, no
 * blink controller): the blend shapes are the VRM 0 presets from the track's scores (Blink_L/R =
 * eyeBlinkLeft/Right, I = mean(mouthStretchLeft, mouthStretchRight), U = mouthPucker, E =
 * mean(mouthLowerDownLeft, mouthLowerDownRight), O = mouthFunnel), A = ParamMouthOpenY's output,
 * and the eyes go too (the gaze from ParamEyeBallX/Y). */
static void test_run_vmc_face(void **state) {
    (void)state;
    enum { FRAMES = 10, SCORES = 52 };
    char *text = make_clip(30, 1.0 / 30, NULL);
    cli_write("facegroup_clip.csv", text);
    free(text);
    float sc[SCORES];
    cli_buf track = {0};
    for (int row = 0; row < 2; row++) { /* the same face at 0 and 1 s */
        cli_buf_printf(&track, "{\"timestamp_ms\": %d, \"faceBlendshapes\": [{\"categories\": [", row * 1000);
        for (int k = 0; k < SCORES; k++) {
            sc[k] = (float)(0.1 + 0.8 * ((k * 37) % SCORES) / (double)SCORES);
            cli_buf_printf(&track, "%s{\"index\": %d, \"score\": %.9g, \"categoryName\": \"%s\"}", k ? ", " : "", k, (double)sc[k],
                           crowd_face_source_name((crowd_face_source)k));
        }
        cli_buf_printf(&track, "]}], \"facialTransformationMatrixes\": [{\"rows\": 4, \"columns\": 4, \"data\": "
                               "[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]}]}\n");
    }
    cli_write("facegroup.ndjson", track.text);
    free(track.text);
    const char *scene = cli_write(
        "facegroup_scene.json",
        "{\"dt\": 0.0333333351, \"frames\": 10,\n"
        " \"rigs\": [{\"name\": \"tracked\", \"parameters\": [{\"id\": \"ParamEyeBallX\", \"min\": -1, \"max\": 1},\n"
        "   {\"id\": \"ParamEyeBallY\", \"min\": -1, \"max\": 1}, {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}],\n"
        "   \"face\": {}, \"limbs\": {\"frame\": \"engine\"}}],\n"
        " \"groups\": [{\"rig\": \"tracked\", \"count\": 1, \"pose\": {\"clip\": \"facegroup_clip.csv\"},\n"
        "   \"face\": {\"clip\": \"facegroup.ndjson\"}}]}\n");
    const char *trace = cli_path("facegroup_trace.csv");
    cli_result ref = cli_run("run", scene, "--quiet", "--trace", trace);
    cli_expect_ok(&ref);
    cli_result_free(&ref);
    float mouth[FRAMES] = {0};
    char *trace_text = cli_read(trace, NULL), *save, *line = strtok_r(trace_text, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int frame, inst;
        float v;
        if (sscanf(line, "%d,%d,ParamMouthOpenY,%f", &frame, &inst, &v) == 3 && frame >= 1 && frame <= FRAMES)
            mouth[frame - 1] = v;
    }
    free(trace_text);
    receiver r;
    receiver_open(&r);
    run_receiving((const char *const[]){"run", scene, "--quiet", "--vmc", port_arg(&r), NULL}, &r, FRAMES);
    if (r.count != FRAMES) fail_msg("%d bundles for %d frames", r.count, FRAMES);
    check_frames_with(&r, 7, 2);
    const float vowel[5] = {0, 0.5f * (sc[CROWD_FACE_MOUTH_STRETCH_LEFT] + sc[CROWD_FACE_MOUTH_STRETCH_RIGHT]),
                            sc[CROWD_FACE_MOUTH_PUCKER],
                            0.5f * (sc[CROWD_FACE_MOUTH_LOWER_DOWN_LEFT] + sc[CROWD_FACE_MOUTH_LOWER_DOWN_RIGHT]),
                            sc[CROWD_FACE_MOUTH_FUNNEL]};
    for (int k = 0; k < r.count && k < FRAMES; k++) {
        const vmc_frame *f = &r.frames[k];
        if (f->blink[0] != sc[CROWD_FACE_EYE_BLINK_LEFT] || f->blink[1] != sc[CROWD_FACE_EYE_BLINK_RIGHT])
            fail_msg("frame %d: Blink_L %.9g, Blink_R %.9g; the track's eyeBlinkLeft/Right %.9g, %.9g", k + 1, f->blink[0],
                     f->blink[1], sc[CROWD_FACE_EYE_BLINK_LEFT], sc[CROWD_FACE_EYE_BLINK_RIGHT]);
        if (f->vowel[0] != mouth[k]) fail_msg("frame %d: A %.9g, ParamMouthOpenY %.9g", k + 1, f->vowel[0], mouth[k]);
        for (int v = 1; v < 5; v++)
            if (f->vowel_seen[v] != 1 || fabsf(f->vowel[v] - vowel[v]) > 1e-6f)
                fail_msg("frame %d: vowel %d is %.9g, the scores give %.9g", k + 1, v, f->vowel[v], vowel[v]);
    }
    receiver_close(&r);
}

/* crowd run --vmc --instance K: one instance of a crowd, its blink as Blink_L/R = 1 - the eye
 * opening (the blink parameter's output: default 1, multiplied), its bones as the run's. */
static void test_run_vmc(void **state) {
    (void)state;
    enum { FRAMES = 240, K = 2 };
    char *text = make_clip(30, 1.0 / 30, NULL);
    cli_write("run_clip.csv", text);
    free(text);
    const char *scene = cli_write(
        "run_scene.json",
        "{\"seed\": 7, \"dt\": 0.0166666675, \"frames\": 240,\n"
        " \"rigs\": [{\"name\": \"avatar\", \"parameters\": [{\"id\": \"EyeOpen\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
        "   \"blink\": {\"model\": \"sine\", \"parameters\": [\"EyeOpen\"], \"mean\": 1, \"max_deviation\": 0.5},\n"
        "   \"limbs\": {\"frame\": \"engine\"}},\n"
        "  {\"name\": \"statue\", \"limbs\": {\"frame\": \"engine\", \"axis_fix\": \"z_along_bone\"}}],\n"
        " \"groups\": [{\"rig\": \"avatar\", \"count\": 4, \"blink_start\": \"random\",\n"
        "              \"pose\": {\"clip\": \"run_clip.csv\", \"offset\": \"random\", \"loop\": true}},\n"
        "             {\"rig\": \"statue\", \"count\": 1, \"pose\": {\"clip\": \"run_clip.csv\"}}]}\n");
    const char *trace = cli_path("run_trace.csv"), *bones = cli_path("run_bones.csv");
    cli_result ref = cli_run("run", scene, "--quiet", "--trace", trace, "--bones", bones);
    cli_expect_ok(&ref);
    char *bones_text = cli_read(bones, NULL), *trace_text = cli_read(trace, NULL);
    double *wq = read_instance_bones(bones_text, FRAMES, K);
    float lm[132];
    tpose(lm);
    const char *tt[1] = {"0"};
    char *tp = cli_clip_text(1, tt, lm);
    const char *tpose_clip = cli_write("tpose_run.csv", tp);
    free(tp);
    cli_result bind = cli_run("pose", tpose_clip, "--frame", "engine");
    cli_expect_ok(&bind);
    double *bq = read_bones(bind.out, 1);

    receiver r;
    receiver_open(&r);
    char k_text[8];
    snprintf(k_text, sizeof k_text, "%d", K);
    run_receiving((const char *const[]){"run", scene, "--quiet", "--vmc", port_arg(&r), "--instance", k_text, NULL}, &r,
                  FRAMES);
    if (r.count != FRAMES) fail_msg("%d bundles for %d frames", r.count, FRAMES);
    check_frames(&r, true);
    /* the eye opening of instance K from the parameter trace */
    float *open = calloc(FRAMES, sizeof *open);
    char *save, *line = strtok_r(trace_text, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        int frame, inst;
        float v;
        if (sscanf(line, "%d,%d,EyeOpen,%f", &frame, &inst, &v) == 3 && inst == K) open[frame - 1] = v;
    }
    int closed = 0;
    for (int k = 0; k < FRAMES; k++) {
        const vmc_frame *f = &r.frames[k];
        float want = 1.0f - open[k];
        if (f->blink[0] != want || f->blink[1] != want)
            fail_msg("frame %d: Blink_L %.9g, Blink_R %.9g; 1 - the eye opening is %.9g", k + 1, f->blink[0], f->blink[1],
                     want);
        closed += want > 0.5f;
        check_conversion(f, &wq[k * 60], bq, k + 1);
        if (f->t != (float)(k * (double)0.0166666675f)) fail_msg("frame %d: T %.9g", k + 1, f->t);
    }
    if (closed == 0) fail_msg("no blink in %d frames: the check above saw only open eyes", FRAMES);
    receiver_close(&r);
    /* the statue's rig has no blink: no blend shapes */
    receiver_open(&r);
    cli_result statue = cli_run("run", scene, "--quiet", "--frames", "3", "--vmc", port_arg(&r), "--instance", "4");
    cli_expect_ok(&statue);
    receiver_poll(&r, 5000, 3);
    receiver_drain(&r);
    assert_int_equal(r.count, 3);
    check_frames(&r, false);
    receiver_close(&r);
    cli_result bad = cli_run("run", scene, "--vmc", "127.0.0.1:9", "--instance", "5");
    cli_expect_fail(&bad, 2, "--instance 5");
    cli_result_free(&bad);
    bad = cli_run("run", scene, "--vmc-send", "bones,eyes", "--frames", "1");
    cli_expect_fail(&bad, 2, "run: --vmc-send goes with --vmc HOST:PORT");
    cli_result_free(&bad);
    cli_result_free(&statue);
    cli_result_free(&bind);
    cli_result_free(&ref);
    free(open);
    free(wq);
    free(bq);
    free(bones_text);
    free(trace_text);
}

/* Is `package` in the build folder's npm-vmc, and node on PATH? Else says why (skip). */
static bool have_npm(const char *package) {
    char pkg[1400];
    snprintf(pkg, sizeof pkg, "%s/node_modules/%s/package.json", CROWD_VMC_NPM_DIR, package);
    if (access(pkg, R_OK) != 0) {
        print_message("the npm package %s is not installed in %s (the npm_vmc test installs it): skipped\n", package,
                      CROWD_VMC_NPM_DIR);
        return false;
    }
    if (system("node --version >/dev/null 2>&1") != 0) {
        print_message("node is not on PATH: skipped\n");
        return false;
    }
    return true;
}

/* Runs a node script; fails the test with its output unless it exits 0. */
static void node_check(const char *script, const char *arg, const char *what) {
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s node '%s' '%s' '%s' '%s' 2>&1", cli_target, script, CROWD_VMC_NPM_DIR,
             cli_exe, arg);
    cli_run_script(cmd, what);
}

static void test_osc_receiver(void **state) {
    (void)state;
    if (!have_npm("osc")) skip();
    char dir[1400];
    snprintf(dir, sizeof dir, "%s", cli_path("osc"));
    assert_int_equal(mkdir(dir, 0700), 0);
    node_check(CROWD_VMC_OSC_SCRIPT, dir, "the osc receiver's checks");
}

/* The README's conversions for Unity, glTF/three-vrm and Unreal receivers (vmc_clients.mjs) on
 * a clip with every landmark seen: each client's limb directions equal the landmarks'. */
static void test_client_conversions(void **state) {
    (void)state;
    enum { ROWS = 40 };
    float *lm = malloc(sizeof *lm * 132 * ROWS);
    char(*t)[32] = malloc(sizeof *t * ROWS);
    const char *tp[ROWS];
    for (int k = 0; k < ROWS; k++) {
        cli_synthetic_pose(k / 30.0, 3, &lm[k * 132]);
        snprintf(t[k], sizeof t[k], "%.17g", k / 30.0);
        tp[k] = t[k];
    }
    char *text = cli_clip_text(ROWS, tp, lm);
    char clip[1400];
    snprintf(clip, sizeof clip, "%s", cli_write("clients.csv", text));
    free(text);
    free(lm);
    free(t);
    if (!have_npm("osc") || !have_npm("three") || !have_npm("@pixiv/three-vrm")) skip();
    node_check(CROWD_VMC_CLIENTS_SCRIPT, clip, "the receivers' conversions");
}

/* crowd pose --vrma: a glTF binary (header magic, version 2, its length the file's) that
 * @pixiv/three-vrm-animation plays on a VRM built in vrma_three.mjs with every arm, leg and hand
 * bone along the landmarks within 0.05 degrees at every keyframe; on the synthetic clip, on
 * `crowd run --vrma --instance K` and on the CMU walk (when the shared data is there); an
 * unwritable FILE fails naming it, an instance without limbs is refused. */
static void test_vrma_pose(void **state) {
    (void)state;
    enum { ROWS = 45 };
    float *lm = malloc(sizeof *lm * 132 * ROWS);
    char(*t)[32] = malloc(sizeof *t * ROWS);
    const char *tp[ROWS];
    for (int k = 0; k < ROWS; k++) {
        cli_synthetic_pose(k / 24.0, 2, &lm[k * 132]);
        snprintf(t[k], sizeof t[k], "%.17g", k / 24.0);
        tp[k] = t[k];
    }
    char *text = cli_clip_text(ROWS, tp, lm);
    char clip[1400], vrma[1400];
    snprintf(clip, sizeof clip, "%s", cli_write("anim.csv", text));
    snprintf(vrma, sizeof vrma, "%s", cli_path("anim.vrma"));
    free(text);
    free(lm);
    free(t);
    cli_result r = cli_run("pose", clip, "--frame", "engine", "--vrma", vrma);
    cli_expect_ok(&r);
    assert_string_equal(r.out, ""); /* --vrma alone: no trace on standard output */
    cli_result_free(&r);
    size_t size = 0;
    unsigned char *glb = (unsigned char *)cli_read(vrma, &size);
    assert_non_null(glb);
    assert_true(size > 20);
    uint32_t magic = glb[0] | glb[1] << 8 | glb[2] << 16 | (uint32_t)glb[3] << 24;
    uint32_t version = glb[4] | glb[5] << 8, length = glb[8] | glb[9] << 8 | glb[10] << 16 | (uint32_t)glb[11] << 24;
    assert_int_equal(magic, 0x46546C67u);
    assert_int_equal(version, 2);
    assert_int_equal(length, size);
    free(glb);
    r = cli_run("pose", clip, "--frame", "engine", "--vrma", cli_path("no/such/dir/a.vrma"));
    cli_expect_fail(&r, 1, "no/such/dir/a.vrma");
    cli_result_free(&r);
    if (!have_npm("three") || !have_npm("@pixiv/three-vrm") || !have_npm("@pixiv/three-vrm-animation")) skip();
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' 2>&1", CROWD_VRMA_SCRIPT, CROWD_VMC_NPM_DIR, vrma, clip);
    const char *walk = crowd_test_data("pose/cmu_walk_30fps.csv");
    char walk_vrma[1400];
    snprintf(walk_vrma, sizeof walk_vrma, "%s", cli_path("walk.vrma"));
    /* crowd run --vrma --instance K: a scene playing a 16 fps clip of 33 rows from row 0 at dt
     * 1/16 s (exact in binary), so keyframe k is row k - 1 as vrma_three.mjs expects */
    enum { RUN_ROWS = 33 };
    float *rl = malloc(sizeof *rl * 132 * RUN_ROWS);
    char(*rt)[32] = malloc(sizeof *rt * RUN_ROWS);
    const char *rtp[RUN_ROWS];
    for (int k = 0; k < RUN_ROWS; k++) {
        cli_synthetic_pose(k / 16.0, 1, &rl[k * 132]);
        snprintf(rt[k], sizeof rt[k], "%.17g", k / 16.0);
        rtp[k] = rt[k];
    }
    char *run_text = cli_clip_text(RUN_ROWS, rtp, rl);
    char run_clip[1400], run_vrma[1400];
    snprintf(run_clip, sizeof run_clip, "%s", cli_write("run16.csv", run_text));
    snprintf(run_vrma, sizeof run_vrma, "%s", cli_path("run.vrma"));
    free(run_text);
    free(rl);
    free(rt);
    const char *scene = cli_write("vrma_scene.json",
                                  "{\"frames\": 33, \"dt\": 0.0625, \"rigs\": [{\"name\": \"f\", \"parameters\": [{\"id\": \"P\"}]},\n"
                                  " {\"name\": \"b\", \"parameters\": [{\"id\": \"EyeOpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
                                  "   {\"id\": \"ParamEyeBallX\", \"min\": -1, \"max\": 1}, {\"id\": \"ParamEyeBallY\", \"min\": -1, \"max\": 1},\n"
                                  "   {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}],\n"
                                  "  \"blink\": {\"parameters\": [\"EyeOpen\"], \"mean\": 0.5, \"max_deviation\": 0.2},\n"
                                  "  \"look\": {\"parameters\": [{\"id\": \"ParamEyeBallX\", \"axis\": \"x\"},\n"
                                  "   {\"id\": \"ParamEyeBallY\", \"axis\": \"y\"}]},\n"
                                  "  \"harmonic\": {\"channel_timescales\": [1], \"parameters\": [{\"id\": \"ParamMouthOpenY\", \"channel\": 0,\n"
                                  "   \"direction\": \"centric\", \"origin\": 0.5, \"range\": 0.5, \"duration\": 1}]},\n"
                                  "  \"limbs\": {\"frame\": \"engine\"}}],\n"
                                  " \"groups\": [{\"rig\": \"f\", \"count\": 2}, {\"rig\": \"b\", \"count\": 3, \"blink_start\": \"random\",\n"
                                  "  \"look\": {\"keys\": [{\"t\": 0, \"target\": [0.9, 0.8, 0]}, {\"t\": 1, \"target\": [-0.9, -0.8, 0]}]},\n"
                                  "  \"pose\": {\"clip\": \"run16.csv\"}}]}\n");
    char run_trace[1400];
    snprintf(run_trace, sizeof run_trace, "%s", cli_path("vrma_trace.csv"));
    r = cli_run("run", scene, "--vrma", run_vrma, "--instance", "3", "--quiet", "--simd", cli_target, "--trace", run_trace);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--vrma", cli_path("bad.vrma"), "--instance", "1", "--quiet");
    cli_expect_fail(&r, 2, "--vrma: instance 1's rig \"f\" has no limbs");
    cli_result_free(&r);
    /* the keyframes a file holds are bounded: more is refused before anything is allocated */
    r = cli_run("run", scene, "--vrma", cli_path("long.vrma"), "--instance", "3", "--quiet", "--frames", "524289");
    cli_expect_fail(&r, 2, "--vrma: 524289 keyframes, more than the 524288 a file holds");
    if (access(cli_path("long.vrma"), F_OK) == 0) fail_msg("a refused --vrma was written");
    cli_result_free(&r);
    for (int pass = 0; pass < (walk ? 3 : 2); pass++) {
        if (pass == 1)
            snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' '%s' EyeOpen 3 ParamMouthOpenY ParamEyeBallX ParamEyeBallY 2>&1",
                     CROWD_VRMA_SCRIPT, CROWD_VMC_NPM_DIR,
                     run_vrma, run_clip, run_trace);
        if (pass == 2) {
            r = cli_run("pose", walk, "--frame", "engine", "--vrma", walk_vrma);
            cli_expect_ok(&r);
            cli_result_free(&r);
            snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' 2>&1", CROWD_VRMA_SCRIPT, CROWD_VMC_NPM_DIR, walk_vrma, walk);
        }
        cli_run_script(cmd, "three-vrm-animation's check");
    }
}

/* crowd stream --frame engine --vrma with a face frame before each pose frame: each keyframe
 * carries that face's blinks (1 - ParamEyeLOpen/ROpen), mouth (ParamMouthOpenY) and gaze
 * (ParamEyeBallX/Y) as --params gives them (face frame k is keyframe k's latest), played by
 * @pixiv/three-vrm-animation (vrma_three.mjs: bones within 0.05 degrees, expressions within 1e-5,
 * the lookAt direction). */
static void test_stream_vrma_face(void **state) {
    (void)state;
    if (!have_npm("@pixiv/three-vrm-animation")) skip();
    enum { ROWS = 33, SCORES = 52 };
    float *lm = malloc(sizeof *lm * 132 * ROWS);
    char(*tt)[32] = malloc(sizeof *tt * ROWS);
    const char *tp[ROWS];
    cli_buf in = {0};
    for (int k = 0; k < ROWS; k++) {
        double t = k / 16.0, u = k / (double)(ROWS - 1); /* exact in binary; u sweeps 0..1 */
        cli_synthetic_pose(t, 1, &lm[k * 132]);
        snprintf(tt[k], sizeof tt[k], "%.17g", t);
        tp[k] = tt[k];
        float sc[SCORES] = {0};
        sc[CROWD_FACE_EYE_BLINK_LEFT] = sc[CROWD_FACE_EYE_BLINK_RIGHT] = (float)u;
        sc[CROWD_FACE_JAW_OPEN] = (float)u;
        sc[CROWD_FACE_EYE_LOOK_OUT_LEFT] = sc[CROWD_FACE_EYE_LOOK_IN_RIGHT] = (float)u; /* x from -1 to 1 */
        sc[CROWD_FACE_EYE_LOOK_IN_LEFT] = sc[CROWD_FACE_EYE_LOOK_OUT_RIGHT] = (float)(1 - u);
        sc[CROWD_FACE_EYE_LOOK_UP_LEFT] = sc[CROWD_FACE_EYE_LOOK_UP_RIGHT] = (float)(1 - u); /* y from 1 to -1 */
        sc[CROWD_FACE_EYE_LOOK_DOWN_LEFT] = sc[CROWD_FACE_EYE_LOOK_DOWN_RIGHT] = (float)u;
        cli_buf_printf(&in, "{\"timestamp_ms\": %.17g, \"faceBlendshapes\": [{\"categories\": [", t * 1000.0);
        for (int c = 0; c < SCORES; c++)
            cli_buf_printf(&in, "%s{\"index\": %d, \"score\": %.9g, \"categoryName\": \"%s\"}", c ? ", " : "", c, (double)sc[c],
                           crowd_face_source_name((crowd_face_source)c));
        cli_buf_printf(&in, "]}], \"facialTransformationMatrixes\": [{\"rows\": 4, \"columns\": 4, \"data\": "
                            "[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]}]}\n");
        cli_buf_printf(&in, "{\"timestamp_ms\": %.17g, \"worldLandmarks\": [[", t * 1000.0);
        for (int i = 0; i < 33; i++)
            cli_buf_printf(&in, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"visibility\": %.9g}", i ? ", " : "",
                           lm[k * 132 + i * 4], lm[k * 132 + i * 4 + 1], lm[k * 132 + i * 4 + 2], lm[k * 132 + i * 4 + 3]);
        cli_buf_printf(&in, "]]}\n");
    }
    char *clip_text = cli_clip_text(ROWS, tp, lm);
    char clip[1400], vrma[1400], params[1400];
    snprintf(clip, sizeof clip, "%s", cli_write("stream_face_clip.csv", clip_text));
    snprintf(vrma, sizeof vrma, "%s", cli_path("stream_face.vrma"));
    snprintf(params, sizeof params, "%s", cli_path("stream_face_params.csv"));
    free(clip_text);
    free(lm);
    free(tt);
    const char *err_path = cli_path("stream_face.err");
    child c = spawn((const char *const[]){"stream", "--frame", "engine", "--vrma", vrma, "--params", params, NULL}, err_path);
    assert_int_equal(write(c.in, in.text, in.len), (ssize_t)in.len);
    close(c.in);
    free(in.text);
    assert_int_equal(reap(&c), 0);
    close(c.out);
    char cmd[6000];
    snprintf(cmd, sizeof cmd, "node '%s' '%s' '%s' '%s' '%s' ParamEyeLOpen 0 ParamMouthOpenY ParamEyeBallX ParamEyeBallY 2>&1",
             CROWD_VRMA_SCRIPT, CROWD_VMC_NPM_DIR, vrma, clip, params);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("three-vrm-animation's check failed:\n%s", out);
    print_message("stream --vrma with faces: %s", out);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pose_vmc),
        cmocka_unit_test(test_stream_pipe),
        cmocka_unit_test(test_stream_line_ends),
        cmocka_unit_test(test_run_vmc),
        cmocka_unit_test(test_run_vmc_look),
        cmocka_unit_test(test_run_vmc_face),
        cmocka_unit_test(test_realtime),
        cmocka_unit_test(test_osc_receiver),
        cmocka_unit_test(test_client_conversions),
        cmocka_unit_test(test_vrma_pose),
        cmocka_unit_test(test_stream_vrma_face),
    };
    return cmocka_run_group_tests_name("cli_vmc", tests, NULL, NULL);
}
