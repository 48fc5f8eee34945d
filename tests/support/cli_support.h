/* Shared by the tests of the crowd command: argv is "TARGET CROWD_EXE"; a scratch folder per
 * test program; running the command with its output captured; reading files and traces. */
#ifndef CROWD_CLI_SUPPORT_H
#define CROWD_CLI_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test_support.h"

/* Reads argv (target, path of the crowd program), skips (77) an unsupported target, makes the
 * scratch folder (removed at exit). */
void cli_setup(int argc, char **argv);
extern const char *cli_exe;       /* the crowd program */
extern const char *cli_target;    /* "scalar", "sse2", ... */
extern char cli_dir[]; /* 1024 bytes */            /* the scratch folder */

/* cli_dir/name (a static buffer per call slot: up to 8 live results). */
const char *cli_path(const char *name);
/* Writes text to cli_dir/name; returns the full path. */
const char *cli_write(const char *name, const char *text);
/* The whole file (NUL-terminated, *size its length), or NULL. free() it. */
char *cli_read(const char *path, size_t *size);
bool cli_exists(const char *path);
/* Is there a file whose path starts with prefix (e.g. an output's temporary "out.csv.")? */
bool cli_exists_prefix(const char *prefix);

typedef struct cli_result {
    int status;  /* exit status, or 128 + signal */
    char *out;   /* standard output */
    char *err;   /* standard error */
} cli_result;

/* Runs crowd with the arguments (NULL-terminated), CROWD_SIMD set to the target under test.
 * interrupt_when: when not NULL, SIGINT is sent as soon as a file whose path starts with it exists (fails the test if
 * it does not appear within a minute). */
cli_result cli_run_argv(const char *const *args, const char *interrupt_when);
#define cli_run(...) cli_run_argv((const char *const[]){__VA_ARGS__, NULL}, NULL)
void cli_result_free(cli_result *r);
/* Runs a shell command of an outside checker (node, Blender): fails the test naming `what` with
 * the command's output when it exits nonzero, else prints that output (its measured errors). */
void cli_run_script(const char *cmd, const char *what);

/* Asserts exit status and that stderr contains every given text (NULL-terminated). */
void cli_expect_fail_(const cli_result *r, int status, const char *const *texts, const char *file, int line);
#define cli_expect_fail(r, status, ...) \
    cli_expect_fail_((r), (status), (const char *const[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
#define cli_expect_ok(r) cli_expect_ok_((r), __FILE__, __LINE__)
void cli_expect_ok_(const cli_result *r, const char *file, int line);

/* A float from its %.9g text, and its bits. */
uint32_t cli_bits(float f);

#endif

/* ---- pose clips for tests ---- */
/* A plausible body at time t (engine frame, metres): 33 landmarks x, y, z, visibility 1, moving
 * smoothly with t; `variant` changes the motion a little. */
void cli_synthetic_pose(double t, int variant, float lm[132]);
/* A clip's CSV text (header and rows with %.9g); t_text[k] is row k's t_s as written. malloc'd. */
char *cli_clip_text(uint32_t rows, const char *const *t_text, const float *landmarks);

/* A growing string. */
typedef struct cli_buf {
    char *text;
    size_t len, cap;
} cli_buf;
void cli_buf_printf(cli_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* base with the first occurrence of from replaced by to (asserts that from occurs). malloc'd. */
char *cli_replace(const char *base, const char *from, const char *to);
