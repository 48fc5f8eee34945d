#include "args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

static int bad(const tool_args *a, const char *name, const char *s, const char *want) {
    return tool_error(TOOL_BAD_INPUT, "%s: %s: '%s' is not %s", a->command, name, s, want);
}

int args_value(tool_args *a, const char *name, const char **value) {
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    if (arg[n] != 0) return 0;
    if (a->i + 1 >= a->argc) {
        tool_error(TOOL_BAD_INPUT, "%s: %s needs a value", a->command, name);
        return -1;
    }
    *value = a->argv[++a->i];
    return 1;
}

int args_flag(tool_args *a, const char *name) {
    const char *arg = a->argv[a->i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return 0;
    if (arg[n] == '=') {
        tool_error(TOOL_BAD_INPUT, "%s: %s takes no value", a->command, name);
        return -1;
    }
    return arg[n] == 0;
}

int args_unexpected(const tool_args *a) {
    const char *arg = a->argv[a->i];
    if (arg[0] == '-' && arg[1] != 0)
        return tool_error(TOOL_BAD_INPUT, "%s: unknown option '%s' (crowd %s --help lists them)", a->command, arg,
                          a->command);
    return tool_error(TOOL_BAD_INPUT, "%s: unexpected argument '%s'", a->command, arg);
}

int parse_u64(const tool_args *a, const char *name, const char *s, uint64_t *out) {
    if (!s[0] || s[0] < '0' || s[0] > '9') return bad(a, name, s, "a non-negative integer");
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return bad(a, name, s, "an integer in [0, 18446744073709551615]");
    *out = (uint64_t)v;
    return TOOL_OK;
}

int parse_u32(const tool_args *a, const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *out) {
    char *end = NULL;
    unsigned long long v = 0;
    errno = 0;
    if (s[0] >= '0' && s[0] <= '9') v = strtoull(s, &end, 10);
    if (!end || *end || errno == ERANGE || v < min || v > max) {
        char want[96];
        snprintf(want, sizeof want, "an integer in [%u, %u]", min, max);
        return bad(a, name, s, want);
    }
    *out = (uint32_t)v;
    return TOOL_OK;
}

int parse_float(const tool_args *a, const char *name, const char *s, float min, float max, float *out) {
    char *end;
    double d = strtod(s, &end);
    float f = (float)d;
    if (!s[0] || *end || !isfinite(f) || !(f >= min && f <= max)) {
        char want[96];
        snprintf(want, sizeof want, "a number in [%g, %g]", (double)min, (double)max);
        return bad(a, name, s, want);
    }
    *out = f;
    return TOOL_OK;
}

int parse_float_open(const tool_args *a, const char *name, const char *s, float min, float max, float *out) {
    char *end;
    double d = strtod(s, &end);
    float f = (float)d;
    if (!s[0] || *end || !isfinite(f) || !(f > min && f <= max)) {
        char want[96];
        snprintf(want, sizeof want, "a number in (%g, %g]", (double)min, (double)max);
        return bad(a, name, s, want);
    }
    *out = f;
    return TOOL_OK;
}

int parse_choice(const tool_args *a, const char *name, const char *s, const char *const *names, int count, int *out) {
    char want[256] = "one of ";
    for (int k = 0; k < count; k++) {
        if (strcmp(s, names[k]) == 0) {
            *out = k;
            return TOOL_OK;
        }
        strncat(want, names[k], sizeof want - strlen(want) - 1);
        if (k + 1 < count) strncat(want, k + 2 == count ? " or " : ", ", sizeof want - strlen(want) - 1);
    }
    return bad(a, name, s, want);
}

int parse_simd(const tool_args *a, const char *name, const char *s, crowd_simd *out) {
    const char *names[CROWD_SIMD_COUNT];
    for (int k = 0; k < CROWD_SIMD_COUNT; k++) names[k] = crowd_simd_name((crowd_simd)k);
    int k = 0;
    int st = parse_choice(a, name, s, names, CROWD_SIMD_COUNT, &k);
    if (st != TOOL_OK) return st;
    *out = (crowd_simd)k;
    if (*out != CROWD_SIMD_AUTO && !crowd_simd_supported(*out))
        return tool_error(TOOL_BAD_INPUT, "%s: %s: target %s is not built into this crowd or the CPU lacks it",
                          a->command, name, s);
    return TOOL_OK;
}

int parse_size(const tool_args *a, const char *name, const char *s, uint32_t min, uint32_t max, uint32_t *w,
               uint32_t *h) {
    char *end;
    unsigned long x = 0, y = 0;
    if (s[0] >= '0' && s[0] <= '9') x = strtoul(s, &end, 10);
    else end = (char *)s;
    if (*end == 'x' && end[1] >= '0' && end[1] <= '9') y = strtoul(end + 1, &end, 10);
    else end = (char *)"?";
    if (*end || x < min || x > max || y < min || y > max) {
        char want[96];
        snprintf(want, sizeof want, "WIDTHxHEIGHT with each in [%u, %u]", min, max);
        return bad(a, name, s, want);
    }
    *w = (uint32_t)x;
    *h = (uint32_t)y;
    return TOOL_OK;
}
