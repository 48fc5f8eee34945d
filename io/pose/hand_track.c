#include "hand_track.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "json_type.h"

typedef struct ctx {
    const char *path;
    uint32_t line;
    const hand_track_options *opt;
} ctx;

/* "FILE:LINE: PATH: message" */
static int bad(const ctx *c, const char *jpath, const char *fmt, ...) TOOL_PRINTF(3, 4);
static int bad(const ctx *c, const char *jpath, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tool_error(TOOL_BAD_INPUT, "%s:%u: %s%s%s", c->path, c->line, jpath, jpath[0] ? ": " : "", msg);
}

static bool as_number(const json_t *v, double *out) {
    if (json_is_real(v)) *out = json_real_value(v);
    else if (json_is_integer(v)) *out = (double)json_integer_value(v);
    else return false;
    return true;
}

/* obj[a] or obj[b] (the JavaScript and the Python names) */
static const json_t *get2(const json_t *obj, const char *a, const char *b, const char **name) {
    const json_t *v = json_object_get(obj, a);
    *name = a;
    if (!v && b) {
        v = json_object_get(obj, b);
        if (v) *name = b;
    }
    return v;
}

/* 21 landmarks {x, y, z} at jpath into out[63], x and z times `scale` */
static int read_landmarks(const ctx *c, const json_t *list, const char *jpath, double scale, float out[63]) {
    char path[192];
    if (!json_is_array(list)) return bad(c, jpath, "expected a list of 21 landmarks, got %s", tool_json_type_name(list));
    if (json_array_size(list) != CROWD_HAND_LANDMARK_COUNT)
        return bad(c, jpath, "%zu landmarks, a MediaPipe hand has %d", json_array_size(list), CROWD_HAND_LANDMARK_COUNT);
    for (size_t k = 0; k < CROWD_HAND_LANDMARK_COUNT; k++) {
        const json_t *lm = json_array_get(list, k);
        snprintf(path, sizeof path, "%s[%zu]", jpath, k);
        if (!json_is_object(lm)) return bad(c, path, "expected a landmark {x, y, z}, got %s", tool_json_type_name(lm));
        static const char *const axes[3] = {"x", "y", "z"};
        for (int a = 0; a < 3; a++) {
            double v;
            const json_t *n = json_object_get(lm, axes[a]);
            snprintf(path, sizeof path, "%s[%zu].%s", jpath, k, axes[a]);
            if (!n) return bad(c, path, "missing (a finite number is required)");
            if (!as_number(n, &v) || !isfinite(v)) return bad(c, path, "expected a finite number, got %s", tool_json_type_name(n));
            if (a != 1) v *= scale;
            if (!(fabs(v) <= 1e9)) return bad(c, path, "%.9g is beyond +-1e9", v);
            out[3 * k + (size_t)a] = (float)v;
        }
    }
    return TOOL_OK;
}

/* a hand's landmarks: a list of 21, or a list holding one list of 21 (the Tasks' per-hand
 * lists); NULL or empty: no hand (*has = false) */
static int read_hand(const ctx *c, const json_t *v, const char *key, double scale, float out[63], bool *has) {
    *has = false;
    if (!v || json_is_null(v)) return TOOL_OK;
    if (!json_is_array(v)) return bad(c, key, "expected a list of landmarks, got %s", tool_json_type_name(v));
    if (json_array_size(v) == 0) return TOOL_OK;
    char path[96];
    if (json_is_array(json_array_get(v, 0))) {
        if (json_array_size(v) > 1) return bad(c, key, "%zu hands under one side's key, expected one", json_array_size(v));
        snprintf(path, sizeof path, "%s[0]", key);
        v = json_array_get(v, 0);
        if (json_array_size(v) == 0) return TOOL_OK;
    } else {
        snprintf(path, sizeof path, "%s", key);
    }
    *has = true;
    return read_landmarks(c, v, path, scale, out);
}

static int decode(const ctx *c, const json_t *root, const hand_frame *prev, hand_frame *out) {
    if (!json_is_object(root)) return bad(c, "", "expected a hand result (an object), got %s", tool_json_type_name(root));
    const char *key;
    double t;
    const json_t *ts = get2(root, "timestampMs", "timestamp_ms", &key);
    if (!ts) return bad(c, "timestamp_ms", "missing (a number of milliseconds is required)");
    if (!as_number(ts, &t) || !isfinite(t) || fabs(t) > 1e15) return bad(c, key, "expected a finite number of milliseconds");
    hand_frame f;
    memset(&f, 0, sizeof f);
    f.t_s = t / 1000.0;
    f.line = c->line;
    if (prev) memcpy(f.hands, prev->hands, sizeof f.hands);
    for (int h = 0; h < CROWD_HAND_COUNT; h++) f.hands[h][3 * CROWD_HAND_LANDMARK_COUNT] = 0.0f;
    if (prev && f.t_s < prev->t_s) return bad(c, key, "%.9g ms is before the previous line's %.9g ms", t, prev->t_s * 1000.0);
    const double aspect = c->opt && c->opt->aspect > 0 ? c->opt->aspect : 1.0;
    const bool mirrored = c->opt && c->opt->mirrored;
    bool filled[CROWD_HAND_COUNT] = {false, false};
    const char *filled_by[CROWD_HAND_COUNT] = {"", ""};

    /* Holistic: one key per side */
    static const char *const hol[2][4] = {
        {"leftHandWorldLandmarks", "left_hand_world_landmarks", "leftHandLandmarks", "left_hand_landmarks"},
        {"rightHandWorldLandmarks", "right_hand_world_landmarks", "rightHandLandmarks", "right_hand_landmarks"}};
    for (int side = 0; side < 2; side++) {
        float lm[63];
        bool has = false;
        const json_t *w = get2(root, hol[side][0], hol[side][1], &key);
        int st = read_hand(c, w, key, 1.0, lm, &has);
        if (st != TOOL_OK) return st;
        if (!has) {
            const json_t *im = get2(root, hol[side][2], hol[side][3], &key);
            if ((st = read_hand(c, im, key, aspect, lm, &has)) != TOOL_OK) return st;
        }
        if (!has) continue;
        const crowd_hand slot = crowd_hand_from_handedness(side == 1, mirrored);
        memcpy(f.hands[slot], lm, sizeof lm);
        f.hands[slot][3 * CROWD_HAND_LANDMARK_COUNT] = 1.0f;
        filled[slot] = true;
        filled_by[slot] = key;
    }

    /* Hand Landmarker: parallel lists per hand */
    const char *wkey, *ikey, *hkey;
    const json_t *world = get2(root, "worldLandmarks", "hand_world_landmarks", &wkey);
    const json_t *image = get2(root, "landmarks", "hand_landmarks", &ikey);
    const json_t *hands = get2(root, "handedness", "handednesses", &hkey);
    if (world && !json_is_array(world)) return bad(c, wkey, "expected a list of hands, got %s", tool_json_type_name(world));
    if (image && !json_is_array(image)) return bad(c, ikey, "expected a list of hands, got %s", tool_json_type_name(image));
    const size_t n = world ? json_array_size(world) : image ? json_array_size(image) : 0;
    if (n > 2) return bad(c, world ? wkey : ikey, "%zu hands, at most 2", n);
    if (n && !hands) return bad(c, "handedness", "missing: each hand needs its label (Left or Right)");
    if (hands && (!json_is_array(hands) || json_array_size(hands) != n))
        return bad(c, hkey, "expected a list of %zu handedness entries, one per hand", n);
    for (size_t k = 0; k < n; k++) {
        char path[96];
        const json_t *cats = json_array_get(hands, k);
        snprintf(path, sizeof path, "%s[%zu]", hkey, k);
        /* a hand's categories: a list (its best first), or one object */
        const json_t *cat = json_is_array(cats) ? json_array_get(cats, 0) : cats;
        if (json_is_array(cats)) snprintf(path, sizeof path, "%s[%zu][0]", hkey, k);
        if (!json_is_object(cat)) return bad(c, path, "expected a category {score, categoryName}, got %s", tool_json_type_name(cat));
        const char *lkey;
        const json_t *label = get2(cat, "categoryName", "category_name", &lkey);
        char lpath[128];
        snprintf(lpath, sizeof lpath, "%s.%s", path, lkey);
        if (!json_is_string(label)) return bad(c, lpath, "expected \"Left\" or \"Right\"");
        const char *ls = json_string_value(label);
        if (strcmp(ls, "Left") != 0 && strcmp(ls, "Right") != 0) return bad(c, lpath, "\"%s\" is not \"Left\" or \"Right\"", ls);
        double score = 1.0;
        const json_t *sc = json_object_get(cat, "score");
        snprintf(lpath, sizeof lpath, "%s.score", path);
        if (sc && !(as_number(sc, &score) && score >= 0 && score <= 1)) return bad(c, lpath, "expected a number in [0, 1]");
        float lm[63];
        char hpath[96];
        const json_t *list = world ? json_array_get(world, k) : json_array_get(image, k);
        snprintf(hpath, sizeof hpath, "%s[%zu]", world ? wkey : ikey, k);
        int st = read_landmarks(c, list, hpath, world ? 1.0 : aspect, lm);
        if (st != TOOL_OK) return st;
        const crowd_hand slot = crowd_hand_from_handedness(strcmp(ls, "Right") == 0, mirrored);
        if (filled[slot])
            return bad(c, path, "a second %s hand in one frame (the first: %s)", crowd_hand_name(slot), filled_by[slot]);
        memcpy(f.hands[slot], lm, sizeof lm);
        f.hands[slot][3 * CROWD_HAND_LANDMARK_COUNT] = (float)score;
        filled[slot] = true;
        filled_by[slot] = "an earlier hand of the list";
    }
    *out = f;
    return TOOL_OK;
}

int hand_track_line(const char *path, const char *text, size_t len, uint32_t line, const hand_track_options *opt,
                    const hand_frame *prev, hand_frame *out) {
    ctx c = {path, line, opt};
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tool_error(TOOL_BAD_INPUT, "%s:%u:%d: not valid JSON: %s", path, line, err.column, err.text);
    int st = decode(&c, root, prev, out);
    json_decref(root);
    return st;
}

bool hand_track_sniff(const char *text, size_t len) {
    static const char *const keys[] = {"\"handedness\"", "\"handednesses\"", "\"leftHandLandmarks\"", "\"left_hand_landmarks\"",
                                       "\"rightHandLandmarks\"", "\"right_hand_landmarks\"", "\"leftHandWorldLandmarks\"",
                                       "\"left_hand_world_landmarks\"", "\"rightHandWorldLandmarks\"",
                                       "\"right_hand_world_landmarks\""};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t n = strlen(keys[k]);
        for (size_t i = 0; i + n <= len; i++)
            if (memcmp(text + i, keys[k], n) == 0) return true;
    }
    return false;
}

void hand_track_free(hand_track *t) {
    free(t->path);
    free(t->frames);
    memset(t, 0, sizeof *t);
}

int hand_track_parse(const char *path, const char *text, size_t size, const hand_track_options *opt, hand_track *t) {
    memset(t, 0, sizeof *t);
    size_t n = strlen(path) + 1;
    if (!(t->path = malloc(n))) return tool_error(TOOL_FAILED, "out of memory reading %s", path);
    memcpy(t->path, path, n);
    uint32_t line = 0;
    size_t pos = size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (pos < size) {
        const char *start = text + pos, *nl = memchr(start, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - start) : size - pos;
        pos += len + (nl ? 1 : 0);
        line++;
        bool blank = true;
        for (size_t k = 0; k < len && blank; k++) blank = start[k] == ' ' || start[k] == '\t' || start[k] == '\r';
        if (blank) continue;
        if (t->count == t->capacity) {
            uint32_t cap = t->capacity ? t->capacity * 2 : 64;
            hand_frame *f = cap > t->capacity ? realloc(t->frames, sizeof *f * cap) : NULL;
            if (!f) {
                hand_track_free(t);
                return tool_error(TOOL_FAILED, "out of memory reading %s", path);
            }
            t->frames = f, t->capacity = cap;
        }
        int st = hand_track_line(path, start, len, line, opt, t->count ? &t->frames[t->count - 1] : NULL, &t->frames[t->count]);
        if (st != TOOL_OK) {
            hand_track_free(t);
            return st;
        }
        t->count++;
    }
    if (t->count == 0) {
        hand_track_free(t);
        return tool_error(TOOL_BAD_INPUT, "%s: no hand results (one JSON object a line)", path);
    }
    return TOOL_OK;
}

int hand_track_load(const char *path, const hand_track_options *opt, hand_track *t) {
    char *text;
    size_t size;
    memset(t, 0, sizeof *t);
    int st = tool_read_file(path, "hand track", &text, &size);
    if (st != TOOL_OK) return st;
    st = hand_track_parse(path, text, size, opt, t);
    free(text);
    return st;
}
