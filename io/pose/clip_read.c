/* Reading a pose clip (clip.h's clip_load and clip_parse): CSV here, landmark JSON told apart
 * by its content and handed to landmark_json.c. Apart from clip.c, which holds the clip itself,
 * so that the clip and the landmark JSON reader (which fills one) do not include each other. */
#include "clip.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "landmark_json.h"

#define CLIP_COLUMNS (2 + CLIP_FLOATS)

/* One line of the text: [start, end) without the newline and a trailing '\r'. */
typedef struct csv_line {
    const char *start, *end, *next;
} csv_line;

static bool next_line(const char *text, size_t size, size_t *pos, csv_line *out) {
    if (*pos >= size) return false;
    const char *start = text + *pos, *stop = text + size;
    const char *nl = memchr(start, '\n', (size_t)(stop - start));
    const char *end = nl ? nl : stop;
    out->start = start;
    out->next = nl ? nl + 1 : stop;
    if (end > start && end[-1] == '\r') end--;
    out->end = end;
    *pos = (size_t)(out->next - text);
    return true;
}

static bool memspn_commas(const char *p, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (p[k] != ',') return false;
    return true;
}

/* "crowd: FILE:LINE:COLUMN: message" */
static int bad(const char *path, uint32_t line, size_t column, const char *fmt, ...) TOOL_PRINTF(4, 5);
static int bad(const char *path, uint32_t line, size_t column, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tool_error(TOOL_BAD_INPUT, "%s:%u:%zu: %s", path, line, column, msg);
}

static int check_header(const char *path, const csv_line *l) {
    const char *p = l->start;
    char want[32];
    for (uint32_t col = 0; col < CLIP_COLUMNS; col++) {
        clip_column_name(col, want, sizeof want);
        size_t column = (size_t)(p - l->start) + 1;
        if (p > l->end) /* (before looking at the bytes: p is past the line) */
            return bad(path, 1, column,
                       "header: has %u columns, expected 134 (frame, t_s, then x, y, z, vis of 33 landmarks); "
                       "missing \"%s\"",
                       col, want);
        const char *comma = memchr(p, ',', (size_t)(l->end - p));
        const char *fend = comma ? comma : l->end;
        char got[64];
        size_t n = (size_t)(fend - p) < sizeof got - 1 ? (size_t)(fend - p) : sizeof got - 1;
        memcpy(got, p, n);
        got[n] = 0;
        if (strcmp(got, want) != 0)
            return bad(path, 1, column, "header: column \"%s\" where \"%s\" belongs (a pose clip has 33 landmarks)",
                       got, want);
        p = comma ? comma + 1 : l->end + 1;
    }
    if (p <= l->end)
        return bad(path, 1, (size_t)(p - l->start) + 1,
                   "header: extra columns after lm32_vis (a pose clip has exactly 33 landmarks)");
    return TOOL_OK;
}

/* Are the 132 landmark fields after the first two all empty (a frame with no detection)? */
static bool no_detection(const csv_line *l) {
    const char *p = l->start;
    for (int commas = 0; commas < 2; p++) {
        if (p >= l->end) return false;
        if (*p == ',') commas++;
    }
    return l->end - p == CLIP_FLOATS - 1 && memspn_commas(p, (size_t)(l->end - p));
}

static int parse_row(const char *path, uint32_t line, const csv_line *l, double *t_s, float *lm, double prev_t,
                     bool first, bool *detected) {
    const char *p = l->start;
    *detected = !no_detection(l);
    char name[32];
    for (uint32_t col = 0; col < CLIP_COLUMNS; col++) {
        clip_column_name(col, name, sizeof name);
        size_t column = (size_t)(p - l->start) + 1;
        if (p > l->end) return bad(path, line, column, "row has %u fields, expected 134; %s is missing", col, name);
        const char *comma = memchr(p, ',', (size_t)(l->end - p));
        const char *fend = comma ? comma : l->end;
        char small[96], *field = small; /* any length: a longer field gets its own buffer */
        size_t n = (size_t)(fend - p);
        if (n == 0) return bad(path, line, column, "%s: empty field", name);
        if (n >= sizeof small && !(field = tool_malloc(n + 1))) return TOOL_FAILED;
        memcpy(field, p, n);
        field[n] = 0;
        char *end;
        errno = 0;
        double d = strtod(field, &end);
        int st = TOOL_OK;
        if (*end || end == field || field[0] == ' ' || field[0] == '\t')
            st = bad(path, line, column, "%s: \"%.64s%s\" is not a number", name, field, n > 64 ? "..." : "");
        else if (!isfinite(d))
            st = bad(path, line, column, "%s: \"%.64s%s\" is not a finite number", name, field, n > 64 ? "..." : "");
        if (field != small) {
            if (st == TOOL_OK) snprintf(small, sizeof small, "%.9g", d); /* for the messages below */
            free(field);
            field = small;
        }
        if (st != TOOL_OK) return st;
        if (col == 1) {
            if (!first && d < prev_t)
                return bad(path, line, column, "t_s: %s is less than the previous row's %.9g (t_s is non-decreasing)",
                           field, prev_t);
            *t_s = d;
            if (!*detected) return TOOL_OK;
        } else if (col >= 2) {
            float f = (float)d;
            if (!isfinite(f)) return bad(path, line, column, "%s: %s is outside the float32 range", name, field);
            if ((col - 2) % 4 == 3 && !(f >= 0.0f && f <= 1.0f))
                return bad(path, line, column, "%s: visibility %s is outside [0, 1]", name, field);
            lm[col - 2] = f;
        }
        p = comma ? comma + 1 : l->end + 1;
    }
    if (p <= l->end)
        return bad(path, line, (size_t)(p - l->start) + 1, "row has more than 134 fields");
    return TOOL_OK;
}

int clip_parse(const char *path, const char *text, size_t size, pose_clip *clip) {
    memset(clip, 0, sizeof *clip);
    /* a NUL byte would end a field early in the C string functions: refuse it outright */
    const char *nul = memchr(text, 0, size);
    if (nul) {
        uint32_t at_line = 1;
        const char *line_start = text;
        for (const char *q = text; q < nul; q++)
            if (*q == '\n') at_line++, line_start = q + 1;
        return tool_error(TOOL_BAD_INPUT, "%s:%u:%zu: a NUL byte (a pose clip is text)", path, at_line,
                          (size_t)(nul - line_start) + 1);
    }
    if (landmark_json_sniff(text, size)) return landmark_json_parse(path, text, size, clip);
    size_t pos = size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* a UTF-8 byte order mark */
    csv_line l;
    if (!next_line(text, size, &pos, &l) || l.end == l.start)
        return tool_error(TOOL_BAD_INPUT, "%s:1:1: header: the file is empty; expected frame,t_s,lm0_x,...,lm32_vis",
                          path);
    int st = check_header(path, &l);
    if (st != TOOL_OK) return st;
    /* count the rows (lines up to the last non-empty one) */
    uint32_t rows = 0, line = 1, last = 1;
    size_t scan = pos;
    csv_line r;
    while (next_line(text, size, &scan, &r)) {
        line++;
        if (r.end != r.start) last = line;
    }
    rows = last - 1;
    if (rows == 0) return tool_error(TOOL_BAD_INPUT, "%s:2:1: the clip has a header but no rows", path);
    if ((st = clip_alloc(clip, path, rows)) != TOOL_OK) return st;
    for (uint32_t k = 0; k < rows; k++) {
        next_line(text, size, &pos, &l);
        line = k + 2;
        if (l.end == l.start) {
            clip_free(clip);
            return tool_error(TOOL_BAD_INPUT, "%s:%u:1: empty line inside the clip", path, line);
        }
        bool detected;
        st = parse_row(path, line, &l, &clip->t_s[k], &clip->landmarks[(size_t)k * CLIP_FLOATS],
                       k ? clip->t_s[k - 1] : 0.0, k == 0, &detected);
        if (st != TOOL_OK) {
            clip_free(clip);
            return st;
        }
        if (!detected) clip_no_detection(clip, k);
        clip->line[k] = line;
    }
    /* looping divides by the period: it must be finite (t_s spanning the whole double range
     * is not) */
    if (!isfinite(clip_period(clip))) {
        uint32_t last_line = clip->line[rows - 1];
        clip_free(clip);
        return tool_error(TOOL_BAD_INPUT,
                          "%s:%u:1: t_s: the clip's period (last t_s - first t_s + the last interval) is not a finite "
                          "number of seconds",
                          path, last_line);
    }
    return TOOL_OK;
}

int clip_load(const char *path, pose_clip *clip) {
    memset(clip, 0, sizeof *clip);
    /* landmark JSON streams from the open file, a line at a time (a long NDJSON recording never
     * sits in memory as text and as a clip at once); CSV is read whole */
    FILE *f;
    int st = tool_open_file(path, "pose clip", &f);
    if (st != TOOL_OK) return st;
    char head[256];
    size_t got_head = fread(head, 1, sizeof head, f);
    rewind(f);
    if (landmark_json_sniff(head, got_head)) { /* (a document that starts with 256 bytes of white space reads as CSV) */
        st = landmark_json_read(path, f, clip);
        fclose(f);
        return st;
    }
    char *text;
    size_t size;
    st = tool_read_opened(f, path, "pose clip", &text, &size);
    fclose(f);
    if (st != TOOL_OK) return st;
    st = clip_parse(path, text, size, clip);
    free(text);
    return st;
}

