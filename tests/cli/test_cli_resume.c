/* test_cli_resume.c — `crowd run` embedded features: the engine's thread pool (--threads) and
 * run snapshots (--snapshot-at K FILE, --resume FILE; tools/README.md has the file layout).
 *   two_steps         for several K, the run saved after frame K and resumed (other thread
 *                     counts, the scalar target) ends with the one-step run's checksum, and its
 *                     traces are the one-step traces' frames K+1 .. F; saving does not change the
 *                     saving run; a resumed run can save again; a longer --frames continues
 *   file_layout       the tool header's fields, then the engine snapshot
 *   default_crowd     the built-in crowd and walk: saved after frame 4 and resumed
 *   resume_errors     every way a --resume or --snapshot-at can be wrong: exit status 2 (1 for
 *                     a file that cannot be written) and a message naming the file
 *   threads           the checksum for --threads 1 to 4 and 256; 0 and 257 are refused
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"

#define FRAMES 48
#define CLIP_ROWS 11

/* Every controller, pose clips looped with random offsets and held at the end, look keys with
 * jitter around the save points, smoothing and the previous fallback (state that must carry
 * over). */
static const char scene_json[] =
    "{\"seed\": 4711, \"dt\": 0.02, \"frames\": 48,\n"
    " \"rigs\": [\n"
    "  {\"name\": \"face\",\n"
    "   \"parameters\": [{\"id\": \"AngleX\"}, {\"id\": \"AngleY\"}, {\"id\": \"Breath\", \"min\": 0, \"max\": 1},\n"
    "                  {\"id\": \"EyeL\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
    "                  {\"id\": \"EyeR\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
    "   \"look\": {\"damping\": 0.1, \"parameters\": [{\"id\": \"AngleX\"}, {\"id\": \"AngleY\", \"axis\": \"y\"}]},\n"
    "   \"harmonic\": {\"parameters\": [{\"id\": \"Breath\", \"duration\": 0.7}]},\n"
    "   \"blink\": {\"parameters\": [\"EyeL\", \"EyeR\"], \"mean\": 0.3, \"max_deviation\": 0.2}},\n"
    "  {\"name\": \"timed\",\n"
    "   \"parameters\": [{\"id\": \"Eye\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
    "   \"blink\": {\"model\": \"timed\", \"parameters\": [\"Eye\"], \"mean\": 0.2, \"max_deviation\": 0.1}},\n"
    "  {\"name\": \"body\", \"parameters\": [{\"id\": \"P\", \"min\": -1, \"max\": 1}],\n"
    "   \"harmonic\": {\"parameters\": [{\"id\": \"P\", \"direction\": \"left\", \"duration\": 0.5}]},\n"
    "   \"limbs\": {\"frame\": \"engine\", \"fallback\": \"previous\", \"smoothing\": \"one_euro\",\n"
    "             \"visibility_threshold\": 0.6}}\n"
    " ],\n"
    " \"groups\": [\n"
    "  {\"rig\": \"face\", \"count\": 21, \"harmonic_phase\": \"random\",\n"
    "   \"look\": {\"jitter\": 0.2, \"keys\": [{\"t\": 0.1, \"target\": [1, 0.5, 0]}, {\"t\": 0.3, \"active\": false},\n"
    "                                   {\"t\": 0.5, \"target\": [-1, 0, 0.2]}]}},\n"
    "  {\"rig\": \"timed\", \"count\": 5},\n"
    "  {\"rig\": \"body\", \"count\": 19, \"harmonic_phase\": \"random\",\n"
    "   \"pose\": {\"clip\": \"clip.csv\", \"offset\": \"random\", \"loop\": true}},\n"
    "  {\"rig\": \"face\", \"count\": 3, \"blink_start\": \"cubism\"},\n"
    "  {\"rig\": \"body\", \"count\": 2, \"pose\": {\"clip\": \"clip.csv\", \"offset\": \"zero\", \"loop\": false}}\n"
    " ]}\n";

static const char *const clip_t[CLIP_ROWS] = {"0", "0.05", "0.1", "0.12", "0.2", "0.25", "0.3", "0.31", "0.4", "0.45", "0.5"};

static int write_files(void **state) {
    (void)state;
    float lm[CLIP_ROWS * 132];
    for (int r = 0; r < CLIP_ROWS; r++) {
        cli_synthetic_pose(atof(clip_t[r]), r % 3, lm + 132 * r);
        /* a hardly visible knee now and then: the hold */
        if (r % 4 == 1) lm[132 * r + 4 * 26 + 3] = 0.3f;
    }
    char *clip = cli_clip_text(CLIP_ROWS, clip_t, lm);
    cli_write("clip.csv", clip);
    free(clip);
    cli_write("scene.json", scene_json);
    /* another scene: one key moved */
    char *other = cli_replace(scene_json, "{\"t\": 0.3, \"active\": false}", "{\"t\": 0.32, \"active\": false}");
    cli_write("other.json", other);
    free(other);
    return 0;
}

/* cli_path() reuses 8 buffers: the tests keep their paths in these. */
static char *kept[256];
static size_t nkept;
static const char *keep(const char *name) {
    assert_true(nkept < sizeof kept / sizeof kept[0]);
    return kept[nkept++] = strdup(cli_path(name));
}
static int free_kept(void **state) {
    (void)state;
    while (nkept) free(kept[--nkept]);
    return 0;
}

/* The checksum of the JSON summary's last line, and its frames and threads. */
typedef struct summary {
    uint64_t checksum;
    long frames, threads, instances;
} summary;

static summary summary_of(const cli_result *r) {
    size_t n = strlen(r->out);
    assert_true(n > 0 && r->out[n - 1] == '\n');
    const char *last = r->out + n - 1;
    while (last > r->out && last[-1] != '\n') last--;
    json_error_t err;
    json_t *j = json_loadb(last, (size_t)(r->out + n - last), 0, &err);
    if (!j) fail_msg("the summary line is not JSON (%s): %s", err.text, last);
    summary s = {.checksum = strtoull(json_string_value(json_object_get(j, "checksum")) + 2, NULL, 16),
                 .frames = (long)json_integer_value(json_object_get(j, "frames")),
                 .threads = (long)json_integer_value(json_object_get(j, "threads")),
                 .instances = (long)json_integer_value(json_object_get(j, "instances"))};
    json_decref(j);
    return s;
}

static summary run_ok(const char *const *args) {
    cli_result r = cli_run_argv(args, NULL);
    cli_expect_ok(&r);
    summary s = summary_of(&r);
    cli_result_free(&r);
    return s;
}

/* The lines of a trace after the header whose frame is > K. */
static char *trace_tail(const char *path, uint32_t K) {
    size_t n;
    char *text = cli_read(path, &n);
    if (!text) fail_msg("no trace %s", path);
    char *line = strchr(text, '\n');
    assert_non_null(line);
    line++;
    while (*line && strtoul(line, NULL, 10) <= K) {
        char *next = strchr(line, '\n');
        if (!next) break;
        line = next + 1;
    }
    char *tail = strdup(line);
    free(text);
    return tail;
}

static char *trace_body(const char *path) { return trace_tail(path, 0); }

static void test_two_steps(void **state) {
    (void)state;
    const char *scene = keep("scene.json");
    const char *full_t = keep("full_t.csv"), *full_b = keep("full_b.csv");
    summary one = run_ok((const char *const[]){"run", scene, "--json", "--simd", cli_target, "--trace", full_t, "--bones",
                                               full_b, NULL});
    assert_int_equal(one.frames, FRAMES);
    assert_int_equal(one.instances, 50);
    const uint32_t points[] = {0, 1, 5, 17, 24, 47, 48};
    for (size_t q = 0; q < sizeof points / sizeof points[0]; q++) {
        uint32_t K = points[q];
        char k_text[16], snap_name[32], threads[8];
        snprintf(k_text, sizeof k_text, "%u", K);
        snprintf(snap_name, sizeof snap_name, "snap%u.bin", K);
        snprintf(threads, sizeof threads, "%u", 1 + (uint32_t)q % 4);
        const char *snap = keep(snap_name);
        /* the saving run itself is not changed by saving */
        summary saving = run_ok((const char *const[]){"run", scene, "--json", "--simd", cli_target, "--threads", threads,
                                                      "--snapshot-at", k_text, snap, NULL});
        if (saving.checksum != one.checksum) fail_msg("saving after frame %u changed the run's checksum", K);
        assert_true(cli_exists(snap));
        char tmp_name[1500];
        snprintf(tmp_name, sizeof tmp_name, "%s.", snap); /* its temporary */
        assert_false(cli_exists_prefix(tmp_name));
        /* resumed: another thread count, this target or scalar */
        const char *simd = q % 2 ? "scalar" : cli_target;
        snprintf(threads, sizeof threads, "%u", 4 - (uint32_t)q % 4);
        const char *res_t = keep("res_t.csv"), *res_b = keep("res_b.csv");
        summary resumed = run_ok((const char *const[]){"run", scene, "--json", "--simd", simd, "--threads", threads,
                                                       "--resume", snap, "--trace", res_t, "--bones", res_b, NULL});
        if (resumed.checksum != one.checksum)
            fail_msg("saved after frame %u and resumed (%s, %s threads): checksum 0x%016" PRIx64 ", one step 0x%016" PRIx64,
                     K, simd, threads, resumed.checksum, one.checksum);
        assert_int_equal(resumed.frames, FRAMES - K);
        assert_int_equal(resumed.threads, atoi(threads));
        const char *pairs[2][2] = {{full_t, res_t}, {full_b, res_b}};
        for (int p = 0; p < 2; p++) {
            char *want = trace_tail(pairs[p][0], K), *got = trace_body(pairs[p][1]);
            if (strcmp(want, got) != 0)
                fail_msg("saved after frame %u: the resumed trace %s is not frames %u..%u of the one-step trace", K,
                         pairs[p][1], K + 1, FRAMES);
            free(want);
            free(got);
        }
    }
    /* chained: resume from 5, save again at 30, resume from 30 */
    const char *s30 = keep("snap30.bin");
    summary mid = run_ok((const char *const[]){"run", scene, "--json", "--resume", keep("snap5.bin"), "--snapshot-at",
                                               "30", s30, NULL});
    assert_int_equal(mid.checksum, one.checksum);
    summary last = run_ok((const char *const[]){"run", scene, "--json", "--resume", s30, "--threads", "2", NULL});
    assert_int_equal(last.checksum, one.checksum);
    assert_int_equal(last.frames, FRAMES - 30);
    /* a longer run than the saver's: --frames 70 from the snapshot at 17 */
    summary longer = run_ok((const char *const[]){"run", scene, "--json", "--frames", "70", NULL});
    summary longer_resumed =
        run_ok((const char *const[]){"run", scene, "--json", "--frames", "70", "--resume", keep("snap17.bin"), NULL});
    if (longer_resumed.checksum != longer.checksum) fail_msg("resuming into a longer run differs");
    assert_int_equal(longer_resumed.frames, 70 - 17);
    /* the human summary says where it resumed */
    cli_result r = cli_run("run", scene, "--resume", keep("snap17.bin"), "--snapshot-at", "20", keep("s20.bin"));
    cli_expect_ok(&r);
    assert_non_null(strstr(r.out, "resumed             "));
    assert_non_null(strstr(r.out, "(after frame 17)"));
    assert_non_null(strstr(r.out, "frames              31 (18 to 48"));
    assert_non_null(strstr(r.out, "(after frame 20)"));
    char want[40];
    snprintf(want, sizeof want, "0x%016" PRIx64, one.checksum);
    assert_non_null(strstr(r.out, want));
    cli_result_free(&r);
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static void test_file_layout(void **state) {
    (void)state;
    const char *snap = keep("layout.bin");
    cli_result r = cli_run("run", keep("scene.json"), "--snapshot-at", "9", snap, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    size_t n;
    unsigned char *b = (unsigned char *)cli_read(snap, &n);
    assert_non_null(b);
    assert_memory_equal(b, "CROWDRUN", 8);
    assert_int_equal(le32(b + 8), 4);          /* version */
    uint32_t head = le32(b + 12);
    assert_int_equal(le32(b + 16), 9);         /* frame */
    float dt;
    uint32_t dt_bits = le32(b + 20);
    memcpy(&dt, &dt_bits, 4);
    assert_true(dt == 0.02f);
    assert_int_equal(le64(b + 24), 4711);      /* seed */
    assert_int_equal(le32(b + 40), 3);         /* rigs */
    assert_int_equal(le32(b + 44), 50);        /* instances */
    assert_int_equal(le32(b + 48), 0);         /* the first instance (a shard's first under --mpi) */
    /* parts: 3 rigs, 5 groups, clip.csv (read once for the two groups that play it) */
    assert_int_equal(le32(b + 52), 3 + 5 + 1);
    assert_int_equal(head, 56 + 4 * 3 + 8 * 50 + 8 * (3 + 5 + 1) + 8);
    /* the engine's snapshot: its own header, and the rest of the file */
    assert_true(n > head + 32);
    assert_memory_equal(b + head, "CROWDSNP", 8);
    assert_int_equal(le64(b + head + 16), n - head - 32);
    free(b);
}

static void test_default_crowd(void **state) {
    (void)state;
    const char *snap = keep("default.bin");
    summary one = run_ok((const char *const[]){"run", "--frames", "10", "--json", "--simd", cli_target, NULL});
    summary saving = run_ok((const char *const[]){"run", "--frames", "10", "--json", "--simd", cli_target, "--threads", "2",
                                                  "--snapshot-at", "4", snap, NULL});
    summary resumed = run_ok((const char *const[]){"run", "--frames", "10", "--json", "--resume", snap, NULL});
    assert_int_equal(one.instances, 10000);
    if (saving.checksum != one.checksum || resumed.checksum != one.checksum)
        fail_msg("default crowd: one step 0x%016" PRIx64 ", saving 0x%016" PRIx64 ", resumed 0x%016" PRIx64, one.checksum,
                 saving.checksum, resumed.checksum);
    assert_int_equal(resumed.frames, 6);
    /* the default crowd's snapshot is no scene file's */
    cli_result r = cli_run("run", keep("scene.json"), "--resume", snap);
    cli_expect_fail(&r, 2, snap, "seed");
    cli_result_free(&r);
}

/* Writes a copy of src with byte `at` xor mask (at beyond the end: truncated to `at` bytes). */
static const char *mangled(const char *src, const char *name, size_t at, unsigned char mask) {
    size_t n;
    char *b = cli_read(src, &n);
    assert_non_null(b);
    const char *path = keep(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (at < n && mask) b[at] ^= (char)mask;
    fwrite(b, 1, mask ? n : at, f);
    fclose(f);
    free(b);
    return path;
}

static void test_resume_errors(void **state) {
    (void)state;
    const char *scene = keep("scene.json");
    const char *good = keep("good.bin");
    cli_result r = cli_run("run", scene, "--snapshot-at", "12", good, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    size_t n;
    unsigned char *b = (unsigned char *)cli_read(good, &n);
    uint32_t head = le32(b + 12);
    free(b);

    struct { const char *what; const char *file; const char *say; } bad[] = {
        {"missing", keep("missing.bin"), "cannot open"},
        {"a scene file", scene, "not a crowd run snapshot"},
        {"empty", mangled(good, "empty.bin", 0, 0), "not a crowd run snapshot"},
        {"cut in the header", mangled(good, "cut_head.bin", 50, 0), "truncated"},
        {"cut in the handles", mangled(good, "cut_handles.bin", head - 20, 0), "truncated"},
        /* the file's checksum covers the engine snapshot too: it finds every change there first */
        {"cut in the engine snapshot", mangled(good, "cut_engine.bin", head + 100, 0), "checksum"},
        {"cut by a byte", mangled(good, "cut_one.bin", n - 1, 0), "checksum"},
        {"magic", mangled(good, "magic.bin", 3, 0x20), "not a crowd run snapshot"},
        {"version", mangled(good, "version.bin", 8, 0x02), "version"},
        {"frame", mangled(good, "frame.bin", 16, 0x01), "checksum"},
        {"a handle", mangled(good, "handle.bin", 60, 0x01), "checksum"},
        {"the header checksum", mangled(good, "sum.bin", head - 3, 0x10), "checksum"},
        {"the engine snapshot's version", mangled(good, "engine_version.bin", head + 8, 0x04), "checksum"},
        {"the engine payload", mangled(good, "payload.bin", head + 32 + (n - head - 32) / 2, 0x01), "checksum"},
        {"the engine payload's last byte", mangled(good, "payload_end.bin", n - 1, 0x80), "checksum"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        r = cli_run("run", scene, "--resume", bad[k].file, "--json");
        if (r.status != 2 || !strstr(r.err, bad[k].file) || !strstr(r.err, bad[k].say))
            fail_msg("--resume with %s: status %d, stderr \"%s\" (want 2 naming the file and \"%s\")", bad[k].what, r.status,
                     r.err, bad[k].say);
        assert_int_equal(strlen(r.out), 0);
        cli_result_free(&r);
    }
    /* refused with its exit status and the texts on stderr (no snapshot written) */
    const char *x = keep("x.bin"), *same = keep("same.csv"), *nowhere = keep("no/such/folder/s.bin");
    const struct {
        const char *what;
        const char *args[9];
        int status;
        const char *say[4];
    } refused[] = {
        /* another scene, seed or dt */
        {"another scene", {"run", keep("other.json"), "--resume", good}, 2, {good, "another scene"}},
        {"another seed", {"run", scene, "--seed", "4712", "--resume", good}, 2, {good, "seed 4711", "seed 4712"}},
        {"another dt", {"run", scene, "--dt", "0.0166666675", "--resume", good}, 2, {good, "dt"}},
        /* the frames don't fit */
        {"too few frames", {"run", scene, "--frames", "11", "--resume", good}, 2, {good, "frame 12", "11"}},
        {"a snapshot before the resumed frame", {"run", scene, "--resume", good, "--snapshot-at", "11", x}, 2,
         {"--snapshot-at 11"}},
        {"a snapshot after the last frame", {"run", scene, "--snapshot-at", "49", x}, 2, {"--snapshot-at 49"}},
        /* bad usage */
        {"no FILE", {"run", scene, "--snapshot-at", "3"}, 2, {"--snapshot-at needs a frame and a FILE"}},
        {"a frame that is no number", {"run", scene, "--snapshot-at", "x", x}, 2, {"--snapshot-at", "'x'"}},
        {"no value", {"run", scene, "--resume"}, 2, {"--resume needs a value"}},
        {"the trace's file", {"run", scene, "--snapshot-at", "3", same, "--trace", same}, 2, {"name the same file"}},
        /* a file that cannot be written: status 1, nothing left behind */
        {"an unwritable file", {"run", scene, "--snapshot-at", "3", nowhere}, 1, {nowhere, "cannot write the snapshot"}},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        char where[1200];
        snprintf(where, sizeof where, "%s (%s)", __FILE__, refused[k].what);
        r = cli_run_argv(refused[k].args, NULL);
        cli_expect_fail_(&r, refused[k].status, refused[k].say, where, __LINE__);
        cli_result_free(&r);
    }
    assert_false(cli_exists(x));
}

static void test_threads(void **state) {
    (void)state;
    const char *scene = keep("scene.json");
    summary ref = run_ok((const char *const[]){"run", scene, "--json", "--simd", "scalar", NULL});
    const char *counts[] = {"1", "2", "3", "4", "7", "256"};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        summary s = run_ok((const char *const[]){"run", scene, "--json", "--simd", cli_target, "--threads", counts[k], NULL});
        if (s.checksum != ref.checksum) fail_msg("--threads %s: checksum 0x%016" PRIx64 ", scalar 0x%016" PRIx64, counts[k],
                                                 s.checksum, ref.checksum);
        assert_int_equal(s.threads, atol(counts[k]));
    }
    cli_result r = cli_run("run", scene, "--threads", "257");
    cli_expect_fail(&r, 2, "--threads", "'257'", "[1, 256]");
    cli_result_free(&r);
    r = cli_run("run", scene, "--threads", "0");
    cli_expect_fail(&r, 2, "--threads", "'0'");
    cli_result_free(&r);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_steps),
        cmocka_unit_test(test_file_layout),
        cmocka_unit_test(test_default_crowd),
        cmocka_unit_test(test_resume_errors),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests_name("cli_resume", tests, write_files, free_kept);
}
