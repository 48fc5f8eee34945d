/* test_cli_guards.c — the command's guards on outputs, inputs and resume (hardening, round three).
 * Each test is named for the rule it holds to:
 * - outputs_in_place: a character device, a FIFO and /dev/fd/1 are written in place (no
 *   temporary, no rename: the node stays what it was); a symlink's target gets the output and
 *   the link stays a link; a link to nothing is refused
 * - resume_fingerprint: --resume refuses a snapshot after the group's face track or its loop
 *   changed, naming the track or the group; unchanged, it resumes
 * - aliases_every_input: an output naming a face track, a .cdi3.json or the 66th pose clip of a
 *   render is refused before anything is written (the input unchanged)
 * - stream_aliases: crowd stream's --bones and --params on one file, --bones on the recording
 *   read from standard input, and both on standard output are refused
 * - stream_max_line_bytes: the limit holds for lines read in one read(2) from a regular file
 * - tfjs_infinite_time: frameNum 1e300 over ticksPerSecond 1e-9 is refused with its JSON path in
 *   a scene's clip and by crowd pose (no "nan" in the message); in crowd stream the line is
 *   refused alone and the frames after it are solved
 * - face_inputs: a face mapping over 65,536 entries exits 2 naming it; a face clip that is a pose
 *   recording is refused with a hint
 * - broken_pipe: a closed standard output ends the command with its temporaries removed
 * - directory_output: an output path that is a folder is refused before anything runs
 * - document_rows: a one-document landmark JSON names a row by its JSON path, never "FILE:0:" */
#define _XOPEN_SOURCE 700 /* mknod */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "cli_support.h"

/* ---- inputs written here ---- */

/* A pose clip (CSV) of n rows at 30 fps */
static const char *write_clip(const char *name, uint32_t n) {
    float *lm = malloc(sizeof *lm * 132 * n);
    char **t = malloc(sizeof *t * n);
    for (uint32_t r = 0; r < n; r++) {
        cli_synthetic_pose(r / 30.0, 0, &lm[r * 132]);
        t[r] = malloc(32);
        snprintf(t[r], 32, "%.9g", r / 30.0);
    }
    char *text = cli_clip_text(n, (const char *const *)t, lm);
    const char *path = cli_write(name, text);
    for (uint32_t r = 0; r < n; r++) free(t[r]);
    free(t), free(lm), free(text);
    return path;
}

/* One MediaPipe face landmarker result line: scores from k, identity head turn */
static void face_line(cli_buf *b, double t_ms, int k) {
    cli_buf_printf(b, "{\"timestamp_ms\": %.17g, \"faceBlendshapes\": [{\"categories\": [", t_ms);
    for (int s = 0; s < CROWD_FACE_SCORE_COUNT; s++)
        cli_buf_printf(b, "%s{\"index\": %d, \"score\": %.6f, \"categoryName\": \"%s\"}", s ? ", " : "", s,
                       0.5 + 0.4 * sin(0.3 * k + 0.7 * s), crowd_face_source_name((crowd_face_source)s));
    cli_buf_printf(b, "]}], \"facialTransformationMatrixes\": [{\"rows\": 4, \"columns\": 4, \"data\": "
                      "[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,-30,1]}]}\n");
}

static char *face_track(int n, int variant) {
    cli_buf b = {0};
    for (int k = 0; k < n; k++) face_line(&b, k * 1000.0 / 30.0, k + variant);
    return b.text;
}

/* A scene: one rig with face tracking, a group of 2 playing `track` (loop as given) */
static const char *face_scene(const char *name, const char *track, bool loop) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"frames\": 8, \"dt\": 0.0333333351,\n"
             " \"rigs\": [{\"name\": \"f\", \"parameters\": [\n"
             "   {\"id\": \"ParamAngleX\", \"min\": -30, \"max\": 30},\n"
             "   {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}], \"face\": {}}],\n"
             " \"groups\": [{\"rig\": \"f\", \"count\": 2, \"face\": {\"clip\": \"%s\", \"loop\": %s}}]}\n",
             track, loop ? "true" : "false");
    return cli_write(name, text);
}

/* A TF.js frame a line: 33 keypoints of the synthetic pose at time t; frame_num/tps as text */
static void tfjs_line(cli_buf *b, double t, const char *frame_num, const char *tps) {
    float lm[132];
    cli_synthetic_pose(t, 0, lm);
    cli_buf_printf(b, "{\"frameNum\": %s, \"ticksPerSecond\": %s, \"keypoints3D\": [", frame_num, tps);
    for (int k = 0; k < 33; k++)
        cli_buf_printf(b, "%s{\"x\": %.9g, \"y\": %.9g, \"z\": %.9g, \"score\": 1}", k ? ", " : "", (double)lm[4 * k],
                       -(double)lm[4 * k + 1], -(double)lm[4 * k + 2]);
    cli_buf_printf(b, "]}");
}

/* Runs a shell command line; its exit status (128 + signal when killed) */
static int shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int shell(const char *fmt, ...) {
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static size_t count_lines(const char *text) {
    size_t n = 0;
    for (const char *p = text; *p; p++) n += *p == '\n';
    return n;
}

static bool is_kind(const char *path, mode_t kind) {
    struct stat st;
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* ---- item 2 ---- */
static void test_outputs_in_place(void **state) {
    (void)state;
    const uint32_t rows = 5;
    char clip[1200]; /* (cli_path's results are reused after 8 calls) */
    snprintf(clip, sizeof clip, "%s", write_clip("clip.csv", rows));
    const size_t csv_lines = 1 + (size_t)rows * CROWD_BONE_COUNT; /* header, a line per bone and row */
    /* the reference: a regular file */
    cli_result r = cli_run("pose", clip, "--bones", cli_path("plain.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *plain = cli_read(cli_path("plain.csv"), NULL);
    assert_non_null(plain);
    assert_int_equal(count_lines(plain), csv_lines);

    /* a character device node (the null device's numbers), made here: it stays a device */
    const char *dev = cli_path("null_device");
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        r = cli_run("pose", clip, "--bones", dev);
        cli_expect_ok(&r);
        cli_result_free(&r);
        if (!is_kind(dev, S_IFCHR)) FAILF("%s: the device node was replaced", dev);
        if (cli_exists_prefix(cli_path("null_device."))) FAILF("a temporary was left beside the device");
    } else {
        print_message("mknod: %s: the device node case is skipped\n", strerror(errno));
    }

    /* a FIFO: its reader gets the whole CSV, and it stays a FIFO */
    const char *fifo = cli_path("bones.fifo");
    assert_int_equal(mkfifo(fifo, 0666), 0);
    pid_t reader = fork();
    if (reader == 0) {
        int in = open(fifo, O_RDONLY), out = open(cli_path("from_fifo.csv"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[65536];
        ssize_t got;
        while (in >= 0 && out >= 0 && (got = read(in, buf, sizeof buf)) > 0)
            if (write(out, buf, (size_t)got) != got) _exit(1);
        _exit(in >= 0 && out >= 0 ? 0 : 1);
    }
    r = cli_run("pose", clip, "--bones", fifo);
    /* not written through the FIFO: its reader would wait for ever */
    if (r.status != 0 || !is_kind(fifo, S_IFIFO)) kill(reader, SIGKILL);
    int rst = 0;
    waitpid(reader, &rst, 0);
    cli_expect_ok(&r);
    cli_result_free(&r);
    if (!is_kind(fifo, S_IFIFO)) FAILF("%s: the FIFO was replaced", fifo);
    char *got = cli_read(cli_path("from_fifo.csv"), NULL);
    assert_non_null(got);
    assert_string_equal(got, plain);
    free(got);

    /* a symlink to a regular file: the target gets the output, the link stays */
    cli_write("target.csv", "old\n");
    const char *link = cli_path("link.csv");
    assert_int_equal(symlink(cli_path("target.csv"), link), 0);
    r = cli_run("pose", clip, "--bones", link);
    cli_expect_ok(&r);
    cli_result_free(&r);
    if (!is_kind(link, S_IFLNK)) FAILF("%s: the link was replaced by a file", link);
    got = cli_read(cli_path("target.csv"), NULL);
    assert_non_null(got);
    assert_string_equal(got, plain);
    free(got);

    /* a link to nothing: refused, nothing made */
    const char *dangling = cli_path("dangling.csv");
    assert_int_equal(symlink(cli_path("nowhere/none.csv"), dangling), 0);
    r = cli_run("pose", clip, "--bones", dangling);
    cli_expect_fail(&r, 2, "dangling.csv", "link to nothing");
    cli_result_free(&r);
    if (!is_kind(dangling, S_IFLNK)) FAILF("%s: the dangling link was replaced", dangling);

    /* a descriptor by name: /dev/fd/1 is standard output (never a file made in /dev/fd) */
    r = cli_run("pose", clip, "--bones", "/dev/fd/1");
    cli_expect_ok(&r);
    assert_string_equal(r.out, plain);
    cli_result_free(&r);
    free(plain);
}

/* ---- item 3 ---- */
static void test_resume_fingerprint(void **state) {
    (void)state;
    char *track = face_track(10, 0);
    cli_write("track.ndjson", track);
    const char *scene = face_scene("face_scene.json", "track.ndjson", false);
    const char *snap = cli_path("face.run");
    cli_result r = cli_run("run", scene, "--snapshot-at", "4", snap, "--json");
    cli_expect_ok(&r);
    cli_result_free(&r);
    /* unchanged: resumes */
    r = cli_run("run", scene, "--resume", snap, "--json");
    cli_expect_ok(&r);
    cli_result_free(&r);
    /* the track's scores changed (same frame count): refused, the track named */
    char *other = face_track(10, 3);
    cli_write("track.ndjson", other);
    r = cli_run("run", scene, "--resume", snap);
    cli_expect_fail(&r, 2, "face.run", "face track", "track.ndjson", "changed");
    cli_result_free(&r);
    cli_write("track.ndjson", track);
    /* its loop changed: refused, the group named */
    const char *looped = face_scene("face_scene.json", "track.ndjson", true);
    r = cli_run("run", looped, "--resume", snap);
    cli_expect_fail(&r, 2, "face.run", "groups[0]", "changed");
    cli_result_free(&r);
    free(other), free(track);
}

/* ---- item 4 ---- */
static void test_aliases_every_input(void **state) {
    (void)state;
    char *track = face_track(6, 0);
    cli_write("alias_track.ndjson", track);
    const char *scene = face_scene("alias_scene.json", "alias_track.ndjson", false);
    cli_result r = cli_run("run", scene, "--trace", cli_path("alias_track.ndjson"));
    cli_expect_fail(&r, 2, "--trace", "alias_track.ndjson", "face track", "same file");
    cli_result_free(&r);
    char *after = cli_read(cli_path("alias_track.ndjson"), NULL);
    assert_string_equal(after, track);
    free(after);

    /* the model's .cdi3.json (read for the standard face mapping) */
    cli_write("m.model3.json", "{\"Version\": 3, \"FileReferences\": {\"DisplayInfo\": \"m.cdi3.json\"}, \"Groups\": []}\n");
    const char *cdi = "{\"Version\": 3, \"Parameters\": [{\"Id\": \"ParamMouthOpenY\", \"GroupId\": \"\", \"Name\": \"m\"}]}\n";
    cli_write("m.cdi3.json", cdi);
    const char *model_scene = cli_write(
        "model_scene.json",
        "{\"frames\": 2, \"rigs\": [{\"name\": \"m\", \"model3\": \"m.model3.json\", \"parameters\": ["
        "{\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}], \"face\": {}}], \"groups\": [{\"rig\": \"m\", \"count\": 1}]}\n");
    r = cli_run("run", model_scene, "--bones", cli_path("m.cdi3.json"));
    cli_expect_fail(&r, 2, "--bones", "m.cdi3.json", "same file");
    cli_result_free(&r);
    after = cli_read(cli_path("m.cdi3.json"), NULL);
    assert_string_equal(after, cdi);
    free(after);

    /* a pose clip of NDJSON lines, which the reader streams a line at a time */
    cli_buf nd = {0};
    for (int k = 0; k < 3; k++) {
        char num[16];
        snprintf(num, sizeof num, "%d", k);
        tfjs_line(&nd, k / 30.0, num, "30");
        cli_buf_printf(&nd, "\n");
    }
    cli_write("lines.ndjson", nd.text);
    const char *lines_scene = cli_write("lines_scene.json", "{\"frames\": 2, \"rigs\": [{\"name\": \"r\", \"limbs\": {}}], "
                                                            "\"groups\": [{\"rig\": \"r\", \"count\": 1, \"pose\": {\"clip\": \"lines.ndjson\"}}]}\n");
    r = cli_run("run", lines_scene, "--bones", cli_path("lines.ndjson"));
    cli_expect_fail(&r, 2, "--bones", "lines.ndjson", "pose clip", "same file");
    cli_result_free(&r);
    after = cli_read(cli_path("lines.ndjson"), NULL);
    assert_string_equal(after, nd.text);
    free(after), free(nd.text);

    /* crowd render: the 70th of 70 pose clips (a cap of 64 once let it through) */
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frames\": 1, \"rigs\": [{\"name\": \"r\", \"limbs\": {}}], \"groups\": [");
    for (int g = 0; g < 70; g++) {
        char name[64];
        snprintf(name, sizeof name, "clip%02d.csv", g);
        write_clip(name, 2);
        cli_buf_printf(&b, "%s{\"rig\": \"r\", \"count\": 1, \"pose\": {\"clip\": \"%s\"}}", g ? ", " : "", name);
    }
    cli_buf_printf(&b, "]}\n");
    const char *many = cli_write("many_clips.json", b.text);
    char *clip69 = cli_read(cli_path("clip69.csv"), NULL);
    r = cli_run("render", many, "--out", cli_path("clip69.csv"));
    cli_expect_fail(&r, 2, "--out", "clip69.csv", "pose clip", "same file");
    cli_result_free(&r);
    after = cli_read(cli_path("clip69.csv"), NULL);
    assert_string_equal(after, clip69);
    free(after), free(clip69), free(b.text), free(track);
}

/* ---- item 5 ---- */
static void test_stream_aliases(void **state) {
    (void)state;
    cli_buf b = {0};
    for (int k = 0; k < 3; k++) {
        char num[16];
        snprintf(num, sizeof num, "%d", k);
        tfjs_line(&b, k / 30.0, num, "30");
        cli_buf_printf(&b, "\n");
    }
    const char *rec = cli_write("rec.ndjson", b.text);
    const char *err = cli_path("stream.err");
    /* --bones and --params on one file */
    int st = shell("CROWD_SIMD=%s '%s' stream --bones '%s' --params '%s' < '%s' 2> '%s'", cli_target, cli_exe,
                   cli_path("both.csv"), cli_path("both.csv"), rec, err);
    char *msg = cli_read(err, NULL);
    if (st != 2 || !strstr(msg, "--bones") || !strstr(msg, "--params") || !strstr(msg, "same file"))
        FAILF("--bones F --params F: exit %d, %s", st, msg);
    free(msg);
    if (cli_exists(cli_path("both.csv"))) FAILF("both.csv was written");
    /* --bones on the recording read from standard input */
    st = shell("CROWD_SIMD=%s '%s' stream --bones '%s' < '%s' 2> '%s'", cli_target, cli_exe, rec, rec, err);
    msg = cli_read(err, NULL);
    if (st != 2 || !strstr(msg, "standard input") || !strstr(msg, "same file")) FAILF("--bones F < F: exit %d, %s", st, msg);
    free(msg);
    char *now = cli_read(rec, NULL);
    assert_string_equal(now, b.text);
    free(now);
    /* both on standard output */
    st = shell("CROWD_SIMD=%s '%s' stream --bones - --params - < '%s' > '%s' 2> '%s'", cli_target, cli_exe, rec,
               cli_path("stdout.csv"), err);
    msg = cli_read(err, NULL);
    if (st != 2 || !strstr(msg, "--bones -") || !strstr(msg, "--params -")) FAILF("--bones - --params -: exit %d, %s", st, msg);
    free(msg);
    free(b.text);
}

/* ---- item 7 ---- */
static void test_stream_max_line_bytes(void **state) {
    (void)state;
    cli_buf b = {0};
    tfjs_line(&b, 0, "0", "30"); /* about 2.5 KB, read from a regular file in one read */
    cli_buf_printf(&b, "\n");
    assert_true(b.len > 2000);
    const char *rec = cli_write("long.ndjson", b.text);
    const char *err = cli_path("long.err");
    int st = shell("CROWD_SIMD=%s '%s' stream --max-line-bytes 64 --strict --bones '%s' < '%s' 2> '%s'", cli_target,
                   cli_exe, cli_path("long.csv"), rec, err);
    char *msg = cli_read(err, NULL);
    if (st != 2 || !strstr(msg, "-:1:") || !strstr(msg, "longer than 64 bytes")) FAILF("a 2.5 KB line under 64: exit %d, %s", st, msg);
    free(msg);
    /* the default 1 MiB: a 1.5 MiB line (white space inside the frame object) is skipped */
    cli_buf big = {0};
    cli_buf_printf(&big, "{\"frameNum\": 0, ");
    char *pad = malloc(1536 * 1024 + 1);
    memset(pad, ' ', 1536 * 1024);
    pad[1536 * 1024] = 0;
    cli_buf_printf(&big, "%s", pad);
    free(pad);
    cli_buf_printf(&big, "%s\n", strchr(b.text, '"') + strlen("frameNum\": 0, ") + 1);
    tfjs_line(&big, 1 / 30.0, "1", "30");
    cli_buf_printf(&big, "\n");
    rec = cli_write("huge.ndjson", big.text);
    st = shell("CROWD_SIMD=%s '%s' stream --bones '%s' < '%s' 2> '%s'", cli_target, cli_exe, cli_path("huge.csv"), rec, err);
    msg = cli_read(err, NULL);
    if (st != 0 || !strstr(msg, "-:1:") || !strstr(msg, "longer than 1048576 bytes")) FAILF("a 1.5 MiB line: exit %d, %s", st, msg);
    free(msg);
    char *csv = cli_read(cli_path("huge.csv"), NULL);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 1 + CROWD_BONE_COUNT); /* the second line only */
    free(csv), free(big.text), free(b.text);
}

/* ---- item 8 ---- */
static void test_tfjs_infinite_time(void **state) {
    (void)state;
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"ticksPerSecond\": 1e-9, \"frames\": [");
    tfjs_line(&b, 0, "1e300", "1e-9");
    cli_buf_printf(&b, "]}\n");
    const char *rec = cli_write("inf.json", b.text);
    /* crowd pose */
    cli_result r = cli_run("pose", rec, "--bones", cli_path("inf.csv"));
    cli_expect_fail(&r, 2, "inf.json", "frames[0].frameNum", "not a finite time");
    if (strstr(r.err, "nan")) FAILF("a NaN in the message: %s", r.err);
    cli_result_free(&r);
    /* a scene's clip */
    const char *scene = cli_write("inf_scene.json", "{\"frames\": 2, \"rigs\": [{\"name\": \"r\", \"limbs\": {}}], "
                                                    "\"groups\": [{\"rig\": \"r\", \"count\": 1, \"pose\": {\"clip\": \"inf.json\"}}]}\n");
    r = cli_run("run", scene);
    cli_expect_fail(&r, 2, "inf.json", "frames[0].frameNum", "not a finite time");
    cli_result_free(&r);
    /* crowd stream: the bad line alone is refused; the frame after it is solved */
    cli_buf s = {0};
    tfjs_line(&s, 0, "0", "30");
    cli_buf_printf(&s, "\n");
    tfjs_line(&s, 0, "1e300", "1e-9");
    cli_buf_printf(&s, "\n");
    tfjs_line(&s, 1 / 30.0, "1", "30");
    cli_buf_printf(&s, "\n");
    rec = cli_write("inf.ndjson", s.text);
    const char *err = cli_path("inf.err");
    int st = shell("CROWD_SIMD=%s '%s' stream --bones '%s' < '%s' 2> '%s'", cli_target, cli_exe, cli_path("inf_stream.csv"),
                   rec, err);
    char *msg = cli_read(err, NULL);
    if (st != 0 || !strstr(msg, "-:2:") || !strstr(msg, "frameNum") || strstr(msg, "inf s") || strstr(msg, "nan"))
        FAILF("stream: exit %d, %s", st, msg);
    free(msg);
    char *csv = cli_read(cli_path("inf_stream.csv"), NULL);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 1 + 2 * CROWD_BONE_COUNT); /* lines 1 and 3 solved */
    free(csv), free(s.text), free(b.text);
}

/* ---- item 13 ---- */
static void test_face_inputs(void **state) {
    (void)state;
    /* a face mapping of 65,537 entries: exit 2 like every other oversized list */
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frames\": 1, \"rigs\": [{\"name\": \"f\", \"parameters\": [{\"id\": \"P\", \"min\": 0, \"max\": 1}], "
                       "\"face\": {\"mapping\": [");
    for (int k = 0; k < 65537; k++) cli_buf_printf(&b, "%s{\"source\": \"jawOpen\", \"id\": \"P\"}", k ? "," : "");
    cli_buf_printf(&b, "]}}], \"groups\": [{\"rig\": \"f\", \"count\": 1}]}\n");
    const char *wide = cli_write("wide_face.json", b.text);
    cli_result r = cli_run("run", wide);
    cli_expect_fail(&r, 2, "rigs[0].face.mapping", "65537 entries", "at most 65536");
    cli_result_free(&r);
    free(b.text);
    /* a face clip that is a pose recording (MediaPipe Tasks): refused with a hint */
    cli_buf p = {0};
    float lm[132];
    cli_synthetic_pose(0, 0, lm);
    for (int k = 0; k < 2; k++) {
        cli_buf_printf(&p, "{\"timestamp_ms\": %d, \"worldLandmarks\": [[", k * 33);
        for (int i = 0; i < 33; i++)
            cli_buf_printf(&p, "%s{\"x\": %.6g, \"y\": %.6g, \"z\": %.6g, \"visibility\": 1}", i ? ", " : "", (double)lm[4 * i],
                           (double)lm[4 * i + 1], (double)lm[4 * i + 2]);
        cli_buf_printf(&p, "]]}\n");
    }
    cli_write("pose_as_face.ndjson", p.text);
    const char *scene = face_scene("pose_as_face.json", "pose_as_face.ndjson", false);
    r = cli_run("run", scene);
    cli_expect_fail(&r, 2, "pose_as_face.ndjson:1:", "worldLandmarks", "pose landmarker result", "\"pose\"");
    cli_result_free(&r);
    free(p.text);
}

static void test_broken_pipe(void **state) {
    (void)state;
    const char *clip = write_clip("pipe_clip.csv", 400); /* 6,000 lines on standard output: past a pipe's buffer */
    const char *bvh = cli_path("pipe.bvh");
    int st = shell("CROWD_SIMD=%s '%s' pose '%s' --bones - --bvh '%s' 2> '%s' | head -c 1 > /dev/null", cli_target, cli_exe,
                   clip, bvh, cli_path("pipe.err"));
    (void)st; /* the pipeline's status is head's */
    if (cli_exists_prefix(cli_path("pipe.bvh."))) FAILF("the --bvh temporary was left behind");
    if (cli_exists(bvh)) FAILF("an incomplete run wrote %s", bvh);
    char *msg = cli_read(cli_path("pipe.err"), NULL);
    if (!msg || !strstr(msg, "crowd: ")) FAILF("no message for the closed pipe: %s", msg ? msg : "(none)");
    free(msg);
}

static void test_directory_output(void **state) {
    (void)state;
    const char *dir = cli_path("out_dir");
    assert_int_equal(mkdir(dir, 0777), 0);
    const char *scene = cli_write("dir_scene.json", "{\"frames\": 3, \"rigs\": [{\"name\": \"r\", \"limbs\": {}}], "
                                                    "\"groups\": [{\"rig\": \"r\", \"count\": 2}]}\n");
    cli_result r = cli_run("run", scene, "--trace", dir, "--json");
    cli_expect_fail(&r, 2, "--trace", "out_dir", "a directory");
    if (strstr(r.out, "checksum")) FAILF("the run ran before the output was refused: %s", r.out);
    cli_result_free(&r);
    const char *clip = write_clip("dir_clip.csv", 3);
    r = cli_run("pose", clip, "--bones", dir);
    cli_expect_fail(&r, 2, "--bones", "out_dir", "a directory");
    cli_result_free(&r);
    int st = shell("CROWD_SIMD=%s '%s' stream --bones '%s' < /dev/null 2> '%s'", cli_target, cli_exe, dir,
                   cli_path("dir.err"));
    char *msg = cli_read(cli_path("dir.err"), NULL);
    if (st != 2 || !strstr(msg, "a directory")) FAILF("stream --bones DIR: exit %d, %s", st, msg);
    free(msg);
}

static void test_document_rows(void **state) {
    (void)state;
    /* a TF.js recording whose second frame comes 2 s after the first: a tick takes at most 1 s */
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"ticksPerSecond\": 30, \"frames\": [\n");
    tfjs_line(&b, 0, "0", "30");
    cli_buf_printf(&b, ",\n");
    tfjs_line(&b, 2, "60", "30");
    cli_buf_printf(&b, "]}\n");
    const char *rec = cli_write("gap.json", b.text);
    cli_result r = cli_run("pose", rec);
    cli_expect_fail(&r, 2, "gap.json: frames[1]", "steps 2 s");
    if (strstr(r.err, "gap.json:0")) FAILF("a line 0 for a one-document file: %s", r.err);
    cli_result_free(&r);
    free(b.text);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_in_place),      cmocka_unit_test(test_resume_fingerprint), cmocka_unit_test(test_aliases_every_input),
        cmocka_unit_test(test_stream_aliases),        cmocka_unit_test(test_stream_max_line_bytes),
        cmocka_unit_test(test_tfjs_infinite_time),    cmocka_unit_test(test_face_inputs),        cmocka_unit_test(test_broken_pipe),
        cmocka_unit_test(test_directory_output),      cmocka_unit_test(test_document_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
