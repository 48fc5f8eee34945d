#include "landmark_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "landmark_scan.h"
#include "json_type.h"

#define TFJS_DEFAULT_TICKS_PER_SECOND 30.0
#define BAIL 100 /* the fast path leaves the text to jansson (landmark_scan.h) */
#define FLOAT_MAX 3.4028234663852886e38

bool landmark_json_fast = true;

static size_t bom_length(const char *text, size_t size) {
    return size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

bool landmark_json_sniff(const char *text, size_t size) {
    for (size_t k = bom_length(text, size); k < size; k++) {
        char c = text[k];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        return c == '{' || c == '[';
    }
    return false;
}

/* ---- where the text comes from: a file read a line at a time, or memory ---- */
typedef struct source {
    FILE *f;           /* or NULL: text/size */
    const char *text;
    size_t size, pos;
    char *buf;         /* getline's */
    size_t cap;
    size_t start;      /* after the byte order mark */
} source;

/* The next line (without its newline), or NULL at the end; *len its length. */
static const char *source_line(source *s, size_t *len, bool *read_error) {
    if (s->f) {
        ssize_t n = getline(&s->buf, &s->cap, s->f);
        if (n < 0) {
            if (ferror(s->f)) *read_error = true;
            return NULL;
        }
        if (n > 0 && s->buf[n - 1] == '\n') n--;
        *len = (size_t)n;
        return s->buf;
    }
    if (s->pos >= s->size) return NULL;
    const char *start = s->text + s->pos;
    const char *nl = memchr(start, '\n', s->size - s->pos);
    *len = nl ? (size_t)(nl - start) : s->size - s->pos;
    s->pos += *len + (nl ? 1 : 0);
    return start;
}

static bool blank(const char *p, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (p[k] != ' ' && p[k] != '\t' && p[k] != '\r') return false;
    return true;
}

/* ---- decoding ---- */
typedef struct reader {
    const char *path;
    pose_clip *clip;
    uint32_t line;   /* NDJSON: the line being read; 0 in a document */
    bool have_t;
    double prev_t;
    double ticks_per_second; /* a TF.js recording's */
    uint32_t index;          /* frames read so far */
} reader;

/* "FILE:LINE: PATH: message" (NDJSON) or "FILE: PATH: message" (a document). */
static int bad(const reader *r, const char *jpath, const char *fmt, ...) TOOL_PRINTF(3, 4);
static int bad(const reader *r, const char *jpath, const char *fmt, ...) {
    char msg[512], where[64] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->line) snprintf(where, sizeof where, ":%u", r->line);
    return tool_error(TOOL_BAD_INPUT, "%s%s: %s%s%s", r->path, where, jpath, jpath[0] ? ": " : "", msg);
}

/* A jansson parse error: line and column within the file. */
static int parse_error(const reader *r, const json_error_t *e, uint32_t line) {
    const char *hint = strstr(e->text, "NaN") || strstr(e->text, "Infinity") || strstr(e->text, "nan")
                           ? " (NaN and Infinity are not JSON numbers: every coordinate must be finite)"
                           : "";
    return tool_error(TOOL_BAD_INPUT, "%s:%u:%d: not valid JSON: %s%s", r->path, line, e->column, e->text, hint);
}

/* A JSON path, put into words only for a message: frame[.list][i][j][.key] */
typedef struct jpath {
    const char *frame; /* "frames[12]", "[3]" or "" */
    const char *list;  /* "worldLandmarks", "keypoints3D" or NULL */
    long i, j;         /* indices after the list, -1: none */
} jpath;

static void jpath_text(const jpath *p, const char *key, char *buf, size_t size) {
    int n = snprintf(buf, size, "%s", p->frame);
    if (p->list && n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - n, "%s%s", n ? "." : "", p->list);
    if (p->i >= 0 && n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - n, "[%ld]", p->i);
    if (p->j >= 0 && n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - n, "[%ld]", p->j);
    if (key && n >= 0 && (size_t)n < size) snprintf(buf + n, size - n, "%s%s", n ? "." : "", key);
}

static int bad_path(const reader *r, const jpath *p, const char *key, const char *fmt, ...) TOOL_PRINTF(4, 5);
static int bad_path(const reader *r, const jpath *p, const char *key, const char *fmt, ...) {
    char path[192], msg[448];
    jpath_text(p, key, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bad(r, path, "%s", msg);
}

/* A required (or, with fallback, optional) finite number within [min, max]: obj[key] at p. */
static int number(const reader *r, const json_t *obj, const jpath *p, const char *key, bool required,
                  double fallback, double min, double max, double *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required) return bad_path(r, p, key, "missing (a number is required)");
        *out = fallback;
        return TOOL_OK;
    }
    if (json_is_real(v)) *out = json_real_value(v);
    else if (json_is_integer(v)) *out = (double)json_integer_value(v);
    else return bad_path(r, p, key, "expected a number, got %s", tool_json_type_name(v));
    if (!(*out >= min && *out <= max)) return bad_path(r, p, key, "%.9g is outside [%.9g, %.9g]", *out, min, max);
    return TOOL_OK;
}

/* One landmark {x, y, z, <vis_key>} at p into lm[0..3]. */
static int point(const reader *r, const json_t *v, const jpath *p, const char *vis_key, float lm[4]) {
    if (!json_is_object(v))
        return bad_path(r, p, NULL, "expected a landmark object {x, y, z, %s}, got %s", vis_key, tool_json_type_name(v));
    static const char *const axes[3] = {"x", "y", "z"};
    for (int c = 0; c < 3; c++) {
        double d = 0;
        int st = number(r, v, p, axes[c], true, 0, -FLOAT_MAX, FLOAT_MAX, &d);
        if (st != TOOL_OK) return st;
        lm[c] = (float)d; /* (within the float32 range: finite) */
    }
    double vis = 1;
    int st = number(r, v, p, vis_key, false, 1.0, 0.0, 1.0, &vis);
    if (st != TOOL_OK) return st;
    lm[3] = (float)vis;
    return TOOL_OK;
}

static int push(reader *r, const jpath *p, const char *tkey, double t, const float *lm) {
    if (p && r->have_t && t < r->prev_t)
        return bad_path(r, p, tkey, "%.9g s comes before the previous frame's %.9g s (time never decreases)", t,
                        r->prev_t);
    r->have_t = true;
    r->prev_t = t;
    r->index++;
    return clip_push(r->clip, t, lm, r->line);
}

static int tasks_frame(reader *r, const json_t *v, const char *fpath, const char *list_key, const json_t *list) {
    jpath at = {fpath, NULL, -1, -1}, lp = {fpath, list_key, -1, -1};
    double ms = 0;
    /* the Holistic Landmarker's JavaScript results name the time timestampMs */
    const char *tkey = !json_object_get(v, "timestamp_ms") && json_object_get(v, "timestampMs") ? "timestampMs" : "timestamp_ms";
    int st = number(r, v, &at, tkey, true, 0, -1e300, 1e300, &ms);
    if (st != TOOL_OK) return st;
    if (!json_is_array(list)) return bad_path(r, &lp, NULL, "expected an array of poses, got %s", tool_json_type_name(list));
    if (json_array_size(list) == 0) return push(r, &at, tkey, ms / 1000.0, NULL); /* nobody detected */
    const json_t *pose = json_array_get(list, 0);
    lp.i = 0;
    if (json_is_object(pose)) { /* the Holistic Landmarker's Python result: one pose, not a list of them */
        pose = list;
        lp.i = -1;
    }
    if (!json_is_array(pose)) return bad_path(r, &lp, NULL, "expected an array of 33 landmarks, got %s", tool_json_type_name(pose));
    size_t n = json_array_size(pose);
    if (n != CROWD_LANDMARK_COUNT) return bad_path(r, &lp, NULL, "has %zu landmarks, expected 33 (MediaPipe Pose)", n);
    float lm[CLIP_FLOATS];
    for (size_t k = 0; k < n; k++) {
        lp.j = (long)k;
        if ((st = point(r, json_array_get(pose, k), &lp, "visibility", &lm[k * 4])) != TOOL_OK) return st;
    }
    return push(r, &at, tkey, ms / 1000.0, lm);
}

static int tfjs_frame(reader *r, const json_t *v, const char *fpath, const json_t *kp) {
    jpath at = {fpath, NULL, -1, -1}, lp = {fpath, "keypoints3D", -1, -1};
    double n = 0, tps = 1;
    int st = number(r, v, &at, "frameNum", false, (double)r->index, 0, 1e300, &n);
    if (st == TOOL_OK) st = number(r, v, &at, "ticksPerSecond", false, r->ticks_per_second, 1e-9, 1e300, &tps);
    if (st != TOOL_OK) return st;
    if (!json_is_array(kp)) return bad_path(r, &lp, NULL, "expected an array of 33 keypoints, got %s", tool_json_type_name(kp));
    size_t count = json_array_size(kp);
    if (count > CROWD_LANDMARK_COUNT) return bad_path(r, &lp, NULL, "has %zu keypoints, expected 33 (BlazePose)", count);
    double t = n / tps;
    if (!isfinite(t)) /* 1e300 frames at 1e-9 ticks per second */
        return bad_path(r, &at, "frameNum", "%.9g / ticksPerSecond %.9g is not a finite time in seconds", n, tps);
    if (count < CROWD_LANDMARK_COUNT) return push(r, &at, "frameNum", t, NULL); /* no (full) detection */
    float lm[CLIP_FLOATS];
    for (size_t k = 0; k < count; k++) {
        lp.i = (long)k;
        if ((st = point(r, json_array_get(kp, k), &lp, "score", &lm[k * 4])) != TOOL_OK) return st;
    }
    return push(r, &at, "frameNum", t, lm);
}

/* One Tasks result or TF.js frame. */
static int frame(reader *r, const json_t *v, const char *fpath) {
    if (!json_is_object(v))
        return bad(r, fpath, "expected a frame object (a MediaPipe Tasks result or a TF.js frame), got %s", tool_json_type_name(v));
    const json_t *list = json_object_get(v, "worldLandmarks");
    if (list) return tasks_frame(r, v, fpath, "worldLandmarks", list);
    if ((list = json_object_get(v, "pose_world_landmarks")) != NULL)
        return tasks_frame(r, v, fpath, "pose_world_landmarks", list);
    if ((list = json_object_get(v, "poseWorldLandmarks")) != NULL) /* Holistic Landmarker (JavaScript) */
        return tasks_frame(r, v, fpath, "poseWorldLandmarks", list);
    const json_t *kp = json_object_get(v, "keypoints3D");
    if (kp) return tfjs_frame(r, v, fpath, kp);
    return bad(r, fpath,
               "unknown shape: a frame has \"worldLandmarks\", \"pose_world_landmarks\" or \"poseWorldLandmarks\" (MediaPipe Tasks) or "
               "\"keypoints3D\" (TF.js pose-detection)%s",
               json_object_get(v, "frames") ? "; a TF.js recording {\"frames\": [...]} is the whole file, not one line" : "");
}

/* A whole document: an array of frames, a TF.js recording, or one frame. */
static int document(reader *r, const json_t *root) {
    char p[64];
    if (json_is_array(root)) {
        for (size_t k = 0; k < json_array_size(root); k++) {
            snprintf(p, sizeof p, "[%zu]", k);
            int st = frame(r, json_array_get(root, k), p);
            if (st != TOOL_OK) return st;
        }
        return TOOL_OK;
    }
    const json_t *frames = json_is_object(root) ? json_object_get(root, "frames") : NULL;
    if (!frames) return frame(r, root, "");
    jpath top = {"", NULL, -1, -1};
    int st = number(r, root, &top, "ticksPerSecond", false, TFJS_DEFAULT_TICKS_PER_SECOND, 1e-9, 1e300,
                    &r->ticks_per_second);
    if (st != TOOL_OK) return st;
    if (!json_is_array(frames)) return bad(r, "frames", "expected an array of frames, got %s", tool_json_type_name(frames));
    for (size_t k = 0; k < json_array_size(frames); k++) {
        snprintf(p, sizeof p, "frames[%zu]", k);
        const json_t *f = json_array_get(frames, k);
        if (json_is_object(f) && !json_object_get(f, "keypoints3D") &&
            (json_object_get(f, "worldLandmarks") || json_object_get(f, "pose_world_landmarks")))
            return bad(r, p, "a TF.js recording's frames have \"keypoints3D\"");
        if ((st = frame(r, f, p)) != TOOL_OK) return st;
    }
    return TOOL_OK;
}

/* ---- the fast path: the same rules as tasks_frame / tfjs_frame above, BAIL where those would
 * print an error (or where the scanner did not read everything they need) ---- */
static int fast_push(reader *r, const scan_frame *f) {
    double t;
    if (f->kind == SCAN_TASKS) {
        if (f->timestamp_ms.state != SCAN_NUMBER || !(fabs(f->timestamp_ms.value) <= 1e300)) return BAIL;
        if (f->count != 0 && f->count != CROWD_LANDMARK_COUNT) return BAIL;
        t = f->timestamp_ms.value / 1000.0;
    } else {
        double n = (double)r->index, tps = r->ticks_per_second;
        if (f->frame_num.state == SCAN_OTHER || f->ticks_per_second.state == SCAN_OTHER) return BAIL;
        if (f->frame_num.state == SCAN_NUMBER) n = f->frame_num.value;
        if (f->ticks_per_second.state == SCAN_NUMBER) tps = f->ticks_per_second.value;
        if (!(n >= 0 && n <= 1e300) || !(tps >= 1e-9 && tps <= 1e300)) return BAIL;
        t = n / tps;
        if (!isfinite(t)) return BAIL; /* the slow path names it */
    }
    if (r->have_t && t < r->prev_t) return BAIL;
    if (f->count != CROWD_LANDMARK_COUNT) return push(r, NULL, NULL, t, NULL);
    float lm[CLIP_FLOATS];
    for (int k = 0; k < CLIP_FLOATS; k++) {
        double d = f->lm[k];
        if (k % 4 == 3 ? !(d >= 0.0 && d <= 1.0) : !(d >= -FLOAT_MAX && d <= FLOAT_MAX)) return BAIL;
        lm[k] = (float)d;
    }
    return push(r, NULL, NULL, t, lm);
}

/* One frame object filling [p, end) (white space around it allowed). */
static int fast_line(reader *r, const char *p, const char *end) {
    if (!landmark_json_fast) return BAIL;
    scan_frame f;
    if (!scan_frame_object(&p, end, &f) || scan_ws(p, end) != end) return BAIL;
    return fast_push(r, &f);
}

/* A whole document: an array of frames, a TF.js recording, or one frame. */
static int fast_document(reader *r, const char *p, const char *end) {
    if (!landmark_json_fast) return BAIL;
    scan_frame f;
    p = scan_ws(p, end);
    if (p >= end) return BAIL;
    if (*p == '[') {
        p = scan_ws(p + 1, end);
        if (p < end && *p == ']') return scan_ws(p + 1, end) == end ? TOOL_OK : BAIL;
        for (;;) {
            if (!scan_frame_object(&p, end, &f)) return BAIL;
            int st = fast_push(r, &f);
            if (st != TOOL_OK) return st;
            p = scan_ws(p, end);
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            return p < end && *p == ']' && scan_ws(p + 1, end) == end ? TOOL_OK : BAIL;
        }
    }
    if (*p != '{') return BAIL;
    /* a recording has "frames" at the top (ticksPerSecond may come after it): find both first */
    const char *start = p, *frames = NULL, *s;
    size_t n;
    scan_number tps = {SCAN_ABSENT, 0};
    p = scan_ws(p + 1, end);
    if (p < end && *p == '}') return BAIL;
    for (;;) {
        if (!(p = scan_string(p, end, &s, &n))) return BAIL;
        p = scan_ws(p, end);
        if (p >= end || *p != ':') return BAIL;
        p = scan_ws(p + 1, end);
        if (n == 6 && memcmp(s, "frames", 6) == 0) {
            if (frames) return BAIL;
            frames = p;
            p = scan_skip(p, end, 1);
        } else if (n == 14 && memcmp(s, "ticksPerSecond", 14) == 0) {
            if (tps.state != SCAN_ABSENT) return BAIL;
            double d;
            if (!(p = scan_number_value(p, end, &d))) return BAIL;
            tps.state = SCAN_NUMBER;
            tps.value = d;
        } else {
            p = scan_skip(p, end, 1);
        }
        if (!p) return BAIL;
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            p = scan_ws(p + 1, end);
            continue;
        }
        if (p >= end || *p != '}' || scan_ws(p + 1, end) != end) return BAIL;
        break;
    }
    if (!frames) return fast_line(r, start, end);
    if (tps.state == SCAN_NUMBER) {
        if (!(tps.value >= 1e-9 && tps.value <= 1e300)) return BAIL;
        r->ticks_per_second = tps.value;
    }
    p = frames;
    if (*p != '[') return BAIL;
    p = scan_ws(p + 1, end);
    if (p < end && *p == ']') return TOOL_OK;
    for (;;) {
        if (!scan_frame_object(&p, end, &f) || f.kind != SCAN_TFJS) return BAIL;
        int st = fast_push(r, &f);
        if (st != TOOL_OK) return st;
        p = scan_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        return p < end && *p == ']' ? TOOL_OK : BAIL;
    }
}

static void restart(reader *r) { /* forget what a fast path that bailed out pushed */
    r->clip->row_count = 0;
    r->clip->rest_rows = 0;
    r->have_t = false;
    r->index = 0;
    r->ticks_per_second = TFJS_DEFAULT_TICKS_PER_SECOND;
}

/* The whole file into memory (a document is parsed at once either way), within the input limit. */
static int slurp(reader *r, FILE *f, char **text, size_t *size) {
    *text = NULL;
    *size = 0;
    if (fseek(f, 0, SEEK_SET) != 0)
        return tool_error(TOOL_BAD_INPUT, "%s: cannot read the landmark JSON again: %s", r->path, strerror(errno));
    return tool_read_opened(f, r->path, "landmark JSON", text, size);
}

/* Does a document hold "frames" (a TF.js recording)? For messages only. */
static bool has_frames_key(const char *p, const char *end) {
    for (; end - p >= 8; p++)
        if (memcmp(p, "\"frames\"", 8) == 0) return true;
    return false;
}

static int read_document(reader *r, source *s) {
    char *owned = NULL;
    const char *text = s->text;
    size_t size = s->size;
    if (s->f) {
        int st = slurp(r, s->f, &owned, &size);
        if (st != TOOL_OK) {
            free(owned);
            return st;
        }
        text = owned;
    }
    r->line = 0;
    /* rows are named by their JSON path (clip_row_where) */
    const char *first = text + s->start;
    while (first < text + size && (*first == ' ' || *first == '\t' || *first == '\n' || *first == '\r')) first++;
    r->clip->document = first < text + size && *first == '[' ? CLIP_DOC_ARRAY
                        : has_frames_key(first, text + size) ? CLIP_DOC_FRAMES : CLIP_DOC_ONE;
    int st = fast_document(r, text + s->start, text + size);
    if (st == BAIL) {
        restart(r);
        json_error_t e;
        json_t *root = json_loadb(text + s->start, size - s->start, 0, &e);
        if (!root) {
            st = json_error_code(&e) == json_error_out_of_memory
                     ? tool_error(TOOL_FAILED, "out of memory")
                     : parse_error(r, &e, (uint32_t)(e.line > 0 ? e.line : 1));
        } else {
            st = document(r, root);
            json_decref(root);
        }
    }
    free(owned);
    return st;
}

/* One NDJSON line: the fast path, else jansson. */
static int ndjson_line(reader *r, const char *line, size_t len, uint32_t number_of_line) {
    r->line = number_of_line;
    int st = fast_line(r, line, line + len);
    if (st != BAIL) return st;
    json_error_t e;
    json_t *v = json_loadb(line, len, 0, &e);
    if (!v) {
        if (json_error_code(&e) == json_error_out_of_memory) return tool_error(TOOL_FAILED, "out of memory");
        return parse_error(r, &e, number_of_line);
    }
    st = frame(r, v, "");
    json_decref(v);
    return st;
}

static int read_source(reader *r, source *s) {
    bool read_error = false;
    size_t len;
    const char *line;
    uint32_t number_of_line = 0;
    /* the first line with something on it tells the layout */
    for (;;) {
        line = source_line(s, &len, &read_error);
        number_of_line++;
        if (!line) {
            if (read_error) return tool_error(TOOL_BAD_INPUT, "%s: cannot read the landmark JSON", r->path);
            return tool_error(TOOL_BAD_INPUT, "%s: the file is empty", r->path);
        }
        if (number_of_line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3, len -= 3;
        if (!blank(line, len)) break;
    }
    size_t k = 0;
    while (line[k] == ' ' || line[k] == '\t') k++;
    if (line[k] == '[') return read_document(r, s);
    r->line = number_of_line;
    int st = fast_line(r, line, line + len); /* a whole frame on the first line: NDJSON */
    if (st == BAIL) {
        json_error_t e;
        json_t *v = json_loadb(line, len, 0, &e);
        if (!v) {
            if (json_error_code(&e) == json_error_premature_end_of_input) return read_document(r, s); /* pretty-printed */
            if (json_error_code(&e) == json_error_out_of_memory) return tool_error(TOOL_FAILED, "out of memory");
            return parse_error(r, &e, number_of_line);
        }
        if (json_is_object(v) && json_object_get(v, "frames")) { /* a TF.js recording on one line */
            json_decref(v);
            return read_document(r, s);
        }
        st = frame(r, v, "");
        json_decref(v);
    }
    /* NDJSON: one frame a line */
    while (st == TOOL_OK) {
        do {
            line = source_line(s, &len, &read_error);
            number_of_line++;
        } while (line && blank(line, len));
        if (!line) break;
        st = ndjson_line(r, line, len, number_of_line);
    }
    if (st == TOOL_OK && read_error) return tool_error(TOOL_BAD_INPUT, "%s: cannot read the landmark JSON", r->path);
    return st;
}

static int read_clip(const char *path, source *s, pose_clip *clip) {
    memset(clip, 0, sizeof *clip);
    if (!(clip->path = tool_strdup(path))) return TOOL_FAILED;
    reader r = {.path = path, .clip = clip, .ticks_per_second = TFJS_DEFAULT_TICKS_PER_SECOND};
    int st = read_source(&r, s);
    free(s->buf);
    if (st == TOOL_OK && clip->row_count == 0)
        st = tool_error(TOOL_BAD_INPUT, "%s: the landmark JSON holds no frames", path);
    if (st != TOOL_OK) clip_free(clip);
    return st;
}

int landmark_json_parse(const char *path, const char *text, size_t size, pose_clip *clip) {
    source s = {.text = text, .size = size, .start = bom_length(text, size)};
    return read_clip(path, &s, clip);
}

int landmark_json_read(const char *path, FILE *f, pose_clip *clip) {
    char head[3];
    size_t got = fread(head, 1, 3, f);
    source s = {.f = f, .start = bom_length(head, got)};
    if (fseek(f, 0, SEEK_SET) != 0) {
        memset(clip, 0, sizeof *clip);
        return tool_error(TOOL_BAD_INPUT, "%s: cannot read the landmark JSON: %s", path, strerror(errno));
    }
    return read_clip(path, &s, clip);
}

/* ---- one line at a time (crowd stream) ---- */
void landmark_json_stream_init(landmark_json_stream *s, const char *path) {
    s->path = path;
    s->ticks_per_second = TFJS_DEFAULT_TICKS_PER_SECOND;
    s->index = 0;
}

int landmark_json_line(landmark_json_stream *s, const char *text, size_t len, uint32_t line, pose_clip *clip) {
    /* no previous time here (have_t false): the caller judges the order */
    reader r = {.path = s->path, .clip = clip, .ticks_per_second = s->ticks_per_second, .index = s->index};
    int st = ndjson_line(&r, text, len, line);
    if (st == TOOL_OK) s->index = r.index;
    return st;
}
