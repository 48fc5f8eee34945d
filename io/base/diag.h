/* Exit statuses and error messages of the crowd command.
 *
 * Every function of the tools returns one of the statuses below; main() returns it as the exit
 * status (SPEC §7): 0 success, 2 bad usage or bad input, 1 anything else. Messages go to
 * standard error as one line starting "crowd: ", naming the file, line, column and field
 * where they are known: "crowd: scene.json:3:14: ..." or "crowd: scene.json: rigs[0].look.dampng: ...". */
#ifndef CROWD_TOOLS_DIAG_H
#define CROWD_TOOLS_DIAG_H

#include <signal.h>
#include <stdarg.h>

#include "crowd.h"

/* Declares names[count] as the public enum's names (crowd_<stem>_name) of values first ..
 * first + count - 1: no command spells an enum's values itself. */
#define TOOL_ENUM_NAMES(names, stem, type, first, count) \
    const char *names[count];                            \
    for (int names##_k = 0; names##_k < (count); names##_k++) names[names##_k] = crowd_##stem##_name((type)((first) + names##_k))

enum {
    TOOL_OK = 0,
    TOOL_FAILED = 1,    /* out of memory, an engine error, a failed write, interrupted */
    TOOL_BAD_INPUT = 2, /* bad usage, a file that does not parse or breaks a rule */
};

#if defined(__GNUC__)
#define TOOL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TOOL_PRINTF(f, a)
#endif

/* Prints "crowd: <message>\n" to standard error and returns status. */
int tool_error(int status, const char *fmt, ...) TOOL_PRINTF(2, 3);
int tool_verror(int status, const char *fmt, va_list ap);
/* An engine call failed: prints "crowd: <what>: <crowd_last_error or the code's text>" and
 * returns status. */
int tool_engine_error(int status, const crowd_engine *engine, crowd_result res, const char *what);

/* malloc/calloc/realloc/strdup that print "crowd: out of memory" when they return NULL. */
void *tool_malloc(size_t size);
void *tool_calloc(size_t count, size_t size);
void *tool_realloc(void *ptr, size_t count, size_t size);
char *tool_strdup(const char *s);

/* Set by SIGINT/SIGTERM once tool_catch_interrupts() ran; long loops poll it and stop
 * cleanly (removing unfinished traces) with TOOL_FAILED. */
extern volatile sig_atomic_t tool_interrupted;
void tool_catch_interrupts(void);

#endif
