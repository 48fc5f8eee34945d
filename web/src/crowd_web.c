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
    /* Live2D controllers and fingers: arrays grow while JavaScript adds entries, so entries
     * refer to each other by index here and cw_rig_create builds the pointers. */
    bool has_physics, has_lipsync, has_pose, has_expression, has_fingers, has_motion;
    crowd_physics_desc physics;
    crowd_physics_subrig *physics_subrigs;
    crowd_physics_input *physics_inputs;
    crowd_physics_output *physics_outputs;
    crowd_physics_particle *physics_particles;
    crowd_lipsync_desc lipsync;
    const char **lipsync_parameters;
    crowd_pose_desc pose;
    uint32_t *pose_group_first;   /* [group_count]: the group's first part */
    crowd_pose_part_desc *pose_parts; /* links: link_count set, links NULL until create */
    uint32_t pose_part_count, *pose_link_first;
    const char **pose_links;
    uint32_t pose_link_count;
    crowd_expression_desc expression;
    crowd_expression_item_desc *expression_items; /* parameters NULL until create */
    uint32_t *expression_first;
    crowd_expression_parameter_desc *expression_parameters;
    uint32_t expression_parameter_count;
    crowd_fingers_desc fingers;
    crowd_quat finger_custom_fix[CROWD_FINGER_BONE_COUNT], finger_bind_rotations[CROWD_FINGER_BONE_COUNT];
    float finger_bind_landmarks[2 * CROWD_HAND_FLOATS];
    crowd_motion_desc motion;
    crowd_motion_clip *motion_clips; /* each clip's arrays malloc'd on their own */
    const char **motion_eye_blink, **motion_lip_sync;
    uint32_t *motion_idle;
    crowd_lod_interval lod_interval;
    uint64_t lod_every_tick;
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
    b->physics = crowd_physics_defaults();
    b->lipsync = crowd_lipsync_defaults();
    b->pose = crowd_pose_defaults();
    b->expression = crowd_expression_defaults();
    b->fingers = crowd_fingers_defaults();
    b->motion = crowd_motion_defaults();
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
    free(b->physics_subrigs);
    free(b->physics_inputs);
    free(b->physics_outputs);
    free(b->physics_particles);
    free((void *)b->lipsync_parameters);
    free(b->pose_group_first);
    free(b->pose_parts);
    free(b->pose_link_first);
    free((void *)b->pose_links);
    free(b->expression_items);
    free(b->expression_first);
    free(b->expression_parameters);
    for (uint32_t k = 0; k < b->motion.clip_count; k++) {
        crowd_motion_clip *c = &b->motion_clips[k];
        free((void *)c->curves);
        free((void *)c->segment_types);
        free((void *)c->segment_points);
        free((void *)c->points);
        free((void *)c->event_times);
    }
    free(b->motion_clips);
    free((void *)b->motion_eye_blink);
    free((void *)b->motion_lip_sync);
    free(b->motion_idle);
    free(b);
}

/* The entry builders below take `given`, a bit per field after the id (in the argument order):
 * an entry starts from the C library's crowd_*_defaults and takes only the fields JavaScript set,
 * so the package spells none of the header's defaults. */
#define GIVEN(k) ((given >> (k)) & 1u)

/* 0 or -1 (out of memory). */
int cw_rig_parameter(cw_rig_builder *b, const char *id, uint32_t given, float min, float max, float default_value,
                     int repeat) {
    const char *copy = keep(b, id);
    crowd_parameter_desc *p = copy ? append(&b->parameters, b->parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = crowd_parameter_defaults(copy);
    if (GIVEN(0)) p->min = min;
    if (GIVEN(1)) p->max = max;
    if (GIVEN(2)) p->default_value = default_value;
    if (GIVEN(3)) p->repeat = repeat != 0;
    b->parameter_count++;
    return 0;
}

/* An enum from a JavaScript number: out of int range is an invalid value the engine refuses. */
static int as_enum(double v) { return v >= -1e9 && v <= 1e9 ? (int)v : -1; }

int cw_rig_look_parameter(cw_rig_builder *b, const char *id, uint32_t given, double axis, float factor) {
    const char *copy = keep(b, id);
    crowd_look_parameter_desc *p = copy ? append(&b->look_parameters, b->look.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = crowd_look_parameter_defaults(copy);
    if (GIVEN(0)) p->axis = (crowd_axis)as_enum(axis);
    if (GIVEN(1)) p->factor = factor;
    b->look.parameter_count++;
    b->has_look = true;
    return 0;
}

int cw_rig_harmonic_parameter(cw_rig_builder *b, const char *id, uint32_t given, double channel, double direction,
                              float origin, float range, float duration) {
    const char *copy = keep(b, id);
    crowd_harmonic_parameter_desc *p =
        copy ? append(&b->harmonic_parameters, b->harmonic.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = crowd_harmonic_parameter_defaults(copy);
    if (GIVEN(0)) p->channel = channel >= 0 && channel <= 4294967295.0 ? (uint32_t)channel : UINT32_MAX;
    if (GIVEN(1)) p->direction = (crowd_direction)as_enum(direction);
    if (GIVEN(2)) p->origin = origin;
    if (GIVEN(3)) p->range = range;
    if (GIVEN(4)) p->duration = duration;
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
int cw_rig_face_mapping(cw_rig_builder *b, double source, const char *id, uint32_t given, float gain, float offset,
                        double curve) {
    const char *copy = keep(b, id);
    uint32_t count = b->face_mapping_given ? b->face.mapping_count : 0;
    crowd_face_mapping_desc *m = copy ? append(&b->face_mapping, count, sizeof *m) : NULL;
    if (!m) return -1;
    *m = crowd_face_mapping_defaults((crowd_face_source)as_enum(source), copy);
    if (GIVEN(0)) m->gain = gain;
    if (GIVEN(1)) m->offset = offset;
    if (GIVEN(2)) m->curve = (crowd_face_curve)as_enum(curve);
    b->face.mapping_count = count + 1;
    b->face_mapping_given = true;
    b->has_face = true;
    return 0;
}

/* Turns a controller on (crowd_controller_name's names: "look" ... "motion"): 0, or -1 for another name. */
int cw_rig_enable(cw_rig_builder *b, const char *controller) {
    if (strcmp(controller, "look") == 0) b->has_look = true;
    else if (strcmp(controller, "harmonic") == 0) b->has_harmonic = true;
    else if (strcmp(controller, "blink") == 0) b->has_blink = true;
    else if (strcmp(controller, "limbs") == 0) b->has_limbs = true;
    else if (strcmp(controller, "face") == 0) b->has_face = true;
    else if (strcmp(controller, "physics") == 0) b->has_physics = true;
    else if (strcmp(controller, "lipsync") == 0) b->has_lipsync = true;
    else if (strcmp(controller, "pose") == 0) b->has_pose = true;
    else if (strcmp(controller, "expression") == 0) b->has_expression = true;
    else if (strcmp(controller, "fingers") == 0) b->has_fingers = true;
    else if (strcmp(controller, "motion") == 0) b->has_motion = true;
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
    C("physics", physics, has_physics)
    C("lipsync", lipsync, has_lipsync)
    C("pose", pose, has_pose)
    C("expression", expression, has_expression)
    C("fingers", fingers, has_fingers)
    C("motion", motion, has_motion)
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

/* ---- Live2D controllers (crowd.h sections 12-15), fingers (9a) and level of detail (8a) ----
 * crowd.js reads the Cubism JSON files (physics3, pose3, exp3, motion3, model3) and passes
 * their entries here one by one; crowd_rig_create checks the numbers and names the field. */

/* One PhysicsSettings entry: its inputs, outputs and particles follow (the sub-rigs take them
 * in order). ranges: Normalization.Position min, default, max, then .Angle. 0 or -1 (memory). */
int cw_rig_physics_subrig(cw_rig_builder *b, const double *ranges) {
    crowd_physics_subrig *s = append(&b->physics_subrigs, b->physics.subrig_count, sizeof *s);
    if (!s) return -1;
    s->input_first = b->physics.input_count;
    s->output_first = b->physics.output_count;
    s->particle_first = b->physics.particle_count;
    s->position = (crowd_physics_range){ranges[0], ranges[1], ranges[2]};
    s->angle = (crowd_physics_range){ranges[3], ranges[4], ranges[5]};
    b->physics.subrig_count++;
    b->has_physics = true;
    return 0;
}

static crowd_physics_subrig *last_subrig(cw_rig_builder *b) {
    return b->physics.subrig_count ? &b->physics_subrigs[b->physics.subrig_count - 1] : NULL;
}

int cw_rig_physics_input(cw_rig_builder *b, const char *id, double weight, double type, int reflect) {
    const char *copy = keep(b, id);
    crowd_physics_subrig *s = last_subrig(b);
    crowd_physics_input *x = copy && s ? append(&b->physics_inputs, b->physics.input_count, sizeof *x) : NULL;
    if (!x) return -1;
    *x = (crowd_physics_input){copy, weight, (crowd_physics_type)as_enum(type), reflect};
    b->physics.input_count++;
    s->input_count++;
    return 0;
}

int cw_rig_physics_output(cw_rig_builder *b, const char *id, uint32_t vertex, double scale, double weight, double type,
                          int reflect) {
    const char *copy = keep(b, id);
    crowd_physics_subrig *s = last_subrig(b);
    crowd_physics_output *x = copy && s ? append(&b->physics_outputs, b->physics.output_count, sizeof *x) : NULL;
    if (!x) return -1;
    *x = (crowd_physics_output){copy, vertex, scale, weight, (crowd_physics_type)as_enum(type), reflect};
    b->physics.output_count++;
    s->output_count++;
    return 0;
}

/* v: mobility, delay, acceleration, radius, position x, y. */
int cw_rig_physics_particle(cw_rig_builder *b, const double *v) {
    crowd_physics_subrig *s = last_subrig(b);
    crowd_physics_particle *x = s ? append(&b->physics_particles, b->physics.particle_count, sizeof *x) : NULL;
    if (!x) return -1;
    *x = (crowd_physics_particle){v[0], v[1], v[2], v[3], {v[4], v[5]}};
    b->physics.particle_count++;
    s->particle_count++;
    return 0;
}

int cw_rig_lipsync_parameter(cw_rig_builder *b, const char *id) {
    const char *copy = keep(b, id);
    const char **p = copy ? append(&b->lipsync_parameters, b->lipsync.parameter_count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = copy;
    b->lipsync.parameter_count++;
    b->has_lipsync = true;
    return 0;
}

/* A pose group; its parts follow (cw_rig_pose_part), each part's links after it. */
int cw_rig_pose_group(cw_rig_builder *b) {
    uint32_t *g = append(&b->pose_group_first, b->pose.group_count, sizeof *g);
    if (!g) return -1;
    *g = b->pose_part_count;
    b->pose.group_count++;
    b->has_pose = true;
    return 0;
}

int cw_rig_pose_part(cw_rig_builder *b, const char *id) {
    const char *copy = keep(b, id);
    if (!copy || !b->pose.group_count) return -1;
    uint32_t *first = append(&b->pose_link_first, b->pose_part_count, sizeof *first);
    if (!first) return -1;
    *first = b->pose_link_count;
    crowd_pose_part_desc *p = append(&b->pose_parts, b->pose_part_count, sizeof *p);
    if (!p) return -1;
    p->id = copy;
    b->pose_part_count++;
    return 0;
}

int cw_rig_pose_link(cw_rig_builder *b, const char *id) {
    const char *copy = keep(b, id);
    if (!copy || !b->pose_part_count) return -1;
    const char **l = append(&b->pose_links, b->pose_link_count, sizeof *l);
    if (!l) return -1;
    *l = copy;
    b->pose_link_count++;
    b->pose_parts[b->pose_part_count - 1].link_count++;
    return 0;
}

/* One exp3 file; its parameters follow (cw_rig_expression_parameter). */
int cw_rig_expression(cw_rig_builder *b, float fade_in, float fade_out) {
    uint32_t *first = append(&b->expression_first, b->expression.expression_count, sizeof *first);
    if (!first) return -1;
    *first = b->expression_parameter_count;
    crowd_expression_item_desc *x = append(&b->expression_items, b->expression.expression_count, sizeof *x);
    if (!x) return -1;
    x->fade_in = fade_in;
    x->fade_out = fade_out;
    b->expression.expression_count++;
    b->has_expression = true;
    return 0;
}

int cw_rig_expression_parameter(cw_rig_builder *b, const char *id, float value, double blend) {
    const char *copy = keep(b, id);
    if (!copy || !b->expression.expression_count) return -1;
    crowd_expression_parameter_desc *p =
        append(&b->expression_parameters, b->expression_parameter_count, sizeof *p);
    if (!p) return -1;
    *p = (crowd_expression_parameter_desc){copy, value, (crowd_expression_blend)as_enum(blend)};
    b->expression_parameter_count++;
    b->expression_items[b->expression.expression_count - 1].parameter_count++;
    return 0;
}

static void *copy_of(const void *from, size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p && bytes) memcpy(p, from, bytes);
    return p;
}

/* One motion3 clip (the reader's flattened layout, crowd_motion_clip): segment types and first
 * points, points as (time, value) pairs and event times are copied; curve_count curves follow
 * (cw_rig_motion_curve). 0 or -1 (memory). */
int cw_rig_motion_clip(cw_rig_builder *b, double duration, double fps, int restricted, double fade_in, double fade_out,
                       uint32_t curve_count, uint32_t segment_count, const uint8_t *segment_types,
                       const uint32_t *segment_points, uint32_t point_count, const double *points, uint32_t event_count,
                       const double *event_times) {
    crowd_motion_clip *c = append(&b->motion_clips, b->motion.clip_count, sizeof *c);
    if (!c) return -1;
    b->motion.clip_count++; /* counted now, so cw_rig_free frees what is copied */
    b->has_motion = true;
    *c = (crowd_motion_clip){.duration = duration, .fps = fps, .beziers_restricted = restricted != 0,
                             .fade_in = fade_in, .fade_out = fade_out, .segment_count = segment_count,
                             .point_count = point_count, .event_count = event_count};
    crowd_motion_curve *curves = calloc(curve_count ? curve_count : 1, sizeof *curves);
    crowd_motion_point *pts = malloc(sizeof *pts * (point_count ? point_count : 1));
    c->curves = curves;
    c->points = pts;
    c->segment_types = copy_of(segment_types, segment_count);
    c->segment_points = copy_of(segment_points, sizeof(uint32_t) * segment_count);
    c->event_times = copy_of(event_times, sizeof(double) * event_count);
    if (!curves || !pts || !c->segment_types || !c->segment_points || !c->event_times) return -1;
    for (uint32_t k = 0; k < point_count; k++) pts[k] = (crowd_motion_point){points[2 * k], points[2 * k + 1]};
    return 0;
}

int cw_rig_motion_curve(cw_rig_builder *b, const char *id, double target, double fade_in, double fade_out,
                        uint32_t first_segment, uint32_t segment_count) {
    const char *copy = keep(b, id);
    if (!copy || !b->motion.clip_count) return -1;
    crowd_motion_clip *c = &b->motion_clips[b->motion.clip_count - 1];
    crowd_motion_curve *curves = (crowd_motion_curve *)c->curves;
    curves[c->curve_count++] = (crowd_motion_curve){copy, (crowd_motion_target)as_enum(target), fade_in, fade_out,
                                                    first_segment, segment_count};
    return 0;
}

/* An id of the model3's EyeBlink (which 0) or LipSync (1) group. */
int cw_rig_motion_id(cw_rig_builder *b, int which, const char *id) {
    const char *copy = keep(b, id);
    uint32_t *count = which ? &b->motion.lip_sync_count : &b->motion.eye_blink_count;
    const char **p = copy ? append(which ? &b->motion_lip_sync : &b->motion_eye_blink, *count, sizeof *p) : NULL;
    if (!p) return -1;
    *p = copy;
    ++*count;
    b->has_motion = true;
    return 0;
}

int cw_rig_motion_idle(cw_rig_builder *b, uint32_t clip) {
    uint32_t *p = append(&b->motion_idle, b->motion.idle_count, sizeof *p);
    if (!p) return -1;
    *p = clip;
    b->motion.idle_count++;
    b->has_motion = true;
    return 0;
}

/* The fingers' arrays for axis_fix custom (custom_fix) and calibrated (bind_*); NULL leaves one out. */
void cw_rig_fingers_arrays(cw_rig_builder *b, const float *custom_fix, const float *bind_landmarks,
                           const float *bind_rotations) {
    if (custom_fix) memcpy(b->finger_custom_fix, custom_fix, sizeof b->finger_custom_fix);
    if (bind_landmarks) memcpy(b->finger_bind_landmarks, bind_landmarks, sizeof b->finger_bind_landmarks);
    if (bind_rotations) memcpy(b->finger_bind_rotations, bind_rotations, sizeof b->finger_bind_rotations);
    b->fingers.custom_fix = custom_fix ? b->finger_custom_fix : NULL;
    b->fingers.bind_landmarks = bind_landmarks ? b->finger_bind_landmarks : NULL;
    b->fingers.bind_rotations = bind_rotations ? b->finger_bind_rotations : NULL;
    b->has_fingers = true;
}

/* Level of detail: a new instance's interval and the controllers that run every tick (the
 * mask's 32-bit halves, low first). */
void cw_rig_lod(cw_rig_builder *b, double interval, uint32_t every_low, uint32_t every_high) {
    b->lod_interval = (crowd_lod_interval)as_enum(interval);
    b->lod_every_tick = (uint64_t)every_high << 32 | every_low;
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
    crowd_physics_desc physics = b->physics;
    physics.subrigs = b->physics_subrigs;
    physics.inputs = b->physics_inputs;
    physics.outputs = b->physics_outputs;
    physics.particles = b->physics_particles;
    crowd_lipsync_desc lipsync = b->lipsync;
    lipsync.parameters = b->lipsync_parameters;
    crowd_motion_desc motion = b->motion;
    motion.clips = b->motion_clips;
    motion.eye_blink_ids = b->motion_eye_blink;
    motion.lip_sync_ids = b->motion_lip_sync;
    motion.idle_clips = b->motion_idle;
    /* pose groups and expression items point into the flat arrays, now that they stay put */
    crowd_pose_desc pose = b->pose;
    crowd_pose_group_desc *groups = calloc(b->pose.group_count + 1, sizeof *groups);
    crowd_expression_desc expression = b->expression;
    if (!groups) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t g = 0; g < b->pose.group_count; g++) {
        uint32_t end = g + 1 < b->pose.group_count ? b->pose_group_first[g + 1] : b->pose_part_count;
        groups[g].parts = b->pose_parts + b->pose_group_first[g];
        groups[g].part_count = end - b->pose_group_first[g];
    }
    for (uint32_t p = 0; p < b->pose_part_count; p++) /* no offset on a NULL array (no links at all) */
        b->pose_parts[p].links = b->pose_links ? b->pose_links + b->pose_link_first[p] : NULL;
    pose.groups = groups;
    for (uint32_t x = 0; x < b->expression.expression_count; x++)
        b->expression_items[x].parameters =
            b->expression_parameters ? b->expression_parameters + b->expression_first[x] : NULL;
    expression.expressions = b->expression_items;
    crowd_rig_desc d = {
        .name = b->name,
        .parameters = b->parameters,
        .parameter_count = b->parameter_count,
        .look = b->has_look ? &look : NULL,
        .harmonic = b->has_harmonic ? &harmonic : NULL,
        .blink = b->has_blink ? &blink : NULL,
        .limbs = b->has_limbs ? &b->limbs : NULL,
        .face = b->has_face ? &face : NULL,
        .physics = b->has_physics ? &physics : NULL,
        .lipsync = b->has_lipsync ? &lipsync : NULL,
        .pose = b->has_pose ? &pose : NULL,
        .expression = b->has_expression ? &expression : NULL,
        .fingers = b->has_fingers ? &b->fingers : NULL,
        .motion = b->has_motion ? &motion : NULL,
        .lod_interval = b->lod_interval,
        .lod_every_tick = b->lod_every_tick,
    };
    crowd_rig rig = {0};
    crowd_result res = crowd_rig_create(engine, &d, &rig);
    free(groups);
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

crowd_result cw_rig_rest_hands(crowd_engine *e, uint32_t rig, float *world, float *local) {
    return crowd_rig_rest_hands(e, rig_of(rig), (crowd_quat *)world, (crowd_quat *)local);
}

/* ---- motions (crowd.h section 15) ---- */
_Static_assert(sizeof(bool) == 1, "out_started is a Uint8Array in crowd.js");

crowd_result cw_motion_start(crowd_engine *e, const crowd_instance *h, uint32_t count, uint32_t clip, double priority,
                             int loop, int loop_fade_in, double fade_in, double fade_out, double offset,
                             bool *out_started) {
    crowd_motion_start_desc d = crowd_motion_start_defaults(clip);
    d.priority = (crowd_motion_priority)as_enum(priority);
    d.loop = loop != 0;
    d.loop_fade_in = loop_fade_in != 0;
    d.fade_in = fade_in;
    d.fade_out = fade_out;
    d.offset = offset;
    return crowd_motion_start(e, h, count, &d, out_started);
}

crowd_result cw_motion_reserve(crowd_engine *e, const crowd_instance *h, uint32_t count, double priority,
                               bool *out_reserved) {
    return crowd_motion_reserve(e, h, count, (crowd_motion_priority)as_enum(priority), out_reserved);
}

/* out: playing, clip, time, clock, current, reserved. */
crowd_result cw_motion_status(const crowd_engine *e, const crowd_instance *h, double *out) {
    if (!h || !out) return CROWD_ERR_NULL;
    crowd_motion_status s;
    crowd_result res = crowd_motion_status_get(e, *h, &s);
    if (res != CROWD_OK) return res;
    out[0] = s.playing, out[1] = s.clip, out[2] = s.time, out[3] = s.clock, out[4] = s.current, out[5] = s.reserved;
    return CROWD_OK;
}

/* The last tick's events: per event ints[4k..4k+3] = rig, row, clip, event and times[k] the
 * manager time (double). out[0] the count, out[1] the lost ones (as double: exact to 2^53). */
crowd_result cw_motion_events(const crowd_engine *e, int32_t *ints, double *times, uint32_t capacity, double *out) {
    if (!out || (capacity && (!ints || !times))) return CROWD_ERR_NULL;
    crowd_motion_event *buffer = capacity ? malloc(sizeof *buffer * capacity) : NULL;
    if (capacity && !buffer) return CROWD_ERR_OUT_OF_MEMORY;
    uint32_t n = 0;
    uint64_t lost = 0;
    crowd_result res = crowd_motion_events(e, buffer, capacity, &n, &lost);
    for (uint32_t k = 0; res == CROWD_OK && k < n; k++) {
        uint64_t id;
        crowd_rig rig = {0};
        uint32_t row = 0;
        res = crowd_instance_info(e, buffer[k].instance, &id, &rig, &row);
        ints[4 * k] = (int32_t)rig.id, ints[4 * k + 1] = (int32_t)row;
        ints[4 * k + 2] = (int32_t)buffer[k].clip, ints[4 * k + 3] = (int32_t)buffer[k].event;
        times[k] = buffer[k].time;
    }
    free(buffer);
    out[0] = n, out[1] = (double)lost;
    return res;
}

crowd_result cw_rig_motion_pseudo_index(const crowd_engine *e, uint32_t rig, const char *id, uint32_t *out) {
    return crowd_rig_motion_pseudo_index(e, rig_of(rig), id, out);
}
uint32_t cw_rig_motion_pseudo_count(const crowd_engine *e, uint32_t rig) {
    return crowd_rig_motion_pseudo_count(e, rig_of(rig));
}
crowd_result cw_tick_range_exact(crowd_engine *e, double dt, uint32_t rig, uint32_t first, uint32_t count) {
    return crowd_tick_range_exact(e, dt, rig_of(rig), first, count);
}
/* The slot of a hand MediaPipe labels "Right" (label_right) or "Left" (crowd_hand_from_handedness). */
int cw_hand_from_handedness(int label_right, int mirrored) {
    return (int)crowd_hand_from_handedness(label_right != 0, mirrored != 0);
}
void cw_rest_hand_landmarks(int frame, int hand, float *out) {
    crowd_rest_hand_landmarks((crowd_pose_frame)frame, (crowd_hand)hand, out);
}

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
