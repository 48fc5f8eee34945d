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

void clip_column_name(uint32_t column, char *buf, size_t size) {
    static const char *const parts[4] = {"x", "y", "z", "vis"};
    if (column == 0) snprintf(buf, size, "frame");
    else if (column == 1) snprintf(buf, size, "t_s");
    else snprintf(buf, size, "lm%u_%s", (column - 2) / 4, parts[(column - 2) % 4]);
}

int clip_alloc(pose_clip *clip, const char *name, uint32_t row_count) {
    memset(clip, 0, sizeof *clip);
    clip->path = tool_strdup(name);
    clip->t_s = tool_calloc(row_count, sizeof *clip->t_s);
    clip->landmarks = tool_calloc((size_t)row_count * CLIP_FLOATS, sizeof *clip->landmarks);
    clip->line = tool_calloc(row_count, sizeof *clip->line);
    if (!clip->path || !clip->t_s || !clip->landmarks || !clip->line) {
        clip_free(clip);
        return TOOL_FAILED;
    }
    clip->row_count = row_count;
    clip->capacity = row_count;
    return TOOL_OK;
}

const char *clip_row_where(const pose_clip *clip, uint32_t k, char *buf, size_t size) {
    uint32_t line = k < clip->row_count ? clip->line[k] : 0;
    if (line || clip->document == CLIP_DOC_NONE) snprintf(buf, size, "%s:%u", clip->path, line);
    else if (clip->document == CLIP_DOC_ARRAY) snprintf(buf, size, "%s: [%u]", clip->path, k);
    else if (clip->document == CLIP_DOC_FRAMES) snprintf(buf, size, "%s: frames[%u]", clip->path, k);
    else snprintf(buf, size, "%s", clip->path);
    return buf;
}

int clip_push(pose_clip *clip, double t_s, const float *landmarks, uint32_t line) {
    if (clip->row_count == clip->capacity) {
        if (clip->capacity >= (1u << 31)) return tool_error(TOOL_FAILED, "%s: more than 2^31 frames", clip->path);
        uint32_t cap = clip->capacity ? clip->capacity * 2 : 256;
        double *t = tool_realloc(clip->t_s, cap, sizeof *t);
        if (t) clip->t_s = t;
        float *lm = t ? tool_realloc(clip->landmarks, (size_t)cap * CLIP_FLOATS, sizeof *lm) : NULL;
        if (lm) clip->landmarks = lm;
        uint32_t *ln = lm ? tool_realloc(clip->line, cap, sizeof *ln) : NULL;
        if (!ln) return TOOL_FAILED;
        clip->line = ln;
        clip->capacity = cap;
    }
    uint32_t k = clip->row_count++;
    clip->t_s[k] = t_s;
    clip->line[k] = line;
    float *row = &clip->landmarks[(size_t)k * CLIP_FLOATS];
    if (landmarks) memcpy(row, landmarks, CLIP_FLOATS * sizeof *row);
    else clip_no_detection(clip, k);
    return TOOL_OK;
}

void clip_no_detection(pose_clip *clip, uint32_t k) {
    float *row = &clip->landmarks[(size_t)k * CLIP_FLOATS];
    if (k == clip->rest_rows) { /* nothing seen yet: the rest pose, filled in by clip_landmarks */
        clip->rest_rows++;
        memset(row, 0, CLIP_FLOATS * sizeof *row);
        return;
    }
    memcpy(row, row - CLIP_FLOATS, CLIP_FLOATS * sizeof *row);
    for (uint32_t j = 3; j < CLIP_FLOATS; j += 4) row[j] = 0.0f;
}

const float *clip_landmarks(const pose_clip *clip, uint32_t row, crowd_pose_frame frame) {
    static float rest[CROWD_FRAME_COUNT][CLIP_FLOATS];
    static bool made[CROWD_FRAME_COUNT];
    if (row >= clip->rest_rows) return &clip->landmarks[(size_t)row * CLIP_FLOATS];
    if ((unsigned)frame >= CROWD_FRAME_COUNT) frame = CROWD_FRAME_MEDIAPIPE_WORLD;
    if (!made[frame]) { /* the tools are single-threaded */
        crowd_rest_landmarks(frame, rest[frame]);
        for (uint32_t j = 3; j < CLIP_FLOATS; j += 4) rest[frame][j] = 0.0f;
        made[frame] = true;
    }
    return rest[frame];
}

void clip_free(pose_clip *clip) {
    if (!clip) return;
    free(clip->path);
    free(clip->t_s);
    free(clip->landmarks);
    free(clip->line);
    memset(clip, 0, sizeof *clip);
}

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

bool clip_frame_warning(const pose_clip *clip, crowd_pose_frame frame, const char *setting) {
    static const int needed[] = {7, 8, 23, 24};
    uint32_t counted = 0, below = 0;
    for (uint32_t r = clip->rest_rows; r < clip->row_count; r++) {
        const float *lm = &clip->landmarks[(size_t)r * CLIP_FLOATS];
        bool seen = true;
        for (size_t k = 0; k < sizeof needed / sizeof *needed; k++) seen = seen && lm[needed[k] * 4 + 3] >= 0.5f;
        if (!seen) continue;
        double head = 0.5 * ((double)lm[7 * 4 + 1] + lm[8 * 4 + 1]), hips = 0.5 * ((double)lm[23 * 4 + 1] + lm[24 * 4 + 1]);
        bool y_up = frame == CROWD_FRAME_ENGINE;
        counted++;
        if (y_up ? head < hips : head > hips) below++;
    }
    if (!counted || below * 2 <= counted) return false;
    bool engine = frame == CROWD_FRAME_ENGINE;
    tool_error(TOOL_OK,
               "warning: %s: the head is below the hips on %u of the %u frames where both are seen, read in the %s "
               "frame (y %s): if the clip's y axis points %s, use %s %s",
               clip->path, below, counted, engine ? "engine" : "mediapipe_world", engine ? "up" : "down",
               engine ? "down" : "up", setting, engine ? "mediapipe_world" : "engine");
    return true;
}

double clip_period(const pose_clip *clip) {
    uint32_t n = clip->row_count;
    if (n < 2) return 0.0;
    double span = clip->t_s[n - 1] - clip->t_s[0], last = clip->t_s[n - 1] - clip->t_s[n - 2];
    return span + last;
}

uint32_t clip_row_at(const pose_clip *clip, double tau, bool loop) {
    uint32_t n = clip->row_count;
    if (loop) {
        double period = clip_period(clip);
        if (period > 0) {
            tau = fmod(tau, period);
            if (tau < 0) tau += period;
        }
    }
    double t = clip->t_s[0] + tau;
    /* the last row with t_s <= t (binary search; rows are non-decreasing) */
    uint32_t lo = 0, hi = n; /* invariant: t_s[lo] <= t or lo == 0; answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (clip->t_s[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}
