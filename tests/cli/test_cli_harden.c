/* test_cli_harden.c — the crowd command's resource limits and file rules (SPEC §6, its last
 * paragraph): what each hostile input gets.
 *
 *   regular_files      /dev/zero, a FIFO and a directory as scene, clip, run snapshot: exit 2
 *                      at once; --max-file-bytes at the file's size and one byte less
 *   exclusive_outputs  a symlink where the old fixed temporary name was is never written
 *                      through; an output that is a symlink writes its target, the link stays
 *   aliases            two outputs one file (by another name, a hard link), an output that is
 *                      an input: exit 2 before anything runs, the files unchanged
 *   scene_memory       instance counts against the memory estimate (exit 1 naming the group and
 *                      the bytes); the estimate exact at the limit
 *   limits             65,536 rigs, 65,537 entries: exit 2 naming field and limit; 65,536
 *                      parameters with 65,536 look entries run
 *   clip_gaps          an infinite period, NUL bytes, a 200-character number
 *   spliced_resume     a run file's header on another scene's payload (checksums redone): exit 2
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksum.h"
#include "cli_support.h"

static const char small_scene[] =
    "{\"frames\": 3, \"rigs\": [{\"name\": \"face\", \"parameters\": [{\"id\": \"A\", \"min\": -1, \"max\": 1}],\n"
    " \"look\": {\"damping\": 0.15, \"parameters\": [{\"id\": \"A\", \"axis\": \"x\", \"factor\": 1}]}}],\n"
    " \"groups\": [{\"rig\": \"face\", \"count\": 4, \"look\": {\"keys\": [{\"t\": 0, \"target\": [1, 0, 0]}]}}]}\n";

/* cli_path's buffers are reused: paths kept across calls are copied here */
static const char *keep(const char *path) {
    static char kept[64][1100];
    static int next;
    char *k = kept[next++ % 64];
    snprintf(k, sizeof kept[0], "%s", path);
    return k;
}

static char *clip_text(uint32_t rows) {
    float *lm = malloc(sizeof *lm * 132 * rows);
    char **t = malloc(sizeof *t * rows);
    for (uint32_t r = 0; r < rows; r++) {
        cli_synthetic_pose(r / 30.0, 0, &lm[r * 132]);
        t[r] = malloc(32);
        snprintf(t[r], 32, "%.6f", r / 30.0);
    }
    char *text = cli_clip_text(rows, (const char *const *)t, lm);
    for (uint32_t r = 0; r < rows; r++) free(t[r]);
    free(t);
    free(lm);
    return text;
}

/* a scene whose one group of limbs plays `clip` (a path relative to the scratch folder) */
static const char *clip_scene(const char *name, const char *clip) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"frames\": 3, \"rigs\": [{\"name\": \"body\", \"limbs\": {\"frame\": \"engine\"}}],\n"
             " \"groups\": [{\"rig\": \"body\", \"count\": 2, \"pose\": {\"clip\": \"%s\"}}]}\n",
             clip);
    return keep(cli_write(name, text));
}

static void test_regular_files(void **state) {
    (void)state;
    const char *scene = keep(cli_write("small.json", small_scene));
    char *clip = clip_text(3);
    const char *good_clip = keep(cli_write("good.csv", clip));
    free(clip);
    const char *fifo = keep(cli_path("fifo"));
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *zero_link = keep(cli_path("zero.csv"));
    unlink(zero_link);
    assert_int_equal(symlink("/dev/zero", zero_link), 0);
    const char *fifo_link = keep(cli_path("fifo.csv"));
    unlink(fifo_link);
    assert_int_equal(symlink(fifo, fifo_link), 0);
    struct { const char *what; const char *args[8]; const char *kind; } bad[] = {
        {"scene /dev/zero", {"run", "/dev/zero"}, "a device"},
        {"scene FIFO", {"run", fifo}, "a pipe"},
        {"scene directory", {"run", cli_dir}, "a directory"},
        {"pose /dev/zero", {"pose", "/dev/zero"}, "a device"},
        {"pose FIFO", {"pose", fifo}, "a pipe"},
        {"--resume /dev/zero", {"run", scene, "--resume", "/dev/zero"}, "a device"},
        {"--resume FIFO", {"run", scene, "--resume", fifo}, "a pipe"},
        {"a scene's clip /dev/zero", {"run", clip_scene("zclip.json", "zero.csv")}, "a device"},
        {"a scene's clip FIFO", {"run", clip_scene("fclip.json", "fifo.csv")}, "a pipe"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cli_result r = cli_run_argv(bad[k].args, NULL);
        if (r.status != 2 || !strstr(r.err, "not a regular file") || !strstr(r.err, bad[k].kind))
            fail_msg("%s: status %d, stderr \"%s\" (want 2: not a regular file, %s)", bad[k].what, r.status, r.err,
                     bad[k].kind);
        cli_result_free(&r);
    }
    /* the size limit: the file's own size passes, one byte less does not */
    struct stat st;
    assert_int_equal(stat(scene, &st), 0);
    char size[32], less[32];
    snprintf(size, sizeof size, "%lld", (long long)st.st_size);
    snprintf(less, sizeof less, "%lld", (long long)st.st_size - 1);
    cli_result r = cli_run("run", scene, "--max-file-bytes", size, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--max-file-bytes", less, "--quiet");
    cli_expect_fail(&r, 2, scene, size, "more than the limit of", less, "--max-file-bytes");
    cli_result_free(&r);
    assert_int_equal(stat(good_clip, &st), 0);
    snprintf(less, sizeof less, "%lld", (long long)st.st_size - 1);
    r = cli_run("pose", good_clip, "--max-file-bytes", less);
    cli_expect_fail(&r, 2, good_clip, "more than the limit of");
    cli_result_free(&r);
    r = cli_run("pose", good_clip);
    cli_expect_ok(&r);
    cli_result_free(&r);
}

static void test_exclusive_outputs(void **state) {
    (void)state;
    const char *scene = keep(cli_write("small.json", small_scene));
    const char *victim = keep(cli_write("victim.txt", "precious\n"));
    /* the names the temporaries had: a planted symlink there is not followed */
    const char *outs[3] = {"t.csv", "s.bin", "p.png"};
    for (int k = 0; k < 3; k++) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%s.tmp", outs[k]);
        unlink(cli_path(tmp));
        assert_int_equal(symlink(victim, cli_path(tmp)), 0);
    }
    cli_result r = cli_run("run", scene, "--trace", keep(cli_path("t.csv")), "--snapshot-at", "1", keep(cli_path("s.bin")), "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("render", scene, "--out", cli_path("p.png"), "--size", "64x64", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    size_t n;
    char *text = cli_read(victim, &n);
    assert_non_null(text);
    assert_string_equal(text, "precious\n");
    free(text);
    /* an output that is itself a symlink: its target gets the output (through a temporary beside
     * the target), the link stays a link (files.h) */
    const char *link = keep(cli_path("link.csv"));
    unlink(link);
    assert_int_equal(symlink(victim, link), 0);
    r = cli_run("run", scene, "--trace", link, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    text = cli_read(victim, &n);
    assert_non_null(text);
    assert_true(strncmp(text, "frame,instance,id,value\n", 24) == 0);
    free(text);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    text = cli_read(cli_path("t.csv"), &n);
    assert_non_null(text);
    assert_true(strncmp(text, "frame,instance,id,value\n", 24) == 0);
    free(text);
}

static void test_aliases(void **state) {
    (void)state;
    const char *scene = keep(cli_write("alias.json", small_scene));
    char *clip = clip_text(3);
    cli_write("aclip.csv", clip);
    free(clip);
    const char *cscene = clip_scene("aclip.json", "aclip.csv");
    const char *h1 = keep(cli_write("h1.csv", "keep\n"));
    const char *h2 = keep(cli_path("h2.csv"));
    unlink(h2);
    assert_int_equal(link(h1, h2), 0);
    char dotted[1200];
    snprintf(dotted, sizeof dotted, "%s/./a.csv", cli_dir);
    const char *snap = keep(cli_path("alias.bin"));
    cli_result r = cli_run("run", scene, "--snapshot-at", "1", snap, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    struct { const char *what; const char *args[10]; const char *flags[2]; } bad[] = {
        {"--trace and --bones by two names", {"run", scene, "--trace", keep(cli_path("a.csv")), "--bones", dotted}, {"--trace", "--bones"}},
        {"--trace and --bones hard links", {"run", scene, "--trace", h1, "--bones", h2}, {"--trace", "--bones"}},
        {"--trace the scene", {"run", scene, "--trace", scene}, {"--trace", "the scene"}},
        {"--bones the clip", {"run", cscene, "--bones", keep(cli_path("aclip.csv"))}, {"--bones", "the pose clip"}},
        {"--snapshot-at the resume file", {"run", scene, "--resume", snap, "--snapshot-at", "2", snap}, {"--snapshot-at", "--resume"}},
        {"pose --bones the clip", {"pose", keep(cli_path("aclip.csv")), "--bones", keep(cli_path("aclip.csv"))}, {"--bones", "the pose clip"}},
        {"render --out the scene", {"render", scene, "--out", scene}, {"--out", "the scene"}},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        r = cli_run_argv(bad[k].args, NULL);
        if (r.status != 2 || !strstr(r.err, "same file") || !strstr(r.err, bad[k].flags[0]) || !strstr(r.err, bad[k].flags[1]))
            fail_msg("%s: status %d, stderr \"%s\" (want 2 naming %s and %s)", bad[k].what, r.status, r.err, bad[k].flags[0],
                     bad[k].flags[1]);
        assert_string_equal(r.out, "");
        cli_result_free(&r);
    }
    size_t n;
    char *text = cli_read(h1, &n);
    assert_string_equal(text, "keep\n");
    free(text);
    assert_false(cli_exists(cli_path("a.csv")));
    text = cli_read(scene, &n);
    assert_string_equal(text, small_scene);
    free(text);
}

static char *count_scene(const char *count) {
    static char text[512];
    snprintf(text, sizeof text,
             "{\"frames\": 1, \"rigs\": [{\"name\": \"r\", \"parameters\": [{\"id\": \"A\"}, {\"id\": \"B\"}],\n"
             " \"harmonic\": {\"parameters\": [{\"id\": \"B\"}]}}],\n"
             " \"groups\": [{\"rig\": \"r\", \"count\": 2}, {\"rig\": \"r\", \"count\": %s}]}\n",
             count);
    return text;
}

static void test_scene_memory(void **state) {
    (void)state;
    /* 10^9 instances: more than this machine (or any container it runs in) holds */
    const char *huge = keep(cli_write("huge.json", count_scene("1000000000")));
    cli_result r = cli_run("run", huge, "--quiet");
    cli_expect_fail(&r, 1, huge, "groups[1]", "1000000000 instances", "bytes each", "memory limit", "--max-memory-bytes");
    cli_result_free(&r);
    /* the estimate: 1,000 instances at the limit run, one byte less is refused */
    const char *some = keep(cli_write("some.json", count_scene("998")));
    r = cli_run("run", some, "--max-memory-bytes", "1000", "--quiet");
    cli_expect_fail(&r, 1, some, "groups[1]", "998 instances", "bytes each");
    const char *at = strstr(r.err, "bytes each");
    unsigned long long each = 0;
    const char *p = at;
    while (p > r.err && p[-1] != ',') p--;
    assert_int_equal(sscanf(p, " %llu bytes each", &each), 1);
    cli_result_free(&r);
    assert_true(each > 8 && each < 4096);
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", 1000 * each);
    r = cli_run("run", some, "--max-memory-bytes", limit, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    snprintf(limit, sizeof limit, "%llu", 1000 * each - 1);
    r = cli_run("run", some, "--max-memory-bytes", limit, "--quiet");
    cli_expect_fail(&r, 1, "groups[1]", "998 instances", "memory limit");
    cli_result_free(&r);
}

static void test_limits(void **state) {
    (void)state;
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"frames\": 1, \"rigs\": [");
    for (int k = 0; k < 65536; k++) cli_buf_printf(&b, "%s{\"name\": \"r%d\"}", k ? "," : "", k);
    cli_buf_printf(&b, "]}\n");
    const char *rigs = keep(cli_write("rigs.json", b.text));
    free(b.text);
    cli_result r = cli_run("run", rigs, "--quiet");
    cli_expect_fail(&r, 2, rigs, "rigs", "65536 entries", "at most 65535");
    cli_result_free(&r);
    /* 65,536 parameters and as many look entries (checked by hashing, not pair by pair) */
    for (int extra = 0; extra < 2; extra++) {
        cli_buf s = {0};
        cli_buf_printf(&s, "{\"frames\": 1, \"rigs\": [{\"name\": \"wide\", \"parameters\": [");
        for (int k = 0; k < 65536; k++) cli_buf_printf(&s, "%s{\"id\": \"P%d\"}", k ? "," : "", k);
        cli_buf_printf(&s, "], \"look\": {\"parameters\": [");
        for (int k = 0; k < 65536 + extra; k++) cli_buf_printf(&s, "%s{\"id\": \"P%d\"}", k ? "," : "", 65535 - k % 65536);
        cli_buf_printf(&s, "]}}], \"groups\": [{\"rig\": \"wide\", \"count\": 2}]}\n");
        const char *wide = keep(cli_write("wide.json", s.text));
        free(s.text);
        r = cli_run("run", wide, "--quiet");
        if (extra) cli_expect_fail(&r, 2, wide, "rigs[0].look.parameters", "65537 entries", "at most 65536");
        else cli_expect_ok(&r);
        cli_result_free(&r);
    }
}

static void test_clip_gaps(void **state) {
    (void)state;
    char *good = clip_text(2);
    /* t_s spanning the double range: the period is infinite */
    char *lines[3];
    char *save = NULL, *copy = strdup(good);
    lines[0] = strtok_r(copy, "\n", &save);
    lines[1] = strtok_r(NULL, "\n", &save);
    lines[2] = strtok_r(NULL, "\n", &save);
    cli_buf inf = {0};
    const char *t1 = strchr(strchr(lines[1], ',') + 1, ','), *t2 = strchr(strchr(lines[2], ',') + 1, ',');
    cli_buf_printf(&inf, "%s\n1,-1.7e308%s\n2,1.7e308%s\n", lines[0], t1, t2);
    const char *inf_clip = keep(cli_write("inf.csv", inf.text));
    free(inf.text);
    cli_result r = cli_run("pose", inf_clip);
    cli_expect_fail(&r, 2, inf_clip, ":3:", "t_s", "period");
    cli_result_free(&r);
    r = cli_run("run", clip_scene("inf.json", "inf.csv"), "--quiet");
    cli_expect_fail(&r, 2, inf_clip, "t_s", "period");
    cli_result_free(&r);
    free(copy);

    /* NUL bytes: in a field, and in the header */
    size_t n = strlen(good);
    char *nul = malloc(n + 16);
    const char *row = strchr(good, '\n') + 1; /* "0,0.000000,..." */
    size_t head = (size_t)(row - good);
    memcpy(nul, good, n + 1);
    memmove(nul + head + 2, nul + head + 1, n - head); /* "0" NUL "garbage"... */
    nul[head + 1] = 0;
    FILE *f = fopen(cli_path("nul.csv"), "wb");
    fwrite(nul, 1, n + 1, f);
    fclose(f);
    r = cli_run("pose", cli_path("nul.csv"));
    cli_expect_fail(&r, 2, "nul.csv:2:2:", "NUL");
    cli_result_free(&r);
    f = fopen(cli_path("nulhead.csv"), "wb"); /* "frame" NUL "junk,t_s,..." */
    fwrite("frame\0junk", 1, 10, f);
    fwrite(good + 5, 1, n - 5, f);
    fclose(f);
    r = cli_run("pose", cli_path("nulhead.csv"));
    cli_expect_fail(&r, 2, "nulhead.csv:1:6:", "NUL");
    cli_result_free(&r);
    free(nul);

    /* a valid number of 200 characters: 0.000...0005 is 5e-199, read as 0 in float32 */
    cli_buf longnum = {0};
    cli_buf_printf(&longnum, "0.");
    for (int k = 0; k < 197; k++) cli_buf_printf(&longnum, "0");
    cli_buf_printf(&longnum, "5");
    cli_buf to = {0};
    cli_buf_printf(&to, "\n1,%s,", longnum.text);
    char *with_long = cli_replace(good, "\n1,0.000000,", to.text);
    const char *long_clip = keep(cli_write("long.csv", with_long));
    r = cli_run("pose", long_clip);
    cli_expect_ok(&r);
    cli_result_free(&r);
    free(with_long), free(to.text), free(longnum.text);
    free(good);
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_spliced_resume(void **state) {
    (void)state;
    /* two scenes alike in every count, unlike in one rig setting (look damping) */
    char *other = cli_replace(small_scene, "\"damping\": 0.15", "\"damping\": 0.5");
    const char *a = keep(cli_write("splice_a.json", small_scene)), *b = keep(cli_write("splice_b.json", other));
    free(other);
    const char *sa = keep(cli_path("splice_a.bin")), *sb = keep(cli_path("splice_b.bin"));
    cli_result r = cli_run("run", a, "--snapshot-at", "1", sa, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", b, "--snapshot-at", "1", sb, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    size_t na, nb;
    unsigned char *fa = (unsigned char *)cli_read(sa, &na), *fb = (unsigned char *)cli_read(sb, &nb);
    assert_true(fa && fb);
    uint32_t head = le32(fa + 12);
    assert_int_equal(le32(fb + 12), head);
    /* A's header, B's engine snapshot, the file checksum (header, then payload) redone */
    size_t n = head + (nb - head);
    unsigned char *sp = malloc(n);
    memcpy(sp, fa, head);
    memcpy(sp + head, fb + head, nb - head);
    uint64_t sum = fnv1a64_bytes(fnv1a64_bytes(FNV1A64_INIT, sp, head - 8), sp + head, n - head);
    for (int k = 0; k < 8; k++) sp[head - 8 + k] = (unsigned char)(sum >> (8 * k));
    FILE *f = fopen(cli_path("spliced.bin"), "wb");
    fwrite(sp, 1, n, f);
    fclose(f);
    r = cli_run("run", a, "--resume", cli_path("spliced.bin"), "--quiet");
    cli_expect_fail(&r, 2, "spliced.bin", "rig 0", "settings differ");
    cli_result_free(&r);
    /* with the old header-only checksum the file is simply corrupt */
    sum = fnv1a64_bytes(FNV1A64_INIT, sp, head - 8);
    for (int k = 0; k < 8; k++) sp[head - 8 + k] = (unsigned char)(sum >> (8 * k));
    f = fopen(cli_path("spliced_old.bin"), "wb");
    fwrite(sp, 1, n, f);
    fclose(f);
    r = cli_run("run", a, "--resume", cli_path("spliced_old.bin"), "--quiet");
    cli_expect_fail(&r, 2, "spliced_old.bin", "checksum");
    cli_result_free(&r);
    /* the unspliced files resume */
    r = cli_run("run", a, "--resume", sa, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    free(sp), free(fa), free(fb);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    /* CLI_HARDEN_SKIP=pattern leaves tests out (e.g. regular_files, which hangs a crowd that
     * reads FIFOs) */
    if (getenv("CLI_HARDEN_SKIP")) cmocka_set_skip_filter(getenv("CLI_HARDEN_SKIP"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_files), cmocka_unit_test(test_exclusive_outputs), cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_scene_memory),  cmocka_unit_test(test_limits),            cmocka_unit_test(test_clip_gaps),
        cmocka_unit_test(test_spliced_resume),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
