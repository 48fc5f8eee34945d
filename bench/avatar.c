/* The full avatar workload and its per-object reference (see avatar.h). */
#include "avatar.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cubism_reference.h"
#include "physics_reference.h"
#include "reference.h"

/* ---- the rig ---- */
enum { P = 24, CURVES = 7, EXPRESSIONS = 3, EXPR_ENTRIES = 6 };
static const crowd_parameter_desc params[P] = {
    {"ParamAngleX", -30, 30, 0, false},     {"ParamAngleY", -30, 30, 0, false},
    {"ParamAngleZ", -30, 30, 0, false},     {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},     {"ParamBodyAngleX", -10, 10, 0, false},
    {"ParamBreath", 0, 1, 0, false},        {"ParamBodyAngleY", -10, 10, 0, false},
    {"ParamBodyAngleZ", -10, 10, 0, false}, {"ParamHairFront", -1, 1, 0, false},
    {"ParamEyeLOpen", 0, 1, 1, false},      {"ParamEyeROpen", 0, 1, 1, false},
    {"ParamMouthOpenY", 0, 1, 0, false},    {"ParamMouthForm", -1, 1, 0, false},
    {"ParamBrowLY", -1, 1, 0, false},       {"ParamBrowRY", -1, 1, 0, false},
    {"ParamEyeLSmile", 0, 1, 0, false},     {"ParamEyeRSmile", 0, 1, 0, false},
    {"ParamHairSide", -1, 1, 0, false},     {"ParamHairBack", -1, 1, 0, false},
    {"ParamCheek", 0, 1, 0, false},         {"ParamArmLA", -10, 10, 0, false},
    {"ParamArmRA", -10, 10, 0, false},      {"ParamBustY", -1, 1, 0, false}};
enum { I_EYE_L = 10, I_EYE_R = 11, I_MOUTH = 12 };

/* The motion clip, in the framework's flattened layout (cubism_data.h): a curve's segments
 * share their joining points. */
typedef struct clip_build {
    cubism_curve curves[CURVES];
    uint8_t types[32];
    uint32_t seg_points[32];
    cubism_point points[96];
    uint32_t nc, ns, np;
} clip_build;

static void curve(clip_build *b, const char *id, double t0, double v0) {
    b->curves[b->nc] = (cubism_curve){(char *)(uintptr_t)id, CUBISM_TARGET_PARAMETER, -1, -1, b->ns, 0};
    b->points[b->np++] = (cubism_point){t0, v0};
    b->nc++;
}
static void seg(clip_build *b, uint8_t type, const double *tv, uint32_t points) {
    b->types[b->ns] = type;
    b->seg_points[b->ns] = b->np - 1;
    for (uint32_t k = 0; k < points; k++) b->points[b->np++] = (cubism_point){tv[2 * k], tv[2 * k + 1]};
    b->ns++;
    b->curves[b->nc - 1].segment_count++;
}
#define LIN(b, t, v) seg(b, CUBISM_SEGMENT_LINEAR, (const double[]){t, v}, 1)
#define STEP(b, t, v) seg(b, CUBISM_SEGMENT_STEPPED, (const double[]){t, v}, 1)
#define ISTEP(b, t, v) seg(b, CUBISM_SEGMENT_INVERSE_STEPPED, (const double[]){t, v}, 1)
#define BEZ(b, t1, v1, t2, v2, t3, v3) seg(b, CUBISM_SEGMENT_BEZIER, (const double[]){t1, v1, t2, v2, t3, v3}, 3)

static void build_clip(clip_build *b, cubism_motion *m) {
    memset(b, 0, sizeof *b);
    curve(b, "ParamAngleX", 0, 0);
    BEZ(b, 0.6, 4, 1.4, 12, 2, 12);
    BEZ(b, 2.6, 12, 3.4, 2, 4, 0);
    curve(b, "ParamAngleY", 0, 0);
    LIN(b, 1, -5);
    LIN(b, 3, 5);
    LIN(b, 4, 0);
    curve(b, "ParamBodyAngleX", 0, -2);
    BEZ(b, 1.3, -2, 2.7, 4, 4, -2);
    curve(b, "ParamArmLA", 0, -5);
    STEP(b, 2, 3);
    LIN(b, 4, -5);
    curve(b, "ParamArmRA", 0, -5);
    LIN(b, 1.5, 5);
    BEZ(b, 2.5, 5, 3, -5, 4, -5);
    curve(b, "ParamMouthForm", 0, 0.2);
    LIN(b, 2, 0.8);
    LIN(b, 4, 0.2);
    curve(b, "ParamCheek", 0, 0);
    ISTEP(b, 1, 1);
    LIN(b, 3, 1);
    LIN(b, 4, 0);
    memset(m, 0, sizeof *m);
    m->duration = 4;
    m->fps = 30;
    m->loop = true;
    m->beziers_restricted = false;
    m->fade_in = m->fade_out = 0.5;
    m->curve_count = b->nc;
    m->segment_count = b->ns;
    m->point_count = b->np;
    m->curves = b->curves;
    m->segment_types = b->types;
    m->segment_points = b->seg_points;
    m->points = b->points;
}

static const cubism_expression_parameter expr_params[EXPRESSIONS][EXPR_ENTRIES] = {
    {{"ParamEyeLSmile", 1, CUBISM_BLEND_ADD}, {"ParamEyeRSmile", 1, CUBISM_BLEND_ADD},
     {"ParamMouthForm", 1, CUBISM_BLEND_OVERWRITE}, {"ParamBrowLY", 0.4, CUBISM_BLEND_ADD},
     {"ParamBrowRY", 0.4, CUBISM_BLEND_ADD}, {"ParamCheek", 0.5, CUBISM_BLEND_MULTIPLY}},
    {{"ParamEyeLOpen", 0.6, CUBISM_BLEND_MULTIPLY}, {"ParamEyeROpen", 0.6, CUBISM_BLEND_MULTIPLY},
     {"ParamMouthForm", -1, CUBISM_BLEND_OVERWRITE}, {"ParamBrowLY", -0.6, CUBISM_BLEND_ADD},
     {"ParamBrowRY", -0.6, CUBISM_BLEND_ADD}, {"ParamCheek", 0, CUBISM_BLEND_OVERWRITE}},
    {{"ParamEyeLSmile", 0.5, CUBISM_BLEND_OVERWRITE}, {"ParamEyeRSmile", 0.5, CUBISM_BLEND_OVERWRITE},
     {"ParamMouthOpenY", 0.3, CUBISM_BLEND_ADD}, {"ParamBrowLY", 1.5, CUBISM_BLEND_MULTIPLY},
     {"ParamBrowRY", 1.5, CUBISM_BLEND_MULTIPLY}, {"ParamCheek", 1, CUBISM_BLEND_ADD}}};

static const char *const part_ids[2] = {"PartArmA", "PartArmB"};

/* Physics: Haru's hair in small (its inputs, 2 sub-rigs of 2 and 3 particles). */
static const crowd_physics_input phys_inputs[8] = {
    {"ParamAngleX", 60, CROWD_PHYSICS_X, 0},      {"ParamAngleZ", 60, CROWD_PHYSICS_ANGLE, 0},
    {"ParamBodyAngleX", 40, CROWD_PHYSICS_X, 0},  {"ParamBodyAngleZ", 40, CROWD_PHYSICS_ANGLE, 0},
    {"ParamAngleX", 60, CROWD_PHYSICS_X, 0},      {"ParamAngleZ", 60, CROWD_PHYSICS_ANGLE, 0},
    {"ParamBodyAngleX", 40, CROWD_PHYSICS_X, 0},  {"ParamBodyAngleZ", 40, CROWD_PHYSICS_ANGLE, 0}};
static const crowd_physics_output phys_outputs[3] = {{"ParamHairFront", 1, 1.522, 100, CROWD_PHYSICS_ANGLE, 0},
                                                     {"ParamHairSide", 1, 1.434, 100, CROWD_PHYSICS_ANGLE, 0},
                                                     {"ParamHairBack", 2, 1.5, 100, CROWD_PHYSICS_ANGLE, 0}};
static const crowd_physics_particle phys_particles[5] = {{1, 1, 1, 0, {0, 0}},
                                                         {0.95, 0.9, 1.5, 3, {0, 3}},
                                                         {1, 1, 1, 0, {0, 0}},
                                                         {0.95, 0.9, 1.5, 3, {0, 3}},
                                                         {0.9, 0.85, 1.5, 3, {0, 6}}};
static const crowd_physics_subrig phys_subrigs[2] = {
    {0, 4, 0, 1, 0, 2, {-10, 0, 10}, {-10, 0, 10}},
    {4, 4, 1, 2, 2, 3, {-10, 0, 10}, {-10, 0, 10}}};

typedef struct avatar_rig {
    bench_rig_tables t; /* look, harmonic, blink, limbs: the bench body rig's */
    clip_build cb;
    cubism_motion motion;
    crowd_motion_curve mcurves[CURVES];
    crowd_motion_clip clip;
    crowd_motion_desc mdesc;
    uint32_t idle;
    crowd_expression_parameter_desc eparams[EXPRESSIONS][EXPR_ENTRIES];
    crowd_expression_item_desc eitems[EXPRESSIONS];
    crowd_expression_desc expression;
    cubism_expression cexpr[EXPRESSIONS];
    crowd_pose_part_desc parts[2];
    crowd_pose_group_desc group;
    crowd_pose_desc pose;
    crowd_face_desc face;
    const char *mouth[1];
    crowd_lipsync_desc lipsync;
    crowd_physics_desc physics;
    crowd_fingers_desc fingers;
    crowd_rig_desc desc;
} avatar_rig;

static void avatar_rig_init(avatar_rig *r) {
    memset(r, 0, sizeof *r);
    bench_rig_tables_init(&r->t, BENCH_BODY);
    r->desc = r->t.desc;
    r->desc.name = "avatar";
    r->desc.parameters = params;
    r->desc.parameter_count = P;
    build_clip(&r->cb, &r->motion);
    for (uint32_t c = 0; c < r->motion.curve_count; c++) {
        const cubism_curve *s = &r->motion.curves[c];
        r->mcurves[c] = (crowd_motion_curve){s->id, CROWD_MOTION_TARGET_PARAMETER, s->fade_in, s->fade_out,
                                             s->first_segment, s->segment_count};
    }
    r->clip = (crowd_motion_clip){r->motion.duration, r->motion.fps, r->motion.beziers_restricted,
                                  r->motion.fade_in, r->motion.fade_out, r->motion.curve_count,
                                  r->motion.segment_count, r->motion.point_count, 0, r->mcurves,
                                  r->motion.segment_types, r->motion.segment_points,
                                  (const crowd_motion_point *)r->motion.points, NULL};
    r->mdesc = crowd_motion_defaults();
    r->mdesc.clips = &r->clip;
    r->mdesc.clip_count = 1;
    r->desc.motion = &r->mdesc;
    for (int e = 0; e < EXPRESSIONS; e++) {
        for (int k = 0; k < EXPR_ENTRIES; k++)
            r->eparams[e][k] = (crowd_expression_parameter_desc){expr_params[e][k].id, (float)expr_params[e][k].value,
                                                                 (crowd_expression_blend)expr_params[e][k].blend};
        r->eitems[e] = (crowd_expression_item_desc){r->eparams[e], EXPR_ENTRIES, 0.5f, 0.5f};
        r->cexpr[e] = (cubism_expression){0.5, 0.5, EXPR_ENTRIES, (cubism_expression_parameter *)(uintptr_t)expr_params[e]};
    }
    r->expression = crowd_expression_defaults();
    r->expression.expressions = r->eitems;
    r->expression.expression_count = EXPRESSIONS;
    r->desc.expression = &r->expression;
    r->parts[0] = (crowd_pose_part_desc){part_ids[0], NULL, 0};
    r->parts[1] = (crowd_pose_part_desc){part_ids[1], NULL, 0};
    r->group = (crowd_pose_group_desc){r->parts, 2};
    r->pose = crowd_pose_defaults();
    r->pose.groups = &r->group;
    r->pose.group_count = 1;
    r->desc.pose = &r->pose;
    r->face = crowd_face_defaults();
    r->desc.face = &r->face;
    r->mouth[0] = "ParamMouthOpenY";
    r->lipsync = crowd_lipsync_defaults();
    r->lipsync.parameters = r->mouth;
    r->lipsync.parameter_count = 1;
    r->desc.lipsync = &r->lipsync;
    r->physics = crowd_physics_defaults();
    r->physics.subrig_count = 2;
    r->physics.input_count = 8;
    r->physics.output_count = 3;
    r->physics.particle_count = 5;
    r->physics.subrigs = phys_subrigs;
    r->physics.inputs = phys_inputs;
    r->physics.outputs = phys_outputs;
    r->physics.particles = phys_particles;
    r->desc.physics = &r->physics;
    r->fingers = crowd_fingers_defaults();
    r->desc.fingers = &r->fingers;
}

/* ---- inputs, the same for both implementations ---- */
static uint32_t mix(uint32_t h) {
    h ^= h >> 16, h *= 0x7feb352dU, h ^= h >> 15, h *= 0x846ca68bU, h ^= h >> 16;
    return h;
}
static float unit(uint32_t a, uint32_t k) { return (float)(mix(mix(a * 0x9e3779b9U + 1) ^ k) >> 8) * 0x1p-24f; }

static void face_inputs(uint32_t a, float scores[CROWD_FACE_SCORE_COUNT], float rot[4]) {
    for (uint32_t k = 0; k < CROWD_FACE_SCORE_COUNT; k++) scores[k] = unit(a, k);
    float x = 0.3f * (unit(a, 60) - 0.5f), y = 0.3f * (unit(a, 61) - 0.5f), z = 0.3f * (unit(a, 62) - 0.5f);
    float n = sqrtf(1 + x * x + y * y + z * z);
    rot[0] = x / n, rot[1] = y / n, rot[2] = z / n, rot[3] = 1 / n;
}
static void hand_inputs(uint32_t a, int h, float out[CROWD_HAND_FLOATS]) {
    crowd_rest_hand_landmarks(CROWD_FRAME_MEDIAPIPE_WORLD, h ? CROWD_HAND_RIGHT : CROWD_HAND_LEFT, out);
    for (uint32_t k = 0; k < 3 * CROWD_HAND_LANDMARK_COUNT; k++) out[k] += 0.02f * (unit(a, 100 + 64 * (uint32_t)h + k) - 0.5f);
    out[3 * CROWD_HAND_LANDMARK_COUNT] = 0.95f;
}
static const float *pose_row(const bench_clip *clip, uint32_t a) {
    return clip->rows + (size_t)((a * 7u) % clip->row_count) * 4 * CROWD_LANDMARK_COUNT;
}
static double motion_offset(uint32_t a) { return 0.25 * (a % 16); }
static float lip_level(uint32_t a) { return unit(a, 70); }
static void look_target(uint32_t a, float t[3]) {
    for (uint32_t k = 0; k < 3; k++) t[k] = 2 * unit(a, 80 + k) - 1;
}

/* ---- the per-object hand solve (bench_fingers' HandObject, in C) ---- */
typedef struct v3 {
    float x, y, z;
} v3;
typedef struct quat {
    float x, y, z, w;
} quat;
static v3 sub3(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static v3 cross3(v3 l, v3 r) { return (v3){l.y * r.z - l.z * r.y, l.z * r.x - l.x * r.z, l.x * r.y - l.y * r.x}; }
static float dot3(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 norm3(v3 a) {
    float l = sqrtf(dot3(a, a));
    return l > 1e-5f ? (v3){a.x / l, a.y / l, a.z / l} : (v3){0, 0, 0};
}
static quat qmul(quat a, quat b) {
    return (quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static quat canon(quat q) {
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (q.w < 0) n = -n;
    return (quat){q.x / n, q.y / n, q.z / n, q.w / n};
}
static quat look_rotation(v3 f, v3 up) {
    v3 z = norm3(f);
    if (dot3(z, z) < 0.25f) return (quat){0, 0, 0, 1};
    v3 x = norm3(cross3(up, z));
    if (dot3(x, x) < 0.25f) return canon((quat){-z.y, z.x, 0, 1 + z.z});
    v3 y = cross3(z, x);
    float t = x.x + y.y + z.z;
    quat q;
    if (t > 0) q = (quat){y.z - z.y, z.x - x.z, x.y - y.x, 1 + t};
    else if (x.x > y.y && x.x > z.z) q = (quat){1 + x.x - y.y - z.z, y.x + x.y, z.x + x.z, y.z - z.y};
    else if (y.y > z.z) q = (quat){y.x + x.y, 1 + y.y - x.x - z.z, z.y + y.z, z.x - x.z};
    else q = (quat){z.x + x.z, z.y + y.z, 1 + z.z - x.x - y.y, x.y - y.x};
    return canon(q);
}
static const int hand_parent[16] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};
static const int hand_from[16] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};

typedef struct hand_object {
    float lm[CROWD_HAND_FLOATS];
    float progress;
    quat world[16], local[16];
} hand_object;

static void hand_solve(hand_object *o, float sin_min, float sin_range) {
    v3 p[21];
    for (int k = 0; k < 21; k++) p[k] = (v3){o->lm[3 * k], -o->lm[3 * k + 1], o->lm[3 * k + 2]};
    v3 a = sub3(p[17], p[5]);
    v3 mid = {(p[5].x + p[17].x) * 0.5f, (p[5].y + p[17].y) * 0.5f, (p[5].z + p[17].z) * 0.5f};
    v3 f = norm3(sub3(mid, p[0]));
    v3 d[16];
    d[0] = f;
    for (int b = 1; b < 16; b++) d[b] = norm3(sub3(p[hand_from[b] + 1], p[hand_from[b]]));
    v3 ref = norm3(cross3(f, a)), c = cross3(d[1], d[3]);
    float bl = sqrtf(dot3(c, c)), u = (bl - sin_min) / sin_range;
    u = dot3(c, ref) < 0 ? 0 : u < 0 ? 0 : u > 1 ? 1 : u;
    v3 thumb = ref;
    if (u > 0)
        thumb = norm3((v3){c.x * (u / bl) + ref.x * (1 - u), c.y * (u / bl) + ref.y * (1 - u),
                           c.z * (u / bl) + ref.z * (1 - u)});
    const quat fix = {0.70710677f, 0, 0, 0.70710677f};
    for (int b = 0; b < 16; b++) {
        v3 side = b >= 1 && b <= 3 ? thumb : a;
        quat q = look_rotation(d[b], cross3(d[b], side));
        o->world[b] = b == 0 ? q : canon(qmul(q, fix));
        quat parent = hand_parent[b] < 0 ? (quat){0, 0, 0, 1} : o->world[hand_parent[b]];
        quat l = qmul((quat){-parent.x, -parent.y, -parent.z, parent.w}, o->world[b]);
        o->local[b] = l.w < 0 ? (quat){-l.x, -l.y, -l.z, -l.w} : l;
    }
    o->progress = o->lm[63] >= 0.5f ? 1.0f : -1.0f;
}

/* ---- the per-object avatar ---- */
typedef struct po_avatar {
    cubism_ref_model *model;
    cubism_ref_motion *motion;
    cubism_ref_motion_manager motions;
    cubism_ref_expression expression;
    cubism_ref_expression_manager expressions;
    cubism_ref_pose *pose;
    physics_f32 *physics;
    float values[P]; /* the model's parameters as physics reads them */
    float scores[CROWD_FACE_SCORE_COUNT], rotation[4], presence, control, level;
    hand_object hands[2];
} po_avatar;

/* the face mapping bound to parameter indices */
typedef struct po_mapping {
    uint32_t count;
    int32_t index[CROWD_FACE_STANDARD_MAPPING_COUNT];
    crowd_face_source source[CROWD_FACE_STANDARD_MAPPING_COUNT];
    float gain[CROWD_FACE_STANDARD_MAPPING_COUNT], offset[CROWD_FACE_STANDARD_MAPPING_COUNT];
} po_mapping;

struct bench_avatar {
    int impl;
    uint32_t n;
    avatar_rig rig;
    /* engine */
    crowd_engine *engine;
    crowd_rig handle;
    /* per-object */
    per_object_rig *po_rig;
    per_object_crowd *po_crowd;
    po_avatar *po;
    po_mapping map;
    int32_t blend_index[P]; /* the model's index of each rig parameter */
    const char *ids[P];
    float minimum[P], maximum[P], defaults[P];
    float sin_min, sin_range;
};

static void fail(char *err, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && size) vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

static int create_engine(bench_avatar *a, uint32_t threads, const bench_clip *clip, char *err, size_t size) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.seed = 7;
    ed.simd = (crowd_simd)a->impl;
    ed.threads = threads;
    crowd_instance *h = NULL;
    float *buf = NULL;
    crowd_result res = crowd_engine_create(&ed, &a->engine);
    if (res == CROWD_OK) res = crowd_rig_create(a->engine, &a->rig.desc, &a->handle);
    if (res == CROWD_OK) res = crowd_reserve(a->engine, a->handle, a->n);
    const uint32_t n = a->n;
    h = malloc(sizeof *h * n);
    buf = malloc(sizeof *buf * (size_t)n * 4 * CROWD_LANDMARK_COUNT);
    if (!h || !buf) {
        fail(err, size, "out of memory (%u avatars)", n);
        goto error;
    }
    if (res == CROWD_OK) {
        crowd_add_desc add = crowd_add_defaults(a->handle, n);
        add.blink_start = CROWD_BLINK_START_RANDOM;
        add.harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM;
        res = crowd_instances_add(a->engine, &add, h);
    }
#define SET(field, index, width, fill)                                                        \
    if (res == CROWD_OK) {                                                                    \
        for (uint32_t i = 0; i < n; i++) {                                                    \
            float *v = buf + (size_t)i * (width);                                             \
            fill;                                                                             \
        }                                                                                     \
        res = crowd_instances_set(a->engine, field, index, h, n, buf);                        \
    }
    SET(CROWD_FIELD_FACE_SCORES, 0, CROWD_FACE_SCORE_COUNT, float r[4]; face_inputs(i, v, r))
    SET(CROWD_FIELD_FACE_ROTATION, 0, 4, float s[CROWD_FACE_SCORE_COUNT]; face_inputs(i, s, v))
    SET(CROWD_FIELD_FACE_PRESENCE, 0, 1, v[0] = 1.0f)
    SET(CROWD_FIELD_LIPSYNC_LEVEL, 0, 1, v[0] = lip_level(i))
    SET(CROWD_FIELD_LOOK_TARGET, 0, 3, look_target(i, v))
    SET(CROWD_FIELD_LOOK_ACTIVE, 0, 1, v[0] = 1.0f)
    SET(CROWD_FIELD_POSE, 0, 4 * CROWD_LANDMARK_COUNT, memcpy(v, pose_row(clip, i), sizeof(float) * 4 * CROWD_LANDMARK_COUNT))
    SET(CROWD_FIELD_HAND_LANDMARKS, 0, CROWD_HAND_FLOATS, hand_inputs(i, 0, v))
    SET(CROWD_FIELD_HAND_LANDMARKS, 1, CROWD_HAND_FLOATS, hand_inputs(i, 1, v))
#undef SET
    /* the motion from 16 offsets (row i: offset of i % 16); expression i % 3 */
    crowd_instance *group = malloc(sizeof *group * (n / 3 + 16));
    if (!group) {
        fail(err, size, "out of memory");
        goto error;
    }
    for (uint32_t g = 0; g < 16 && res == CROWD_OK; g++) {
        uint32_t count = 0;
        for (uint32_t i = g; i < n; i += 16) group[count++] = h[i];
        crowd_motion_start_desc sd = crowd_motion_start_defaults(0);
        sd.loop = true;
        sd.offset = motion_offset(g);
        if (count) res = crowd_motion_start(a->engine, group, count, &sd, NULL);
    }
    for (uint32_t e = 0; e < EXPRESSIONS && res == CROWD_OK; e++) {
        uint32_t count = 0;
        for (uint32_t i = e; i < n; i += EXPRESSIONS) group[count++] = h[i];
        if (count) res = crowd_expressions_start(a->engine, group, count, e);
    }
    free(group);
    if (res != CROWD_OK) {
        fail(err, size, "%s (%s)", crowd_result_text(res), crowd_last_error(a->engine));
        goto error;
    }
    free(h);
    free(buf);
    return 0;
error:
    free(h);
    free(buf);
    return -1;
}

static int create_per_object(bench_avatar *a, const bench_clip *clip, char *err, size_t size) {
    const uint32_t n = a->n;
    for (uint32_t p = 0; p < P; p++) {
        a->ids[p] = params[p].id;
        a->minimum[p] = params[p].min;
        a->maximum[p] = params[p].max;
        a->defaults[p] = params[p].default_value;
    }
    a->sin_min = (float)sin(10.0 * 3.14159265358979323846 / 180);
    a->sin_range = (float)sin(45.0 * 3.14159265358979323846 / 180) - a->sin_min;
    const crowd_face_mapping_desc *m = crowd_face_standard_mapping();
    a->map.count = CROWD_FACE_STANDARD_MAPPING_COUNT;
    for (uint32_t k = 0; k < a->map.count; k++) {
        a->map.index[k] = -1;
        for (uint32_t p = 0; p < P; p++)
            if (!strcmp(params[p].id, m[k].id)) a->map.index[k] = (int32_t)p;
        a->map.source[k] = m[k].source;
        a->map.gain[k] = m[k].gain;
        a->map.offset[k] = m[k].offset;
        if (a->map.index[k] < 0) {
            fail(err, size, "the face mapping names %s, no parameter of the rig", m[k].id);
            return -1;
        }
    }
    /* blink, harmonic, look and limbs: reference.h's record on the same settings */
    crowd_rig_desc face = a->rig.desc;
    face.face = NULL, face.physics = NULL, face.lipsync = NULL, face.pose = NULL, face.expression = NULL;
    face.fingers = NULL, face.motion = NULL;
    a->po_rig = per_object_rig_create(&face);
    a->po_crowd = a->po_rig ? per_object_crowd_create(a->po_rig, n, 7, 0, CROWD_HARMONIC_PHASE_RANDOM) : NULL;
    a->po = calloc(n, sizeof *a->po);
    /* the pose reference keeps its data: static */
    static uint32_t group_first[2] = {0, 2}, link_first[3] = {0, 0, 0};
    static cubism_pose pose;
    pose = (cubism_pose){0.5, 1, group_first, 2, (char **)(uintptr_t)part_ids, link_first, 0, NULL};
    if (!a->po_crowd || !a->po) goto oom;
    for (uint32_t i = 0; i < n; i++) {
        po_avatar *o = &a->po[i];
        float t[3];
        look_target(i, t);
        per_object_set_look(a->po_crowd, i, t, 1);
        per_object_set_pose(a->po_crowd, i, pose_row(clip, i));
        o->model = cubism_ref_model_create(P, a->ids, a->minimum, a->maximum, a->defaults, 2, part_ids);
        if (!o->model) goto oom;
        for (uint32_t p = 0; p < P; p++) a->blend_index[p] = cubism_ref_parameter_index(o->model, a->ids[p]);
        o->motion = cubism_ref_motion_create(&a->rig.motion, o->model, 0.5, 0.5, NULL, 0, NULL, 0);
        o->pose = cubism_ref_pose_create(&pose, o->model);
        o->physics = physics_f32_create(&a->rig.physics, P, a->ids, a->minimum, a->maximum);
        if (!o->motion || !o->pose || !o->physics ||
            !cubism_ref_expression_init(&o->expression, &a->rig.cexpr[i % EXPRESSIONS], o->model))
            goto oom;
        cubism_ref_motion_set_loop(o->motion, true);
        cubism_ref_motion_manager_init(&o->motions);
        cubism_ref_start_motion(&o->motions, o->motion, 2);
        cubism_ref_expression_manager_init(&o->expressions);
        cubism_ref_start_expression(&o->expressions, &o->expression);
        cubism_ref_save_parameters(o->model);
        face_inputs(i, o->scores, o->rotation);
        o->presence = 1;
        o->level = lip_level(i);
        hand_inputs(i, 0, o->hands[0].lm);
        hand_inputs(i, 1, o->hands[1].lm);
        /* the motion's offset: the clip played up to it (not timed) */
        cubism_ref_update_motion(&o->motions, o->model, 0.0);
        cubism_ref_update_motion(&o->motions, o->model, motion_offset(i % 16));
    }
    return 0;
oom:
    fail(err, size, "out of memory (%u per-object avatars)", n);
    return -1;
}

int bench_avatar_create(bench_avatar **out, int impl, uint32_t n, uint32_t threads, const bench_clip *clip,
                        char *err, size_t err_size) {
    *out = NULL;
    const char *skip = bench_impl_skip_reason(impl);
    if (skip) {
        fail(err, err_size, "%s", skip);
        return -1;
    }
    if (!n || !clip || !clip->row_count) {
        fail(err, err_size, "the avatar needs instances and a pose clip");
        return -1;
    }
    bench_avatar *a = calloc(1, sizeof *a);
    if (!a) {
        fail(err, err_size, "out of memory");
        return -1;
    }
    a->impl = impl;
    a->n = n;
    avatar_rig_init(&a->rig);
    int st = impl == BENCH_PER_OBJECT ? create_per_object(a, clip, err, err_size)
                                      : create_engine(a, threads ? threads : 1, clip, err, err_size);
    if (st) {
        bench_avatar_destroy(a);
        return -1;
    }
    *out = a;
    return 0;
}

void bench_avatar_destroy(bench_avatar *a) {
    if (!a) return;
    crowd_engine_destroy(a->engine);
    if (a->po)
        for (uint32_t i = 0; i < a->n; i++) {
            po_avatar *o = &a->po[i];
            cubism_ref_expression_manager_fini(&o->expressions);
            cubism_ref_expression_fini(&o->expression);
            cubism_ref_motion_destroy(o->motion);
            cubism_ref_pose_destroy(o->pose);
            physics_f32_destroy(o->physics);
            cubism_ref_model_destroy(o->model);
        }
    free(a->po);
    per_object_crowd_destroy(a->po_crowd);
    per_object_rig_destroy(a->po_rig);
    free(a);
}

/* Face tracking as a Cubism app with a tracker writes it (section 11's formulas, libm atan2f). */
static void po_face(const bench_avatar *a, po_avatar *o, float k) {
    const float goal = o->presence > 0.5f ? 1.0f : 0.0f;
    o->control = goal + (o->control - goal) * k;
    if (fabsf(o->control - goal) < 0x1p-10f) o->control = goal;
    const float w = o->control;
    const float x = o->rotation[0], y = o->rotation[1], z = o->rotation[2], qw = o->rotation[3];
    const float r02 = 2 * (x * z + qw * y), r22 = 1 - 2 * (x * x + y * y), r12 = 2 * (y * z - qw * x);
    const float r10 = 2 * (x * y + qw * z), r11 = 1 - 2 * (x * x + z * z), r00 = 1 - 2 * (y * y + z * z);
    const float r20 = 2 * (x * z - qw * y);
    const float c = sqrtf(r02 * r02 + r22 * r22);
    float src[CROWD_FACE_SOURCE_COUNT];
    memcpy(src, o->scores, sizeof o->scores);
    src[CROWD_FACE_HEAD_PITCH] = 57.2957802f * atan2f(-r12, c);
    src[CROWD_FACE_HEAD_YAW] = 57.2957802f * (c >= 0x1p-10f ? atan2f(r02, r22) : atan2f(-r20, r00));
    src[CROWD_FACE_HEAD_ROLL] = c >= 0x1p-10f ? 57.2957802f * atan2f(r10, r11) : 0.0f;
    float sum[P];
    bool hit[P] = {false};
    for (uint32_t e = 0; e < a->map.count; e++) {
        const int32_t p = a->map.index[e];
        const float v = a->map.offset[e] + a->map.gain[e] * src[a->map.source[e]];
        sum[p] = hit[p] ? sum[p] + v : v;
        hit[p] = true;
    }
    for (uint32_t p = 0; p < P; p++)
        if (hit[p]) cubism_ref_set(o->model, a->blend_index[p], sum[p], w);
}

void bench_avatar_tick_range(bench_avatar *a, float dt, uint32_t first, uint32_t count) {
    if (a->impl != BENCH_PER_OBJECT) {
        crowd_result res = crowd_tick_range(a->engine, dt, a->handle, first, count);
        if (res != CROWD_OK) {
            fprintf(stderr, "crowd_tick_range: %s\n", crowd_last_error(a->engine));
            abort();
        }
        return;
    }
    const float k = exp2f(-(dt / 0.1f));
    for (uint32_t i = first; i < first + count; i++) {
        po_avatar *o = &a->po[i];
        cubism_ref_model *m = o->model;
        /* LAppModel.update's order: motion, expression, blink/breath/look, physics, lip sync, pose */
        cubism_ref_load_parameters(m);
        cubism_ref_update_motion(&o->motions, m, dt);
        cubism_ref_save_parameters(m);
        cubism_ref_update_expressions(&o->expressions, m, dt);
        per_object_tick(a->po_crowd, dt, i, 1);
        const float *out = per_object_outputs(a->po_crowd, i);
        for (uint32_t p = 0; p < 12; p++) {
            if (p == I_EYE_L || p == I_EYE_R) cubism_ref_set(m, a->blend_index[p], out[p], 1);
            else cubism_ref_add(m, a->blend_index[p], out[p] - params[p].default_value, 1);
        }
        po_face(a, o, k);
        cubism_ref_add(m, a->blend_index[I_MOUTH], o->level, 0.8);
        for (uint32_t p = 0; p < P; p++) o->values[p] = (float)cubism_ref_get(m, a->blend_index[p]);
        physics_f32_evaluate(o->physics, o->values, dt);
        for (uint32_t p = 0; p < P; p++) cubism_ref_set(m, a->blend_index[p], o->values[p], 1);
        cubism_ref_pose_update(o->pose, m, dt);
        hand_solve(&o->hands[0], a->sin_min, a->sin_range);
        hand_solve(&o->hands[1], a->sin_min, a->sin_range);
    }
}

void bench_avatar_tick(bench_avatar *a, float dt) {
    if (a->impl == BENCH_PER_OBJECT) {
        bench_avatar_tick_range(a, dt, 0, a->n);
        return;
    }
    crowd_result res = crowd_tick(a->engine, dt);
    if (res != CROWD_OK) {
        fprintf(stderr, "crowd_tick: %s\n", crowd_last_error(a->engine));
        abort();
    }
}

uint32_t bench_avatar_count(const bench_avatar *a) { return a->n; }

double bench_avatar_bytes_per_instance(const bench_avatar *a) {
    if (a->impl != BENCH_PER_OBJECT) {
        size_t bytes = 0;
        crowd_rig_bytes_per_instance(a->engine, a->handle, &bytes);
        return (double)bytes;
    }
    const po_avatar *o = &a->po[0];
    return (double)(sizeof *o + cubism_ref_model_bytes(o->model) + cubism_ref_motion_bytes(o->motion) +
                    physics_f32_state_bytes(&a->rig.physics) + per_object_record_bytes(a->po_rig) +
                    sizeof(int32_t) * EXPR_ENTRIES);
}

crowd_engine *bench_avatar_engine(const bench_avatar *a, crowd_rig *rig) {
    if (rig) *rig = a->handle;
    return a->engine;
}
