/* The 3D demo's fuller avatar (web/demo/3d.js, ?avatar=full): the default crowd (its rig, walk
 * and gaze as `crowd run` has them) with fingers (crowd.h section 9a), lip sync (section 13) and
 * Cubism physics (section 12: two side locks of hair, a pendulum each, swung by the head's and
 * body's turns and a gusty wind) added to its rig. Each frame every avatar's hands get a gesture of their own, its fingers
 * curling and opening from the relaxed rest hand (crowd_rest_hand_landmarks) at its own pace,
 * written into CROWD_FIELD_HAND_LANDMARKS, and its mouth a talking level in
 * CROWD_FIELD_LIPSYNC_LEVEL. The gestures are computed here, in float, on the page's thread, so
 * they are the same bytes for every thread count of the tick. A motion library (section 15) of
 * one looping clip makes the eyes look around and blink; the engine's motion controller plays it,
 * each avatar from its own point of the clip and at its own speed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"
#include "crowd_io.h"

typedef struct cw_demo {
    crowd_io_scene *scene;
    crowd_parameter_desc *parameters; /* the default rig's, then the hair's */
    crowd_io_world *world;
    uint32_t count;
    float rest[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
    float curl_sign[CROWD_HAND_COUNT][5]; /* which way a finger's joints turn to close the hand */
} cw_demo;

/* The rig's extra controllers (crowd_rig_create copies them). */
static crowd_fingers_desc demo_fingers;
static crowd_lipsync_desc demo_lipsync;
static const char *const demo_mouth[] = {"ParamMouthOpenY"};
/* The hair: per side lock a sub-rig as the Cubism samples' hair (a physics3.json's front hair:
 * the head's and body's X turn and Z tilt in, a two-particle pendulum, its angle out). */
static const crowd_parameter_desc demo_hair[] = {
    {"ParamHairSideL", -1, 1, 0, false},
    {"ParamHairSideR", -1, 1, 0, false},
};
static const crowd_physics_input demo_hair_inputs[] = {
    {"ParamAngleX", 60, CROWD_PHYSICS_X, 0}, {"ParamAngleZ", 60, CROWD_PHYSICS_ANGLE, 0},
    {"ParamBodyAngleX", 40, CROWD_PHYSICS_X, 0}, {"ParamBodyAngleZ", 40, CROWD_PHYSICS_ANGLE, 0},
    {"ParamAngleX", 60, CROWD_PHYSICS_X, 0}, {"ParamAngleZ", 60, CROWD_PHYSICS_ANGLE, 0},
    {"ParamBodyAngleX", 40, CROWD_PHYSICS_X, 0}, {"ParamBodyAngleZ", 40, CROWD_PHYSICS_ANGLE, 0},
};
static const crowd_physics_output demo_hair_outputs[] = {
    {"ParamHairSideL", 1, 1.5, 100, CROWD_PHYSICS_ANGLE, 0},
    {"ParamHairSideR", 1, 1.3, 100, CROWD_PHYSICS_ANGLE, 0},
};
static const crowd_physics_particle demo_hair_particles[] = {
    {1, 1, 1, 0, {0, 0}}, {0.95, 0.9, 1.5, 3, {0, 3}}, /* left: a little livelier than the right */
    {1, 1, 1, 0, {0, 0}}, {0.9, 0.85, 1.3, 3.5, {0, 3.5}},
};
static const crowd_physics_subrig demo_hair_subrigs[] = {
    {0, 4, 0, 1, 0, 2, {-10, 0, 10}, {-10, 0, 10}},
    {4, 4, 1, 1, 2, 2, {-10, 0, 10}, {-10, 0, 10}},
};
static crowd_physics_desc demo_physics;

/* A per-instance draw in [0, 1) from its row (a hash: the gesture's pace and phase). */
static float draw(uint32_t row, uint32_t salt) {
    uint32_t h = row * 747796405u + salt * 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    return (float)((h >> 22u) ^ h) / 4294967296.0f;
}

/* The motion: one 4 s clip looping, linear keys (time s, value). The pupils glance right, then
 * left and down (the look controller adds the gaze on top: order 700 after the motion's 100);
 * the eyes blink twice. While a motion plays, the blink controller stands still (as the Cubism
 * samples do), so the clip's blinks are the avatar's. Its last keys equal its first: the loop's
 * return in the last 1/fps is flat. */
static const crowd_motion_point demo_motion_points[] = {
    /* ParamEyeBallX */
    {0, 0}, {0.6, 0.7}, {1.4, 0.7}, {2.0, -0.6}, {2.8, -0.6}, {3.4, 0}, {4, 0},
    /* ParamEyeBallY */
    {0, 0}, {1.0, 0.35}, {2.0, 0}, {2.8, -0.3}, {4, 0},
    /* ParamEyeLOpen, ParamEyeROpen */
    {0, 1}, {0.9, 1}, {0.98, 0}, {1.1, 1}, {3.0, 1}, {3.08, 0}, {3.2, 1}, {4, 1},
    {0, 1}, {0.9, 1}, {0.98, 0}, {1.1, 1}, {3.0, 1}, {3.08, 0}, {3.2, 1}, {4, 1},
};
#define DEMO_MOTION_CURVES 4
static const uint32_t demo_motion_curve_points[DEMO_MOTION_CURVES] = {7, 5, 8, 8};
static const char *const demo_motion_ids[DEMO_MOTION_CURVES] = {"ParamEyeBallX", "ParamEyeBallY", "ParamEyeLOpen",
                                                                "ParamEyeROpen"};
#define DEMO_MOTION_POINTS (sizeof demo_motion_points / sizeof demo_motion_points[0])
#define DEMO_MOTION_SEGMENTS (DEMO_MOTION_POINTS - DEMO_MOTION_CURVES)
static crowd_motion_curve demo_motion_curves[DEMO_MOTION_CURVES];
static uint8_t demo_motion_types[DEMO_MOTION_SEGMENTS];
static uint32_t demo_motion_first[DEMO_MOTION_SEGMENTS];
static crowd_motion_clip demo_clip;
static crowd_motion_desc demo_motion;

/* The library's layout: each curve a run of linear segments sharing their joining points. */
static void demo_motion_build(void) {
    uint32_t point = 0, segment = 0;
    for (uint32_t c = 0; c < DEMO_MOTION_CURVES; c++) {
        uint32_t n = demo_motion_curve_points[c] - 1;
        demo_motion_curves[c] = (crowd_motion_curve){demo_motion_ids[c], CROWD_MOTION_TARGET_PARAMETER, -1, -1, segment, n};
        for (uint32_t k = 0; k < n; k++, segment++) {
            demo_motion_types[segment] = CROWD_MOTION_SEGMENT_LINEAR;
            demo_motion_first[segment] = point + k;
        }
        point += n + 1;
    }
    demo_clip = (crowd_motion_clip){0};
    demo_clip.duration = 4;
    demo_clip.fps = 30;
    demo_clip.fade_in = 0; /* every avatar starts mid-clip: no fade from the rest values */
    demo_clip.fade_out = 0;
    demo_clip.curve_count = DEMO_MOTION_CURVES;
    demo_clip.segment_count = (uint32_t)DEMO_MOTION_SEGMENTS;
    demo_clip.point_count = (uint32_t)DEMO_MOTION_POINTS;
    demo_clip.curves = demo_motion_curves;
    demo_clip.segment_types = demo_motion_types;
    demo_clip.segment_points = demo_motion_first;
    demo_clip.points = demo_motion_points;
    demo_motion = crowd_motion_defaults();
    demo_motion.clips = &demo_clip;
    demo_motion.clip_count = 1;
}

/* Starts the clip looping on every avatar (before the first tick) from its own point of the
 * clip, at its own speed (0.8 .. 1.2), so the crowd does not glance and blink in unison. */
static int demo_motion_start(cw_demo *d) {
    crowd_engine *e = crowd_io_world_engine(d->world);
    crowd_rig rig = crowd_io_world_rig(d->world, 0);
    const crowd_instance *handles = NULL;
    float *speed = NULL;
    uint32_t rows = 0, speed_rows = 0;
    if (crowd_rig_handles(e, rig, &handles, &rows) != CROWD_OK ||
        crowd_rig_column(e, rig, CROWD_FIELD_MOTION_SPEED, 0, 0, &speed, &speed_rows) != CROWD_OK || speed_rows != rows)
        return crowd_io_error(CROWD_IO_FAILED, "the demo's avatar: no motion controller");
    crowd_motion_start_desc start = crowd_motion_start_defaults(0);
    start.loop = true;
    start.loop_fade_in = false;
    for (uint32_t i = 0; i < rows; i++) {
        start.offset = (double)(4.0f * draw(i, 4));
        speed[i] = 0.8f + 0.4f * draw(i, 5);
        if (crowd_motion_start(e, &handles[i], 1, &start, NULL) != CROWD_OK)
            return crowd_io_error(CROWD_IO_FAILED, "the demo's avatar: the motion did not start");
    }
    return CROWD_IO_OK;
}

static void sub(const float *a, const float *b, float *out) {
    for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}
static void normalise(float *v) {
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) for (int k = 0; k < 3; k++) v[k] /= n;
}
static void cross(const float *a, const float *b, float *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
/* p turned by angle about the unit axis through pivot (Rodrigues). */
static void turn(float *p, const float *pivot, const float *axis, float c, float s) {
    float v[3], x[3];
    sub(p, pivot, v);
    cross(axis, v, x);
    float d = axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2];
    for (int k = 0; k < 3; k++) p[k] = pivot[k] + v[k] * c + x[k] * s + axis[k] * d * (1 - c);
}

/* The five fingers' first landmark (thumb CMC, then the MCPs). */
static const int finger_base[5] = {1, 5, 9, 13, 17};

/* The axis finger f of a hand of landmarks p bends about: the palm's side axis (index to
 * little) for the four fingers, the palm's normal for the thumb. */
static void bend_axis(const float *p, int f, float *axis) {
    if (f > 0) {
        sub(p + 3 * 17, p + 3 * 5, axis);
    } else {
        float a[3], b[3];
        sub(p + 3 * 5, p, a);
        sub(p + 3 * 17, p, b);
        cross(a, b, axis);
    }
    normalise(axis);
}

/* Curls finger f of landmarks p by angle (radians) at each of its three joints. */
static void curl(float *p, int f, float sign, float angle) {
    float axis[3];
    bend_axis(p, f, axis);
    float c = cosf(angle), s = sign * sinf(angle);
    int m = finger_base[f];
    for (int j = 0; j < 3; j++)
        for (int q = m + j + 1; q <= m + 3; q++) turn(p + 3 * q, p + 3 * (m + j), axis, c, s);
}

static float distance2(const float *a, const float *b) {
    float v[3];
    sub(a, b, v);
    return v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
}

int cw_demo_create(uint32_t count, int simd, uint32_t threads, cw_demo **out);
int cw_demo_create(uint32_t count, int simd, uint32_t threads, cw_demo **out) {
    *out = NULL;
    if (count == 0 || count > CROWD_IO_DEFAULT_CROWD_INSTANCES)
        return crowd_io_error(CROWD_IO_BAD_INPUT, "the demo's avatar: count outside 1 .. 10000");
    cw_demo *d = calloc(1, sizeof *d);
    if (!d) return crowd_io_error(CROWD_IO_FAILED, "out of memory");
    d->count = count;
    int st = crowd_io_default_crowd(&d->scene);
    if (st == CROWD_IO_OK) {
        demo_fingers = crowd_fingers_defaults();
        demo_fingers.frame = CROWD_FRAME_ENGINE;
        demo_lipsync = crowd_lipsync_defaults();
        demo_lipsync.parameters = demo_mouth;
        demo_lipsync.parameter_count = 1;
        demo_physics = crowd_physics_defaults();
        demo_physics.subrig_count = 2;
        demo_physics.input_count = 8;
        demo_physics.output_count = 2;
        demo_physics.particle_count = 4;
        demo_physics.subrigs = demo_hair_subrigs;
        demo_physics.inputs = demo_hair_inputs;
        demo_physics.outputs = demo_hair_outputs;
        demo_physics.particles = demo_hair_particles;
        demo_physics.wind_x = 0.6f; /* a breeze from the side, in gusts out of unison */
        demo_physics.wind_gust = 1;
        demo_physics.gust_period = 2.5f;
        crowd_rig_desc *r = crowd_io_scene_rig_desc(d->scene, 0);
        uint32_t n = r->parameter_count;
        d->parameters = malloc(sizeof *d->parameters * (n + 2));
        if (!d->parameters) {
            crowd_io_scene_free(d->scene);
            free(d);
            return crowd_io_error(CROWD_IO_FAILED, "out of memory");
        }
        memcpy(d->parameters, r->parameters, sizeof *d->parameters * n);
        memcpy(d->parameters + n, demo_hair, sizeof demo_hair);
        r->parameters = d->parameters;
        r->parameter_count = n + 2;
        r->physics = &demo_physics;
        r->fingers = &demo_fingers;
        r->lipsync = &demo_lipsync;
        demo_motion_build();
        r->motion = &demo_motion;
        st = crowd_io_world_create_range(d->scene, (crowd_simd)simd, threads, 0, count, &d->world);
        if (st == CROWD_IO_OK) st = demo_motion_start(d);
    }
    if (st != CROWD_IO_OK) {
        crowd_io_world_destroy(d->world);
        crowd_io_scene_free(d->scene);
        free(d->parameters);
        free(d);
        return st;
    }
    for (int h = 0; h < CROWD_HAND_COUNT; h++) {
        crowd_rest_hand_landmarks(CROWD_FRAME_ENGINE, (crowd_hand)h, d->rest[h]);
        /* the sign that brings the fingertip toward the wrist (the thumb's toward the middle
         * finger's knuckle): a hand closes, never bends backward */
        for (int f = 0; f < 5; f++) {
            float p[CROWD_HAND_FLOATS], q[CROWD_HAND_FLOATS];
            memcpy(p, d->rest[h], sizeof p);
            memcpy(q, d->rest[h], sizeof q);
            curl(p, f, 1.0f, 0.3f);
            curl(q, f, -1.0f, 0.3f);
            const float *target = f ? d->rest[h] : d->rest[h] + 3 * 9;
            int tip = 3 * (finger_base[f] + 3);
            d->curl_sign[h][f] = distance2(p + tip, target) < distance2(q + tip, target) ? 1.0f : -1.0f;
        }
    }
    *out = d;
    return CROWD_IO_OK;
}

void cw_demo_destroy(cw_demo *d);
void cw_demo_destroy(cw_demo *d) {
    if (!d) return;
    crowd_io_world_destroy(d->world);
    crowd_io_scene_free(d->scene);
    free(d->parameters);
    free(d);
}

crowd_engine *cw_demo_engine(cw_demo *d);
crowd_engine *cw_demo_engine(cw_demo *d) { return crowd_io_world_engine(d->world); }
uint32_t cw_demo_rig(cw_demo *d);
uint32_t cw_demo_rig(cw_demo *d) { return crowd_io_world_rig(d->world, 0).id; }

/* Before tick k (1, 2, ...): the default crowd's walk rows and gaze keys, then every avatar's
 * hands and mouth at time (k - 1) * dt. */
void cw_demo_prepare(cw_demo *d, uint32_t k, float dt);
void cw_demo_prepare(cw_demo *d, uint32_t k, float dt) {
    crowd_io_world_prepare_frame(d->world, k, dt);
    crowd_engine *e = crowd_io_world_engine(d->world);
    crowd_rig rig = crowd_io_world_rig(d->world, 0);
    float t = (float)(k - 1) * dt, *level = NULL;
    uint32_t rows = 0;
    if (crowd_rig_column(e, rig, CROWD_FIELD_LIPSYNC_LEVEL, 0, 0, &level, &rows) != CROWD_OK) return;
    float *hand[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
    for (int h = 0; h < CROWD_HAND_COUNT; h++)
        for (int c = 0; c < CROWD_HAND_FLOATS; c++)
            if (crowd_rig_column(e, rig, CROWD_FIELD_HAND_LANDMARKS, (uint32_t)h, (uint32_t)c, &hand[h][c], &rows) != CROWD_OK)
                return;
    const float tau = 6.28318530718f;
    for (uint32_t i = 0; i < rows && i < d->count; i++) {
        float pace = 0.35f + 0.5f * draw(i, 1), phase = tau * draw(i, 2);
        for (int h = 0; h < CROWD_HAND_COUNT; h++) {
            float p[CROWD_HAND_FLOATS];
            memcpy(p, d->rest[h], sizeof p);
            for (int f = 0; f < 5; f++) {
                /* each finger a little behind the one before: a wave, open to a fist */
                float open = 0.5f - 0.5f * cosf(tau * pace * t + phase + 0.45f * (float)f + 1.3f * (float)h);
                curl(p, f, d->curl_sign[h][f], (f ? 1.25f : 0.55f) * open);
            }
            for (int c = 0; c < CROWD_HAND_FLOATS; c++) hand[h][c][i] = p[c]; /* presence 1 from the rest hand */
        }
        /* talking: syllables at about 3 per second in phrases of a few seconds */
        float syllable = sinf(tau * (2.6f + draw(i, 3)) * t + phase), phrase = sinf(tau * 0.21f * t + 3.0f * phase);
        float v = syllable * phrase;
        level[i] = v > 0 ? (v < 1 ? v : 1) : 0;
    }
}

/* The run checksum of the outputs (crowd_io_world_checksum) mixed with an FNV-1a of every
 * avatar's 32 finger bones' local rotations (bits), as two 32-bit halves, low first. */
void cw_demo_checksum(cw_demo *d, uint32_t *out);
void cw_demo_checksum(cw_demo *d, uint32_t *out) {
    uint64_t sum = crowd_io_world_checksum(d->world);
    crowd_engine *e = crowd_io_world_engine(d->world);
    crowd_rig rig = crowd_io_world_rig(d->world, 0);
    for (uint32_t b = 0; b < CROWD_FINGER_BONE_COUNT; b++)
        for (uint32_t c = 0; c < 4; c++) {
            float *v = NULL;
            uint32_t rows = 0;
            if (crowd_rig_column(e, rig, CROWD_FIELD_FINGER_LOCAL, b, c, &v, &rows) != CROWD_OK) continue;
            for (uint32_t i = 0; i < rows; i++) {
                uint32_t bits;
                memcpy(&bits, &v[i], sizeof bits);
                for (int k = 0; k < 4; k++) sum = (sum ^ ((bits >> (8 * k)) & 0xffu)) * 1099511628211ull;
            }
        }
    out[0] = (uint32_t)sum;
    out[1] = (uint32_t)(sum >> 32);
}
