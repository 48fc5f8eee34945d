/* The WebAssembly module's C side: what crowd.js calls besides the crowd_* functions it
 * exports as they are. Structs passed by value (crowd_rig, crowd_instance) cross as a rig id
 * and a pointer to handles in the module's memory; a rig desc is built up field by field
 * (cw_rig_*), so JavaScript never lays out C structs; and the command's default crowd (scene,
 * per-frame feeding and checksum) runs from the io library (crowd_io.h), the command's own code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "crowd.h"
#include "crowd_io.h"
#include "crowd_settings.h"

crowd_result cw_engine_create(double seed, int simd, uint32_t initial_capacity, crowd_engine **out) {
    crowd_engine_desc d = {0};
    d.seed = seed >= 0 && seed < 18446744073709551616.0 ? (uint64_t)seed : 0;
    d.simd = (crowd_simd)simd;
    d.initial_capacity = initial_capacity;
    return crowd_engine_create(&d, out);
}

/* ---- rigs, built field by field ---- */
typedef struct cw_rig_builder {
    char *name;
    crowd_parameter_desc *parameters;
    uint32_t parameter_count;
    bool has_look, has_harmonic, has_blink, has_limbs, has_face, face_mapping_given;
    crowd_look_desc look;
    crowd_look_parameter_desc *look_parameters;
    crowd_harmonic_desc harmonic;
    crowd_harmonic_parameter_desc *harmonic_parameters;
    float channel_timescales[CROWD_MAX_CHANNELS];
    crowd_blink_desc blink;
    const char **blink_parameters;
    crowd_limbs_desc limbs;
    crowd_face_desc face;
    crowd_face_mapping_desc *face_mapping; /* the entries given (face_mapping_given), else none */
    char **strings; /* every id copied in */
    uint32_t string_count;
} cw_rig_builder;

static char *keep(cw_rig_builder *b, const char *s) {
    char **grown = realloc(b->strings, sizeof *grown * (b->string_count + 1));
    if (!grown) return NULL;
    b->strings = grown;
    char *copy = strdup(s ? s : "");
    if (copy) b->strings[b->string_count++] = copy;
    return copy;
}

/* Appends one zeroed element to *array (count elements of size bytes); NULL out of memory. */
static void *append(void *array_ptr, uint32_t count, size_t size) {
    void **array = array_ptr;
    unsigned char *grown = realloc(*array, size * (count + 1));
    if (!grown) return NULL;
    *array = grown;
    memset(grown + size * count, 0, size);
    return grown + size * count;
}

cw_rig_builder *cw_rig_new(const char *name) {
    cw_rig_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->look = crowd_look_defaults();
    b->harmonic = crowd_harmonic_defaults();
    b->blink = crowd_blink_defaults();
    b->limbs = crowd_limbs_defaults();
    b->face = crowd_face_defaults(); /* the standard mapping unless entries are given */
    if (name && !(b->name = keep(b, name))) {
        free(b);
        return NULL;
    }
    return b;
}

void cw_rig_free(cw_rig_builder *b) {
    if (!b) return;
    for (uint32_t k = 0; k < b->string_count; k++) free(b->strings[k]);
    free(b->strings);
    free(b->parameters);
    free(b->look_parameters);
    free(b->harmonic_parameters);
    free((void *)b->blink_parameters);
    free(b->face_mapping);
    free(b);
}

/* 0 or -1 (out of memory). */
int cw_rig_parameter(cw_rig_builder *b, const char *id, float min, float max, float default_value, int repeat) {
    const char *copy = keep(b, id);
    crowd_parameter_desc *p = copy ? append(&b->parameters, b->parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = (crowd_parameter_desc){copy, min, max, default_value, repeat != 0};
    b->parameter_count++;
    return 0;
}

/* An enum from a JavaScript number: out of int range is an invalid value the engine refuses. */
static int as_enum(double v) { return v >= -1e9 && v <= 1e9 ? (int)v : -1; }

int cw_rig_look_parameter(cw_rig_builder *b, const char *id, double axis, float factor) {
    const char *copy = keep(b, id);
    crowd_look_parameter_desc *p = copy ? append(&b->look_parameters, b->look.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = (crowd_look_parameter_desc){copy, (crowd_axis)as_enum(axis), factor};
    b->look.parameter_count++;
    b->has_look = true;
    return 0;
}

int cw_rig_harmonic_parameter(cw_rig_builder *b, const char *id, double channel, double direction, float origin,
                              float range, float duration) {
    const char *copy = keep(b, id);
    crowd_harmonic_parameter_desc *p =
        copy ? append(&b->harmonic_parameters, b->harmonic.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = crowd_harmonic_parameter_defaults(copy);
    p->channel = channel >= 0 && channel <= 4294967295.0 ? (uint32_t)channel : UINT32_MAX;
    p->direction = (crowd_direction)as_enum(direction);
    p->origin = origin;
    p->range = range;
    p->duration = duration;
    b->harmonic.parameter_count++;
    b->has_harmonic = true;
    return 0;
}

/* 0, or -1 beyond CROWD_MAX_CHANNELS channels. */
int cw_rig_harmonic_channel(cw_rig_builder *b, float timescale) {
    if (b->harmonic.channel_count >= CROWD_MAX_CHANNELS) return -1;
    b->channel_timescales[b->harmonic.channel_count++] = timescale;
    b->has_harmonic = true;
    return 0;
}

int cw_rig_blink_parameter(cw_rig_builder *b, const char *id) {
    const char *copy = keep(b, id);
    const char **p = copy ? append(&b->blink_parameters, b->blink.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = copy;
    b->blink.parameter_count++;
    b->has_blink = true;
    return 0;
}

/* Gives the face its own mapping (entries follow with cw_rig_face_mapping) instead of the
 * standard one. */
void cw_rig_face_mapping_clear(cw_rig_builder *b) {
    b->face.mapping_count = 0;
    b->face_mapping_given = true;
    b->has_face = true;
}

/* One face mapping entry; the first replaces the standard mapping. 0 or -1 (out of memory). */
int cw_rig_face_mapping(cw_rig_builder *b, double source, const char *id, float gain, float offset, double curve) {
    const char *copy = keep(b, id);
    uint32_t count = b->face_mapping_given ? b->face.mapping_count : 0;
    crowd_face_mapping_desc *m = copy ? append(&b->face_mapping, count, sizeof *m) : NULL;
    if (!m) return -1;
    *m = (crowd_face_mapping_desc){(crowd_face_source)as_enum(source), copy, gain, offset,
                                   (crowd_face_curve)as_enum(curve)};
    b->face.mapping_count = count + 1;
    b->face_mapping_given = true;
    b->has_face = true;
    return 0;
}

/* Turns a controller on ("look", "harmonic", "blink", "limbs", "face"): 0, or -1 for another name. */
int cw_rig_enable(cw_rig_builder *b, const char *controller) {
    if (strcmp(controller, "look") == 0) b->has_look = true;
    else if (strcmp(controller, "harmonic") == 0) b->has_harmonic = true;
    else if (strcmp(controller, "blink") == 0) b->has_blink = true;
    else if (strcmp(controller, "limbs") == 0) b->has_limbs = true;
    else if (strcmp(controller, "face") == 0) b->has_face = true;
    else return -1;
    return 0;
}

/* The desc of a controller by its name, and its presence flag; NULL for another name. */
static unsigned char *controller_desc(cw_rig_builder *b, const char *controller, size_t length, bool **on) {
#define C(name, desc, flag) \
    if (length == sizeof name - 1 && strncmp(controller, name, length) == 0) return *on = &b->flag, (unsigned char *)&b->desc;
    C("look", look, has_look)
    C("harmonic", harmonic, has_harmonic)
    C("blink", blink, has_blink)
    C("limbs", limbs, has_limbs)
    C("face", face, has_face)
#undef C
    return NULL;
}

_Static_assert(sizeof(crowd_blend) == sizeof(int), "crowd.h's enums are stored as int");

/* The storage of one setting by its name ("look.damping", "limbs.bend_min", ...; crowd_settings.h,
 * generated from crowd.h, lists them), its kind in *kind; NULL for an unknown name. */
static unsigned char *setting_field(cw_rig_builder *b, const char *key, cw_setting_kind *kind, bool **on) {
    const char *dot = strchr(key, '.');
    if (!dot) return NULL;
    unsigned char *desc = controller_desc(b, key, (size_t)(dot - key), on);
    if (!desc) return NULL;
    for (size_t k = 0; k < sizeof cw_settings / sizeof *cw_settings; k++) {
        const cw_setting *s = &cw_settings[k];
        if (strncmp(s->controller, key, (size_t)(dot - key)) != 0 || s->controller[dot - key] != '\0' ||
            strcmp(s->name, dot + 1) != 0)
            continue;
        *kind = s->kind;
        return desc + s->offset;
    }
    return NULL;
}

/* One setting by its name: 0, or -1 for an unknown name. Values are checked by crowd_rig_create,
 * which names the field; a number an integer setting cannot hold becomes one it refuses
 * (crowd.js checks integers first; a uint64 beyond 2^53 comes through cw_rig_setting_u64). */
int cw_rig_setting(cw_rig_builder *b, const char *key, double value) {
    cw_setting_kind kind;
    bool *on = NULL;
    unsigned char *field = setting_field(b, key, &kind, &on);
    if (!field) return -1;
    switch (kind) {
    case CW_FLOAT: { float v = (float)value; memcpy(field, &v, sizeof v); break; }
    case CW_BOOL: { bool v = value != 0; memcpy(field, &v, sizeof v); break; }
    case CW_U32: {
        uint32_t v = value >= 0 && value <= 4294967295.0 ? (uint32_t)value : UINT32_MAX;
        memcpy(field, &v, sizeof v);
        break;
    }
    case CW_U64: {
        uint64_t v = value >= 0 && value < 18446744073709551616.0 ? (uint64_t)value : UINT64_MAX;
        memcpy(field, &v, sizeof v);
        break;
    }
    case CW_ENUM: { int v = as_enum(value); memcpy(field, &v, sizeof v); break; }
    }
    *on = true;
    return 0;
}

/* A uint64 setting from its two 32-bit halves, low first (a double holds only 53 bits, and a
 * face mask has 55): 0, or -1 for an unknown name or one that is not a uint64. */
int cw_rig_setting_u64(cw_rig_builder *b, const char *key, uint32_t low, uint32_t high) {
    cw_setting_kind kind;
    bool *on = NULL;
    unsigned char *field = setting_field(b, key, &kind, &on);
    if (!field || kind != CW_U64) return -1;
    uint64_t v = (uint64_t)high << 32 | low;
    memcpy(field, &v, sizeof v);
    *on = true;
    return 0;
}

crowd_result cw_rig_create(crowd_engine *engine, cw_rig_builder *b, uint32_t *out_rig) {
    if (!b || !out_rig) return CROWD_ERR_NULL;
    crowd_look_desc look = b->look;
    look.parameters = b->look_parameters;
    crowd_harmonic_desc harmonic = b->harmonic;
    harmonic.parameters = b->harmonic_parameters;
    harmonic.channel_timescales = harmonic.channel_count ? b->channel_timescales : NULL;
    crowd_blink_desc blink = b->blink;
    blink.parameters = b->blink_parameters;
    crowd_face_desc face = b->face;
    if (b->face_mapping_given) face.mapping = b->face_mapping;
    crowd_rig_desc d = {
        .name = b->name,
        .parameters = b->parameters,
        .parameter_count = b->parameter_count,
        .look = b->has_look ? &look : NULL,
        .harmonic = b->has_harmonic ? &harmonic : NULL,
        .blink = b->has_blink ? &blink : NULL,
        .limbs = b->has_limbs ? &b->limbs : NULL,
        .face = b->has_face ? &face : NULL,
    };
    crowd_rig rig = {0};
    crowd_result res = crowd_rig_create(engine, &d, &rig);
    *out_rig = rig.id;
    return res;
}

/* ---- the calls that take a rig or an instance by value ---- */
static crowd_rig rig_of(uint32_t id) { return (crowd_rig){id}; }

crowd_result cw_rig_parameter_index(const crowd_engine *e, uint32_t rig, const char *id, uint32_t *out) {
    return crowd_rig_parameter_index(e, rig_of(rig), id, out);
}
uint32_t cw_rig_parameter_count(const crowd_engine *e, uint32_t rig) { return crowd_rig_parameter_count(e, rig_of(rig)); }
uint32_t cw_rig_instance_count(const crowd_engine *e, uint32_t rig) { return crowd_rig_instance_count(e, rig_of(rig)); }
uint32_t cw_rig_running_count(const crowd_engine *e, uint32_t rig) { return crowd_rig_running_count(e, rig_of(rig)); }
crowd_result cw_reserve(crowd_engine *e, uint32_t rig, uint32_t capacity) { return crowd_reserve(e, rig_of(rig), capacity); }

crowd_result cw_instances_add(crowd_engine *e, uint32_t rig, uint32_t count, int blink_start, int harmonic_phase,
                              crowd_instance *out) {
    crowd_add_desc d = {rig_of(rig), count, (crowd_blink_start)blink_start, (crowd_harmonic_phase)harmonic_phase};
    return crowd_instances_add(e, &d, out);
}

crowd_result cw_rig_column(crowd_engine *e, uint32_t rig, int field, uint32_t index, uint32_t component,
                           float **out_values, uint32_t *out_count) {
    return crowd_rig_column(e, rig_of(rig), (crowd_field)field, index, component, out_values, out_count);
}

crowd_result cw_rig_handles(const crowd_engine *e, uint32_t rig, const crowd_instance **out, uint32_t *count) {
    return crowd_rig_handles(e, rig_of(rig), out, count);
}

crowd_result cw_tick_range(crowd_engine *e, float dt, uint32_t rig, uint32_t first, uint32_t count) {
    return crowd_tick_range(e, dt, rig_of(rig), first, count);
}

crowd_result cw_get_outputs(const crowd_engine *e, const crowd_instance *h, float *out, uint32_t capacity) {
    return h ? crowd_get_outputs(e, *h, out, capacity) : CROWD_ERR_NULL;
}

crowd_result cw_instance_info(const crowd_engine *e, const crowd_instance *h, uint32_t *out_rig, uint32_t *out_row) {
    if (!h || !out_rig || !out_row) return CROWD_ERR_NULL;
    uint64_t id;
    crowd_rig rig = {0};
    crowd_result res = crowd_instance_info(e, *h, &id, &rig, out_row);
    *out_rig = rig.id;
    return res;
}

crowd_result cw_instance_paused(const crowd_engine *e, const crowd_instance *h, uint32_t *out_paused) {
    if (!h || !out_paused) return CROWD_ERR_NULL;
    bool paused = false;
    crowd_result res = crowd_instance_paused(e, *h, &paused);
    *out_paused = paused;
    return res;
}

crowd_result cw_rig_bytes_per_instance(const crowd_engine *e, uint32_t rig, size_t *out_bytes) {
    return crowd_rig_bytes_per_instance(e, rig_of(rig), out_bytes);
}

/* The digest as two 32-bit halves, low first (JavaScript reads it as a BigInt). */
crowd_result cw_rig_settings_digest(const crowd_engine *e, uint32_t rig, uint32_t *out) {
    uint64_t digest = 0;
    crowd_result res = crowd_rig_settings_digest(e, rig_of(rig), &digest);
    if (out) out[0] = (uint32_t)digest, out[1] = (uint32_t)(digest >> 32);
    return res;
}

crowd_result cw_rig_rest_pose(crowd_engine *e, uint32_t rig, float *world, float *local) {
    return crowd_rig_rest_pose(e, rig_of(rig), (crowd_quat *)world, (crowd_quat *)local);
}

crowd_result cw_instance_random(crowd_engine *e, const crowd_instance *h, uint32_t count, float *out) {
    return h ? crowd_instance_random(e, *h, count, out) : CROWD_ERR_NULL;
}

void cw_rest_landmarks(int frame, float *out) { crowd_rest_landmarks((crowd_pose_frame)frame, out); }

/* ---- the command's default crowd (crowd_io.h) ---- */
typedef struct cw_default {
    crowd_io_scene *scene;
    crowd_io_world *world;
} cw_default;

/* Instances first .. first + count - 1 of the default crowd (10,000 avatars: `crowd run`
 * without a scene), in an engine of its own on target simd. 0 (CROWD_IO_OK), or the io library's
 * status with the message printed to standard error (the module's printErr). */
int cw_default_create_threads(uint32_t first, uint32_t count, int simd, uint32_t threads, cw_default **out);
int cw_default_create(uint32_t first, uint32_t count, int simd, cw_default **out) {
    return cw_default_create_threads(first, count, simd, 1, out);
}

/* The same with an engine of `threads` threads (crowd_tick splits the rows over them; the
 * threaded module only: the other reports CROWD_IO_FAILED with the engine's CROWD_ERR_THREAD). */
int cw_default_create_threads(uint32_t first, uint32_t count, int simd, uint32_t threads, cw_default **out) {
    *out = NULL;
    if (first > CROWD_IO_DEFAULT_CROWD_INSTANCES || count > CROWD_IO_DEFAULT_CROWD_INSTANCES - first) {
        char message[160];
        snprintf(message, sizeof message, "defaultCrowd: instances %u .. %u are outside the default crowd's 0 .. %u",
                 first, first + count - 1, CROWD_IO_DEFAULT_CROWD_INSTANCES - 1);
        return crowd_io_error(CROWD_IO_BAD_INPUT, message);
    }
    cw_default *d = calloc(1, sizeof *d);
    if (!d) return crowd_io_error(CROWD_IO_FAILED, "out of memory");
    int st = crowd_io_default_crowd(&d->scene);
    if (st == CROWD_IO_OK) st = crowd_io_world_create_range(d->scene, (crowd_simd)simd, threads, first, count, &d->world);
    if (st != CROWD_IO_OK) {
        crowd_io_scene_free(d->scene);
        free(d);
        return st;
    }
    *out = d;
    return CROWD_IO_OK;
}

void cw_default_destroy(cw_default *d) {
    if (!d) return;
    crowd_io_world_destroy(d->world);
    crowd_io_scene_free(d->scene);
    free(d);
}

crowd_engine *cw_default_engine(cw_default *d) { return crowd_io_world_engine(d->world); }
uint32_t cw_default_rig(cw_default *d) { return crowd_io_world_rig(d->world, 0).id; }
uint32_t cw_default_frames(cw_default *d) { return crowd_io_scene_frames(d->scene); }
float cw_default_dt(cw_default *d) { return crowd_io_scene_dt(d->scene); }
/* Before tick k (1, 2, ...): the look keys and walk rows in effect (crowd_io_world_prepare_frame). */
void cw_default_prepare(cw_default *d, uint32_t k, float dt) { crowd_io_world_prepare_frame(d->world, k, dt); }
/* The run checksum of the outputs now, as two 32-bit halves (low first). */
void cw_default_checksum(cw_default *d, uint32_t *out) {
    uint64_t sum = crowd_io_world_checksum(d->world);
    out[0] = (uint32_t)sum;
    out[1] = (uint32_t)(sum >> 32);
}
