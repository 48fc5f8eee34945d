#include "face_track.h"

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

static int read_scores(const ctx *c, const json_t *face, const char *fpath, float scores[CROWD_FACE_SCORE_COUNT]) {
    char path[160];
    if (!json_is_object(face)) return bad(c, fpath, "expected an object {categories: [...]}, got %s", tool_json_type_name(face));
    const json_t *cats = json_object_get(face, "categories");
    snprintf(path, sizeof path, "%s.categories", fpath);
    if (!json_is_array(cats)) return bad(c, path, cats ? "expected an array, got %s" : "missing%s", cats ? tool_json_type_name(cats) : "");
    if (json_array_size(cats) != CROWD_FACE_SCORE_COUNT)
        return bad(c, path, "%zu categories, MediaPipe's face landmarker gives %d", json_array_size(cats),
                   CROWD_FACE_SCORE_COUNT);
    for (size_t k = 0; k < CROWD_FACE_SCORE_COUNT; k++) {
        const json_t *cat = json_array_get(cats, k);
        snprintf(path, sizeof path, "%s.categories[%zu]", fpath, k);
        if (!json_is_object(cat)) return bad(c, path, "expected an object {index, score, categoryName}, got %s", tool_json_type_name(cat));
        const char *key;
        double v;
        const json_t *idx = json_object_get(cat, "index");
        if (idx && !(as_number(idx, &v) && v == (double)k))
            return bad(c, path, "index is not %zu (categories must be in MediaPipe's order)", k);
        const json_t *name = get2(cat, "categoryName", "category_name", &key);
        if (name && !json_is_string(name)) return bad(c, path, "%s: expected a string, got %s", key, tool_json_type_name(name));
        if (name && strcmp(json_string_value(name), crowd_face_source_name((crowd_face_source)k)) != 0)
            return bad(c, path, "%s \"%s\": MediaPipe's category %zu is \"%s\"", key, json_string_value(name), k,
                       crowd_face_source_name((crowd_face_source)k));
        const json_t *score = json_object_get(cat, "score");
        if (!score) return bad(c, path, "score: missing (a number in [0, 1] is required)");
        if (!as_number(score, &v)) return bad(c, path, "score: expected a number, got %s", tool_json_type_name(score));
        if (!(v >= 0 && v <= 1)) return bad(c, path, "score: %.9g is outside [0, 1]", v);
        scores[k] = (float)v;
    }
    return TOOL_OK;
}

/* A matrix: {"rows": 4, "columns": 4, "data": [16, column-major]} or 4 rows of 4 numbers. */
static int read_matrix(const ctx *c, const json_t *m, const char *mpath, float rot[4]) {
    float data[16];
    char path[160];
    if (json_is_object(m)) {
        double v;
        const json_t *rows = json_object_get(m, "rows"), *cols = json_object_get(m, "columns");
        if ((rows && !(as_number(rows, &v) && v == 4)) || (cols && !(as_number(cols, &v) && v == 4)))
            return bad(c, mpath, "rows and columns must be 4");
        const json_t *d = json_object_get(m, "data");
        snprintf(path, sizeof path, "%s.data", mpath);
        if (!json_is_array(d) || json_array_size(d) != 16) return bad(c, path, "expected an array of 16 numbers");
        for (size_t k = 0; k < 16; k++) {
            snprintf(path, sizeof path, "%s.data[%zu]", mpath, k);
            if (!as_number(json_array_get(d, k), &v) || !isfinite(v) || fabs(v) > 1e30)
                return bad(c, path, "expected a finite number");
            data[k] = (float)v;
        }
    } else if (json_is_array(m) && json_array_size(m) == 4) {
        for (size_t r = 0; r < 4; r++) {
            const json_t *row = json_array_get(m, r);
            snprintf(path, sizeof path, "%s[%zu]", mpath, r);
            if (!json_is_array(row) || json_array_size(row) != 4) return bad(c, path, "expected a row of 4 numbers");
            for (size_t col = 0; col < 4; col++) {
                double v;
                snprintf(path, sizeof path, "%s[%zu][%zu]", mpath, r, col);
                if (!as_number(json_array_get(row, col), &v) || !isfinite(v) || fabs(v) > 1e30)
                    return bad(c, path, "expected a finite number");
                data[4 * col + r] = (float)v;
            }
        }
    } else {
        return bad(c, mpath, "expected {rows, columns, data} or 4 rows of 4 numbers, got %s", tool_json_type_name(m));
    }
    crowd_quat q;
    if (crowd_face_rotation_from_matrix(data, &q) != CROWD_OK)
        return bad(c, mpath, "not a rotation times a uniform scale (columns of equal length, orthogonal, no reflection)");
    rot[0] = q.x, rot[1] = q.y, rot[2] = q.z, rot[3] = q.w;
    return TOOL_OK;
}

static int decode(const ctx *c, const json_t *root, const face_frame *prev, face_frame *out) {
    if (!json_is_object(root)) return bad(c, "", "expected a face landmarker result (an object), got %s", tool_json_type_name(root));
    const char *key;
    double t;
    const json_t *ts = get2(root, "timestamp_ms", "timestampMs", &key);
    if (!ts) return bad(c, "timestamp_ms", "missing (a number of milliseconds is required)");
    if (!as_number(ts, &t) || !isfinite(t) || fabs(t) > 1e15) return bad(c, key, "expected a finite number of milliseconds");
    face_frame f;
    memset(&f, 0, sizeof f);
    f.t_s = t / 1000.0;
    f.line = c->line;
    f.rotation[3] = 1.0f;
    if (prev) {
        memcpy(f.scores, prev->scores, sizeof f.scores);
        memcpy(f.rotation, prev->rotation, sizeof f.rotation);
    }
    if (prev && f.t_s < prev->t_s)
        return bad(c, key, "%.9g ms is before the previous line's %.9g ms", t, prev->t_s * 1000.0);
    const json_t *faces = get2(root, "faceBlendshapes", "face_blendshapes", &key);
    static const char *const pose_keys[] = {"worldLandmarks", "pose_world_landmarks", "keypoints3D", "landmarks"};
    for (size_t k = 0; !faces && k < sizeof pose_keys / sizeof *pose_keys; k++)
        if (json_object_get(root, pose_keys[k]))
            return bad(c, pose_keys[k],
                       "a pose landmarker result, not a face landmarker result (faceBlendshapes): a pose recording "
                       "goes to a group's \"pose\": {\"clip\": ...}, a face track to its \"face\": {\"clip\": ...}");
    if (faces && !json_is_array(faces)) return bad(c, key, "expected an array of faces, got %s", tool_json_type_name(faces));
    if (faces && json_array_size(faces) > 0) {
        char fpath[64];
        snprintf(fpath, sizeof fpath, "%s[0]", key);
        const json_t *face = json_array_get(faces, 0);
        /* the Python API gives a face as its list of categories */
        json_t *wrapped = NULL;
        if (json_is_array(face)) face = wrapped = json_pack("{s:O}", "categories", face);
        int st = face ? read_scores(c, face, fpath, f.scores) : TOOL_FAILED;
        json_decref(wrapped);
        if (st != TOOL_OK) return st;
        f.presence = 1.0f;
        const json_t *ms = get2(root, "facialTransformationMatrixes", "facial_transformation_matrixes", &key);
        if (ms && !json_is_array(ms)) return bad(c, key, "expected an array of matrices, got %s", tool_json_type_name(ms));
        if (ms && json_array_size(ms) > 0) {
            snprintf(fpath, sizeof fpath, "%s[0]", key);
            if ((st = read_matrix(c, json_array_get(ms, 0), fpath, f.rotation)) != TOOL_OK) return st;
        }
    }
    *out = f;
    return TOOL_OK;
}

int face_track_line(const char *path, const char *text, size_t len, uint32_t line, const face_frame *prev,
                    face_frame *out) {
    ctx c = {path, line};
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tool_error(TOOL_BAD_INPUT, "%s:%u:%d: not valid JSON: %s", path, line, err.column, err.text);
    int st = decode(&c, root, prev, out);
    json_decref(root);
    return st;
}

bool face_track_sniff(const char *text, size_t len) {
    /* a key, so a quoted name followed by a colon; cheap and enough to route a line */
    static const char *const keys[] = {"\"faceBlendshapes\"", "\"face_blendshapes\""};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(keys[k]);
        for (size_t i = 0; i + n <= len; i++)
            if (memcmp(text + i, keys[k], n) == 0) return true;
    }
    return false;
}

void face_track_free(face_track *t) {
    free(t->path);
    free(t->frames);
    memset(t, 0, sizeof *t);
}

int face_track_parse(const char *path, const char *text, size_t size, face_track *t) {
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
            face_frame *f = cap > t->capacity ? realloc(t->frames, sizeof *f * cap) : NULL;
            if (!f) {
                face_track_free(t);
                return tool_error(TOOL_FAILED, "out of memory reading %s", path);
            }
            t->frames = f, t->capacity = cap;
        }
        int st = face_track_line(path, start, len, line, t->count ? &t->frames[t->count - 1] : NULL, &t->frames[t->count]);
        if (st != TOOL_OK) {
            face_track_free(t);
            return st;
        }
        t->count++;
    }
    if (t->count == 0) {
        face_track_free(t);
        return tool_error(TOOL_BAD_INPUT, "%s: no face landmarker results (one JSON object a line)", path);
    }
    return TOOL_OK;
}

int face_track_load(const char *path, face_track *t) {
    char *text;
    size_t size;
    memset(t, 0, sizeof *t);
    int st = tool_read_file(path, "face track", &text, &size);
    if (st != TOOL_OK) return st;
    st = face_track_parse(path, text, size, t);
    free(text);
    return st;
}

/* ---- Live2D binding ---- */
uint32_t face_bind_ids(const char *const *ids, uint32_t id_count, crowd_face_mapping_desc *out) {
    const crowd_face_mapping_desc *std = crowd_face_standard_mapping();
    uint32_t n = 0;
    for (uint32_t k = 0; k < CROWD_FACE_STANDARD_MAPPING_COUNT; k++)
        for (uint32_t i = 0; i < id_count; i++)
            if (strcmp(ids[i], std[k].id) == 0) {
                out[n++] = std[k];
                break;
            }
    return n;
}

static int read_json(const char *path, const char *what, json_t **out) {
    char *text;
    size_t size;
    int st = tool_read_file(path, what, &text, &size);
    if (st != TOOL_OK) return st;
    json_error_t err;
    *out = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!*out) return tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    if (!json_is_object(*out)) {
        json_decref(*out);
        return tool_error(TOOL_BAD_INPUT, "%s: expected a JSON object (a %s)", path, what);
    }
    return TOOL_OK;
}

int face_bind_model3(const char *model3_path, crowd_face_mapping_desc *out, uint32_t *count) {
    *count = 0;
    json_t *m3, *cdi = NULL;
    int st = read_json(model3_path, ".model3.json", &m3);
    if (st != TOOL_OK) return st;
    /* ids: the model3's groups, then the display info's parameters */
    const char *ids[CROWD_FACE_STANDARD_MAPPING_COUNT * 4];
    uint32_t n = 0;
    bool seen[CROWD_FACE_STANDARD_MAPPING_COUNT] = {false};
    const crowd_face_mapping_desc *std = crowd_face_standard_mapping();
#define NOTE_ID(str)                                                                   \
    for (uint32_t k_ = 0; k_ < CROWD_FACE_STANDARD_MAPPING_COUNT; k_++)                \
        if (!seen[k_] && strcmp((str), std[k_].id) == 0) seen[k_] = true, ids[n++] = std[k_].id
    size_t g;
    json_t *group, *groups = json_object_get(m3, "Groups");
    if (groups && !json_is_array(groups)) st = tool_error(TOOL_BAD_INPUT, "%s: Groups: expected an array", model3_path);
    if (json_is_array(groups))
        json_array_foreach(groups, g, group) {
            json_t *gids = json_object_get(group, "Ids");
            size_t i;
            json_t *id;
            if (json_is_array(gids)) json_array_foreach(gids, i, id) if (json_is_string(id)) { NOTE_ID(json_string_value(id)); }
        }
    const json_t *refs = json_object_get(m3, "FileReferences");
    const json_t *display = json_is_object(refs) ? json_object_get(refs, "DisplayInfo") : NULL;
    if (st == TOOL_OK && display && !json_is_string(display))
        st = tool_error(TOOL_BAD_INPUT, "%s: FileReferences.DisplayInfo: expected a file name", model3_path);
    if (st == TOOL_OK && display) {
        /* beside the model3 */
        const char *slash = strrchr(model3_path, '/');
        size_t dir = slash ? (size_t)(slash - model3_path) + 1 : 0, len = dir + strlen(json_string_value(display)) + 1;
        char *cdi_path = malloc(len);
        if (!cdi_path) st = tool_error(TOOL_FAILED, "out of memory");
        else {
            memcpy(cdi_path, model3_path, dir);
            strcpy(cdi_path + dir, json_string_value(display));
            st = read_json(cdi_path, ".cdi3.json", &cdi);
            if (st == TOOL_OK) {
                const json_t *params = json_object_get(cdi, "Parameters");
                if (!json_is_array(params)) {
                    st = tool_error(TOOL_BAD_INPUT, "%s: Parameters: expected an array", cdi_path);
                } else {
                    size_t i;
                    json_t *p;
                    json_array_foreach(params, i, p) {
                        const json_t *id = json_object_get(p, "Id");
                        if (!json_is_string(id)) {
                            st = tool_error(TOOL_BAD_INPUT, "%s: Parameters[%zu].Id: expected a string", cdi_path, i);
                            break;
                        }
                        NOTE_ID(json_string_value(id));
                    }
                }
            }
            free(cdi_path);
        }
    }
#undef NOTE_ID
    if (st == TOOL_OK) *count = face_bind_ids(ids, n, out);
    json_decref(cdi);
    json_decref(m3);
    return st;
}
