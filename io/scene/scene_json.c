/* The scene reader: JSON (SPEC §7) into a scene. Every field has its default; an unknown field
 * is an error naming its path (rigs[0].look.dampng); numbers are read as double, rounded to
 * float32 once and range-checked; syntax errors give jansson's line and column. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "cubism_files.h"
#include "model3.h"
#include "physics3.h"
#include "wav.h"
#include "name_index.h"
#include "scene.h"
#include "json_type.h"

#define MAX_COUNT (1u << 30)   /* instances per group: the engine's row limit */
#define MAX_FRAMES 2147483647u

typedef struct jctx {
    const char *file;
    char dir[4096]; /* the scene's folder ("" for the current one), ending in '/' */
    scene *s;
    char path[1024];
    size_t len;
    name_index rig_names; /* the rigs read so far */
    name_index param_ids; /* the parameters of the rig being read */
} jctx;

/* ---- the field path: "rigs[0].look.damping" ---- */
static size_t push_key(jctx *c, const char *key) {
    size_t old = c->len;
    int n = snprintf(c->path + c->len, sizeof c->path - c->len, "%s%s", c->len ? "." : "", key);
    if (n > 0) c->len = strlen(c->path);
    return old;
}

static size_t push_index(jctx *c, size_t index) {
    size_t old = c->len;
    int n = snprintf(c->path + c->len, sizeof c->path - c->len, "[%zu]", index);
    if (n > 0) c->len = strlen(c->path);
    return old;
}

static void pop(jctx *c, size_t old) {
    c->len = old;
    c->path[old] = 0;
}

/* "crowd: FILE: PATH: message" */
static int fail(jctx *c, const char *fmt, ...) TOOL_PRINTF(2, 3);
static int fail(jctx *c, const char *fmt, ...) {
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->len) return tool_error(TOOL_BAD_INPUT, "%s: %s: %s", c->file, c->path, msg);
    return tool_error(TOOL_BAD_INPUT, "%s: %s", c->file, msg);
}

/* ---- unknown fields ---- */
static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la >= 63 || lb >= 63) return 99;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* obj must be an object holding only the listed keys (a NULL-terminated list). */
static int check_object(jctx *c, const json_t *obj, const char *const *keys) {
    if (!json_is_object(obj)) return fail(c, "expected an object, got %s", tool_json_type_name(obj));
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)obj, key, value) {
        const char *best = NULL;
        size_t best_d = 3;
        bool known = false;
        for (const char *const *k = keys; *k; k++) {
            if (strcmp(*k, key) == 0) known = true;
            size_t d = edit_distance(*k, key);
            if (d < best_d) best_d = d, best = *k;
        }
        if (known) continue;
        size_t old = push_key(c, key);
        int st = best ? fail(c, "unknown field (did you mean '%s'?)", best) : fail(c, "unknown field");
        pop(c, old);
        return st;
    }
    return TOOL_OK;
}

/* ---- typed getters: each leaves *out alone when the key is absent ---- */
static int as_float(jctx *c, const json_t *v, float *out) {
    if (!json_is_number(v)) return fail(c, "expected a number, got %s", tool_json_type_name(v));
    double d = json_number_value(v);
    float f = (float)d;
    if (!isfinite(f)) return fail(c, "%g is outside the float32 range", d);
    *out = f;
    return TOOL_OK;
}

/* lo/hi bounds; lo_open: the bound itself is excluded */
static int get_float(jctx *c, const json_t *obj, const char *key, float lo, bool lo_open, float hi, float *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    size_t old = push_key(c, key);
    float f = 0;
    int st = as_float(c, v, &f);
    if (st == TOOL_OK && (lo_open ? !(f > lo) : !(f >= lo)))
        st = fail(c, "%.9g is out of range: must be %s %.9g", (double)f, lo_open ? ">" : ">=", (double)lo);
    else if (st == TOOL_OK && !(f <= hi))
        st = fail(c, "%.9g is out of range: must be <= %.9g", (double)f, (double)hi);
    if (st == TOOL_OK) *out = f;
    pop(c, old);
    return st;
}

static int as_integer(jctx *c, const json_t *v, double lo, double hi, double *out) {
    *out = 0; /* (set on every path: callers read it only on success, the compiler cannot tell) */
    if (!json_is_number(v)) return fail(c, "expected an integer, got %s", tool_json_type_name(v));
    double d = json_is_integer(v) ? (double)json_integer_value(v) : json_real_value(v);
    if (d != floor(d)) return fail(c, "%.17g is not an integer", d);
    if (d < lo || d > hi) return fail(c, "%.17g is out of range [%.17g, %.17g]", d, lo, hi);
    *out = d;
    return TOOL_OK;
}

static int get_u32(jctx *c, const json_t *obj, const char *key, uint32_t lo, uint32_t hi, uint32_t *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    size_t old = push_key(c, key);
    double d;
    int st = as_integer(c, v, lo, hi, &d);
    if (st == TOOL_OK) *out = (uint32_t)d;
    pop(c, old);
    return st;
}

static int get_bool(jctx *c, const json_t *obj, const char *key, bool *out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    if (!json_is_boolean(v)) {
        size_t old = push_key(c, key);
        int st = fail(c, "expected true or false, got %s", tool_json_type_name(v));
        pop(c, old);
        return st;
    }
    *out = json_is_true(v);
    return TOOL_OK;
}

/* A non-empty string; *out points into the JSON (copy it to keep it). */
static int get_string(jctx *c, const json_t *obj, const char *key, const char **out) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    size_t old = push_key(c, key);
    int st = TOOL_OK;
    if (!json_is_string(v)) st = fail(c, "expected a string, got %s", tool_json_type_name(v));
    else if (!json_string_value(v)[0]) st = fail(c, "is empty");
    else *out = json_string_value(v);
    pop(c, old);
    return st;
}

static int get_required_string(jctx *c, const json_t *obj, const char *key, const char **out) {
    *out = NULL;
    int st = get_string(c, obj, key, out);
    if (st == TOOL_OK && !*out) {
        size_t old = push_key(c, key);
        st = fail(c, "is required");
        pop(c, old);
    }
    return st;
}

static int get_enum(jctx *c, const json_t *obj, const char *key, const char *const *names, int count, int *out) {
    const char *str = NULL;
    int st = get_string(c, obj, key, &str);
    if (st != TOOL_OK || !str) return st;
    for (int k = 0; k < count; k++)
        if (strcmp(str, names[k]) == 0) {
            *out = k;
            return TOOL_OK;
        }
    char want[256] = "";
    for (int k = 0; k < count; k++) {
        strncat(want, "\"", sizeof want - strlen(want) - 1);
        strncat(want, names[k], sizeof want - strlen(want) - 1);
        strncat(want, k + 1 < count ? "\", " : "\"", sizeof want - strlen(want) - 1);
    }
    size_t old = push_key(c, key);
    st = fail(c, "\"%s\" is not one of %s", str, want);
    pop(c, old);
    return st;
}

static int get_vec3(jctx *c, const json_t *obj, const char *key, float out[3]) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    size_t old = push_key(c, key);
    int st = TOOL_OK;
    if (!json_is_array(v) || json_array_size(v) != 3) {
        st = fail(c, "expected an array of 3 numbers [x, y, z]");
    } else {
        float tmp[3];
        for (size_t k = 0; k < 3 && st == TOOL_OK; k++) {
            size_t o = push_index(c, k);
            st = as_float(c, json_array_get(v, k), &tmp[k]);
            pop(c, o);
        }
        if (st == TOOL_OK) memcpy(out, tmp, sizeof tmp);
    }
    pop(c, old);
    return st;
}

/* An array field: *out is NULL when absent; an error when not an array. */
static int get_array(jctx *c, const json_t *obj, const char *key, const json_t **out) {
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return TOOL_OK;
    if (!json_is_array(v)) {
        size_t old = push_key(c, key);
        int st = fail(c, "expected an array, got %s", tool_json_type_name(v));
        pop(c, old);
        return st;
    }
    *out = v;
    return TOOL_OK;
}

/* An object field: *out is NULL when absent or null. */
static int get_object(jctx *c, const json_t *obj, const char *key, const json_t **out) {
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v)) return TOOL_OK;
    if (!json_is_object(v)) {
        size_t old = push_key(c, key);
        int st = fail(c, "expected an object, got %s", tool_json_type_name(v));
        pop(c, old);
        return st;
    }
    *out = v;
    return TOOL_OK;
}

/* A path in the scene relative to the scene's folder. */
static char *resolve(jctx *c, const char *path) {
    if (path[0] == '/' || !c->dir[0]) return scene_strdup(c->s, path);
    size_t n = strlen(c->dir) + strlen(path) + 1;
    char *full = scene_alloc(c->s, n, 1);
    if (full) snprintf(full, n, "%s%s", c->dir, path);
    return full;
}

#define TRY(expr) do { int st_ = (expr); if (st_ != TOOL_OK) return st_; } while (0)

/* A parameter id used by a controller: must name one of the rig's parameters. */
static int check_param_id(jctx *c, const scene_rig *rig, const char *id) {
    if (name_index_find(&c->param_ids, id) >= 0) return TOOL_OK;
    return fail(c, "\"%s\" is not a parameter of rig \"%s\"", id, rig->name);
}

static int as_face_source(jctx *c, const json_t *v, crowd_face_source *out);

/* ---- a controller's settings, read by its table (crowd_setting_info) ----
 * A setting's key is its name in the controller's object, read with the table's type and
 * bounds, so a row added to a controller's table is a scene key with no line here. The rows
 * below spell the settings whose key is not their plain name. An enum's "default" value is
 * not written in a scene (leaving the key out is the default). */
typedef enum spell_kind {
    SPELL_SKIP,         /* not a scene key (physics fps: the file's Meta.Fps) */
    SPELL_NULLABLE,     /* null: the default */
    SPELL_IN,           /* the member `name` of the object `key` ("one_euro": {"beta": 40}) */
    SPELL_PAIR,         /* element `index` of the array `key` of 2 numbers ("gravity": [x, y]) */
    SPELL_NAMES,        /* an enum or bool by names[0 .. name_count) (NULL: the table's first names) */
    SPELL_FACE_SOURCES, /* a bit set spelled as a list of face source names ("smoothed") */
} spell_kind;

typedef struct spelling {
    crowd_controller controller;
    const char *setting;
    spell_kind kind;
    const char *key;
    uint32_t index;
    const char *const *names;
    uint32_t name_count;
} spelling;

static const char *const smoothing_names[] = {"off", "one_euro"};
static const spelling spellings[] = {
    {CROWD_CONTROLLER_LOOK, "max_speed", SPELL_NULLABLE, NULL, 0, NULL, 0},
    {CROWD_CONTROLLER_LIMBS, "axis_fix", SPELL_NAMES, NULL, 0, NULL, 2}, /* the presets (custom and calibrated need arrays) */
    {CROWD_CONTROLLER_LIMBS, "smoothing", SPELL_NAMES, NULL, 0, smoothing_names, 2},
    {CROWD_CONTROLLER_LIMBS, "min_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_LIMBS, "beta", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_LIMBS, "d_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FINGERS, "axis_fix", SPELL_NAMES, NULL, 0, NULL, 2}, /* as the limbs' */
    {CROWD_CONTROLLER_FINGERS, "smoothing", SPELL_NAMES, NULL, 0, smoothing_names, 2},
    {CROWD_CONTROLLER_FINGERS, "min_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FINGERS, "beta", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FINGERS, "d_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FACE, "smoothed_sources", SPELL_FACE_SOURCES, "smoothed", 0, NULL, 0},
    {CROWD_CONTROLLER_FACE, "min_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FACE, "beta", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_FACE, "d_cutoff", SPELL_IN, "one_euro", 0, NULL, 0},
    {CROWD_CONTROLLER_PHYSICS, "fps", SPELL_SKIP, NULL, 0, NULL, 0},
    {CROWD_CONTROLLER_PHYSICS, "gravity_x", SPELL_PAIR, "gravity", 0, NULL, 0},
    {CROWD_CONTROLLER_PHYSICS, "gravity_y", SPELL_PAIR, "gravity", 1, NULL, 0},
    {CROWD_CONTROLLER_PHYSICS, "wind_x", SPELL_PAIR, "wind", 0, NULL, 0},
    {CROWD_CONTROLLER_PHYSICS, "wind_y", SPELL_PAIR, "wind", 1, NULL, 0},
};

static const spelling *spelling_of(crowd_controller ctl, const crowd_setting *s) {
    for (size_t k = 0; k < sizeof spellings / sizeof spellings[0]; k++)
        if (spellings[k].controller == ctl && strcmp(spellings[k].setting, s->name) == 0) return &spellings[k];
    return NULL;
}

/* The setting's key in the controller's object (NULL: none). */
static const char *setting_key(const spelling *sp, const crowd_setting *s) {
    if (!sp) return s->name;
    if (sp->kind == SPELL_SKIP) return NULL;
    return sp->key ? sp->key : s->name;
}

#define MAX_KEYS 64

/* obj holds only `extra` (NULL-terminated) and the keys of the controller's settings: those
 * of its object `inside` (NULL: the controller's own object). */
static int check_settings_object(jctx *c, const json_t *obj, crowd_controller ctl, const char *inside,
                                 const char *const *extra) {
    const char *keys[MAX_KEYS + 1];
    size_t n = 0;
    for (; extra && extra[n] && n < MAX_KEYS; n++) keys[n] = extra[n];
    uint32_t count = crowd_setting_count(ctl);
    for (uint32_t i = 0; i < count && n < MAX_KEYS; i++) {
        crowd_setting s;
        if (crowd_setting_info(ctl, i, &s) != CROWD_OK) continue;
        const spelling *sp = spelling_of(ctl, &s);
        const char *key = inside ? (sp && sp->kind == SPELL_IN && strcmp(sp->key, inside) == 0 ? s.name : NULL)
                                 : setting_key(sp, &s);
        bool seen = !key;
        for (size_t k = 0; k < n && !seen; k++) seen = strcmp(keys[k], key) == 0;
        if (!seen) keys[n++] = key;
    }
    keys[n] = NULL;
    return check_object(c, obj, keys);
}

/* The float v into *out when within the setting's bounds. */
static int setting_float(jctx *c, const json_t *v, const crowd_setting *s, float *out) {
    float f = 0;
    TRY(as_float(c, v, &f));
    double d = f;
    if (s->min_open ? !(d > s->min) : !(d >= s->min))
        return fail(c, "%.9g is out of range: must be %s %.9g", d, s->min_open ? ">" : ">=", s->min);
    if (s->max_open ? !(d < s->max) : !(d <= s->max))
        return fail(c, "%.9g is out of range: must be %s %.9g", d, s->max_open ? "<" : "<=", s->max);
    *out = f;
    return TOOL_OK;
}

static int read_setting_value(jctx *c, const json_t *v, const crowd_setting *s, const spelling *sp, void *desc);

/* A name of the enum or bool setting: its value into *out. */
static int setting_name(jctx *c, const json_t *obj, const char *key, const crowd_setting *s, const spelling *sp,
                        int *out) {
    const char *names[64];
    int values[64], n = 0;
    if (sp && sp->kind == SPELL_NAMES && sp->names) {
        for (uint32_t k = 0; k < sp->name_count && n < 64; k++, n++) names[n] = sp->names[k], values[n] = (int)k;
    } else {
        uint32_t last = (uint32_t)s->max;
        if (sp && sp->kind == SPELL_NAMES && sp->name_count) last = sp->name_count - 1;
        for (uint32_t k = 0; k <= last && n < 64; k++) {
            if (!s->value_names || strcmp(s->value_names[k], "default") == 0) continue;
            names[n] = s->value_names[k], values[n++] = (int)k;
        }
    }
    int k = -1;
    TRY(get_enum(c, obj, key, names, n, &k));
    if (k >= 0) *out = values[k];
    return TOOL_OK;
}

/* The setting's value at key `key` of obj (absent: the desc keeps what it has). */
static int read_setting(jctx *c, const json_t *obj, const char *key, const crowd_setting *s, const spelling *sp,
                        void *desc) {
    const json_t *v = json_object_get(obj, key);
    if (!v || (sp && sp->kind == SPELL_NULLABLE && json_is_null(v))) return TOOL_OK;
    char *at = (char *)desc + s->offset;
    if (s->type == CROWD_SETTING_ENUM || (s->type == CROWD_SETTING_BOOL && sp && sp->kind == SPELL_NAMES)) {
        int value = -1;
        TRY(setting_name(c, obj, key, s, sp, &value));
        if (s->type == CROWD_SETTING_BOOL) {
            bool b = value != 0;
            memcpy(at, &b, sizeof b);
        } else {
            memcpy(at, &value, sizeof value); /* the crowd_* enums are int-sized (crowd.h) */
        }
        return TOOL_OK;
    }
    if (s->type == CROWD_SETTING_BOOL) {
        bool b = false;
        TRY(get_bool(c, obj, key, &b));
        memcpy(at, &b, sizeof b);
        return TOOL_OK;
    }
    size_t old = push_key(c, key);
    int st = read_setting_value(c, v, s, sp, desc);
    pop(c, old);
    return st;
}

/* Floats (one, or an array of count), a pair's element, a bit set. */
static int read_setting_value(jctx *c, const json_t *v, const crowd_setting *s, const spelling *sp, void *desc) {
    char *at = (char *)desc + s->offset;
    if (s->type == CROWD_SETTING_FLOAT && sp && sp->kind == SPELL_PAIR) {
        if (!json_is_array(v) || json_array_size(v) != 2) return fail(c, "expected an array of 2 numbers [x, y]");
        size_t o = push_index(c, sp->index);
        float f = 0;
        TRY(setting_float(c, json_array_get(v, sp->index), s, &f));
        pop(c, o);
        memcpy(at, &f, sizeof f);
        return TOOL_OK;
    }
    if (s->type == CROWD_SETTING_FLOAT && s->count == 1) {
        float f = 0;
        TRY(setting_float(c, v, s, &f));
        memcpy(at, &f, sizeof f);
        return TOOL_OK;
    }
    if (s->type == CROWD_SETTING_FLOAT) {
        if (!json_is_array(v) || json_array_size(v) != s->count)
            return fail(c, "expected an array of %u numbers", s->count);
        for (uint32_t k = 0; k < s->count; k++) {
            size_t o = push_index(c, k);
            float f = 0;
            TRY(setting_float(c, json_array_get(v, k), s, &f));
            pop(c, o);
            memcpy(at + k * sizeof f, &f, sizeof f);
        }
        return TOOL_OK;
    }
    /* BITS64: a list of face sources by name, or of bit numbers */
    if (!json_is_array(v)) return fail(c, "expected an array, got %s", tool_json_type_name(v));
    uint64_t bits = 0;
    for (size_t k = 0; k < json_array_size(v); k++) {
        size_t o = push_index(c, k);
        if (sp && sp->kind == SPELL_FACE_SOURCES) {
            crowd_face_source src;
            TRY(as_face_source(c, json_array_get(v, k), &src));
            bits |= CROWD_FACE_SOURCE_BIT(src);
        } else {
            double bit;
            TRY(as_integer(c, json_array_get(v, k), 0, s->max, &bit));
            bits |= (uint64_t)1 << (unsigned)bit;
        }
        pop(c, o);
    }
    memcpy(at, &bits, sizeof bits);
    return TOOL_OK;
}

/* Every setting of controller ctl present in obj into desc (call check_settings_object first). */
static int read_settings(jctx *c, const json_t *obj, crowd_controller ctl, void *desc) {
    uint32_t count = crowd_setting_count(ctl);
    for (uint32_t i = 0; i < count; i++) {
        crowd_setting s;
        if (crowd_setting_info(ctl, i, &s) != CROWD_OK) return fail(c, "crowd_setting_info failed");
        const spelling *sp = spelling_of(ctl, &s);
        if (sp && sp->kind == SPELL_SKIP) continue;
        if (sp && sp->kind == SPELL_IN) {
            const json_t *inner;
            TRY(get_object(c, obj, sp->key, &inner));
            if (!inner) continue;
            size_t o = push_key(c, sp->key);
            TRY(check_settings_object(c, inner, ctl, sp->key, NULL));
            TRY(read_setting(c, inner, s.name, &s, sp, desc));
            pop(c, o);
            continue;
        }
        TRY(read_setting(c, obj, setting_key(sp, &s), &s, sp, desc));
    }
    return TOOL_OK;
}

/* ---- rigs ---- */
static int read_parameters(jctx *c, const json_t *jrig, scene_rig *rig) {
    static const char *const keys[] = {"id", "min", "max", "default", "repeat", NULL};
    const json_t *arr;
    name_index_free(&c->param_ids);
    TRY(get_array(c, jrig, "parameters", &arr));
    if (!arr) return TOOL_OK;
    size_t n = json_array_size(arr), o0 = push_key(c, "parameters");
    if (n > CROWD_MAX_PARAMETERS) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_PARAMETERS);
    crowd_parameter_desc *params = scene_alloc(c->s, n, sizeof *params);
    if (!params) return TOOL_FAILED;
    rig->parameters = params;
    for (size_t p = 0; p < n; p++) {
        const json_t *jp = json_array_get(arr, p);
        size_t o1 = push_index(c, p);
        crowd_parameter_desc *d = &params[p];
        *d = (crowd_parameter_desc){.min = -30, .max = 30, .default_value = 0, .repeat = false};
        const char *id;
        TRY(check_object(c, jp, keys));
        TRY(get_required_string(c, jp, "id", &id));
        if (!(d->id = scene_strdup(c->s, id))) return TOOL_FAILED;
        long q = name_index_add(&c->param_ids, d->id, (uint32_t)p);
        if (q == -2) return TOOL_FAILED;
        if (q >= 0) {
            size_t o2 = push_key(c, "id");
            int st = fail(c, "\"%s\" repeats parameters[%ld].id (ids are unique in a rig)", id, q);
            pop(c, o2);
            return st;
        }
        TRY(get_float(c, jp, "min", -INFINITY, false, INFINITY, &d->min));
        TRY(get_float(c, jp, "max", -INFINITY, false, INFINITY, &d->max));
        TRY(get_float(c, jp, "default", -INFINITY, false, INFINITY, &d->default_value));
        TRY(get_bool(c, jp, "repeat", &d->repeat));
        if (d->min > d->max) return fail(c, "min (%.9g) > max (%.9g)", (double)d->min, (double)d->max);
        if (d->repeat && !(d->max > d->min))
            return fail(c, "repeat needs max > min (min %.9g, max %.9g)", (double)d->min, (double)d->max);
        if (!isfinite(d->max - d->min)) return fail(c, "max - min overflows float32");
        pop(c, o1);
        rig->parameter_count = (uint32_t)(p + 1);
    }
    pop(c, o0);
    return TOOL_OK;
}

static int read_look(jctx *c, const json_t *jl, scene_rig *rig) {
    static const char *const extra[] = {"parameters", NULL};
    static const char *const pkeys[] = {"id", "axis", "factor", NULL};
    static const char *const axes[] = {"x", "y", "z"};
    TRY(check_settings_object(c, jl, CROWD_CONTROLLER_LOOK, NULL, extra));
    rig->look = crowd_look_defaults();
    TRY(read_settings(c, jl, CROWD_CONTROLLER_LOOK, &rig->look));
    const json_t *arr;
    TRY(get_array(c, jl, "parameters", &arr));
    size_t n = arr ? json_array_size(arr) : 0, o0 = push_key(c, "parameters");
    if (n > CROWD_MAX_ENTRIES) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_ENTRIES);
    crowd_look_parameter_desc *lps = scene_alloc(c->s, n, sizeof *lps);
    if (!lps) return TOOL_FAILED;
    rig->look_parameters = lps;
    for (size_t k = 0; k < n; k++) {
        const json_t *jp = json_array_get(arr, k);
        size_t o1 = push_index(c, k);
        crowd_look_parameter_desc *d = &lps[k];
        *d = (crowd_look_parameter_desc){.axis = CROWD_AXIS_X, .factor = 30};
        const char *id;
        int axis = -1;
        TRY(check_object(c, jp, pkeys));
        TRY(get_required_string(c, jp, "id", &id));
        size_t o2 = push_key(c, "id");
        TRY(check_param_id(c, rig, id));
        pop(c, o2);
        if (!(d->id = scene_strdup(c->s, id))) return TOOL_FAILED;
        TRY(get_enum(c, jp, "axis", axes, 3, &axis));
        if (axis >= 0) d->axis = (crowd_axis)axis;
        TRY(get_float(c, jp, "factor", -INFINITY, false, INFINITY, &d->factor));
        pop(c, o1);
    }
    pop(c, o0);
    rig->look.parameter_count = (uint32_t)n;
    return TOOL_OK;
}

static int read_harmonic(jctx *c, const json_t *jh, scene_rig *rig) {
    static const char *const extra[] = {"channel_timescales", "parameters", NULL};
    static const char *const pkeys[] = {"id", "channel", "direction", "origin", "range", "duration", NULL};
    TOOL_ENUM_NAMES(directions, direction, crowd_direction, 0, CROWD_DIRECTION_COUNT);
    TRY(check_settings_object(c, jh, CROWD_CONTROLLER_HARMONIC, NULL, extra));
    rig->harmonic = crowd_harmonic_defaults();
    if (rig->harmonic.blend == CROWD_BLEND_DEFAULT) rig->harmonic.blend = CROWD_BLEND_ADDITIVE;
    TRY(read_settings(c, jh, CROWD_CONTROLLER_HARMONIC, &rig->harmonic));
    const json_t *ts;
    TRY(get_array(c, jh, "channel_timescales", &ts));
    rig->channel_timescales[0] = 1.0f;
    rig->harmonic.channel_count = 1;
    if (ts) {
        size_t n = json_array_size(ts), o0 = push_key(c, "channel_timescales");
        if (n < 1 || n > CROWD_MAX_CHANNELS) return fail(c, "has %zu entries; must have 1 to %d", n, CROWD_MAX_CHANNELS);
        for (size_t k = 0; k < n; k++) {
            size_t o1 = push_index(c, k);
            float f = 0;
            TRY(as_float(c, json_array_get(ts, k), &f));
            if (!(f >= 0)) return fail(c, "%.9g is out of range: must be >= 0", (double)f);
            rig->channel_timescales[k] = f;
            pop(c, o1);
        }
        rig->harmonic.channel_count = (uint32_t)n;
        pop(c, o0);
    }
    const json_t *arr;
    TRY(get_array(c, jh, "parameters", &arr));
    size_t n = arr ? json_array_size(arr) : 0, o0 = push_key(c, "parameters");
    if (n > CROWD_MAX_ENTRIES) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_ENTRIES);
    crowd_harmonic_parameter_desc *hps = scene_alloc(c->s, n, sizeof *hps);
    if (!hps) return TOOL_FAILED;
    rig->harmonic_parameters = hps;
    for (size_t k = 0; k < n; k++) {
        const json_t *jp = json_array_get(arr, k);
        size_t o1 = push_index(c, k);
        const char *id;
        int dir = -1;
        TRY(check_object(c, jp, pkeys));
        TRY(get_required_string(c, jp, "id", &id));
        size_t o2 = push_key(c, "id");
        TRY(check_param_id(c, rig, id));
        pop(c, o2);
        const char *own = scene_strdup(c->s, id);
        if (!own) return TOOL_FAILED;
        crowd_harmonic_parameter_desc *d = &hps[k];
        *d = crowd_harmonic_parameter_defaults(own);
        uint32_t channels = rig->harmonic.channel_count;
        const json_t *jc = json_object_get(jp, "channel");
        if (jc) {
            size_t o3 = push_key(c, "channel");
            double ch;
            TRY(as_integer(c, jc, 0, 4294967295.0, &ch));
            if (ch >= channels)
                return fail(c, "%.0f is out of range: the rig has %u channel%s (channel_timescales)", ch, channels,
                            channels == 1 ? "" : "s");
            d->channel = (uint32_t)ch;
            pop(c, o3);
        }
        TRY(get_enum(c, jp, "direction", directions, CROWD_DIRECTION_COUNT, &dir));
        if (dir >= 0) d->direction = (crowd_direction)dir;
        TRY(get_float(c, jp, "origin", -INFINITY, false, INFINITY, &d->origin));
        TRY(get_float(c, jp, "range", 0, false, INFINITY, &d->range));
        TRY(get_float(c, jp, "duration", 0, true, INFINITY, &d->duration));
        pop(c, o1);
    }
    pop(c, o0);
    rig->harmonic.parameter_count = (uint32_t)n;
    return TOOL_OK;
}

/* The EyeBlink group of a rig's model3 file. */
typedef struct model3_blink {
    bool found;
    const char **ids;
    uint32_t count;
} model3_blink;

static int read_blink(jctx *c, const json_t *jb, scene_rig *rig, const model3_blink *m3) {
    static const char *const extra[] = {"parameters", NULL};
    TRY(check_settings_object(c, jb, CROWD_CONTROLLER_BLINK, NULL, extra));
    rig->blink = crowd_blink_defaults();
    TRY(read_settings(c, jb, CROWD_CONTROLLER_BLINK, &rig->blink));
    const json_t *arr;
    TRY(get_array(c, jb, "parameters", &arr));
    if (arr && rig->model3) {
        size_t o = push_key(c, "parameters");
        int st = fail(c, "give blink parameters either here or through the rig's model3, not both");
        pop(c, o);
        return st;
    }
    if (rig->model3) {
        if (!m3->found) return fail(c, "blink is asked for but %s has no EyeBlink group", rig->model3);
        for (uint32_t k = 0; k < m3->count; k++)
            if (name_index_find(&c->param_ids, m3->ids[k]) < 0)
                return fail(c, "%s: EyeBlink id \"%s\" is not a parameter of rig \"%s\"", rig->model3, m3->ids[k],
                            rig->name);
        rig->blink_parameters = m3->ids;
        rig->blink.parameter_count = m3->count;
        return TOOL_OK;
    }
    size_t n = arr ? json_array_size(arr) : 0, o0 = push_key(c, "parameters");
    if (n > CROWD_MAX_ENTRIES) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_ENTRIES);
    const char **bps = scene_alloc(c->s, n, sizeof *bps);
    if (!bps) return TOOL_FAILED;
    rig->blink_parameters = bps;
    for (size_t k = 0; k < n; k++) {
        const json_t *jp = json_array_get(arr, k);
        size_t o1 = push_index(c, k);
        if (!json_is_string(jp)) return fail(c, "expected a parameter id (a string), got %s", tool_json_type_name(jp));
        TRY(check_param_id(c, rig, json_string_value(jp)));
        if (!(bps[k] = scene_strdup(c->s, json_string_value(jp)))) return TOOL_FAILED;
        pop(c, o1);
    }
    pop(c, o0);
    rig->blink.parameter_count = (uint32_t)n;
    return TOOL_OK;
}

static int read_limbs(jctx *c, const json_t *jl, scene_rig *rig) {
    TRY(check_settings_object(c, jl, CROWD_CONTROLLER_LIMBS, NULL, NULL));
    crowd_limbs_desc *l = &rig->limbs;
    *l = crowd_limbs_defaults();
    TRY(read_settings(c, jl, CROWD_CONTROLLER_LIMBS, l));
    if (!(l->bend_min < l->bend_full)) {
        size_t o = push_key(c, "bend_min");
        int st = fail(c, "%.9g must be below bend_full (%.9g)", (double)l->bend_min, (double)l->bend_full);
        pop(c, o);
        return st;
    }
    return TOOL_OK;
}

/* "fingers": the settings of crowd_fingers_desc by its table (the axis fix a preset) */
static int read_fingers(jctx *c, const json_t *jf, scene_rig *rig) {
    TRY(check_settings_object(c, jf, CROWD_CONTROLLER_FINGERS, NULL, NULL));
    crowd_fingers_desc *f = &rig->fingers;
    *f = crowd_fingers_defaults();
    TRY(read_settings(c, jf, CROWD_CONTROLLER_FINGERS, f));
    if (!(f->bend_min < f->bend_full)) {
        size_t o = push_key(c, "bend_min");
        int st = fail(c, "%.9g must be below bend_full (%.9g)", (double)f->bend_min, (double)f->bend_full);
        pop(c, o);
        return st;
    }
    rig->has_fingers = true;
    return TOOL_OK;
}

/* A face source by MediaPipe's categoryName ("jawOpen") or "headYaw", "headPitch", "headRoll". */
static int as_face_source(jctx *c, const json_t *v, crowd_face_source *out) {
    if (!json_is_string(v)) return fail(c, "expected a source name (\"jawOpen\", \"headYaw\", ...), got %s", tool_json_type_name(v));
    for (int s = 0; s < CROWD_FACE_SOURCE_COUNT; s++)
        if (strcmp(json_string_value(v), crowd_face_source_name((crowd_face_source)s)) == 0) {
            *out = (crowd_face_source)s;
            return TOOL_OK;
        }
    return fail(c, "\"%s\" is not a MediaPipe blend shape (\"_neutral\" .. \"noseSneerRight\") nor headYaw, headPitch, headRoll",
                json_string_value(v));
}

/* "face": the mapping ("standard": crowd_face_standard_mapping bound to the parameters the rig
 * declares and, with model3, the model names), blend, presence threshold, hand-off half-life,
 * the sources to smooth and the One Euro settings. */
static int read_face(jctx *c, const json_t *jf, scene_rig *rig) {
    static const char *const extra[] = {"mapping", NULL};
    static const char *const mkeys[] = {"source", "id", "gain", "offset", "curve", NULL};
    TOOL_ENUM_NAMES(curves, face_curve, crowd_face_curve, 0, CROWD_FACE_CURVE_COUNT);
    TRY(check_settings_object(c, jf, CROWD_CONTROLLER_FACE, NULL, extra));
    crowd_face_desc *f = &rig->face;
    *f = crowd_face_defaults();
    TRY(read_settings(c, jf, CROWD_CONTROLLER_FACE, f));
    const json_t *mapping = json_object_get(jf, "mapping");
    size_t o = push_key(c, "mapping");
    if (!mapping || (json_is_string(mapping) && strcmp(json_string_value(mapping), "standard") == 0)) {
        crowd_face_mapping_desc *m = scene_alloc(c->s, CROWD_FACE_STANDARD_MAPPING_COUNT, sizeof *m);
        if (!m) return TOOL_FAILED;
        uint32_t n = CROWD_FACE_STANDARD_MAPPING_COUNT;
        if (rig->model3) {
            int st = face_bind_model3(rig->model3, m, &n);
            if (st != TOOL_OK) return st;
        } else {
            memcpy(m, crowd_face_standard_mapping(), sizeof *m * n);
        }
        uint32_t kept = 0; /* the entries whose parameter the rig declares */
        for (uint32_t k = 0; k < n; k++)
            if (scene_parameter_index(rig, m[k].id) >= 0) m[kept++] = m[k];
        rig->face_mapping = m;
        f->mapping_count = kept;
    } else if (json_is_array(mapping)) {
        size_t n = json_array_size(mapping);
        if (n > CROWD_MAX_ENTRIES) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_ENTRIES);
        crowd_face_mapping_desc *m = scene_alloc(c->s, n ? n : 1, sizeof *m);
        if (!m) return TOOL_FAILED;
        for (size_t k = 0; k < n; k++) {
            size_t ok = push_index(c, k);
            const json_t *e = json_array_get(mapping, k);
            if (!json_is_object(e)) return fail(c, "expected an object {source, id, gain, offset, curve}, got %s", tool_json_type_name(e));
            TRY(check_object(c, e, mkeys));
            const json_t *src = json_object_get(e, "source");
            size_t os = push_key(c, "source");
            if (!src) return fail(c, "is required");
            TRY(as_face_source(c, src, &m[k].source));
            pop(c, os);
            TRY(get_required_string(c, e, "id", &m[k].id));
            size_t oi = push_key(c, "id");
            TRY(check_param_id(c, rig, m[k].id));
            pop(c, oi);
            m[k].gain = 1.0f, m[k].offset = 0.0f;
            TRY(get_float(c, e, "gain", -1e6f, false, 1e6f, &m[k].gain));
            TRY(get_float(c, e, "offset", -1e6f, false, 1e6f, &m[k].offset));
            int cv = -1;
            TRY(get_enum(c, e, "curve", curves, CROWD_FACE_CURVE_COUNT, &cv));
            m[k].curve = cv == 1 ? CROWD_FACE_CURVE_SMOOTHSTEP : CROWD_FACE_CURVE_LINEAR;
            pop(c, ok);
        }
        rig->face_mapping = m;
        f->mapping_count = (uint32_t)n;
    } else {
        return fail(c, "expected \"standard\" or an array of entries, got %s", tool_json_type_name(mapping));
    }
    pop(c, o);
    rig->has_face = true;
    return TOOL_OK;
}

/* "physics": the rig of a .physics3.json ("file", relative to the scene; without it the rig's
 * model3's FileReferences.Physics), with the controller's settings (crowd_physics_desc):
 * "strength", "gravity" [x, y], "wind" [x, y], "wind_gust", "gust_period". The ids must be
 * parameters of the rig. The file's arrays are copied into the scene. */
static int read_physics(jctx *c, const json_t *jp, scene_rig *rig) {
    static const char *const extra[] = {"file", NULL};
    TRY(check_settings_object(c, jp, CROWD_CONTROLLER_PHYSICS, NULL, extra));
    const char *file = NULL;
    TRY(get_string(c, jp, "file", &file));
    char *path = NULL;
    if (file) {
        if (!(path = resolve(c, file))) return TOOL_FAILED;
    } else if (rig->model3) {
        char *ref = NULL;
        int st = model3_file_reference(rig->model3, "Physics", &ref);
        if (st != TOOL_OK) return st;
        if (!ref) return fail(c, "no \"file\" and %s has no FileReferences.Physics", rig->model3);
        path = scene_strdup(c->s, ref);
        free(ref);
        if (!path) return TOOL_FAILED;
    } else {
        return fail(c, "needs a \"file\" (a .physics3.json) or the rig's model3");
    }
    physics3 p3;
    int st = physics3_read(path, &p3);
    if (st != TOOL_OK) return st;
    const crowd_physics_desc *d = &p3.desc;
    crowd_physics_subrig *subrigs = scene_alloc(c->s, d->subrig_count, sizeof *subrigs);
    crowd_physics_input *inputs = scene_alloc(c->s, d->input_count, sizeof *inputs);
    crowd_physics_output *outputs = scene_alloc(c->s, d->output_count, sizeof *outputs);
    crowd_physics_particle *particles = scene_alloc(c->s, d->particle_count, sizeof *particles);
    if ((d->subrig_count && !subrigs) || (d->input_count && !inputs) || (d->output_count && !outputs) ||
        (d->particle_count && !particles))
        st = TOOL_FAILED;
    for (uint32_t k = 0; st == TOOL_OK && k < d->input_count; k++) {
        inputs[k] = d->inputs[k];
        if (name_index_find(&c->param_ids, d->inputs[k].parameter) < 0)
            st = fail(c, "%s: input \"%s\" is not a parameter of rig \"%s\"", path, d->inputs[k].parameter, rig->name);
        else if (!(inputs[k].parameter = scene_strdup(c->s, d->inputs[k].parameter))) st = TOOL_FAILED;
    }
    for (uint32_t k = 0; st == TOOL_OK && k < d->output_count; k++) {
        outputs[k] = d->outputs[k];
        if (name_index_find(&c->param_ids, d->outputs[k].parameter) < 0)
            st = fail(c, "%s: output \"%s\" is not a parameter of rig \"%s\"", path, d->outputs[k].parameter, rig->name);
        else if (!(outputs[k].parameter = scene_strdup(c->s, d->outputs[k].parameter))) st = TOOL_FAILED;
    }
    if (st == TOOL_OK) {
        if (d->subrig_count) memcpy(subrigs, d->subrigs, d->subrig_count * sizeof *subrigs);
        if (d->particle_count) memcpy(particles, d->particles, d->particle_count * sizeof *particles);
        rig->physics = *d;
        rig->physics.subrigs = subrigs, rig->physics.inputs = inputs, rig->physics.outputs = outputs;
        rig->physics.particles = particles;
    }
    physics3_free(&p3);
    if (st != TOOL_OK) return st;
    TRY(read_settings(c, jp, CROWD_CONTROLLER_PHYSICS, &rig->physics));
    rig->has_physics = true;
    return TOOL_OK;
}

/* "lipsync": "weight" (0.8) and "parameters" (ids), or, with the rig's model3, its LipSync
 * group. */
static int read_lipsync(jctx *c, const json_t *jl, scene_rig *rig) {
    static const char *const extra[] = {"parameters", NULL};
    TRY(check_settings_object(c, jl, CROWD_CONTROLLER_LIPSYNC, NULL, extra));
    rig->lipsync = crowd_lipsync_defaults();
    TRY(read_settings(c, jl, CROWD_CONTROLLER_LIPSYNC, &rig->lipsync));
    const json_t *arr;
    TRY(get_array(c, jl, "parameters", &arr));
    if (arr && rig->model3) {
        size_t o = push_key(c, "parameters");
        int st = fail(c, "give lip sync parameters either here or through the rig's model3, not both");
        pop(c, o);
        return st;
    }
    if (rig->model3) {
        bool found;
        const char **ids;
        uint32_t count;
        TRY(model3_group(c->s, rig->model3, "LipSync", &found, &ids, &count));
        if (!found) return fail(c, "lip sync is asked for but %s has no LipSync group", rig->model3);
        for (uint32_t k = 0; k < count; k++)
            if (name_index_find(&c->param_ids, ids[k]) < 0)
                return fail(c, "%s: LipSync id \"%s\" is not a parameter of rig \"%s\"", rig->model3, ids[k], rig->name);
        rig->lipsync_parameters = ids;
        rig->lipsync.parameter_count = count;
        rig->has_lipsync = true;
        return TOOL_OK;
    }
    size_t n = arr ? json_array_size(arr) : 0, o0 = push_key(c, "parameters");
    if (n > CROWD_MAX_ENTRIES) return fail(c, "has %zu entries; at most %u", n, CROWD_MAX_ENTRIES);
    const char **ids = scene_alloc(c->s, n, sizeof *ids);
    if (!ids) return TOOL_FAILED;
    for (size_t k = 0; k < n; k++) {
        const json_t *jp = json_array_get(arr, k);
        size_t o1 = push_index(c, k);
        if (!json_is_string(jp)) return fail(c, "expected a parameter id (a string), got %s", tool_json_type_name(jp));
        TRY(check_param_id(c, rig, json_string_value(jp)));
        if (!(ids[k] = scene_strdup(c->s, json_string_value(jp)))) return TOOL_FAILED;
        pop(c, o1);
    }
    pop(c, o0);
    rig->lipsync_parameters = ids;
    rig->lipsync.parameter_count = (uint32_t)n;
    rig->has_lipsync = true;
    return TOOL_OK;
}

/* ---- Live2D motions, expressions and pose from the rig's model3 (crowd.h sections 14, 15) ---- */

/* A path beside the model3 (its FileReferences are relative to its folder), owned by the scene. */
static char *beside_model3(jctx *c, const char *model3, const char *name) {
    const char *slash = strrchr(model3, '/');
    size_t dir = (name[0] != '/' && slash) ? (size_t)(slash - model3) + 1 : 0;
    char *full = scene_alloc(c->s, dir + strlen(name) + 1, 1);
    if (full) {
        memcpy(full, model3, dir);
        strcpy(full + dir, name);
    }
    return full;
}

/* The model3's Groups ids (EyeBlink, LipSync) that are parameters of the rig: the motion's
 * model curves act on those (the framework's setEffectIds; an id that is no parameter there
 * lands in its not-exist map, which nothing reads). */
static const char *const *rig_ids(jctx *c, const scene_rig *rig, char **ids, uint32_t count, uint32_t *out_count) {
    const char **out = scene_alloc(c->s, count + 1, sizeof *out);
    uint32_t n = 0;
    if (!out) return NULL;
    for (uint32_t k = 0; k < count && n < 64; k++) {
        if (scene_parameter_index(rig, ids[k]) < 0) continue;
        if (!(out[n++] = scene_strdup(c->s, ids[k]))) return NULL;
    }
    *out_count = n;
    return out;
}

/* One motion3 file into a clip whose arrays the scene owns. */
static int load_clip(jctx *c, const char *path, const cubism_model3_motion *entry, crowd_motion_clip *clip,
                     double *period) {
    cubism_motion m = {0};
    int st = cubism_motion_read(path, &m);
    if (st != TOOL_OK) return st;
    crowd_motion_curve *curves = scene_alloc(c->s, m.curve_count + 1, sizeof *curves);
    uint8_t *types = scene_alloc(c->s, m.segment_count + 1, 1);
    uint32_t *first = scene_alloc(c->s, m.segment_count + 1, sizeof *first);
    crowd_motion_point *points = scene_alloc(c->s, m.point_count + 1, sizeof *points);
    double *events = scene_alloc(c->s, m.event_count + 1, sizeof *events);
    st = curves && types && first && points && events ? TOOL_OK : TOOL_FAILED;
    for (uint32_t k = 0; st == TOOL_OK && k < m.curve_count; k++) {
        const cubism_curve *cc = &m.curves[k];
        curves[k] = (crowd_motion_curve){scene_strdup(c->s, cc->id), (crowd_motion_target)cc->target, cc->fade_in,
                                         cc->fade_out, cc->first_segment, cc->segment_count};
        if (!curves[k].id) st = TOOL_FAILED;
    }
    if (st == TOOL_OK) {
        memcpy(types, m.segment_types, m.segment_count);
        memcpy(first, m.segment_points, m.segment_count * sizeof *first);
        for (uint32_t k = 0; k < m.point_count; k++) points[k] = (crowd_motion_point){m.points[k].time, m.points[k].value};
        for (uint32_t k = 0; k < m.event_count; k++) events[k] = m.events[k].time;
        /* the model3 entry's fades when set (>= 0), else the file's Meta ones (the sample app's
         * loadMotion) */
        *clip = (crowd_motion_clip){m.duration, m.fps, m.beziers_restricted,
                                    entry->fade_in >= 0 ? entry->fade_in : m.fade_in,
                                    entry->fade_out >= 0 ? entry->fade_out : m.fade_out,
                                    m.curve_count, m.segment_count, m.point_count, m.event_count,
                                    curves, types, first, points, events};
        *period = m.duration + 1.0 / m.fps;
    }
    cubism_motion_free(&m);
    return st;
}

/* "motions": {"idle": a Motions group the tick returns to when nothing plays (default none),
 * "loop_idle": false}: every Motions group of the rig's model3 into its motion library. */
static int read_motions(jctx *c, const json_t *jm, scene_rig *rig, const cubism_model3 *m3) {
    static const char *const keys[] = {"idle", "loop_idle", NULL};
    TRY(check_object(c, jm, keys));
    const char *idle = NULL;
    rig->motion = crowd_motion_defaults();
    TRY(get_string(c, jm, "idle", &idle));
    TRY(get_bool(c, jm, "loop_idle", &rig->motion.loop_idle));
    uint64_t total = 0;
    for (uint32_t g = 0; g < m3->motion_group_count; g++) total += m3->motion_groups[g].motion_count;
    if (total == 0) return fail(c, "%s has no FileReferences.Motions", rig->model3);
    if (total > CROWD_MAX_MOTIONS) return fail(c, "%s has %llu motions; at most %u", rig->model3,
                                               (unsigned long long)total, CROWD_MAX_MOTIONS);
    crowd_motion_clip *clips = scene_alloc(c->s, total, sizeof *clips);
    double *periods = scene_alloc(c->s, total, sizeof *periods);
    const char **names = scene_alloc(c->s, m3->motion_group_count, sizeof *names);
    uint32_t *firsts = scene_alloc(c->s, m3->motion_group_count + 1, sizeof *firsts);
    if (!clips || !periods || !names || !firsts) return TOOL_FAILED;
    uint32_t n = 0;
    int idle_group = -1;
    for (uint32_t g = 0; g < m3->motion_group_count; g++) {
        const cubism_model3_motion_group *mg = &m3->motion_groups[g];
        if (!(names[g] = scene_strdup(c->s, mg->name))) return TOOL_FAILED;
        if (idle && strcmp(idle, mg->name) == 0) idle_group = (int)g;
        firsts[g] = n;
        for (uint32_t k = 0; k < mg->motion_count; k++, n++) {
            const char *path = beside_model3(c, rig->model3, mg->motions[k].file);
            if (!path) return TOOL_FAILED;
            int st = load_clip(c, path, &mg->motions[k], &clips[n], &periods[n]);
            if (st != TOOL_OK) {
                if (st == TOOL_BAD_INPUT) fail(c, "%s: Motions.%s[%u]: cannot use \"%s\"", rig->model3, mg->name, k, path);
                return st;
            }
        }
    }
    firsts[m3->motion_group_count] = n;
    if (idle && idle_group < 0) {
        size_t o = push_key(c, "idle");
        int st = fail(c, "%s has no Motions group \"%s\"", rig->model3, idle);
        pop(c, o);
        return st;
    }
    if (idle_group >= 0) {
        uint32_t a = firsts[idle_group], b = firsts[idle_group + 1];
        uint32_t *list = scene_alloc(c->s, b - a + 1, sizeof *list);
        if (!list) return TOOL_FAILED;
        for (uint32_t k = a; k < b; k++) list[k - a] = k;
        rig->motion.idle_clips = list, rig->motion.idle_count = b - a;
    }
    rig->motion.clips = clips, rig->motion.clip_count = n;
    rig->motion.eye_blink_ids = rig_ids(c, rig, m3->eye_blink_ids, m3->eye_blink_count, &rig->motion.eye_blink_count);
    rig->motion.lip_sync_ids = rig_ids(c, rig, m3->lip_sync_ids, m3->lip_sync_count, &rig->motion.lip_sync_count);
    if (!rig->motion.eye_blink_ids || !rig->motion.lip_sync_ids) return TOOL_FAILED;
    rig->motion_group_names = names, rig->motion_group_first = firsts;
    rig->motion_group_count = m3->motion_group_count, rig->motion_periods = periods;
    rig->has_motion = true;
    return TOOL_OK;
}

/* "expressions": {"fade_in": 1, "fade_out": 1} (s, for exp3 files without their own): the
 * model3's Expressions into the rig's library, by name for the groups' "expression". */
static int read_expressions(jctx *c, const json_t *je, scene_rig *rig, const cubism_model3 *m3) {
    static const char *const keys[] = {"fade_in", "fade_out", NULL};
    TRY(check_object(c, je, keys));
    rig->expression = crowd_expression_defaults();
    TRY(get_float(c, je, "fade_in", 0, false, 1e6f, &rig->expression.fade_in));
    TRY(get_float(c, je, "fade_out", 0, false, 1e6f, &rig->expression.fade_out));
    uint32_t n = m3->expression_count;
    if (n == 0) return fail(c, "%s has no FileReferences.Expressions", rig->model3);
    if (n > CROWD_MAX_ENTRIES) return fail(c, "%s has %u expressions; at most %u", rig->model3, n, CROWD_MAX_ENTRIES);
    crowd_expression_item_desc *items = scene_alloc(c->s, n, sizeof *items);
    const char **names = scene_alloc(c->s, n, sizeof *names);
    if (!items || !names) return TOOL_FAILED;
    for (uint32_t k = 0; k < n; k++) {
        const char *path = beside_model3(c, rig->model3, m3->expressions[k].file);
        if (!path || !(names[k] = scene_strdup(c->s, m3->expressions[k].name))) return TOOL_FAILED;
        cubism_expression e = {0};
        int st = cubism_expression_read(path, &e);
        if (st != TOOL_OK) {
            if (st == TOOL_BAD_INPUT) fail(c, "%s: Expressions[%u]: cannot use \"%s\"", rig->model3, k, path);
            return st;
        }
        crowd_expression_parameter_desc *ps = scene_alloc(c->s, e.parameter_count + 1, sizeof *ps);
        st = ps ? TOOL_OK : TOOL_FAILED;
        for (uint32_t p = 0; st == TOOL_OK && p < e.parameter_count; p++) {
            ps[p] = (crowd_expression_parameter_desc){scene_strdup(c->s, e.parameters[p].id),
                                                      (float)e.parameters[p].value,
                                                      (crowd_expression_blend)e.parameters[p].blend};
            if (!ps[p].id) st = TOOL_FAILED;
        }
        items[k] = (crowd_expression_item_desc){ps, e.parameter_count, (float)e.fade_in, (float)e.fade_out};
        cubism_expression_free(&e);
        if (st != TOOL_OK) return st;
    }
    rig->expression.expressions = items, rig->expression.expression_count = n;
    rig->expression_names = names;
    rig->has_expression = true;
    return TOOL_OK;
}

/* "pose": {"file": a .pose3.json (relative to the scene; default the model3's
 * FileReferences.Pose)}: which part of each group shows, faded as the framework does. */
static int read_live2d_pose(jctx *c, const json_t *jp, scene_rig *rig, const cubism_model3 *m3) {
    static const char *const keys[] = {"file", NULL};
    TRY(check_object(c, jp, keys));
    const char *file = NULL, *path = NULL;
    TRY(get_string(c, jp, "file", &file));
    if (file) path = resolve(c, file);
    else if (m3 && m3->pose) path = beside_model3(c, rig->model3, m3->pose);
    else if (rig->model3) return fail(c, "no \"file\" and %s has no FileReferences.Pose", rig->model3);
    else return fail(c, "needs a \"file\" (a .pose3.json) or the rig's model3");
    if (!path) return TOOL_FAILED;
    cubism_pose p = {0};
    int st = cubism_pose_read(path, &p);
    if (st != TOOL_OK) return st;
    crowd_pose_group_desc *groups = scene_alloc(c->s, p.group_count + 1, sizeof *groups);
    crowd_pose_part_desc *parts = scene_alloc(c->s, p.part_count + 1, sizeof *parts);
    const char **links = scene_alloc(c->s, p.link_count + 1, sizeof *links);
    st = groups && parts && links ? TOOL_OK : TOOL_FAILED;
    for (uint32_t k = 0; st == TOOL_OK && k < p.link_count; k++)
        if (!(links[k] = scene_strdup(c->s, p.link_ids[k]))) st = TOOL_FAILED;
    for (uint32_t k = 0; st == TOOL_OK && k < p.part_count; k++) {
        parts[k] = (crowd_pose_part_desc){scene_strdup(c->s, p.part_ids[k]), links + p.link_first[k],
                                          p.link_first[k + 1] - p.link_first[k]};
        if (!parts[k].id) st = TOOL_FAILED;
    }
    for (uint32_t g = 0; st == TOOL_OK && g < p.group_count; g++)
        groups[g] = (crowd_pose_group_desc){parts + p.group_first[g], p.group_first[g + 1] - p.group_first[g]};
    if (st == TOOL_OK) {
        rig->pose = crowd_pose_defaults();
        rig->pose.groups = groups, rig->pose.group_count = p.group_count, rig->pose.fade_in = (float)p.fade_in;
        rig->has_pose = true;
    }
    cubism_pose_free(&p);
    return st;
}

/* The rig's "motions", "expressions" and "pose" (each read only when present). */
static int read_live2d(jctx *c, const json_t *jr, scene_rig *rig) {
    const json_t *motions, *expressions, *pose;
    TRY(get_object(c, jr, "motions", &motions));
    TRY(get_object(c, jr, "expressions", &expressions));
    TRY(get_object(c, jr, "pose", &pose));
    if (!motions && !expressions && !pose) return TOOL_OK;
    cubism_model3 m3 = {0};
    if ((motions || expressions) && !rig->model3) {
        size_t o = push_key(c, motions ? "motions" : "expressions");
        int st = fail(c, "needs the rig's \"model3\" (its FileReferences name the files)");
        pop(c, o);
        return st;
    }
    if (rig->model3) {
        size_t o = push_key(c, "model3");
        int st = cubism_model3_read(rig->model3, &m3);
        if (st != TOOL_OK) return st;
        pop(c, o);
    }
    int st = TOOL_OK;
    size_t o;
    if (motions) {
        o = push_key(c, "motions");
        st = read_motions(c, motions, rig, &m3);
        if (st == TOOL_OK) pop(c, o);
    }
    if (st == TOOL_OK && expressions) {
        o = push_key(c, "expressions");
        st = read_expressions(c, expressions, rig, &m3);
        if (st == TOOL_OK) pop(c, o);
    }
    if (st == TOOL_OK && pose) {
        o = push_key(c, "pose");
        st = read_live2d_pose(c, pose, rig, rig->model3 ? &m3 : NULL);
        if (st == TOOL_OK) pop(c, o);
    }
    cubism_model3_free(&m3);
    return st;
}

static int read_rig(jctx *c, const json_t *jr, scene_rig *rig) {
    static const char *const keys[] = {"name", "parameters", "look", "harmonic", "blink", "limbs", "fingers", "face",
                                       "physics", "lipsync", "model3", "motions", "expressions", "pose", NULL};
    TRY(check_object(c, jr, keys));
    const char *name = "hiyori", *model3 = NULL;
    TRY(get_string(c, jr, "name", &name));
    if (!(rig->name = scene_strdup(c->s, name))) return TOOL_FAILED;
    TRY(get_string(c, jr, "model3", &model3));
    model3_blink m3 = {0};
    if (model3) {
        if (!(rig->model3 = resolve(c, model3))) return TOOL_FAILED;
        size_t o = push_key(c, "model3");
        int st = model3_group(c->s, rig->model3, "EyeBlink", &m3.found, &m3.ids, &m3.count);
        if (st != TOOL_OK) {
            if (st == TOOL_BAD_INPUT) fail(c, "\"%s\" is not a usable .model3.json", model3);
            return st;
        }
        pop(c, o);
    }
    TRY(read_parameters(c, jr, rig));
    const json_t *look, *harmonic, *blink, *limbs, *face, *fingers;
    TRY(get_object(c, jr, "face", &face));
    TRY(get_object(c, jr, "fingers", &fingers));
    TRY(get_object(c, jr, "look", &look));
    TRY(get_object(c, jr, "harmonic", &harmonic));
    TRY(get_object(c, jr, "blink", &blink));
    TRY(get_object(c, jr, "limbs", &limbs));
    size_t o;
    if (look) {
        o = push_key(c, "look");
        TRY(read_look(c, look, rig));
        pop(c, o);
    }
    if (harmonic) {
        o = push_key(c, "harmonic");
        TRY(read_harmonic(c, harmonic, rig));
        pop(c, o);
    }
    if (blink) {
        o = push_key(c, "blink");
        TRY(read_blink(c, blink, rig, &m3));
        pop(c, o);
    }
    if (limbs) {
        o = push_key(c, "limbs");
        TRY(read_limbs(c, limbs, rig));
        pop(c, o);
    }
    if (fingers) {
        o = push_key(c, "fingers");
        TRY(read_fingers(c, fingers, rig));
        pop(c, o);
    }
    if (face) {
        o = push_key(c, "face");
        TRY(read_face(c, face, rig));
        pop(c, o);
    }
    const json_t *physics, *lipsync;
    TRY(get_object(c, jr, "physics", &physics));
    TRY(get_object(c, jr, "lipsync", &lipsync));
    if (physics) {
        o = push_key(c, "physics");
        TRY(read_physics(c, physics, rig));
        pop(c, o);
    }
    if (lipsync) {
        o = push_key(c, "lipsync");
        TRY(read_lipsync(c, lipsync, rig));
        pop(c, o);
    }
    TRY(read_live2d(c, jr, rig));
    scene_rig_link(rig, look != NULL, harmonic != NULL, blink != NULL, limbs != NULL);
    return TOOL_OK;
}

/* ---- groups ---- */
static int read_group_look(jctx *c, const json_t *jl, scene_group *g) {
    static const char *const keys[] = {"center", "jitter", "keys", NULL};
    static const char *const kkeys[] = {"t", "target", "active", NULL};
    TRY(check_object(c, jl, keys));
    TRY(get_vec3(c, jl, "center", g->center));
    TRY(get_float(c, jl, "jitter", 0, false, INFINITY, &g->jitter));
    const json_t *arr;
    TRY(get_array(c, jl, "keys", &arr));
    size_t n = arr ? json_array_size(arr) : 0, o0 = push_key(c, "keys");
    scene_key *list = scene_alloc(c->s, n, sizeof *list);
    if (!list) return TOOL_FAILED;
    g->keys = list;
    for (size_t k = 0; k < n; k++) {
        const json_t *jk = json_array_get(arr, k);
        size_t o1 = push_index(c, k);
        scene_key *key = &list[k];
        TRY(check_object(c, jk, kkeys));
        key->t = 0;
        TRY(get_float(c, jk, "t", 0, false, INFINITY, &key->t));
        if (k > 0 && key->t < list[k - 1].t) {
            size_t o2 = push_key(c, "t");
            int st = fail(c, "%.9g is before keys[%zu].t (%.9g): keys are in time order", (double)key->t, k - 1,
                          (double)list[k - 1].t);
            pop(c, o2);
            return st;
        }
        bool has_target = json_object_get(jk, "target") != NULL, active = has_target;
        TRY(get_bool(c, jk, "active", &active));
        if (active && !has_target) return fail(c, "an active key needs a target [x, y, z]");
        if (!active && has_target) return fail(c, "a key with \"active\": false takes no target");
        key->active = active;
        TRY(get_vec3(c, jk, "target", key->target));
        pop(c, o1);
    }
    pop(c, o0);
    g->key_count = (uint32_t)n;
    return TOOL_OK;
}

static int read_pose(jctx *c, const json_t *jp, scene_group *g) {
    static const char *const keys[] = {"clip", "offset", "loop", NULL};
    static const char *const offsets[] = {"zero", "random"};
    TRY(check_object(c, jp, keys));
    const char *clip_name;
    TRY(get_required_string(c, jp, "clip", &clip_name));
    int k = -1;
    TRY(get_enum(c, jp, "offset", offsets, 2, &k));
    g->pose_offset = k == 1 ? SCENE_OFFSET_RANDOM : SCENE_OFFSET_ZERO;
    g->pose_loop = true;
    TRY(get_bool(c, jp, "loop", &g->pose_loop));
    char *path = resolve(c, clip_name);
    if (!path) return TOOL_FAILED;
    for (size_t q = 0; q < c->s->clip_count; q++)
        if (strcmp(c->s->clips[q]->path, path) == 0) { /* already loaded by another group */
            g->clip = c->s->clips[q];
            return TOOL_OK;
        }
    pose_clip clip;
    int st = clip_load(path, &clip);
    if (st != TOOL_OK) {
        size_t o = push_key(c, "clip");
        fail(c, "\"%s\" is not a usable pose clip", clip_name);
        pop(c, o);
        return st;
    }
    if (!(g->clip = scene_adopt_clip(c->s, &clip))) return TOOL_FAILED;
    return TOOL_OK;
}

/* a group's "face": {"clip": track, "loop": true}: every instance plays the track in step */
static int read_group_face(jctx *c, const json_t *jf, scene_group *g) {
    static const char *const keys[] = {"clip", "loop", NULL};
    TRY(check_object(c, jf, keys));
    const char *name;
    TRY(get_required_string(c, jf, "clip", &name));
    g->face_loop = true;
    TRY(get_bool(c, jf, "loop", &g->face_loop));
    char *path = resolve(c, name);
    if (!path) return TOOL_FAILED;
    face_track t;
    int st = face_track_load(path, &t);
    if (st != TOOL_OK) {
        size_t o = push_key(c, "clip");
        fail(c, "\"%s\" is not a usable face track", name);
        pop(c, o);
        return st;
    }
    return (g->face = scene_adopt_face(c->s, &t)) ? TOOL_OK : TOOL_FAILED;
}

/* a group's "hands": {"clip": a MediaPipe Hand Landmarker or Holistic recording, "offset":
 * "zero" | "random", "loop": true} (scene.h): read with the rig's fingers "mirrored"; with the
 * group's pose clip the hands follow it (offset and loop are the pose's) */
static int read_group_hands(jctx *c, const json_t *jh, const scene_rig *rig, scene_group *g) {
    static const char *const keys[] = {"clip", "offset", "loop", NULL};
    static const char *const offsets[] = {"zero", "random"};
    TRY(check_object(c, jh, keys));
    const char *name;
    TRY(get_required_string(c, jh, "clip", &name));
    int k = -1;
    TRY(get_enum(c, jh, "offset", offsets, 2, &k));
    g->hand_offset = k == 1 ? SCENE_OFFSET_RANDOM : SCENE_OFFSET_ZERO;
    g->hand_loop = true;
    TRY(get_bool(c, jh, "loop", &g->hand_loop));
    if (g->clip && (k >= 0 || json_object_get(jh, "loop"))) {
        size_t o = push_key(c, k >= 0 ? "offset" : "loop");
        int st = fail(c, "the hands follow the group's pose clip: set its \"offset\" and \"loop\" in \"pose\"");
        pop(c, o);
        return st;
    }
    char *path = resolve(c, name);
    if (!path) return TOOL_FAILED;
    hand_track t;
    hand_track_options opt = {.mirrored = rig->fingers.mirrored, .aspect = 1.0f};
    int st = hand_track_load(path, &opt, &t);
    if (st != TOOL_OK) {
        size_t o = push_key(c, "clip");
        fail(c, "\"%s\" is not a usable hand track", name);
        pop(c, o);
        return st;
    }
    if (!(g->hands = scene_adopt_hands(c->s, &t))) return TOOL_FAILED;
    if (!g->clip) return TOOL_OK;
    /* each pose row's hand frame: the last at or before the row's t_s (both ascending) */
    uint32_t *of_row = scene_alloc(c->s, g->clip->row_count, sizeof *of_row);
    if (!of_row) return TOOL_FAILED;
    for (uint32_t r = 0, next = 0; r < g->clip->row_count; r++) {
        while (next < g->hands->count && g->hands->frames[next].t_s <= g->clip->t_s[r]) next++;
        of_row[r] = next;
    }
    g->hand_of_row = of_row;
    return TOOL_OK;
}

/* [a, b], two finite numbers (b > 0 and a > 0 with positive) */
static int get_pair(jctx *c, const json_t *obj, const char *key, bool positive, float out[2]) {
    const json_t *v = json_object_get(obj, key);
    if (!v) return TOOL_OK;
    size_t old = push_key(c, key);
    int st = TOOL_OK;
    if (!json_is_array(v) || json_array_size(v) != 2) st = fail(c, "expected an array of 2 numbers");
    float tmp[2];
    for (size_t k = 0; k < 2 && st == TOOL_OK; k++) {
        size_t o = push_index(c, k);
        st = as_float(c, json_array_get(v, k), &tmp[k]);
        if (st == TOOL_OK && positive && !(tmp[k] > 0 && tmp[k] <= 1e6f)) st = fail(c, "must be > 0 and <= 1e6");
        if (st == TOOL_OK && !positive && !(fabsf(tmp[k]) <= 1e6f)) st = fail(c, "must be within +-1e6");
        pop(c, o);
    }
    if (st == TOOL_OK) memcpy(out, tmp, sizeof tmp);
    pop(c, old);
    return st;
}

/* "place": where crowd render stands the group (scene.h scene_place) */
static int read_place(jctx *c, const json_t *jp, scene_group *g) {
    static const char *const keys[] = {"at", "columns", "spacing", "jitter", NULL};
    TRY(check_object(c, jp, keys));
    scene_place *p = &g->place;
    p->set = true;
    p->columns = 0;
    p->spacing[0] = 0.9f;
    p->spacing[1] = 1.1f;
    TRY(get_pair(c, jp, "at", false, p->at));
    TRY(get_u32(c, jp, "columns", 1, MAX_COUNT, &p->columns));
    TRY(get_pair(c, jp, "spacing", true, p->spacing));
    TRY(get_float(c, jp, "jitter", 0, false, 100, &p->jitter));
    return TOOL_OK;
}

/* a group's "audio": {"wav": file, "stagger": seconds between instances, "loop": false}: the
 * instances' mouth levels (scene.h) */
static int read_group_audio(jctx *c, const json_t *ja, scene_group *g) {
    static const char *const keys[] = {"wav", "stagger", "loop", NULL};
    TRY(check_object(c, ja, keys));
    const char *name;
    TRY(get_required_string(c, ja, "wav", &name));
    TRY(get_float(c, ja, "stagger", 0, false, 3600, &g->audio_stagger));
    TRY(get_bool(c, ja, "loop", &g->audio_loop));
    char *path = resolve(c, name);
    if (!path) return TOOL_FAILED;
    wav_audio w;
    int st = wav_read(path, &w);
    if (st != TOOL_OK) return st;
    float *samples = scene_alloc(c->s, w.frames * w.channels, sizeof *samples);
    if (samples) memcpy(samples, w.samples, w.frames * w.channels * sizeof *samples);
    g->audio = samples, g->audio_frames = w.frames, g->audio_channels = w.channels, g->audio_rate = w.rate;
    wav_free(&w);
    return samples ? TOOL_OK : TOOL_FAILED;
}

/* A group's "motion": {"group": a Motions group of the rig's model3, "index": a clip of it
 * (default 0) or "random" (each instance draws one), "priority": "idle" | "normal" (default) |
 * "force", "loop": false, "stagger": seconds further into the clip per instance (0), "speed":
 * the clock's rate (1), "speed_jitter": each instance's rate times 1 +- up to this (0, < 1)}. */
static int read_group_motion(jctx *c, const json_t *jm, const scene_rig *rig, scene_group *g) {
    static const char *const keys[] = {"group", "index", "priority", "loop", "stagger", "speed", "speed_jitter", NULL};
    TRY(check_object(c, jm, keys));
    const char *name;
    TRY(get_required_string(c, jm, "group", &name));
    int found = -1;
    for (uint32_t k = 0; k < rig->motion_group_count; k++)
        if (strcmp(rig->motion_group_names[k], name) == 0) found = (int)k;
    if (found < 0) {
        size_t o = push_key(c, "group");
        int st = fail(c, "%s has no Motions group \"%s\"", rig->model3, name);
        pop(c, o);
        return st;
    }
    uint32_t first = rig->motion_group_first[found], count = rig->motion_group_first[found + 1] - first;
    if (count == 0) {
        size_t o = push_key(c, "group");
        int st = fail(c, "Motions group \"%s\" of %s is empty", name, rig->model3);
        pop(c, o);
        return st;
    }
    const json_t *index = json_object_get(jm, "index");
    g->motion_first = first, g->motion_count = count, g->motion_random = false;
    if (json_is_string(index)) {
        if (strcmp(json_string_value(index), "random") != 0) {
            size_t o = push_key(c, "index");
            int st = fail(c, "\"%s\": expected an integer or \"random\"", json_string_value(index));
            pop(c, o);
            return st;
        }
        g->motion_random = true;
    } else {
        uint32_t k = 0;
        TRY(get_u32(c, jm, "index", 0, count - 1, &k));
        g->motion_first = first + k, g->motion_count = 1;
    }
    static const char *const priorities[] = {"idle", "normal", "force"};
    int pr = -1;
    TRY(get_enum(c, jm, "priority", priorities, 3, &pr));
    g->motion_priority = pr >= 0 ? (crowd_motion_priority)(CROWD_MOTION_PRIORITY_IDLE + pr) : CROWD_MOTION_PRIORITY_NORMAL;
    g->motion_loop = false, g->motion_stagger = 0, g->motion_speed = 1, g->motion_speed_jitter = 0;
    TRY(get_bool(c, jm, "loop", &g->motion_loop));
    TRY(get_float(c, jm, "stagger", 0, false, 3600, &g->motion_stagger));
    TRY(get_float(c, jm, "speed", 0, false, 1000, &g->motion_speed));
    TRY(get_float(c, jm, "speed_jitter", 0, false, 0.99f, &g->motion_speed_jitter));
    g->has_motion = true;
    return TOOL_OK;
}

/* A group's "expression": the name of one of the rig's model3 Expressions. */
static int read_group_expression(jctx *c, const json_t *jg, const scene_rig *rig, scene_group *g) {
    const char *name = NULL;
    TRY(get_string(c, jg, "expression", &name));
    if (!name) return TOOL_OK;
    size_t o = push_key(c, "expression");
    if (!rig->has_expression) {
        int st = fail(c, "rig \"%s\" has no \"expressions\"", rig->name);
        pop(c, o);
        return st;
    }
    for (uint32_t k = 0; k < rig->expression.expression_count; k++)
        if (strcmp(rig->expression_names[k], name) == 0) {
            g->has_expression = true, g->expression = k;
            pop(c, o);
            return TOOL_OK;
        }
    int st = fail(c, "%s has no expression \"%s\"", rig->model3, name);
    pop(c, o);
    return st;
}

static int read_group(jctx *c, const json_t *jg, scene_group *g) {
    static const char *const keys[] = {"rig", "count", "look", "harmonic_phase", "blink_start", "pose", "hands", "face",
                                       "place", "audio", "motion", "expression", NULL};
    TOOL_ENUM_NAMES(phases, harmonic_phase, crowd_harmonic_phase, 0, CROWD_HARMONIC_PHASE_COUNT);
    TOOL_ENUM_NAMES(starts, blink_start, crowd_blink_start, 0, CROWD_BLINK_START_COUNT);
    TRY(check_object(c, jg, keys));
    const char *rig_name = "hiyori";
    TRY(get_string(c, jg, "rig", &rig_name));
    int r = (int)name_index_find(&c->rig_names, rig_name);
    if (r < 0) {
        size_t o = push_key(c, "rig");
        int st = fail(c, "no rig is called \"%s\"", rig_name);
        pop(c, o);
        return st;
    }
    g->rig = (uint32_t)r;
    const scene_rig *rig = &c->s->rigs[r];
    g->count = 1;
    TRY(get_u32(c, jg, "count", 0, MAX_COUNT, &g->count));
    int k = -1;
    TRY(get_enum(c, jg, "harmonic_phase", phases, CROWD_HARMONIC_PHASE_COUNT, &k));
    g->harmonic_phase = k >= 0 ? (crowd_harmonic_phase)k : CROWD_HARMONIC_PHASE_ZERO;
    k = -1;
    TRY(get_enum(c, jg, "blink_start", starts, CROWD_BLINK_START_COUNT, &k));
    g->blink_start = k >= 0 ? (crowd_blink_start)k : CROWD_BLINK_START_RANDOM;
    const json_t *look, *pose, *place, *face;
    TRY(get_object(c, jg, "face", &face));
    TRY(get_object(c, jg, "look", &look));
    TRY(get_object(c, jg, "pose", &pose));
    TRY(get_object(c, jg, "place", &place));
    size_t o;
    if (place) {
        o = push_key(c, "place");
        TRY(read_place(c, place, g));
        pop(c, o);
    }
    if (look) {
        o = push_key(c, "look");
        if (!rig->rig_desc.look) return fail(c, "rig \"%s\" has no look controller", rig->name);
        TRY(read_group_look(c, look, g));
        pop(c, o);
    }
    if (pose) {
        o = push_key(c, "pose");
        if (!rig->rig_desc.limbs) return fail(c, "rig \"%s\" has no limbs", rig->name);
        TRY(read_pose(c, pose, g));
        pop(c, o);
    }
    const json_t *hands;
    TRY(get_object(c, jg, "hands", &hands));
    if (hands) {
        o = push_key(c, "hands");
        if (!rig->rig_desc.fingers) return fail(c, "rig \"%s\" has no fingers (a rig's \"fingers\" settings)", rig->name);
        TRY(read_group_hands(c, hands, rig, g));
        pop(c, o);
    }
    if (face) {
        o = push_key(c, "face");
        if (!rig->rig_desc.face) return fail(c, "rig \"%s\" has no face tracking", rig->name);
        TRY(read_group_face(c, face, g));
        pop(c, o);
    }
    const json_t *audio;
    TRY(get_object(c, jg, "audio", &audio));
    if (audio) {
        o = push_key(c, "audio");
        if (!rig->rig_desc.lipsync) return fail(c, "rig \"%s\" has no lip sync", rig->name);
        TRY(read_group_audio(c, audio, g));
        pop(c, o);
    }
    const json_t *motion;
    TRY(get_object(c, jg, "motion", &motion));
    if (motion) {
        o = push_key(c, "motion");
        if (!rig->has_motion) return fail(c, "rig \"%s\" has no \"motions\"", rig->name);
        TRY(read_group_motion(c, motion, rig, g));
        pop(c, o);
    }
    TRY(read_group_expression(c, jg, rig, g));
    return TOOL_OK;
}

/* ---- the document ---- */
static int read_scene(jctx *c, const json_t *root) {
    static const char *const keys[] = {"seed", "dt", "frames", "rigs", "groups", NULL};
    scene *s = c->s;
    TRY(check_object(c, root, keys));
    const json_t *seed = json_object_get(root, "seed");
    if (seed) {
        size_t o = push_key(c, "seed");
        if (!json_is_integer(seed) || json_integer_value(seed) < 0)
            return fail(c, "expected a non-negative integer");
        s->seed = (uint64_t)json_integer_value(seed);
        pop(c, o);
    }
    TRY(get_float(c, root, "dt", 0, false, 1, &s->dt));
    TRY(get_u32(c, root, "frames", 0, MAX_FRAMES, &s->frames));
    const json_t *rigs, *groups;
    TRY(get_array(c, root, "rigs", &rigs));
    TRY(get_array(c, root, "groups", &groups));
    size_t nr = rigs ? json_array_size(rigs) : 0, ng = groups ? json_array_size(groups) : 0;
    s->rigs = scene_alloc(s, nr, sizeof *s->rigs);
    s->groups = scene_alloc(s, ng, sizeof *s->groups);
    if (!s->rigs || !s->groups) return TOOL_FAILED;
    size_t o0 = push_key(c, "rigs");
    if (nr > CROWD_MAX_RIGS) return fail(c, "has %zu entries; at most %u (an engine's rig limit)", nr, CROWD_MAX_RIGS);
    for (size_t r = 0; r < nr; r++) {
        size_t o1 = push_index(c, r);
        TRY(read_rig(c, json_array_get(rigs, r), &s->rigs[r]));
        long q = name_index_add(&c->rig_names, s->rigs[r].name, (uint32_t)r);
        if (q == -2) return TOOL_FAILED;
        if (q >= 0) {
            size_t o2 = push_key(c, "name");
            int st = fail(c, "\"%s\" repeats rigs[%ld].name (rig names are unique)", s->rigs[r].name, q);
            pop(c, o2);
            return st;
        }
        s->rig_count = (uint32_t)(r + 1);
        pop(c, o1);
    }
    pop(c, o0);
    o0 = push_key(c, "groups");
    uint64_t total = 0;
    for (size_t g = 0; g < ng; g++) {
        size_t o1 = push_index(c, g);
        TRY(read_group(c, json_array_get(groups, g), &s->groups[g]));
        total += s->groups[g].count;
        if (total > MAX_COUNT) return fail(c, "the scene holds more than %u instances", MAX_COUNT);
        s->group_count = (uint32_t)(g + 1);
        pop(c, o1);
    }
    pop(c, o0);
    return TOOL_OK;
}

int scene_parse(const char *path, const char *text, size_t size, scene *s) {
    scene_init(s, path);
    jctx c = {.file = path, .s = s};
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path + 1) < sizeof c.dir) memcpy(c.dir, path, (size_t)(slash - path + 1));
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    s->inputs_first = tool_input_count();
    int st = read_scene(&c, root);
    s->inputs_count = tool_input_count() - s->inputs_first;
    name_index_free(&c.rig_names);
    name_index_free(&c.param_ids);
    json_decref(root);
    if (st != TOOL_OK) scene_free(s);
    return st;
}

int scene_load(const char *path, scene *s) {
    scene_init(s, path);
    char *text;
    size_t size;
    int st = tool_read_file(path, "scene", &text, &size);
    if (st != TOOL_OK) return st;
    st = scene_parse(path, text, size, s);
    free(text);
    return st;
}
