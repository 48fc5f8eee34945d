#include "landmark_scan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32

const char *scan_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

const char *scan_string(const char *p, const char *end, const char **s, size_t *n) {
    if (p >= end || *p != '"') return NULL;
    const char *start = ++p;
    while (p < end && *p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c >= 0x80 || c == '\\') return NULL; /* (jansson checks escapes and UTF-8) */
        p++;
    }
    if (p >= end) return NULL;
    *s = start;
    *n = (size_t)(p - start);
    return p + 1;
}

static bool digit(char c) { return c >= '0' && c <= '9'; }

const char *scan_number_value(const char *p, const char *end, double *out) {
    /* JSON's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    const char *q = p;
    bool real = false;
    if (q < end && *q == '-') q++;
    if (q >= end || !digit(*q)) return NULL;
    if (*q == '0') q++;
    else
        while (q < end && digit(*q)) q++;
    if (q < end && *q == '.') {
        real = true;
        q++;
        if (q >= end || !digit(*q)) return NULL;
        while (q < end && digit(*q)) q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        real = true;
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (q >= end || !digit(*q)) return NULL;
        while (q < end && digit(*q)) q++;
    }
    char buf[64];
    size_t n = (size_t)(q - p);
    if (n >= sizeof buf) return NULL;
    memcpy(buf, p, n);
    buf[n] = 0;
    errno = 0;
    if (real) {
        double d = strtod(buf, NULL);
        if ((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE) return NULL; /* jansson: real number overflow */
        *out = d;
    } else {
        long long v = strtoll(buf, NULL, 10);
        if (errno == ERANGE) return NULL; /* jansson: too big integer */
        *out = (double)v;
    }
    return q;
}

static const char *literal(const char *p, const char *end, const char *word) {
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

const char *scan_skip(const char *p, const char *end, int depth) {
    if (depth > MAX_DEPTH || p >= end) return NULL;
    const char *s;
    size_t n;
    double d;
    switch (*p) {
    case '"': return scan_string(p, end, &s, &n);
    case 't': return literal(p, end, "true");
    case 'f': return literal(p, end, "false");
    case 'n': return literal(p, end, "null");
    case '[':
    case '{': {
        bool object = *p == '{';
        char close = object ? '}' : ']';
        p = scan_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (object) {
                if (!(p = scan_string(p, end, &s, &n))) return NULL;
                p = scan_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p = scan_ws(p + 1, end);
            }
            if (!(p = scan_skip(p, end, depth + 1))) return NULL;
            p = scan_ws(p, end);
            if (p < end && *p == ',') {
                p = scan_ws(p + 1, end);
                continue;
            }
            return p < end && *p == close ? p + 1 : NULL;
        }
    }
    default: return scan_number_value(p, end, &d);
    }
}

static bool key_is(const char *s, size_t n, const char *word) { return strlen(word) == n && memcmp(s, word, n) == 0; }

/* A number field: a number, or (another type) noted as such, skipped. */
static const char *number_field(const char *p, const char *end, scan_number *f) {
    if (f->state != SCAN_ABSENT) return NULL; /* repeated: jansson keeps the last; leave it to jansson */
    double d;
    const char *q = scan_number_value(p, end, &d);
    if (q) {
        f->state = SCAN_NUMBER;
        f->value = d;
        return q;
    }
    f->state = SCAN_OTHER;
    return scan_skip(p, end, 1);
}

/* One landmark object: x, y, z (numbers), vis_key (a number or absent: 1); other fields skipped. */
static const char *landmark(const char *p, const char *end, const char *vis_key, double lm[4]) {
    if (p >= end || *p != '{') return NULL;
    scan_number f[4] = {{SCAN_ABSENT, 0}};
    static const char *const axes[3] = {"x", "y", "z"};
    p = scan_ws(p + 1, end);
    if (p < end && *p == '}') return NULL; /* (no coordinates: an error, named by jansson) */
    for (;;) {
        const char *s;
        size_t n;
        if (!(p = scan_string(p, end, &s, &n))) return NULL;
        p = scan_ws(p, end);
        if (p >= end || *p != ':') return NULL;
        p = scan_ws(p + 1, end);
        int which = -1;
        for (int c = 0; c < 3; c++)
            if (key_is(s, n, axes[c])) which = c;
        if (which < 0 && key_is(s, n, vis_key)) which = 3;
        if (which >= 0) {
            if (!(p = number_field(p, end, &f[which])) || f[which].state != SCAN_NUMBER) return NULL;
        } else if (!(p = scan_skip(p, end, 2))) {
            return NULL;
        }
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            p = scan_ws(p + 1, end);
            continue;
        }
        if (p >= end || *p != '}') return NULL;
        p++;
        break;
    }
    for (int c = 0; c < 3; c++)
        if (f[c].state != SCAN_NUMBER) return NULL;
    for (int c = 0; c < 4; c++) lm[c] = f[c].state == SCAN_NUMBER ? f[c].value : 1.0;
    return p;
}

/* [lm, lm, ...], every element a landmark, at most 33 (else refused here): the count, and the
 * values into out->lm. */
static const char *landmark_list(const char *p, const char *end, const char *vis_key, scan_frame *out, bool must_33) {
    if (p >= end || *p != '[') return NULL;
    p = scan_ws(p + 1, end);
    out->count = 0;
    if (p < end && *p == ']') return must_33 ? NULL : p + 1;
    for (;;) {
        if (out->count >= CROWD_LANDMARK_COUNT) return NULL;
        if (!(p = landmark(p, end, vis_key, &out->lm[out->count * 4]))) return NULL;
        out->count++;
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            p = scan_ws(p + 1, end);
            continue;
        }
        if (p >= end || *p != ']') return NULL;
        if (must_33 && out->count != CROWD_LANDMARK_COUNT) return NULL;
        return p + 1;
    }
}

/* The poses of a Tasks result: [] or [[33 landmarks], more poses...]. */
static const char *pose_list(const char *p, const char *end, scan_frame *out) {
    if (p >= end || *p != '[') return NULL;
    p = scan_ws(p + 1, end);
    out->count = 0;
    if (p < end && *p == ']') return p + 1;
    if (!(p = landmark_list(p, end, "visibility", out, true))) return NULL;
    for (;;) { /* other poses: not used, valid JSON all the same */
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            if (!(p = scan_skip(scan_ws(p + 1, end), end, 2))) return NULL;
            continue;
        }
        return p < end && *p == ']' ? p + 1 : NULL;
    }
}

bool scan_frame_object(const char **pp, const char *end, scan_frame *out) {
    memset(out, 0, sizeof *out);
    const char *p = scan_ws(*pp, end);
    if (p >= end || *p != '{') return false;
    bool have_list = false;
    p = scan_ws(p + 1, end);
    if (p < end && *p == '}') return false;
    for (;;) {
        const char *s;
        size_t n;
        if (!(p = scan_string(p, end, &s, &n))) return false;
        p = scan_ws(p, end);
        if (p >= end || *p != ':') return false;
        p = scan_ws(p + 1, end);
        if (key_is(s, n, "worldLandmarks") || key_is(s, n, "pose_world_landmarks") || key_is(s, n, "keypoints3D")) {
            if (have_list) return false; /* two lists: which one jansson takes is its business */
            have_list = true;
            out->kind = s[0] == 'k' ? SCAN_TFJS : SCAN_TASKS;
            p = out->kind == SCAN_TASKS ? pose_list(p, end, out) : landmark_list(p, end, "score", out, false);
        } else if (key_is(s, n, "timestamp_ms")) {
            p = number_field(p, end, &out->timestamp_ms);
        } else if (key_is(s, n, "frameNum")) {
            p = number_field(p, end, &out->frame_num);
        } else if (key_is(s, n, "ticksPerSecond")) {
            p = number_field(p, end, &out->ticks_per_second);
        } else if (key_is(s, n, "frames")) {
            return false; /* a recording, not a frame */
        } else {
            p = scan_skip(p, end, 1);
        }
        if (!p) return false;
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            p = scan_ws(p + 1, end);
            continue;
        }
        if (p >= end || *p != '}') return false;
        *pp = p + 1;
        return have_list;
    }
}
