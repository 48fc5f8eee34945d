#include "physics3.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "json_type.h"

/* The reader's state: the file name, and the JSON path of the value being read. */
typedef struct reader {
    const char *file;
    char path[160];
} reader;

/* Appends ".key" or "[i]" to the path for the duration of one read; returns the old length. */
static size_t path_push(reader *r, const char *fmt, ...) TOOL_PRINTF(2, 3);
static size_t path_push(reader *r, const char *fmt, ...) {
    size_t len = strlen(r->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->path + len, sizeof r->path - len, fmt, ap);
    va_end(ap);
    if (len == 0 && r->path[0] == '.') memmove(r->path, r->path + 1, strlen(r->path));
    return len;
}
static void path_pop(reader *r, size_t len) { r->path[len] = '\0'; }

/* "file: path: <what>, found <value>" with the value as JSON (shortened). */
static int bad(reader *r, const json_t *v, const char *what) {
    if (!r->path[0]) return tool_error(TOOL_BAD_INPUT, "%s: %s", r->file, what);
    if (!v) return tool_error(TOOL_BAD_INPUT, "%s: %s: missing (%s)", r->file, r->path, what);
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    char shown[64];
    snprintf(shown, sizeof shown, "%s", text ? text : "?");
    if (text && strlen(text) >= sizeof shown) memcpy(shown + sizeof shown - 4, "...", 4);
    free(text);
    return tool_error(TOOL_BAD_INPUT, "%s: %s: %s, found %s (%s)", r->file, r->path, what, shown,
                      tool_json_type_name(v));
}

static int get_number(reader *r, const json_t *obj, const char *key, double lo, double hi, double *out) {
    size_t len = path_push(r, ".%s", key);
    const json_t *v = json_object_get(obj, key);
    int st = TOOL_OK;
    if (!v || !json_is_number(v)) {
        st = bad(r, v, "expected a number");
    } else {
        double x = json_number_value(v);
        if (!isfinite(x) || x < lo || x > hi) {
            char what[96];
            snprintf(what, sizeof what, "expected a finite number in [%g, %g]", lo, hi);
            st = bad(r, v, what);
        } else {
            *out = x;
        }
    }
    path_pop(r, len);
    return st;
}

/* An object member that must be an object (or, with optional, may be absent: *out = NULL). */
static int get_object(reader *r, const json_t *obj, const char *key, int optional, const json_t **out) {
    size_t len = path_push(r, ".%s", key);
    const json_t *v = json_object_get(obj, key);
    int st = TOOL_OK;
    *out = NULL;
    if (v && json_is_object(v)) *out = v;
    else if (v || !optional) st = bad(r, v, "expected an object");
    path_pop(r, len);
    return st;
}

static int get_array(reader *r, const json_t *obj, const char *key, size_t max, const json_t **out) {
    size_t len = path_push(r, ".%s", key);
    const json_t *v = json_object_get(obj, key);
    int st = TOOL_OK;
    if (!v || !json_is_array(v)) {
        st = bad(r, v, "expected an array");
    } else if (json_array_size(v) > max) {
        st = tool_error(TOOL_BAD_INPUT, "%s: %s: %zu entries, at most %zu allowed", r->file, r->path,
                        json_array_size(v), max);
    } else {
        *out = v;
    }
    path_pop(r, len);
    return st;
}

static int get_bool(reader *r, const json_t *obj, const char *key, int *out) {
    size_t len = path_push(r, ".%s", key);
    const json_t *v = json_object_get(obj, key);
    int st = TOOL_OK;
    if (!v) *out = 0; /* the framework reads an absent Reflect as false */
    else if (json_is_boolean(v)) *out = json_is_true(v);
    else st = bad(r, v, "expected true or false");
    path_pop(r, len);
    return st;
}

static int get_type(reader *r, const json_t *obj, crowd_physics_type *out) {
    size_t len = path_push(r, ".Type");
    const json_t *v = json_object_get(obj, "Type");
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    int st = TOOL_OK;
    if (strcmp(s, "X") == 0) *out = CROWD_PHYSICS_X;
    else if (strcmp(s, "Y") == 0) *out = CROWD_PHYSICS_Y;
    else if (strcmp(s, "Angle") == 0) *out = CROWD_PHYSICS_ANGLE;
    else st = bad(r, v, "expected \"X\", \"Y\" or \"Angle\"");
    path_pop(r, len);
    return st;
}

/* Source / Destination: {"Target": "Parameter", "Id": "..."}; the id's text (in the JSON). */
static int get_target(reader *r, const json_t *obj, const char *key, const char **id) {
    const json_t *t;
    int st = get_object(r, obj, key, 0, &t);
    if (st != TOOL_OK) return st;
    size_t len = path_push(r, ".%s", key);
    const json_t *target = json_object_get(t, "Target"), *v = json_object_get(t, "Id");
    size_t inner = path_push(r, ".Target");
    if (target && !(json_is_string(target) && strcmp(json_string_value(target), "Parameter") == 0))
        st = bad(r, target, "expected \"Parameter\" (the only target the framework knows)");
    path_pop(r, inner);
    if (st == TOOL_OK) {
        path_push(r, ".Id");
        if (!json_is_string(v) || !json_string_value(v)[0]) st = bad(r, v, "expected a non-empty parameter id");
        else *id = json_string_value(v);
    }
    path_pop(r, len);
    return st;
}

static int get_range(reader *r, const json_t *norm, const char *key, crowd_physics_range *out) {
    const json_t *o;
    int st = get_object(r, norm, key, 0, &o);
    if (st != TOOL_OK) return st;
    size_t len = path_push(r, ".%s", key);
    if (st == TOOL_OK) st = get_number(r, o, "Minimum", -HUGE_VAL, HUGE_VAL, &out->minimum);
    if (st == TOOL_OK) st = get_number(r, o, "Default", -HUGE_VAL, HUGE_VAL, &out->default_value);
    if (st == TOOL_OK) st = get_number(r, o, "Maximum", -HUGE_VAL, HUGE_VAL, &out->maximum);
    if (st == TOOL_OK && out->minimum > out->maximum)
        st = tool_error(TOOL_BAD_INPUT, "%s: %s: Minimum %g is above Maximum %g", r->file, r->path, out->minimum,
                        out->maximum);
    path_pop(r, len);
    return st;
}

static int get_count(reader *r, const json_t *meta, const char *key, size_t actual) {
    size_t len = path_push(r, ".%s", key);
    const json_t *v = json_object_get(meta, key);
    int st = TOOL_OK;
    if (v && !(json_is_integer(v) && json_integer_value(v) >= 0 && (size_t)json_integer_value(v) == actual)) {
        char what[96];
        snprintf(what, sizeof what, "expected %zu (what PhysicsSettings hold)", actual);
        st = bad(r, v, what);
    }
    path_pop(r, len);
    return st;
}

static void physics3_release(physics3 *p) {
    free(p->subrigs);
    free(p->inputs);
    free(p->outputs);
    free(p->particles);
    free(p->ids);
    memset(p, 0, sizeof *p);
}

void physics3_free(physics3 *p) {
    if (p) physics3_release(p);
}

/* Fills p from root (sizes already counted); ids still point into the JSON. */
static int read_settings(reader *r, const json_t *settings, physics3 *p) {
    uint32_t ni = 0, no = 0, np = 0;
    size_t s;
    const json_t *set;
    json_array_foreach(settings, s, set) {
        size_t at = path_push(r, "[%zu]", s);
        int st = TOOL_OK;
        crowd_physics_subrig *sub = &p->subrigs[s];
        const json_t *in = json_object_get(set, "Input"), *out = json_object_get(set, "Output");
        const json_t *verts = json_object_get(set, "Vertices"), *norm;
        st = get_object(r, set, "Normalization", 0, &norm);
        size_t len;
        if (st == TOOL_OK) {
            len = path_push(r, ".Normalization");
            st = get_range(r, norm, "Position", &sub->position);
            if (st == TOOL_OK) st = get_range(r, norm, "Angle", &sub->angle);
            path_pop(r, len);
        }
        sub->input_first = ni;
        sub->input_count = (uint32_t)json_array_size(in);
        for (size_t k = 0; st == TOOL_OK && k < json_array_size(in); k++) {
            len = path_push(r, ".Input[%zu]", k);
            const json_t *e = json_array_get(in, k);
            crowd_physics_input *x = &p->inputs[ni++];
            if (!json_is_object(e)) st = bad(r, e, "expected an object");
            if (st == TOOL_OK) st = get_target(r, e, "Source", &x->parameter);
            if (st == TOOL_OK) st = get_number(r, e, "Weight", 0, 100, &x->weight);
            if (st == TOOL_OK) st = get_type(r, e, &x->type);
            if (st == TOOL_OK) st = get_bool(r, e, "Reflect", &x->reflect);
            path_pop(r, len);
        }
        sub->particle_first = np;
        sub->particle_count = (uint32_t)json_array_size(verts);
        if (st == TOOL_OK && sub->particle_count == 0) {
            len = path_push(r, ".Vertices");
            st = bad(r, verts, "expected at least one vertex");
            path_pop(r, len);
        }
        for (size_t k = 0; st == TOOL_OK && k < sub->particle_count; k++) {
            len = path_push(r, ".Vertices[%zu]", k);
            const json_t *e = json_array_get(verts, k), *pos;
            crowd_physics_particle *x = &p->particles[np++];
            if (!json_is_object(e)) st = bad(r, e, "expected an object");
            if (st == TOOL_OK) st = get_number(r, e, "Mobility", 0, HUGE_VAL, &x->mobility);
            if (st == TOOL_OK) st = get_number(r, e, "Delay", 0, HUGE_VAL, &x->delay);
            if (st == TOOL_OK) st = get_number(r, e, "Acceleration", -HUGE_VAL, HUGE_VAL, &x->acceleration);
            /* past the first particle, a radius of 0 makes the chain's direction 0/0 */
            if (st == TOOL_OK)
                st = get_number(r, e, "Radius", k == 0 ? 0.0 : 0x1p-20, HUGE_VAL, &x->radius);
            if (st == TOOL_OK) st = get_object(r, e, "Position", 0, &pos);
            if (st == TOOL_OK) {
                size_t l2 = path_push(r, ".Position");
                st = get_number(r, pos, "X", -HUGE_VAL, HUGE_VAL, &x->position[0]);
                if (st == TOOL_OK) st = get_number(r, pos, "Y", -HUGE_VAL, HUGE_VAL, &x->position[1]);
                path_pop(r, l2);
            }
            path_pop(r, len);
        }
        sub->output_first = no;
        sub->output_count = (uint32_t)json_array_size(out);
        for (size_t k = 0; st == TOOL_OK && k < sub->output_count; k++) {
            len = path_push(r, ".Output[%zu]", k);
            const json_t *e = json_array_get(out, k);
            crowd_physics_output *x = &p->outputs[no++];
            if (!json_is_object(e)) st = bad(r, e, "expected an object");
            if (st == TOOL_OK) st = get_target(r, e, "Destination", &x->parameter);
            if (st == TOOL_OK) {
                double v;
                st = get_number(r, e, "VertexIndex", 1, (double)sub->particle_count - 1, &v);
                if (st == TOOL_OK && v != floor(v)) {
                    path_push(r, ".VertexIndex");
                    st = bad(r, json_object_get(e, "VertexIndex"), "expected a whole vertex index");
                }
                x->vertex = (uint32_t)v;
            }
            if (st == TOOL_OK) st = get_number(r, e, "Scale", -HUGE_VAL, HUGE_VAL, &x->scale);
            if (st == TOOL_OK) st = get_number(r, e, "Weight", 0, 100, &x->weight);
            if (st == TOOL_OK) st = get_type(r, e, &x->type);
            if (st == TOOL_OK) st = get_bool(r, e, "Reflect", &x->reflect);
            path_pop(r, len);
        }
        path_pop(r, at);
        if (st != TOOL_OK) return st;
    }
    return TOOL_OK;
}

/* Copies every id into one block and points the inputs and outputs at it. */
static int own_ids(physics3 *p) {
    size_t total = 1;
    for (uint32_t i = 0; i < p->desc.input_count; i++) total += strlen(p->inputs[i].parameter) + 1;
    for (uint32_t i = 0; i < p->desc.output_count; i++) total += strlen(p->outputs[i].parameter) + 1;
    char *at = p->ids = tool_malloc(total);
    if (!at) return TOOL_FAILED;
    for (uint32_t i = 0; i < p->desc.input_count; i++) {
        size_t n = strlen(p->inputs[i].parameter) + 1;
        memcpy(at, p->inputs[i].parameter, n);
        p->inputs[i].parameter = at;
        at += n;
    }
    for (uint32_t i = 0; i < p->desc.output_count; i++) {
        size_t n = strlen(p->outputs[i].parameter) + 1;
        memcpy(at, p->outputs[i].parameter, n);
        p->outputs[i].parameter = at;
        at += n;
    }
    return TOOL_OK;
}

static int parse_root(reader *r, const json_t *root, physics3 *p) {
    const json_t *meta, *settings, *forces;
    if (!json_is_object(root)) return bad(r, root, "expected a JSON object (a .physics3.json)");
    int st = get_object(r, root, "Meta", 0, &meta);
    if (st == TOOL_OK) st = get_array(r, root, "PhysicsSettings", CROWD_PHYSICS_MAX_SUBRIGS, &settings);
    if (st != TOOL_OK) return st;

    /* Sizes first (each array's shape checked), so that nothing is allocated for a bad file. */
    size_t ni = 0, no = 0, np = 0, s;
    const json_t *set;
    json_array_foreach(settings, s, set) {
        size_t at = path_push(r, ".PhysicsSettings[%zu]", s);
        const json_t *a;
        if (!json_is_object(set)) st = bad(r, set, "expected an object");
        if (st == TOOL_OK) st = get_array(r, set, "Input", CROWD_PHYSICS_MAX_INPUTS, &a);
        if (st == TOOL_OK) ni += json_array_size(a);
        if (st == TOOL_OK) st = get_array(r, set, "Output", CROWD_PHYSICS_MAX_OUTPUTS, &a);
        if (st == TOOL_OK) no += json_array_size(a);
        if (st == TOOL_OK) st = get_array(r, set, "Vertices", CROWD_PHYSICS_MAX_PARTICLES, &a);
        if (st == TOOL_OK) np += json_array_size(a);
        path_pop(r, at);
        if (st != TOOL_OK) return st;
    }

    size_t len = path_push(r, ".Meta");
    double fps = 0;
    if (json_object_get(meta, "Fps")) st = get_number(r, meta, "Fps", 0, CROWD_PHYSICS_MAX_FPS, &fps);
    if (st == TOOL_OK) st = get_count(r, meta, "PhysicsSettingCount", json_array_size(settings));
    if (st == TOOL_OK) st = get_count(r, meta, "TotalInputCount", ni);
    if (st == TOOL_OK) st = get_count(r, meta, "TotalOutputCount", no);
    if (st == TOOL_OK) st = get_count(r, meta, "VertexCount", np);
    if (st == TOOL_OK) st = get_object(r, meta, "EffectiveForces", 1, &forces);
    double gravity[2] = {0, 0}, wind[2] = {0, 0};
    if (st == TOOL_OK && forces) {
        size_t l2 = path_push(r, ".EffectiveForces");
        const char *names[2] = {"Gravity", "Wind"};
        double *dst[2] = {gravity, wind};
        for (int k = 0; k < 2 && st == TOOL_OK; k++) {
            const json_t *v;
            st = get_object(r, forces, names[k], 1, &v);
            if (st != TOOL_OK || !v) continue;
            size_t l3 = path_push(r, ".%s", names[k]);
            st = get_number(r, v, "X", -HUGE_VAL, HUGE_VAL, &dst[k][0]);
            if (st == TOOL_OK) st = get_number(r, v, "Y", -HUGE_VAL, HUGE_VAL, &dst[k][1]);
            path_pop(r, l3);
        }
        path_pop(r, l2);
    }
    path_pop(r, len);
    if (st != TOOL_OK) return st;

    p->subrigs = tool_calloc(json_array_size(settings) + 1, sizeof *p->subrigs);
    p->inputs = tool_calloc(ni + 1, sizeof *p->inputs);
    p->outputs = tool_calloc(no + 1, sizeof *p->outputs);
    p->particles = tool_calloc(np + 1, sizeof *p->particles);
    if (!p->subrigs || !p->inputs || !p->outputs || !p->particles) return TOOL_FAILED;
    /* the controller's settings at their defaults (the framework's Options): EffectiveForces is
     * kept beside the desc, read and unused as the framework leaves it */
    p->desc = crowd_physics_defaults();
    p->desc.subrig_count = (uint32_t)json_array_size(settings);
    p->desc.input_count = (uint32_t)ni;
    p->desc.output_count = (uint32_t)no;
    p->desc.particle_count = (uint32_t)np;
    p->desc.fps = (float)fps;
    p->effective_gravity[0] = gravity[0], p->effective_gravity[1] = gravity[1];
    p->effective_wind[0] = wind[0], p->effective_wind[1] = wind[1];
    len = path_push(r, ".PhysicsSettings");
    st = read_settings(r, settings, p);
    path_pop(r, len);
    if (st == TOOL_OK) st = own_ids(p);
    if (st == TOOL_OK) {
        p->desc.subrigs = p->subrigs;
        p->desc.inputs = p->inputs;
        p->desc.outputs = p->outputs;
        p->desc.particles = p->particles;
    }
    return st;
}

int physics3_parse(const char *path, const char *text, size_t size, physics3 *out) {
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        if (err.line < 0) return tool_error(TOOL_BAD_INPUT, "%s: %s", path, err.text);
        return tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", path, err.line, err.column, err.text);
    }
    reader r = {.file = path, .path = ""};
    physics3 p;
    memset(&p, 0, sizeof p);
    int st = parse_root(&r, root, &p);
    json_decref(root);
    if (st != TOOL_OK) {
        physics3_release(&p);
        return st;
    }
    *out = p;
    return TOOL_OK;
}

int physics3_read(const char *path, physics3 *out) {
    char *text;
    size_t size;
    int st = tool_read_file(path, ".physics3.json", &text, &size);
    if (st != TOOL_OK) return st;
    st = physics3_parse(path, text, size, out);
    free(text);
    return st;
}
