/* Workloads, rings and the agreement check (see workloads.h). */
#define _POSIX_C_SOURCE 200809L
#include "random.h"
#include "workloads.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const workload_names[BENCH_WORKLOAD_COUNT] = {"face", "gaze",  "harmonic", "blink",
                                                                 "blend", "limbs", "body",     "limbs_smoothed"};

const char *bench_workload_name(bench_workload w) {
    return (unsigned)w < BENCH_WORKLOAD_COUNT ? workload_names[w] : NULL;
}

/* which controllers each workload's rig has */
static bool has_look(bench_workload w) { return w == BENCH_FACE || w == BENCH_GAZE || w == BENCH_BODY; }
static bool has_harm(bench_workload w) { return w == BENCH_FACE || w == BENCH_HARMONIC || w == BENCH_BODY; }
static bool has_blink(bench_workload w) { return w == BENCH_FACE || w == BENCH_BLINK || w == BENCH_BODY; }
bool bench_has_limbs(bench_workload w) { return w == BENCH_LIMBS || w == BENCH_BODY || w == BENCH_LIMBS_SMOOTHED; }
static bool limbs_only(bench_workload w) { return w == BENCH_LIMBS || w == BENCH_LIMBS_SMOOTHED; }

/* The hand count of workloads.h, part by part. */
enum { ONE = 0, R = 1, W = 2, RW = 3 }; /* ONE: a setting no instance changed, read once per rig */
static void add_part(bench_traffic_part *parts, uint32_t *k, const char *name, uint32_t count, int access) {
    parts[(*k)++] = (bench_traffic_part){name, count, (access & R) != 0, (access & W) != 0};
}

uint32_t bench_workload_parts(bench_workload w, bench_traffic_part parts[BENCH_TRAFFIC_MAX_PARTS]) {
    const uint32_t P = w == BENCH_GAZE ? 6 : w == BENCH_HARMONIC ? 5 : w == BENCH_BLINK ? 2 : limbs_only(w) ? 0 : 12;
    const uint32_t H = 5;
    uint32_t k = 0;
    if (P) add_part(parts, &k, "base", P, ONE), add_part(parts, &k, "out", P, W);
    if (has_look(w)) {
        add_part(parts, &k, "look.target", 3, R); /* written per instance, as active is */
        add_part(parts, &k, "look.center", 3, ONE);
        add_part(parts, &k, "look.active", 1, R);
        add_part(parts, &k, "look.damping", 1, ONE);
        add_part(parts, &k, "look.weight", 1, ONE);
        add_part(parts, &k, "look.pos", 3, RW);
        add_part(parts, &k, "look.vel", 3, RW);
    }
    if (has_harm(w)) {
        add_part(parts, &k, "harmonic.weight", 1, ONE);
        add_part(parts, &k, "harmonic.T", H, RW);
        add_part(parts, &k, "harmonic.NR", H, R); /* stored only when a range did not fit: the first tick */
    }
    if (has_blink(w)) {
        add_part(parts, &k, "blink.manual", 1, ONE);
        add_part(parts, &k, "blink.weight", 1, ONE);
        add_part(parts, &k, "blink.clock", 1, RW);
        add_part(parts, &k, "blink.phase", 1, RW);
        add_part(parts, &k, "blink.last", 1, RW);
        add_part(parts, &k, "blink.opening", 1, RW);
    }
    if (bench_has_limbs(w)) {
        add_part(parts, &k, "limbs.pose", 23 * 4, R); /* the used landmarks */
        add_part(parts, &k, "limbs.root", 4, ONE);
        add_part(parts, &k, "limbs.track", 15, R);    /* the steady check: every bone eased in */
        add_part(parts, &k, "limbs.side", 4 * 3, RW); /* the stable fallback's side axis per limb */
        add_part(parts, &k, "limbs.world", 15 * 4, W);
        add_part(parts, &k, "limbs.local", 15 * 4, W);
    }
    if (w == BENCH_LIMBS_SMOOTHED) /* One Euro: value, derivative, last raw value of each used coordinate; the
                                      "has a first sample" flag */
        add_part(parts, &k, "limbs.filter", 23 * 3 * 3 + 1, RW);
    return k;
}

bench_traffic bench_workload_traffic(bench_workload w) {
    bench_traffic_part parts[BENCH_TRAFFIC_MAX_PARTS];
    const uint32_t count = bench_workload_parts(w, parts);
    bench_traffic t = {0, 0, 0};
    for (uint32_t k = 0; k < count; k++) {
        t.read_floats += parts[k].read ? parts[k].count : 0;
        t.write_floats += parts[k].write ? parts[k].count : 0;
        t.columns += parts[k].read || parts[k].write ? parts[k].count : 0;
    }
    return t;
}

double bench_bytes_per_instance(bench_workload w) {
    bench_traffic t = bench_workload_traffic(w);
    return 4.0 * (t.read_floats + t.write_floats);
}

uint32_t bench_chains_per_instance(bench_workload w) { return bench_has_limbs(w) ? 4 : 0; }

/* ---- rigs ---- */
static const crowd_parameter_desc face_params[12] = {
    {"ParamAngleX", -30, 30, 0, false},     {"ParamAngleY", -30, 30, 0, false},
    {"ParamAngleZ", -30, 30, 0, false},     {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},     {"ParamBodyAngleX", -10, 10, 0, false},
    {"ParamBreath", 0, 1, 0, false},        {"ParamBodyAngleY", -10, 10, 0, false},
    {"ParamBodyAngleZ", -10, 10, 0, false}, {"ParamHairFront", -1, 1, 0, false},
    {"ParamEyeLOpen", 0, 1, 1, false},      {"ParamEyeROpen", 0, 1, 1, false}};
/* parameters of the single-stage rigs, as indices into face_params */
static const int gaze_only[6] = {0, 1, 2, 3, 4, 5}, harm_only[5] = {6, 5, 7, 8, 9}, blink_only[2] = {10, 11};

void bench_rig_tables_init(bench_rig_tables *t, bench_workload w) {
    memset(t, 0, sizeof *t);
    const bool look = has_look(w), harm = has_harm(w), blink = has_blink(w), limbs = bench_has_limbs(w);
    t->desc.name = workload_names[w];
    t->desc.parameters = t->params;
    if (w == BENCH_GAZE) {
        for (int k = 0; k < 6; k++) t->params[k] = face_params[gaze_only[k]];
        t->desc.parameter_count = 6;
    } else if (w == BENCH_HARMONIC) {
        for (int k = 0; k < 5; k++) t->params[k] = face_params[harm_only[k]];
        t->desc.parameter_count = 5;
    } else if (w == BENCH_BLINK) {
        for (int k = 0; k < 2; k++) t->params[k] = face_params[blink_only[k]];
        t->desc.parameter_count = 2;
    } else if (!limbs_only(w)) {
        memcpy(t->params, face_params, sizeof face_params);
        t->desc.parameter_count = 12;
    }
    if (look) {
        static const crowd_look_parameter_desc lp[6] = {
            {"ParamAngleX", CROWD_AXIS_X, 30},  {"ParamAngleY", CROWD_AXIS_Y, 30},
            {"ParamAngleZ", CROWD_AXIS_Z, -30}, {"ParamEyeBallX", CROWD_AXIS_X, 1},
            {"ParamEyeBallY", CROWD_AXIS_Y, 1}, {"ParamBodyAngleX", CROWD_AXIS_X, 10}};
        memcpy(t->look_params, lp, sizeof lp);
        t->look = crowd_look_defaults();
        t->look.parameters = t->look_params;
        t->look.parameter_count = 6;
        t->desc.look = &t->look;
    }
    if (harm) {
        t->harm[0] = crowd_harmonic_parameter_defaults("ParamBreath");
        t->harm[1] = crowd_harmonic_parameter_defaults("ParamBodyAngleX");
        t->harm[2] = crowd_harmonic_parameter_defaults("ParamBodyAngleY");
        t->harm[3] = crowd_harmonic_parameter_defaults("ParamBodyAngleZ");
        t->harm[4] = crowd_harmonic_parameter_defaults("ParamHairFront");
        t->harm[1].range = 0.1f, t->harm[1].duration = 5.0f, t->harm[1].direction = CROWD_DIRECTION_LEFT;
        t->harm[2].range = 0.1f, t->harm[2].duration = 7.0f, t->harm[2].direction = CROWD_DIRECTION_RIGHT;
        t->harm[3].range = 0.1f, t->harm[3].duration = 6.5f;
        t->harm[4].range = 0.2f, t->harm[4].duration = 2.0f;
        t->harmonic = crowd_harmonic_defaults();
        t->harmonic.parameters = t->harm;
        t->harmonic.parameter_count = 5;
        t->desc.harmonic = &t->harmonic;
    }
    if (blink) {
        t->eyes[0] = "ParamEyeLOpen";
        t->eyes[1] = "ParamEyeROpen";
        t->blink = crowd_blink_defaults();
        t->blink.parameters = t->eyes;
        t->blink.parameter_count = 2;
        t->desc.blink = &t->blink;
    }
    if (limbs) {
        t->limbs = crowd_limbs_defaults();
        t->limbs.frame = CROWD_FRAME_ENGINE;
        t->limbs.smoothing = w == BENCH_LIMBS_SMOOTHED;
        t->desc.limbs = &t->limbs;
    }
}

/* ---- implementations ---- */
const char *bench_impl_name(int impl) {
    if (impl == BENCH_PER_OBJECT) return "per_object";
    return impl > CROWD_SIMD_AUTO && impl < CROWD_SIMD_COUNT ? crowd_simd_name((crowd_simd)impl) : NULL;
}

const char *bench_impl_skip_reason(int impl) {
    if (impl == BENCH_PER_OBJECT || impl == CROWD_SIMD_SCALAR) return NULL;
    if (impl <= CROWD_SIMD_AUTO || impl >= CROWD_SIMD_COUNT) return "unknown implementation";
    if (crowd_simd_supported((crowd_simd)impl)) return NULL;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (impl == CROWD_SIMD_SSE2 && !__builtin_cpu_supports("sse2")) return "the CPU lacks SSE2";
    if (impl == CROWD_SIMD_AVX2 && !__builtin_cpu_supports("avx2")) return "the CPU lacks AVX2";
    if (impl == CROWD_SIMD_AVX512 && !__builtin_cpu_supports("avx512f")) return "the CPU lacks AVX-512F";
#endif
    return "the target is not built into this library (CROWD_SIMD_TARGETS)";
}

/* ---- inputs ---- */
/* Gaze target of instance i of copy k after `refresh` refreshes: each axis in [-1, 1). */
static float target_axis(uint32_t k, uint32_t i, uint32_t refresh, uint32_t axis) {
    uint32_t h = crowdi_mix32(crowdi_mix32(crowdi_mix32(k * 0x9e3779b9U + refresh) ^ i) + axis);
    return (float)(h >> 8) * 0x1p-23f - 1.0f;
}

static const float *pose_row(const bench_clip *clip, uint32_t k, uint32_t i) {
    return clip->rows + (size_t)((i * 7u + k * 3u) % clip->row_count) * 4 * CROWD_LANDMARK_COUNT;
}

static void fail(char *err, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && size) vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

#define RING_CHECK(call)                                                                                  \
    do {                                                                                                  \
        crowd_result res_ = (call);                                                                       \
        if (res_ != CROWD_OK) {                                                                           \
            fail(err, err_size, "%s: %s (%s)", #call, crowd_result_text(res_), r->engine ? crowd_last_error(r->engine) : ""); \
            goto error;                                                                                   \
        }                                                                                                 \
    } while (0)

static void write_targets(bench_ring *r, uint32_t k, uint32_t refresh) {
    for (uint32_t i = 0; i < r->n; i++) {
        float t[3];
        for (uint32_t a = 0; a < 3; a++) t[a] = target_axis(k, i, refresh, a);
        if (r->impl == BENCH_PER_OBJECT)
            per_object_set_look(r->po[k], i, t, 1);
        else
            for (uint32_t a = 0; a < 3; a++) r->target[k][a][i] = t[a];
    }
}

/* copies 0: from BENCH_RING_BYTES. first_id: the id of the first instance (per-object). */
static int ring_create(bench_ring *r, bench_workload w, int impl, uint32_t n, const bench_clip *clip, uint32_t copies,
                       uint64_t first_id, char *err, size_t err_size) {
    memset(r, 0, sizeof *r);
    r->workload = w;
    r->impl = impl;
    r->n = n;
    const char *skip = bench_impl_skip_reason(impl);
    if (skip) {
        fail(err, err_size, "%s", skip);
        return -1;
    }
    if ((unsigned)w >= BENCH_WORKLOAD_COUNT || n == 0) {
        fail(err, err_size, "unknown workload or no instances");
        return -1;
    }
    if (bench_has_limbs(w) && (!clip || !clip->row_count)) {
        fail(err, err_size, "the %s workload needs a pose clip", workload_names[w]);
        return -1;
    }
    if (!copies) {
        size_t ws = (size_t)bench_workload_traffic(w).columns * 4 * n;
        copies = (uint32_t)((BENCH_RING_BYTES + ws - 1) / ws);
        if (copies > BENCH_MAX_COPIES) copies = BENCH_MAX_COPIES;
    }
    r->copies = copies;
    bench_rig_tables tables;
    bench_rig_tables_init(&tables, w);

    if (impl == BENCH_PER_OBJECT) {
        r->po_rig = per_object_rig_create(&tables.desc);
        if (!r->po_rig) {
            fail(err, err_size, "per_object_rig_create failed");
            goto error;
        }
        for (uint32_t k = 0; k < copies; k++) {
            r->po[k] = per_object_crowd_create(r->po_rig, n, 7, first_id + (uint64_t)k * n, CROWD_HARMONIC_PHASE_RANDOM);
            if (!r->po[k]) {
                fail(err, err_size, "out of memory (%u avatars)", n);
                goto error;
            }
            if (bench_has_limbs(w))
                for (uint32_t i = 0; i < n; i++) per_object_set_pose(r->po[k], i, pose_row(clip, k, i));
        }
    } else {
        crowd_engine_desc desc = {.seed = 7, .simd = (crowd_simd)impl};
        RING_CHECK(crowd_engine_create(&desc, &r->engine));
        for (uint32_t k = 0; k < copies; k++) {
            RING_CHECK(crowd_rig_create(r->engine, &tables.desc, &r->rig[k]));
            RING_CHECK(crowd_reserve(r->engine, r->rig[k], n));
            crowd_add_desc add = {.rig = r->rig[k], .count = n, .blink_start = CROWD_BLINK_START_RANDOM,
                                  .harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM};
            RING_CHECK(crowd_instances_add(r->engine, &add, NULL));
            uint32_t count;
            if (has_look(w)) {
                float *active;
                for (uint32_t a = 0; a < 3; a++)
                    RING_CHECK(crowd_rig_column(r->engine, r->rig[k], CROWD_FIELD_LOOK_TARGET, 0, a, &r->target[k][a], &count));
                RING_CHECK(crowd_rig_column(r->engine, r->rig[k], CROWD_FIELD_LOOK_ACTIVE, 0, 0, &active, &count));
                for (uint32_t i = 0; i < n; i++) active[i] = 1.0f;
            }
            if (bench_has_limbs(w)) {
                float *pose[4 * CROWD_LANDMARK_COUNT];
                RING_CHECK(crowd_rig_columns(r->engine, r->rig[k], CROWD_FIELD_POSE, 0, pose, &count));
                for (uint32_t i = 0; i < n; i++) {
                    const float *row = pose_row(clip, k, i);
                    for (int c = 0; c < 4 * CROWD_LANDMARK_COUNT; c++) pose[c][i] = row[c];
                }
            }
        }
    }
    if (has_look(w))
        for (uint32_t k = 0; k < copies; k++) write_targets(r, k, 0);
    return 0;
error:
    bench_ring_destroy(r);
    return -1;
}

int bench_ring_create(bench_ring *r, bench_workload w, int impl, uint32_t n, const bench_clip *clip, char *err,
                      size_t err_size) {
    return ring_create(r, w, impl, n, clip, 0, 0, err, err_size);
}

int bench_ring_create_copies(bench_ring *r, bench_workload w, int impl, uint32_t n, const bench_clip *clip,
                             uint32_t copies, char *err, size_t err_size) {
    if (copies == 0 || copies > BENCH_MAX_COPIES) {
        fail(err, err_size, "copies (%u) must be in [1, %d]", copies, BENCH_MAX_COPIES);
        return -1;
    }
    return ring_create(r, w, impl, n, clip, copies, 0, err, err_size);
}

void bench_ring_destroy(bench_ring *r) {
    for (uint32_t k = 0; k < BENCH_MAX_COPIES; k++) per_object_crowd_destroy(r->po[k]);
    per_object_rig_destroy(r->po_rig);
    crowd_engine_destroy(r->engine);
    memset(r, 0, sizeof *r);
}

void bench_ring_tick(const bench_ring *r, float dt, uint32_t first, uint32_t count) {
    if (r->impl == BENCH_PER_OBJECT) {
        per_object_tick(r->po[r->current], dt, first, count);
        return;
    }
    crowd_result res = crowd_tick_range(r->engine, dt, r->rig[r->current], first, count);
    if (res != CROWD_OK) {
        fprintf(stderr, "crowd_tick_range: %s\n", crowd_last_error(r->engine));
        abort();
    }
}

bool bench_ring_due(const bench_ring *r) {
    uint32_t t = r->ticks[r->current];
    return has_look(r->workload) && t > 0 && t % BENCH_REFRESH_TICKS == 0;
}

void bench_ring_refresh(bench_ring *r) { write_targets(r, r->current, r->ticks[r->current] / BENCH_REFRESH_TICKS); }

void bench_ring_advance(bench_ring *r) {
    r->ticks[r->current]++;
    r->current = r->current + 1 == r->copies ? 0 : r->current + 1;
}

uint32_t bench_split(uint32_t n, uint32_t threads, uint32_t t, uint32_t *first) {
    uint32_t slice = n / threads / 16 * 16;
    *first = slice * t;
    return t + 1 == threads ? n - *first : slice;
}

/* ---- agreement ---- */
int bench_verify(bench_workload w, crowd_simd simd, uint32_t n, uint32_t ticks, const bench_clip *clip, char *msg,
                 size_t size) {
    bench_ring e, p;
    if (ring_create(&e, w, simd, n, clip, 1, 0, msg, size)) return -1;
    const crowd_instance *handles;
    uint32_t count;
    uint64_t first_id;
    if (crowd_rig_handles(e.engine, e.rig[0], &handles, &count) != CROWD_OK ||
        crowd_instance_info(e.engine, handles[0], &first_id, NULL, NULL) != CROWD_OK) {
        fail(msg, size, "crowd_rig_handles: %s", crowd_last_error(e.engine));
        bench_ring_destroy(&e);
        return -1;
    }
    if (ring_create(&p, w, BENCH_PER_OBJECT, n, clip, 1, first_id, msg, size)) {
        bench_ring_destroy(&e);
        return -1;
    }
    bench_rig_tables tables;
    bench_rig_tables_init(&tables, w);
    const uint32_t P = tables.desc.parameter_count;
    int status = 0;
    float *out[12];
    float *bone[CROWD_BONE_COUNT][4];
    for (uint32_t q = 0; q < P; q++) crowd_rig_column(e.engine, e.rig[0], CROWD_FIELD_OUTPUT, q, 0, &out[q], &count);
    float *pose[4 * CROWD_LANDMARK_COUNT];
    if (bench_has_limbs(w)) {
        for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
            crowd_rig_columns(e.engine, e.rig[0], CROWD_FIELD_BONE_WORLD, b, bone[b], &count);
        crowd_rig_columns(e.engine, e.rig[0], CROWD_FIELD_POSE, 0, pose, &count);
    }
    for (uint32_t t = 1; t <= ticks && status == 0; t++) {
        if (bench_ring_due(&e)) bench_ring_refresh(&e), bench_ring_refresh(&p);
        /* the timed runs keep each avatar's pose; here it moves every tick (the clip's frames),
         * so that the smoothing and the previous-frame states are checked too */
        if (bench_has_limbs(w))
            for (uint32_t i = 0; i < n; i++) {
                const float *row = pose_row(clip, t, i);
                for (int c = 0; c < 4 * CROWD_LANDMARK_COUNT; c++) pose[c][i] = row[c];
                per_object_set_pose(p.po[0], i, row);
            }
        bench_ring_tick(&e, BENCH_DT, 0, n);
        bench_ring_tick(&p, BENCH_DT, 0, n);
        bench_ring_advance(&e);
        bench_ring_advance(&p);
        for (uint32_t i = 0; i < n && status == 0; i++) {
            const float *po = per_object_outputs(p.po[0], i);
            for (uint32_t q = 0; q < P && status == 0; q++) {
                float range = tables.params[q].max - tables.params[q].min;
                if (!(fabsf(out[q][i] - po[q]) <= 1e-4f * range)) {
                    fail(msg, size, "%s on %s: tick %u, instance %u, %s: engine %.9g, per-object %.9g", workload_names[w],
                         crowd_simd_name(simd), t, i, tables.params[q].id, (double)out[q][i], (double)po[q]);
                    status = -1;
                }
            }
            if (bench_has_limbs(w))
                for (uint32_t b = 0; b < CROWD_BONE_COUNT && status == 0; b++) {
                    float q4[4];
                    per_object_bone_world(p.po[0], i, b, q4);
                    for (int c = 0; c < 4 && status == 0; c++)
                        if (!(fabsf(bone[b][c][i] - q4[c]) <= 1e-4f)) {
                            fail(msg, size, "%s on %s: tick %u, instance %u, bone %s[%d]: engine %.9g, per-object %.9g",
                                 workload_names[w], crowd_simd_name(simd), t, i, crowd_bone_name((crowd_bone)b), c,
                                 (double)bone[b][c][i], (double)q4[c]);
                            status = -1;
                        }
                }
        }
    }
    bench_ring_destroy(&e);
    bench_ring_destroy(&p);
    return status;
}

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
