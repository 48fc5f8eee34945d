/* Command-line options: "--name VALUE" and "--name=VALUE", and the value parsers. Each parser
 * prints "crowd: <command>: --name: ..." and returns TOOL_BAD_INPUT on a bad value. */
#ifndef CROWD_TOOLS_ARGS_H
#define CROWD_TOOLS_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "crowd.h"

typedef struct tool_args {
    int argc;
    char **argv;
    int i;               /* the argument being looked at */
    const char *command; /* "run", "pose", ... for messages */
} tool_args;

/* Is argv[i] the option `name` taking a value? 1: yes, *value set (from "--name=V" or the next
 * argument, which is consumed); 0: another argument; -1: the value is missing (printed). */
int args_value(tool_args *a, const char *name, const char **value);
/* Is argv[i] the flag `name` (no value)? "--name=..." is an error (printed, -1). */
int args_flag(tool_args *a, const char *name);
/* Prints "unknown option" or "unexpected argument" for argv[i]; returns TOOL_BAD_INPUT. */
int args_unexpected(const tool_args *a);

int parse_u32(const tool_args *a, const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out);
int parse_u64(const tool_args *a, const char *name, const char *s, uint64_t *out);
/* A decimal number read as double, rounded to float32 once, finite and within [min, max]. */
int parse_float(const tool_args *a, const char *name, const char *s, float min, float max, float *out);
/* the same with the lower bound excluded: (min, max] */
int parse_float_open(const tool_args *a, const char *name, const char *s, float min, float max, float *out);
/* One of names[0..count) (the index in *out). */
int parse_choice(const tool_args *a, const char *name, const char *s, const char *const *names, int count, int *out);
/* auto|scalar|sse2|avx2|avx512 */
int parse_simd(const tool_args *a, const char *name, const char *s, crowd_simd *out);
/* "WxH", each in [min, max] */
int parse_size(const tool_args *a, const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *w, uint32_t *h);

#endif
