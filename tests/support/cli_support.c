#define _XOPEN_SOURCE 700
#include "cli_support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *cli_exe;
const char *cli_target;
char cli_dir[1024];

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void cleanup(void) {
    if (cli_dir[0] && !getenv("CROWD_CLI_KEEP")) nftw(cli_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void cli_setup(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s TARGET CROWD_EXE\n", argv[0]);
        exit(2);
    }
    crowd_test_target(argc, argv);
    cli_target = argv[1];
    cli_exe = argv[2];
    const char *tmp = getenv("TMPDIR");
    snprintf(cli_dir, sizeof cli_dir, "%s/crowd-cli-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(cli_dir)) {
        perror("mkdtemp");
        exit(1);
    }
    atexit(cleanup);
}

const char *cli_path(const char *name) {
    static char slots[8][1400];
    static int next;
    char *p = slots[next++ % 8];
    snprintf(p, 1400, "%s/%s", cli_dir, name);
    return p;
}

const char *cli_write(const char *name, const char *text) {
    const char *path = cli_path(name);
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
    return path;
}

char *cli_read(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap + 1);
    }
    fclose(f);
    buf[n] = 0;
    if (size) *size = n;
    return buf;
}

bool cli_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

bool cli_exists_prefix(const char *prefix) {
    const char *slash = strrchr(prefix, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - prefix) : 1, slash ? prefix : ".");
    const char *base = slash ? slash + 1 : prefix;
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) found = strncmp(e->d_name, base, strlen(base)) == 0;
    closedir(d);
    return found;
}

cli_result cli_run_argv(const char *const *args, const char *interrupt_when) {
    static int serial;
    char out_path[4200], err_path[4200], simd_env[64];
    snprintf(out_path, sizeof out_path, "%s/.out%d", cli_dir, serial);
    snprintf(err_path, sizeof err_path, "%s/.err%d", cli_dir, serial++);
    snprintf(simd_env, sizeof simd_env, "CROWD_SIMD=%s", cli_target);
    /* argv: crowd args...; environment: ours with CROWD_SIMD replaced */
    size_t n = 0;
    while (args[n]) n++;
    char **argv = calloc(n + 2, sizeof *argv);
    argv[0] = (char *)cli_exe;
    for (size_t k = 0; k < n; k++) argv[k + 1] = (char *)args[k];
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = calloc(ne + 2, sizeof *envp);
    size_t m = 0;
    for (size_t k = 0; k < ne; k++)
        if (strncmp(environ[k], "CROWD_SIMD=", 11) != 0) envp[m++] = environ[k];
    envp[m++] = simd_env;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, cli_exe, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    free(envp);
    if (rc != 0) fail_msg("cannot start %s: %s", cli_exe, strerror(rc));
    if (interrupt_when) {
        int waited = 0;
        for (; !cli_exists_prefix(interrupt_when) && waited < 6000; waited++) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (waited == 6000) {
            kill(pid, SIGKILL);
            fail_msg("%s did not appear within a minute", interrupt_when);
        }
        struct timespec ts = {0, 100 * 1000 * 1000}; /* let a few frames of the trace be written */
        nanosleep(&ts, NULL);
        kill(pid, SIGINT);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    cli_result r = {0};
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = cli_read(out_path, NULL);
    r.err = cli_read(err_path, NULL);
    if (!r.out) r.out = calloc(1, 1);
    if (!r.err) r.err = calloc(1, 1);
    remove(out_path);
    remove(err_path);
    return r;
}

void cli_run_script(const char *cmd, const char *what) {
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int status = pclose(p);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("%s failed:\n%s", what, out);
    print_message("%s", out);
}

void cli_result_free(cli_result *r) {
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void cli_expect_fail_(const cli_result *r, int status, const char *const *texts, const char *file, int line) {
    if (r->status != status)
        fail_msg("%s:%d: exit status %d, expected %d; stderr: %s", file, line, r->status, status, r->err);
    for (const char *const *t = texts; *t; t++)
        if (!strstr(r->err, *t)) fail_msg("%s:%d: stderr lacks \"%s\"; it is: %s", file, line, *t, r->err);
    /* one message line, starting "crowd: " */
    if (strncmp(r->err, "crowd: ", 7) != 0 && !strstr(r->err, "\ncrowd: "))
        fail_msg("%s:%d: stderr does not start a line with \"crowd: \": %s", file, line, r->err);
}

void cli_expect_ok_(const cli_result *r, const char *file, int line) {
    if (r->status != 0) fail_msg("%s:%d: exit status %d; stderr: %s", file, line, r->status, r->err);
}

uint32_t cli_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- pose clips ---- */
#include <math.h>
#include <stdarg.h>

static void put(float *lm, int k, double x, double y, double z) {
    lm[k * 4 + 0] = (float)x;
    lm[k * 4 + 1] = (float)y;
    lm[k * 4 + 2] = (float)z;
    lm[k * 4 + 3] = 1.0f;
}

void cli_synthetic_pose(double t, int variant, float lm[132]) {
    double w = 2 * 3.14159265358979 * t / (1.0 + 0.1 * variant), s = sin(w), c = cos(w);
    double bob = 0.02 * cos(2 * w);
    put(lm, 23, -0.1, bob, 0.01 * s);
    put(lm, 24, 0.1, bob, -0.01 * s);
    put(lm, 11, -0.18, 0.5 + bob, -0.03 * s);
    put(lm, 12, 0.18, 0.5 + bob, 0.03 * s);
    double hy = 0.7 + bob;
    put(lm, 0, 0.01 * s, hy - 0.01, 0.1);
    for (int k = 1; k <= 6; k++) put(lm, k, (k <= 3 ? -1 : 1) * (0.01 + 0.02 * ((k - 1) % 3)), hy + 0.03, 0.08);
    put(lm, 7, -0.075, hy, 0);
    put(lm, 8, 0.075, hy, 0);
    put(lm, 9, -0.025, hy - 0.05, 0.085);
    put(lm, 10, 0.025, hy - 0.05, 0.085);
    for (int side = 0; side < 2; side++) {
        double sg = side ? 1 : -1, ph = side ? s : -s, bend = 0.3 + 0.2 * (side ? c : -c);
        /* leg: hip 23/24, knee 25/26, ankle 27/28, heel 29/30, toe 31/32 */
        double hx = 0.1 * sg, a = 0.4 * ph, kb = 0.25 + 0.25 * (1 + (side ? c : -c));
        double kx = hx, ky = bob - 0.42 * cos(a), kz = 0.42 * sin(a);
        double ax = hx, ay = ky - 0.42 * cos(a - kb), az = kz + 0.42 * sin(a - kb);
        put(lm, 25 + side, kx, ky, kz);
        put(lm, 27 + side, ax, ay, az);
        put(lm, 29 + side, ax, ay - 0.05, az - 0.05);
        put(lm, 31 + side, ax, ay - 0.07, az + 0.15);
        /* arm: shoulder 11/12, elbow 13/14, wrist 15/16, pinky 17/18, index 19/20, thumb 21/22 */
        double u = -0.3 * ph, ex = 0.2 * sg, ey = 0.5 + bob - 0.29 * cos(u), ez = 0.29 * sin(u);
        double wx = ex, wy = ey - 0.26 * cos(u + bend), wz = ez + 0.26 * sin(u + bend);
        put(lm, 13 + side, ex, ey, ez);
        put(lm, 15 + side, wx, wy, wz);
        put(lm, 17 + side, wx + 0.01 * sg, wy - 0.08, wz - 0.02);
        put(lm, 19 + side, wx, wy - 0.085, wz + 0.025);
        put(lm, 21 + side, wx - 0.01 * sg, wy - 0.04, wz + 0.04);
    }
}

void cli_buf_printf(cli_buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->text ? b->text + b->len : NULL, b->text ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->text && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->text = realloc(b->text, b->cap);
        if (b->len == 0) b->text[0] = 0;
    }
}

char *cli_clip_text(uint32_t rows, const char *const *t_text, const float *lm) {
    cli_buf b = {0};
    cli_buf_printf(&b, "frame,t_s");
    for (int k = 0; k < 33; k++) cli_buf_printf(&b, ",lm%d_x,lm%d_y,lm%d_z,lm%d_vis", k, k, k, k);
    cli_buf_printf(&b, "\n");
    for (uint32_t r = 0; r < rows; r++) {
        cli_buf_printf(&b, "%u,%s", r + 1, t_text[r]);
        for (int k = 0; k < 132; k++) cli_buf_printf(&b, ",%.9g", (double)lm[r * 132 + k]);
        cli_buf_printf(&b, "\n");
    }
    return b.text;
}

char *cli_replace(const char *base, const char *from, const char *to) {
    const char *at = strstr(base, from);
    if (!at) fail_msg("test bug: \"%s\" is not in the text", from);
    size_t a = (size_t)(at - base), lf = strlen(from), lt = strlen(to), lb = strlen(base);
    char *out = malloc(lb - lf + lt + 1);
    memcpy(out, base, a);
    memcpy(out + a, to, lt);
    memcpy(out + a + lt, at + lf, lb - a - lf + 1);
    return out;
}
