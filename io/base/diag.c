#include "diag.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile sig_atomic_t tool_interrupted = 0;

int tool_verror(int status, const char *fmt, va_list ap) {
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "crowd: %s\n", line);
    return status;
}

int tool_error(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tool_verror(status, fmt, ap);
    va_end(ap);
    return status;
}

int tool_engine_error(int status, const crowd_engine *engine, crowd_result res, const char *what) {
    const char *msg = engine ? crowd_last_error(engine) : "";
    if (!msg || !msg[0]) msg = crowd_result_text(res);
    return tool_error(status, "%s: %s", what, msg);
}

void *tool_malloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) tool_error(TOOL_FAILED, "out of memory (%zu bytes)", size);
    return p;
}

void *tool_calloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) tool_error(TOOL_FAILED, "out of memory (%zu x %zu bytes)", count, size);
    return p;
}

void *tool_realloc(void *ptr, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) {
        tool_error(TOOL_FAILED, "out of memory (%zu x %zu bytes)", count, size);
        return NULL;
    }
    size_t bytes = count * size;
    void *p = realloc(ptr, bytes ? bytes : 1);
    if (!p) tool_error(TOOL_FAILED, "out of memory (%zu x %zu bytes)", count, size);
    return p;
}

char *tool_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = tool_malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static void on_interrupt(int sig) {
    (void)sig;
    tool_interrupted = 1;
}

void tool_catch_interrupts(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* a closed pipe is a write error (EPIPE) the command reports, removing its temporaries,
     * rather than a signal that kills it with them left behind */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}
