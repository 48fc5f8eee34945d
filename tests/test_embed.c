/* test_embed.c — the engine embedded in a server (issue #7), on the SIMD target named by argv[1]:
 * worker threads, host range ticks, snapshots, live add/remove and paused instances.
 *
 * One mixed scene drives every test: a face rig (look, harmonic on two channels, sine blink), a
 * timed-blink rig, a limbs rig with One Euro smoothing, fallback `previous` and visibility holds,
 * a limbs rig with a custom axis fix (MediaPipe frame) and a calibrated one. Every input an
 * instance gets is a function of its number (creation order) and of its own tick count, so two
 * engines that tick an instance the same number of times must agree on it bit for bit.
 * "The hash" of an instance folds the bits of every field crowd_instances_get reads: inputs,
 * state, outputs, bone rotations.
 *
 *   threads_and_targets  per-tick hashes for threads 1, 2, 3, 4 on this target and on scalar,
 *                        with variable dt and pauses, equal the scalar one-thread run; 256 threads
 *   host_ranges          crowd_tick_range from three host threads on ragged ranges == crowd_tick
 *   thread_limits        threads 0 and 1 mean 1, 257 is rejected; pools start and stop cleanly;
 *                        a tick on a pool allocates nothing
 *   snapshot_round_trip  saves at many ticks (mid-blink, mid-filter, with paused rows and free
 *                        slots), loads into fresh engines (other target, other thread count),
 *                        into a used engine and back into the saver (rollback): identical
 *                        continuation, handles valid, save/load/save byte-identical
 *   snapshot_api         NULL arguments, short capacity, empty engines
 *   snapshot_rejects     truncated, every header byte flipped, payload bytes flipped, foreign
 *                        version, oversized: CROWD_ERR_BAD_SNAPSHOT, the target engine unchanged
 *   snapshot_structure   counts, rows, handles and slots corrupted with the checksum recomputed
 *   snapshot_value_rules values outside a field's rules (crowd_instances_set's checks) with the
 *                        checksum recomputed
 *   snapshot_state_reloads  from the largest values crowd_instances_set accepts, the tick stays
 *                        finite and every state it reaches saves and loads again
 *   churn                adds every tick, random removals, pauses of extras: every never-paused
 *                        instance equals a run where nothing is removed
 *   pause_shift          pausing for any number of ticks: a paused instance is frozen, and once
 *                        resumed it continues as if no time had passed for it
 *   pause_api            argument checks, row order invariants, remove/add/tick_range with
 *                        paused rows
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the limb tracking state, which no field exposes */
#include "test_support.h"
#include "snapshot_checksum.h"

/* ------------------------------------------------------------------------------------------
 * helpers
 * ---------------------------------------------------------------------------------------- */
/* rname, FAILF and OK come from test_support.h. */
#ifndef EXPECT
#define EXPECT(e, expr, code)                                                                      \
    do {                                                                                           \
        crowd_result ex_r_ = (expr);                                                               \
        if (ex_r_ != (code))                                                                       \
            FAILF("%s -> %s, want %s (%s)", #expr, rname(ex_r_), rname(code), crowd_last_error(e)); \
    } while (0)
#endif

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) h = (h ^ p[k]) * 0x100000001b3ull;
    return h;
}
#define FNV_INIT 0xcbf29ce484222325ull


static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t rnd(uint64_t *s, uint32_t n) { return (uint32_t)(splitmix(s) % n); }

static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr64(unsigned char *p, uint64_t v) {
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

/* Under a sanitizer the single-threaded sweeps take a sample: they gain nothing there. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Soft checks: a test lists every case that went wrong, then fails once. */
static int soft_failures;
#define SOFT(...)                                   \
    do {                                            \
        soft_failures++;                            \
        printf("  FAILED CASE: " __VA_ARGS__);      \
        printf("\n");                               \
    } while (0)
static void soft_begin(void) { soft_failures = 0; }
static void soft_end(const char *what) {
    if (soft_failures) FAILF("%d %s case(s) failed (listed above)", soft_failures, what);
}

/* ------------------------------------------------------------------------------------------
 * The mixed scene
 * ---------------------------------------------------------------------------------------- */
enum { RIG_FACE, RIG_TIMED, RIG_BODY, RIG_CUSTOM, RIG_CALIB, RIGS };
static const char *const rig_names[RIGS] = {"face", "timed", "body", "custom", "calib"};

#define MAX_INSTANCES 4096
#define DT (1.0f / 60.0f)

typedef struct scene {
    crowd_engine *e;
    crowd_rig rig[RIGS];
    uint32_t n;                        /* instances added so far: numbers 0 .. n-1 */
    crowd_instance h[MAX_INSTANCES];   /* by number */
    uint8_t rig_of[MAX_INSTANCES];
    uint8_t live[MAX_INSTANCES];
    uint8_t paused[MAX_INSTANCES];
    uint32_t steps[MAX_INSTANCES];     /* ticks the instance has run: its own time */
} scene;

/* A plausible body (engine frame, metres) at the instance's step s; `num` varies the motion.
 * Every 13th step the left arm is straight (fallback), every 17th the right knee is hardly
 * visible (hold), every 29th the left leg is straight. */
static void put(float *lm, int k, double x, double y, double z, double vis) {
    lm[4 * k] = (float)x;
    lm[4 * k + 1] = (float)y;
    lm[4 * k + 2] = (float)z;
    lm[4 * k + 3] = (float)vis;
}

static void body_pose(uint32_t num, uint32_t s, float lm[132]) {
    double t = s / 60.0, w = 2 * 3.14159265358979 * t / (0.9 + 0.07 * (num % 5)), sn = sin(w), cs = cos(w);
    double bob = 0.02 * cos(2 * w), lean = 0.05 * sin(0.3 * w + num);
    put(lm, 23, -0.1, bob, 0.01 * sn, 0.99);
    put(lm, 24, 0.1, bob, -0.01 * sn, 0.98);
    put(lm, 11, -0.18 + lean, 0.5 + bob, -0.03 * sn, 0.97);
    put(lm, 12, 0.18 + lean, 0.5 + bob, 0.03 * sn, 0.96);
    double hy = 0.7 + bob;
    put(lm, 0, 0.01 * sn + lean, hy - 0.01, 0.1, 0.9);
    for (int k = 1; k <= 6; k++) put(lm, k, (k <= 3 ? -1 : 1) * (0.01 + 0.02 * ((k - 1) % 3)), hy + 0.03, 0.08, 0.9);
    put(lm, 7, -0.075 + lean, hy, 0.01 * cs, 0.9);
    put(lm, 8, 0.075 + lean, hy, -0.01 * cs, 0.9);
    put(lm, 9, -0.025, hy - 0.05, 0.085, 0.9);
    put(lm, 10, 0.025, hy - 0.05, 0.085, 0.9);
    for (int side = 0; side < 2; side++) {
        double sg = side ? 1 : -1, ph = side ? sn : -sn, bend = 0.3 + 0.2 * (side ? cs : -cs);
        double hx = 0.1 * sg, a = 0.4 * ph, kb = 0.25 + 0.25 * (1 + (side ? cs : -cs));
        if (side == 0 && s % 29 == 0) kb = 0;
        double kx = hx, ky = bob - 0.42 * cos(a), kz = 0.42 * sin(a);
        double ax = hx, ay = ky - 0.42 * cos(a - kb), az = kz + 0.42 * sin(a - kb);
        double knee_vis = side == 1 && s % 17 == 0 ? 0.2 : 0.95;
        put(lm, 25 + side, kx, ky, kz, knee_vis);
        put(lm, 27 + side, ax, ay, az, 0.95);
        put(lm, 29 + side, ax, ay - 0.05, az - 0.05, 0.9);
        put(lm, 31 + side, ax, ay - 0.07, az + 0.15, 0.9);
        if (side == 0 && s % 13 == 0) bend = 0;
        double u = -0.3 * ph, ex = 0.2 * sg, ey = 0.5 + bob - 0.29 * cos(u), ez = 0.29 * sin(u);
        double wx = ex, wy = ey - 0.26 * cos(u + bend), wz = ez + 0.26 * sin(u + bend);
        put(lm, 13 + side, ex, ey, ez, 0.93);
        put(lm, 15 + side, wx, wy, wz, 0.92);
        put(lm, 17 + side, wx + 0.01 * sg, wy - 0.08, wz - 0.02, 0.8);
        put(lm, 19 + side, wx, wy - 0.085, wz + 0.025, 0.8);
        put(lm, 21 + side, wx - 0.01 * sg, wy - 0.04, wz + 0.04, 0.8);
    }
}

static void make_rigs(scene *s) {
    crowd_engine *e = s->e;
    /* face: look, harmonic on two channels (centric, left on a repeat parameter), sine blink */
    static const crowd_parameter_desc face_params[] = {
        {"ParamAngleX", -30, 30, 0, false}, {"ParamAngleY", -30, 30, 0, false},
        {"ParamEyeBallX", -1, 1, 0, false}, {"ParamBreath", 0, 1, 0, false},
        {"ParamEyeLOpen", 0, 1, 1, false},  {"ParamEyeROpen", 0, 1, 1, false},
        {"ParamHue", 0, 360, 350, true}};
    static const crowd_look_parameter_desc look_params[] = {
        {"ParamAngleX", CROWD_AXIS_X, 30}, {"ParamAngleY", CROWD_AXIS_Y, 30}, {"ParamEyeBallX", CROWD_AXIS_X, 1}};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = look_params;
    look.parameter_count = 3;
    look.damping = 0.2f;
    look.max_speed = 3.0f;
    crowd_harmonic_parameter_desc harm_params[2] = {crowd_harmonic_parameter_defaults("ParamBreath"),
                                                    crowd_harmonic_parameter_defaults("ParamHue")};
    harm_params[1].channel = 1;
    harm_params[1].direction = CROWD_DIRECTION_LEFT;
    harm_params[1].origin = 0.25f;
    harm_params[1].duration = 2.0f;
    static const float timescales[] = {1.0f, 0.5f};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = harm_params;
    harm.parameter_count = 2;
    harm.channel_timescales = timescales;
    harm.channel_count = 2;
    static const char *const eyes[] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = eyes;
    blink.parameter_count = 2;
    blink.mean = 0.6f;
    blink.max_deviation = 0.4f;
    crowd_rig_desc face = {.name = "face", .parameters = face_params, .parameter_count = 7, .look = &look,
                           .harmonic = &harm, .blink = &blink};
    OK(e, crowd_rig_create(e, &face, &s->rig[RIG_FACE]));

    /* timed blink, harmonic right with override */
    static const crowd_parameter_desc timed_params[] = {
        {"EyeL", 0, 1, 1, false}, {"EyeR", 0, 1, 0.5f, false}, {"Breath", -1, 1, 0, false}};
    static const char *const teyes[] = {"EyeL", "EyeR"};
    crowd_blink_desc tblink = crowd_blink_defaults();
    tblink.model = CROWD_BLINK_TIMED;
    tblink.parameters = teyes;
    tblink.parameter_count = 2;
    tblink.mean = 0.5f;
    tblink.max_deviation = 0.3f;
    tblink.blend = CROWD_BLEND_OVERRIDE;
    crowd_harmonic_parameter_desc th = crowd_harmonic_parameter_defaults("Breath");
    th.direction = CROWD_DIRECTION_RIGHT;
    th.range = 0.4f;
    th.duration = 1.5f;
    crowd_harmonic_desc tharm = crowd_harmonic_defaults();
    tharm.parameters = &th;
    tharm.parameter_count = 1;
    tharm.blend = CROWD_BLEND_OVERRIDE;
    crowd_rig_desc timed = {.name = "timed", .parameters = timed_params, .parameter_count = 3, .harmonic = &tharm,
                            .blink = &tblink};
    OK(e, crowd_rig_create(e, &timed, &s->rig[RIG_TIMED]));

    /* body: limbs with smoothing, fallback previous, visibility hold; a harmonic */
    static const crowd_parameter_desc body_params[] = {{"P", -1, 1, 0, false}};
    crowd_harmonic_parameter_desc bh = crowd_harmonic_parameter_defaults("P");
    bh.duration = 0.7f;
    crowd_harmonic_desc bharm = crowd_harmonic_defaults();
    bharm.parameters = &bh;
    bharm.parameter_count = 1;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.frame = CROWD_FRAME_ENGINE;
    limbs.fallback = CROWD_FALLBACK_PREVIOUS;
    limbs.smoothing = true;
    limbs.visibility_threshold = 0.4f;
    limbs.hold_half_life = 0.3f;
    crowd_rig_desc body = {.name = "body", .parameters = body_params, .parameter_count = 1, .harmonic = &bharm,
                           .limbs = &limbs};
    OK(e, crowd_rig_create(e, &body, &s->rig[RIG_BODY]));

    /* custom axis fix, MediaPipe frame, no parameters at all */
    crowd_quat fix[CROWD_BONE_COUNT];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) {
        float q[4] = {0.1f * (float)(b % 4), 0.2f, -0.1f * (float)(b % 3), 1.0f};
        float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        fix[b] = (crowd_quat){q[0] / n, q[1] / n, q[2] / n, q[3] / n};
    }
    crowd_limbs_desc climbs = crowd_limbs_defaults();
    climbs.axis_fix = CROWD_AXIS_FIX_CUSTOM;
    climbs.custom_fix = fix;
    climbs.fallback_sign[CROWD_LIMB_LEFT_ARM] = 1.0f;
    crowd_rig_desc custom = {.name = "custom", .limbs = &climbs};
    OK(e, crowd_rig_create(e, &custom, &s->rig[RIG_CUSTOM]));

    /* calibrated from a bind pose, smoothing on */
    float bind[132];
    body_pose(1000, 7, bind);
    crowd_quat rot[CROWD_BONE_COUNT];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) rot[b] = b % 2 ? (crowd_quat){0, 0, 0, 1} : (crowd_quat){0, 0.6f, 0, 0.8f};
    crowd_limbs_desc blimbs = crowd_limbs_defaults();
    blimbs.frame = CROWD_FRAME_ENGINE;
    blimbs.axis_fix = CROWD_AXIS_FIX_CALIBRATED;
    blimbs.bind_landmarks = bind;
    blimbs.bind_rotations = rot;
    blimbs.smoothing = true;
    blimbs.min_cutoff = 0.5f;
    blimbs.beta = 10.0f;
    static const crowd_parameter_desc calib_params[] = {{"Q", 0, 2, 1, false}, {"R", -5, 5, 0, true}};
    crowd_rig_desc calib = {.name = "calib", .parameters = calib_params, .parameter_count = 2, .limbs = &blimbs};
    OK(e, crowd_rig_create(e, &calib, &s->rig[RIG_CALIB]));
}

static void scene_open(scene *s, uint64_t seed, crowd_simd simd, uint32_t threads) {
    memset(s, 0, sizeof *s);
    crowd_engine_desc desc = {.seed = seed, .simd = simd, .threads = threads};
    crowd_result res = crowd_engine_create(&desc, &s->e);
    if (res != CROWD_OK) FAILF("crowd_engine_create(threads %u): %s", threads, rname(res));
    assert_int_equal(crowd_engine_threads(s->e), threads > 1 ? threads : 1);
    make_rigs(s);
}

static void scene_close(scene *s) {
    crowd_engine_destroy(s->e);
    s->e = NULL;
}

/* Settings an instance keeps for life, from its number. */
static void instance_settings(scene *s, uint32_t num) {
    crowd_instance h = s->h[num];
    float v;
    switch (s->rig_of[num]) {
    case RIG_FACE:
        if (num % 5 == 1) {
            v = 0.5f;
            OK(s->e, crowd_set(s->e, h, CROWD_FIELD_LOOK_WEIGHT, 0, &v));
            v = 0.7f;
            OK(s->e, crowd_set(s->e, h, CROWD_FIELD_HARMONIC_WEIGHT, 0, &v));
            v = 0.25f;
            OK(s->e, crowd_set(s->e, h, CROWD_FIELD_BLINK_WEIGHT, 0, &v));
        }
        if (num % 7 == 2) {
            float c[3] = {0.1f, -0.2f, 0.05f};
            OK(s->e, crowd_set(s->e, h, CROWD_FIELD_LOOK_CENTER, 0, c));
            v = 0.05f;
            OK(s->e, crowd_set(s->e, h, CROWD_FIELD_LOOK_DAMPING, 0, &v));
        }
        break;
    case RIG_CUSTOM: {
        float q[4] = {0, 0.38268343f, 0, 0.92387953f}; /* 45 degrees about +y */
        if (num % 2) OK(s->e, crowd_set(s->e, h, CROWD_FIELD_ROOT, 0, q));
        break;
    }
    default: break;
    }
}

static uint32_t scene_add(scene *s, int rig, uint32_t count, crowd_blink_start start, crowd_harmonic_phase phase) {
    assert_true(s->n + count <= MAX_INSTANCES);
    crowd_add_desc add = {.rig = s->rig[rig], .count = count, .blink_start = start, .harmonic_phase = phase};
    uint32_t first = s->n;
    OK(s->e, crowd_instances_add(s->e, &add, &s->h[first]));
    for (uint32_t k = first; k < first + count; k++) {
        s->rig_of[k] = (uint8_t)rig;
        s->live[k] = 1;
        s->paused[k] = 0;
        s->steps[k] = 0;
        instance_settings(s, k);
    }
    s->n += count;
    return first;
}

/* The standard population: POPULATION instances, no rig a multiple of 16. */
#define POPULATION 88
static void scene_populate(scene *s) {
    scene_add(s, RIG_FACE, 23, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(s, RIG_TIMED, 21, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(s, RIG_BODY, 19, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(s, RIG_FACE, 14, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO);
    scene_add(s, RIG_CUSTOM, 5, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    scene_add(s, RIG_CALIB, 6, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
}

/* Inputs before an instance's step `st` (1, 2, ...): a function of (number, step) only. */
static void drive_instance(scene *s, uint32_t num, uint32_t st) {
    crowd_engine *e = s->e;
    crowd_instance h = s->h[num];
    switch (s->rig_of[num]) {
    case RIG_FACE: {
        uint32_t phase = st / 20 + num;
        float x = (float)((int)(phase % 7) - 3) * 0.4f, y = (float)((int)(phase % 5) - 2) * 0.3f;
        bool active = (st / 35 + num) % 3 != 0;
        OK(e, crowd_set_look_target(e, h, x, y, 0.5f, active));
        if ((st + num) % 47 == 0) OK(e, crowd_blink_now(e, &h, 1));
        if (num % 11 == 3) {
            float manual = (st / 50) % 2 ? 0.4f : -1.0f;
            OK(e, crowd_set(e, h, CROWD_FIELD_BLINK_MANUAL, 0, &manual));
        }
        if (num % 9 == 4) {
            float base = (float)(st % 40) * 0.5f - 10.0f;
            OK(e, crowd_set(e, h, CROWD_FIELD_BASE, 0, &base));
        }
        break;
    }
    case RIG_TIMED:
        if ((st + 3 * num) % 61 == 0) OK(e, crowd_blink_now(e, &h, 1));
        break;
    case RIG_BODY:
    case RIG_CUSTOM:
    case RIG_CALIB: {
        float lm[132];
        body_pose(num, st, lm);
        OK(e, crowd_set(e, h, CROWD_FIELD_POSE, 0, lm));
        break;
    }
    default: break;
    }
}

static void scene_drive(scene *s) {
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && !s->paused[k]) drive_instance(s, k, s->steps[k] + 1);
}

static void scene_tick(scene *s, float dt) {
    OK(s->e, crowd_tick(s->e, dt));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && !s->paused[k]) s->steps[k]++;
}

static void scene_pause(scene *s, uint32_t num, bool paused) {
    OK(s->e, crowd_instances_pause(s->e, &s->h[num], 1, paused));
    s->paused[num] = paused;
}

static void scene_remove(scene *s, uint32_t num) {
    OK(s->e, crowd_instances_remove(s->e, &s->h[num], 1));
    s->live[num] = 0;
}

/* The dt of tick k in the variable-dt runs: mostly 1/60 with jitter, some 0, one long step. */
static float dt_of(uint32_t k) {
    if (k % 37 == 0) return 0.0f;
    if (k == 101) return 0.5f;
    return DT + 0.002f * (float)(k % 5);
}

/* ---- the hash of an instance: every readable field ---- */
static uint64_t hash_field(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, uint64_t acc,
                           crowd_result *res) {
    float v[4 * CROWD_LANDMARK_COUNT];
    *res = crowd_get(e, h, f, index, v);
    if (*res != CROWD_OK) return acc;
    acc = fnv_bytes(acc, &f, sizeof f);
    acc = fnv_bytes(acc, &index, sizeof index);
    return fnv_bytes(acc, v, sizeof(float) * crowd_field_width(f));
}

static uint64_t hash_instance(const crowd_engine *e, crowd_instance h) {
    crowd_rig rig;
    if (crowd_instance_info(e, h, NULL, &rig, NULL) != CROWD_OK) FAILF("hash_instance: stale handle 0x%llx", (unsigned long long)h.id);
    uint32_t P = crowd_rig_parameter_count(e, rig);
    uint64_t acc = FNV_INIT;
    crowd_result res;
    for (int f = 0; f < CROWD_FIELD_COUNT; f++) {
        switch ((crowd_field)f) {
        case CROWD_FIELD_BASE:
        case CROWD_FIELD_OUTPUT:
            for (uint32_t p = 0; p < P; p++) {
                acc = hash_field(e, h, (crowd_field)f, p, acc, &res);
                if (res != CROWD_OK) FAILF("crowd_get(%s, %u): %s", crowd_field_name((crowd_field)f), p, rname(res));
            }
            break;
        case CROWD_FIELD_HARMONIC_PHASE:
        case CROWD_FIELD_HARMONIC_RANGE:
            for (uint32_t k = 0;; k++) {
                acc = hash_field(e, h, (crowd_field)f, k, acc, &res);
                if (res != CROWD_OK) break;
            }
            break;
        case CROWD_FIELD_BONE_WORLD:
        case CROWD_FIELD_BONE_LOCAL:
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
                acc = hash_field(e, h, (crowd_field)f, b, acc, &res);
                if (res != CROWD_OK) break;
            }
            break;
        default:
            acc = hash_field(e, h, (crowd_field)f, 0, acc, &res);
            break;
        }
    }
    return acc;
}

/* Every live instance, in number order. */
static uint64_t hash_scene(const scene *s) {
    uint64_t acc = FNV_INIT;
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        uint64_t hi = hash_instance(s->e, s->h[k]);
        acc = fnv_bytes(acc, &k, sizeof k);
        acc = fnv_bytes(acc, &hi, sizeof hi);
    }
    return acc;
}

/* Every output is finite. */
static void check_finite(const scene *s) {
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        crowd_rig rig;
        OK(s->e, crowd_instance_info(s->e, s->h[k], NULL, &rig, NULL));
        float v[4];
        for (uint32_t p = 0; p < crowd_rig_parameter_count(s->e, rig); p++) {
            OK(s->e, crowd_get(s->e, s->h[k], CROWD_FIELD_OUTPUT, p, v));
            if (!isfinite(v[0])) FAILF("instance %u output %u is %g", k, p, (double)v[0]);
        }
    }
}

/* Rows [0, running) are exactly the running instances; every handle knows its row. */
static void check_rows(const scene *s) {
    for (int r = 0; r < RIGS; r++) {
        const crowd_instance *rows;
        uint32_t count;
        OK(s->e, crowd_rig_handles(s->e, s->rig[r], &rows, &count));
        uint32_t running = crowd_rig_running_count(s->e, s->rig[r]), live = 0, live_running = 0;
        assert_int_equal(count, crowd_rig_instance_count(s->e, s->rig[r]));
        assert_true(running <= count);
        for (uint32_t k = 0; k < s->n; k++)
            if (s->live[k] && s->rig_of[k] == r) {
                live++;
                live_running += !s->paused[k];
            }
        if (count != live || running != live_running)
            FAILF("rig %s: %u rows (%u running), the test counts %u live (%u running)", rig_names[r], count, running, live,
                  live_running);
        for (uint32_t row = 0; row < count; row++) {
            uint32_t at;
            bool paused;
            OK(s->e, crowd_instance_info(s->e, rows[row], NULL, NULL, &at));
            OK(s->e, crowd_instance_paused(s->e, rows[row], &paused));
            if (at != row || paused != (row >= running))
                FAILF("rig %s row %u: handle says row %u, paused %d (running %u)", rig_names[r], row, at, paused, running);
        }
    }
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        bool paused;
        OK(s->e, crowd_instance_paused(s->e, s->h[k], &paused));
        if (paused != (bool)s->paused[k]) FAILF("instance %u: paused %d, the test says %d", k, paused, s->paused[k]);
    }
}

/* ---- snapshots as buffers ---- */
typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

static blob save(const crowd_engine *e) {
    blob b = {0};
    OK(e, crowd_snapshot_size(e, &b.n));
    b.p = malloc(b.n + 1);
    assert_non_null(b.p);
    size_t written = 0;
    OK(e, crowd_snapshot_save(e, b.p, b.n, &written));
    assert_int_equal(written, b.n);
    return b;
}

static bool blob_eq(blob a, blob b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

static blob blob_copy(blob b) {
    blob c = {malloc(b.n + 8192), b.n};
    assert_non_null(c.p);
    memcpy(c.p, b.p, b.n);
    return c;
}

/* The header after a change of the payload: its size and FNV-1a 64. */
static void fix_header(blob *b) {
    wr64(b->p + 16, b->n - 32);
    wr64(b->p + 24, snapshot_checksum(b->p + 32, b->n - 32));
}

/* ------------------------------------------------------------------------------------------
 * threads
 * ---------------------------------------------------------------------------------------- */
#define THREAD_TICKS 240

/* The standard run: variable dt, pauses and resumes, blink-now; per-tick scene hashes. */
static void threads_run(crowd_simd simd, uint32_t threads, uint32_t ticks, uint64_t *hashes) {
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 77, simd, threads);
    scene_populate(s);
    for (uint32_t k = 1; k <= ticks; k++) {
        if (k == 30) for (uint32_t n = 0; n < s->n; n += 4) scene_pause(s, n, true);
        if (k == 90) for (uint32_t n = 0; n < s->n; n += 8) scene_pause(s, n, false);
        if (k == 150) for (uint32_t n = 0; n < s->n; n++) if (s->paused[n]) scene_pause(s, n, false);
        scene_drive(s);
        scene_tick(s, dt_of(k));
        hashes[k - 1] = hash_scene(s);
    }
    check_finite(s);
    scene_close(s);
    free(s);
}

static void threads_and_targets(void **state) {
    (void)state;
    uint64_t ref[THREAD_TICKS], got[THREAD_TICKS];
    threads_run(CROWD_SIMD_SCALAR, 1, THREAD_TICKS, ref);
    const crowd_simd targets[2] = {crowd_test_simd, CROWD_SIMD_SCALAR};
    for (int t = 0; t < 2; t++)
        for (uint32_t threads = 1; threads <= 4; threads++) {
            if (t == 1 && threads == 1) continue;
            threads_run(targets[t], threads, THREAD_TICKS, got);
            for (uint32_t k = 0; k < THREAD_TICKS; k++)
                if (got[k] != ref[k])
                    FAILF("%s with %u threads differs from scalar with 1 thread at tick %u", crowd_simd_name(targets[t]),
                          threads, k + 1);
        }
    /* the most threads an engine takes: most slices are empty */
    threads_run(crowd_test_simd, 256, 40, got);
    for (uint32_t k = 0; k < 40; k++)
        if (got[k] != ref[k]) FAILF("256 threads differ at tick %u", k + 1);
}

/* A host job system: three threads tick ragged ranges of every rig with crowd_tick_range. */
typedef struct range_job {
    crowd_engine *e;
    crowd_rig rig[RIGS];
    uint32_t first[RIGS], count[RIGS];
    float dt;
    crowd_result res;
} range_job;

static void *range_worker(void *arg) {
    range_job *j = arg;
    j->res = CROWD_OK;
    for (int r = 0; r < RIGS; r++) {
        crowd_result res = crowd_tick_range(j->e, j->dt, j->rig[r], j->first[r], j->count[r]);
        if (res != CROWD_OK) j->res = res;
    }
    return NULL;
}

static void host_ranges(void **state) {
    (void)state;
    uint64_t ref[THREAD_TICKS];
    threads_run(CROWD_SIMD_SCALAR, 1, THREAD_TICKS, ref);
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 77, crowd_test_simd, 1);
    scene_populate(s);
    uint64_t rng = 5;
    for (uint32_t k = 1; k <= THREAD_TICKS; k++) {
        if (k == 30) for (uint32_t n = 0; n < s->n; n += 4) scene_pause(s, n, true);
        if (k == 90) for (uint32_t n = 0; n < s->n; n += 8) scene_pause(s, n, false);
        if (k == 150) for (uint32_t n = 0; n < s->n; n++) if (s->paused[n]) scene_pause(s, n, false);
        scene_drive(s);
        range_job jobs[3];
        for (int r = 0; r < RIGS; r++) {
            /* two random cut points anywhere in [0, rows]: ranges need not be aligned, and some
             * cover paused rows, which stay as they are */
            uint32_t rows = crowd_rig_instance_count(s->e, s->rig[r]);
            uint32_t a = rnd(&rng, rows + 1), b = rnd(&rng, rows + 1);
            if (a > b) { uint32_t t = a; a = b; b = t; }
            uint32_t cut[4] = {0, a, b, rows};
            for (int j = 0; j < 3; j++) {
                jobs[j].first[r] = cut[j];
                jobs[j].count[r] = cut[j + 1] - cut[j];
            }
        }
        pthread_t th[3];
        for (int j = 0; j < 3; j++) {
            jobs[j].e = s->e;
            memcpy(jobs[j].rig, s->rig, sizeof s->rig);
            jobs[j].dt = dt_of(k);
            if (j && pthread_create(&th[j], NULL, range_worker, &jobs[j]) != 0) FAILF("pthread_create");
        }
        range_worker(&jobs[0]);
        for (int j = 1; j < 3; j++) pthread_join(th[j], NULL);
        for (int j = 0; j < 3; j++)
            if (jobs[j].res != CROWD_OK) FAILF("crowd_tick_range on thread %d: %s", j, rname(jobs[j].res));
        for (uint32_t n = 0; n < s->n; n++)
            if (s->live[n] && !s->paused[n]) s->steps[n]++;
        if (hash_scene(s) != ref[k - 1]) FAILF("host ranges differ from crowd_tick at tick %u", k);
    }
    scene_close(s);
    free(s);
}

/* ---- a counting allocator ---- */
typedef struct counter {
    pthread_mutex_t lock;
    long allocs, frees;
} counter;

static void *count_alloc(size_t size, size_t align, void *user) {
    counter *c = user;
    pthread_mutex_lock(&c->lock);
    c->allocs++;
    pthread_mutex_unlock(&c->lock);
    size_t bytes = (size + align - 1) / align * align;
    return aligned_alloc(align, bytes ? bytes : align);
}

static void count_free(void *p, void *user) {
    counter *c = user;
    pthread_mutex_lock(&c->lock);
    c->frees++;
    pthread_mutex_unlock(&c->lock);
    free(p);
}

static void thread_limits(void **state) {
    (void)state;
    crowd_engine *e = NULL;
    crowd_engine_desc desc = {.simd = crowd_test_simd, .threads = 257};
    EXPECT(NULL, crowd_engine_create(&desc, &e), CROWD_ERR_RANGE);
    assert_null(e);
    for (uint32_t t = 0; t <= 1; t++) {
        desc.threads = t;
        OK(NULL, crowd_engine_create(&desc, &e));
        assert_int_equal(crowd_engine_threads(e), 1);
        crowd_engine_destroy(e);
    }
    assert_int_equal(crowd_engine_threads(NULL), 0);
    /* pools that start and stop, with and without work, many times */
    for (int round = 0; round < 20; round++) {
        desc.threads = 2 + (uint32_t)round % 5;
        OK(NULL, crowd_engine_create(&desc, &e));
        assert_int_equal(crowd_engine_threads(e), desc.threads);
        if (round % 2) OK(e, crowd_tick(e, DT)); /* no rigs: empty slices */
        crowd_engine_destroy(e);
    }
    /* the tick on a pool allocates and frees nothing */
    counter c = {.lock = PTHREAD_MUTEX_INITIALIZER};
    crowd_engine_desc cd = {.seed = 3, .simd = crowd_test_simd, .threads = 3,
                            .allocator = {.alloc = count_alloc, .free = count_free, .user = &c}};
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    memset(s, 0, sizeof *s);
    OK(NULL, crowd_engine_create(&cd, &s->e));
    make_rigs(s);
    scene_populate(s);
    long allocs = c.allocs, frees = c.frees;
    for (uint32_t k = 1; k <= 30; k++) {
        scene_drive(s);
        scene_tick(s, dt_of(k));
    }
    if (c.allocs != allocs || c.frees != frees)
        FAILF("30 ticks on 3 threads: %ld allocations and %ld frees", c.allocs - allocs, c.frees - frees);
    scene_close(s);
    assert_int_equal(c.allocs, c.frees);
    free(s);
}

/* ------------------------------------------------------------------------------------------
 * snapshots
 * ---------------------------------------------------------------------------------------- */
#define SNAP_TICKS 200

/* The run the snapshot tests continue: scene 4242, constant dt, churn before tick 60 (free
 * slots, reused slots) and pauses between ticks 70 and 150. */
static void snap_step(scene *s, uint32_t k) {
    if (k == 20) {
        scene_add(s, RIG_FACE, 9, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_RANDOM);
        scene_add(s, RIG_BODY, 4, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    }
    if (k == 40) for (uint32_t n = 3; n < s->n; n += 10) scene_remove(s, n);
    if (k == 55) scene_add(s, RIG_TIMED, 3, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO); /* reuses slots */
    if (k == 70) for (uint32_t n = 1; n < s->n; n += 6) if (s->live[n]) scene_pause(s, n, true);
    if (k == 150) for (uint32_t n = 1; n < s->n; n += 12) if (s->live[n]) scene_pause(s, n, false);
    scene_drive(s);
    scene_tick(s, k % 3 ? DT : 0.02f);
}

/* Blink phases and filters at this point: how interesting a save point it is. */
static void blink_census(const scene *s, int *sine_busy, int *timed_closed) {
    for (uint32_t n = 0; n < s->n; n++) {
        if (!s->live[n] || (s->rig_of[n] != RIG_FACE && s->rig_of[n] != RIG_TIMED)) continue;
        float ph;
        OK(s->e, crowd_get(s->e, s->h[n], CROWD_FIELD_BLINK_PHASE, 0, &ph));
        if (s->rig_of[n] == RIG_FACE && ph != 0.0f) (*sine_busy)++;
        if (s->rig_of[n] == RIG_TIMED && ph == 2.0f) (*timed_closed)++;
    }
}

static void snapshot_round_trip(void **state) {
    (void)state;
    scene *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    /* the uninterrupted run, per-tick hashes */
    uint64_t ref[SNAP_TICKS + 1];
    scene_open(a, 4242, crowd_test_simd, 1);
    scene_populate(a);
    ref[0] = hash_scene(a);
    for (uint32_t k = 1; k <= SNAP_TICKS; k++) {
        snap_step(a, k);
        ref[k] = hash_scene(a);
    }
    scene_close(a);

    /* save points: the edges, every phase of the churn, and random ones */
    uint32_t points[24] = {0, 1, 3, 20, 40, 56, 70, 71, 150, 199, 2, 4, 19, 21, 39, 69, 149};
    uint32_t npoints = 17;
    uint64_t rng = 99;
    while (npoints < 24) points[npoints++] = 1 + rnd(&rng, SNAP_TICKS - 1);
    if (SANITIZED) npoints = 10; /* the first ten: every phase of the run once */
    int sine_busy = 0, timed_closed = 0, paused_points = 0;
    for (uint32_t q = 0; q < npoints; q++) {
        uint32_t K = points[q];
        scene_open(a, 4242, crowd_test_simd, q % 3 == 1 ? 2 : 1);
        scene_populate(a);
        for (uint32_t k = 1; k <= K; k++) snap_step(a, k);
        blink_census(a, &sine_busy, &timed_closed);
        for (uint32_t n = 0; n < a->n; n++) paused_points += a->live[n] && a->paused[n];
        blob snap = save(a->e);

        /* into a fresh engine on another target and thread count */
        crowd_simd simd = q % 2 ? CROWD_SIMD_SCALAR : crowd_test_simd;
        crowd_engine_desc desc = {.seed = 1234567, .simd = simd, .threads = 1 + q % 4};
        crowd_engine *fresh;
        OK(NULL, crowd_engine_create(&desc, &fresh));
        crowd_result res = crowd_snapshot_load(fresh, snap.p, snap.n);
        if (res != CROWD_OK) FAILF("load at tick %u: %s (%s)", K, rname(res), crowd_last_error(fresh));
        blob again = save(fresh);
        if (!blob_eq(snap, again)) FAILF("save, load, save at tick %u: %zu and %zu bytes differ", K, snap.n, again.n);
        free(again.p);
        assert_int_equal(crowd_engine_threads(fresh), 1 + q % 4);
        assert_int_equal(crowd_simd_target(fresh), simd);

        /* b: the same bookkeeping on the loaded engine; the saved handles are valid in it */
        memcpy(b, a, sizeof *b);
        b->e = fresh;
        for (uint32_t n = 0; n < b->n; n++) {
            if (!b->live[n]) continue;
            uint64_t id_a, id_b;
            crowd_rig rig_a, rig_b;
            uint32_t row_a, row_b;
            OK(a->e, crowd_instance_info(a->e, a->h[n], &id_a, &rig_a, &row_a));
            OK(fresh, crowd_instance_info(fresh, b->h[n], &id_b, &rig_b, &row_b));
            if (id_a != id_b || rig_a.id != rig_b.id || row_a != row_b) FAILF("tick %u: instance %u moved in the load", K, n);
        }
        for (int r = 0; r < RIGS; r++) {
            assert_int_equal(crowd_rig_instance_count(fresh, a->rig[r]), crowd_rig_instance_count(a->e, a->rig[r]));
            assert_int_equal(crowd_rig_running_count(fresh, a->rig[r]), crowd_rig_running_count(a->e, a->rig[r]));
        }
        if (hash_scene(b) != ref[K]) FAILF("tick %u: the loaded state differs", K);
        check_rows(b);
        /* the host stream continues too */
        for (uint32_t n = 0; n < b->n; n += 7) {
            if (!b->live[n]) continue;
            float ua[3], ub[3];
            OK(a->e, crowd_instance_random(a->e, a->h[n], 3, ua));
            OK(fresh, crowd_instance_random(fresh, b->h[n], 3, ub));
            if (memcmp(ua, ub, sizeof ua) != 0) FAILF("tick %u: instance %u host draws differ", K, n);
        }
        /* the saver is gone: the loaded engine stands alone */
        scene_close(a);
        for (uint32_t k = K + 1; k <= SNAP_TICKS; k++) {
            snap_step(b, k);
            if (hash_scene(b) != ref[k]) FAILF("saved at tick %u, loaded: tick %u differs", K, k);
        }
        /* instances added after the load get the ids the saver would have given, and run alike */
        if (K == 150) {
            scene_open(a, 4242, crowd_test_simd, 1);
            scene_populate(a);
            for (uint32_t k = 1; k <= SNAP_TICKS; k++) snap_step(a, k);
            uint32_t fa = scene_add(a, RIG_FACE, 5, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
            uint32_t fb = scene_add(b, RIG_FACE, 5, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
            for (uint32_t n = 0; n < 5; n++) {
                uint64_t ia, ib;
                OK(a->e, crowd_instance_info(a->e, a->h[fa + n], &ia, NULL, NULL));
                OK(b->e, crowd_instance_info(b->e, b->h[fb + n], &ib, NULL, NULL));
                assert_int_equal(ia, ib); /* (handles differ: each engine's carry its own tag) */
            }
            for (uint32_t k = 0; k < 30; k++) {
                snap_step(a, SNAP_TICKS + 1 + k);
                snap_step(b, SNAP_TICKS + 1 + k);
                if (hash_scene(a) != hash_scene(b)) FAILF("after adding to the loaded engine: tick %u differs", k);
            }
            scene_close(a);
        }
        scene_close(b);
        free(snap.p);
    }
    if (!sine_busy || !timed_closed || !paused_points)
        FAILF("the save points missed a phase: %d sine blinks under way, %d timed closed, %d paused", sine_busy,
              timed_closed, paused_points);

    /* rollback: the saver loads its own earlier snapshot; a used engine loads a foreign one */
    scene_open(a, 4242, crowd_test_simd, 3);
    scene_populate(a);
    for (uint32_t k = 1; k <= 80; k++) snap_step(a, k);
    blob at80 = save(a->e);
    scene saved80;
    memcpy(&saved80, a, sizeof saved80);
    for (uint32_t k = 81; k <= 120; k++) snap_step(a, k);
    OK(a->e, crowd_snapshot_load(a->e, at80.p, at80.n));
    crowd_engine *keep = a->e;
    memcpy(a, &saved80, sizeof *a);
    a->e = keep;
    if (hash_scene(a) != ref[80]) FAILF("rollback to tick 80: the state differs");
    for (uint32_t k = 81; k <= SNAP_TICKS; k++) {
        snap_step(a, k);
        if (hash_scene(a) != ref[k]) FAILF("rollback to tick 80: tick %u differs", k);
    }
    scene_close(a);

    scene_open(b, 9, CROWD_SIMD_SCALAR, 2);
    scene_add(b, RIG_TIMED, 40, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(b, RIG_BODY, 3, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    for (uint32_t k = 1; k <= 10; k++) {
        scene_drive(b);
        scene_tick(b, DT);
    }
    OK(b->e, crowd_snapshot_load(b->e, at80.p, at80.n));
    keep = b->e;
    memcpy(b, &saved80, sizeof *b);
    b->e = keep;
    if (hash_scene(b) != ref[80]) FAILF("a used engine loading tick 80: the state differs");
    for (uint32_t k = 81; k <= SNAP_TICKS; k++) {
        snap_step(b, k);
        if (hash_scene(b) != ref[k]) FAILF("a used engine loading tick 80: tick %u differs", k);
    }
    scene_close(b);
    free(at80.p);
    free(a);
    free(b);
}

static void snapshot_api(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    size_t n = 0, w = 0;
    EXPECT(NULL, crowd_snapshot_size(NULL, &n), CROWD_ERR_NULL);
    EXPECT(e, crowd_snapshot_size(e, NULL), CROWD_ERR_NULL);
    OK(e, crowd_snapshot_size(e, &n));
    assert_true(n >= 32);
    unsigned char *buf = malloc(n);
    EXPECT(NULL, crowd_snapshot_save(NULL, buf, n, &w), CROWD_ERR_NULL);
    EXPECT(e, crowd_snapshot_save(e, NULL, n, &w), CROWD_ERR_NULL);
    /* short capacity: nothing written */
    memset(buf, 0xa5, n);
    EXPECT(e, crowd_snapshot_save(e, buf, n - 1, &w), CROWD_ERR_CAPACITY);
    for (size_t k = 0; k < n; k++)
        if (buf[k] != 0xa5) FAILF("a short save wrote byte %zu", k);
    assert_non_null(strstr(crowd_last_error(e), "crowd_snapshot_save"));
    OK(e, crowd_snapshot_save(e, buf, n, NULL));
    assert_memory_equal(buf, "CROWDSNP", 8);
    assert_int_equal(rd32(buf + 8), 2);
    assert_int_equal(rd32(buf + 12), 0);
    assert_int_equal(rd64(buf + 16), n - 32);
    EXPECT(NULL, crowd_snapshot_load(NULL, buf, n), CROWD_ERR_NULL);
    EXPECT(e, crowd_snapshot_load(e, NULL, n), CROWD_ERR_NULL);
    /* an empty engine round trips into an empty one and into a used one */
    crowd_engine *f = crowd_test_engine(2);
    OK(f, crowd_snapshot_load(f, buf, n));
    blob b = save(f);
    if (b.n != n || memcmp(b.p, buf, n) != 0) FAILF("an empty engine's save/load/save differs");
    free(b.p);
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 5, crowd_test_simd, 2);
    scene_populate(s);
    crowd_instance old = s->h[0];
    crowd_rig old_rig = s->rig[RIG_FACE];
    OK(s->e, crowd_snapshot_load(s->e, buf, n));
    assert_int_equal(crowd_rig_instance_count(s->e, old_rig), 0);
    bool paused;
    if (crowd_instance_paused(s->e, old, &paused) == CROWD_OK) FAILF("a handle survives the load of an empty engine");
    OK(s->e, crowd_tick(s->e, DT));
    blob c = save(s->e);
    if (c.n != n || memcmp(c.p, buf, n) != 0) FAILF("an engine emptied by a load saves other bytes");
    free(c.p);
    scene_close(s);
    free(s);
    /* a rig without instances */
    crowd_parameter_desc p = {"A", 0, 1, 0.5f, false};
    crowd_rig_desc rd = {.name = "lonely", .parameters = &p, .parameter_count = 1};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    blob d = save(e);
    OK(f, crowd_snapshot_load(f, d.p, d.n));
    assert_int_equal(crowd_rig_parameter_count(f, rig), 1);
    blob d2 = save(f);
    assert_true(blob_eq(d, d2));
    free(d.p);
    free(d2.p);
    free(buf);
    crowd_engine_destroy(e);
    crowd_engine_destroy(f);
}

/* The blob the corruption tests start from (scene 4242 at tick 90: paused rows, free slots),
 * with marker values planted through the API so that tests can find their bytes. */
#define MARK_WEIGHT 0.61803395f   /* look weight of instance 2 (face) */
#define MARK_MANUAL 0.31415927f   /* blink manual of instance 4 (face) */
#define MARK_OPENING 0.27182817f  /* blink opening of instance 5 (face) */
#define MARK_VIS 0.70710677f      /* visibility of landmark 0 of instance 44 (body) */
#define MARK_ROOT 0.12345679f     /* root x of instance 79 (custom) */
#define MARK_DAMPING 0.4142135f   /* look damping of instance 6 */
#define MARK_PHASE 0.0123456f     /* harmonic phase 0 of instance 7 */
#define MARK_TRACK 0.37210372f    /* re-acquisition progress of bone 3 of instance 79 (custom) */
#define MARK_SRC 0.28735632f      /* x of bone 3's ease source of instance 79 */
#define MARK_SIDE 0.19191919f     /* x of the left arm's stable side of instance 79 */

static scene *corrupt_source(blob *out) {
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 4242, crowd_test_simd, 1);
    scene_populate(s);
    for (uint32_t k = 1; k <= 90; k++) snap_step(s, k);
    crowd_engine *e = s->e;
    /* the markers' instances must be live */
    const uint32_t need[] = {2, 4, 5, 6, 7, 44, 79};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) assert_true(s->live[need[k]]);
    assert_int_equal(s->rig_of[44], RIG_BODY);
    assert_int_equal(s->rig_of[79], RIG_CUSTOM);
    float v = MARK_WEIGHT;
    OK(e, crowd_set(e, s->h[2], CROWD_FIELD_LOOK_WEIGHT, 0, &v));
    v = MARK_MANUAL;
    OK(e, crowd_set(e, s->h[4], CROWD_FIELD_BLINK_MANUAL, 0, &v));
    v = MARK_OPENING;
    OK(e, crowd_set(e, s->h[5], CROWD_FIELD_BLINK_OPENING, 0, &v));
    v = MARK_DAMPING;
    OK(e, crowd_set(e, s->h[6], CROWD_FIELD_LOOK_DAMPING, 0, &v));
    v = MARK_PHASE;
    OK(e, crowd_set(e, s->h[7], CROWD_FIELD_HARMONIC_PHASE, 0, &v));
    float lm[132];
    body_pose(44, 1, lm);
    lm[3] = MARK_VIS;
    lm[4 * 26 + 3] = 0.1f; /* the right knee hidden: the right leg's bones hold */
    OK(e, crowd_set(e, s->h[44], CROWD_FIELD_POSE, 0, lm));
    float q[4] = {MARK_ROOT, 0, 0, sqrtf(1.0f - MARK_ROOT * MARK_ROOT)};
    OK(e, crowd_set(e, s->h[79], CROWD_FIELD_ROOT, 0, q));
    /* the limb tracking state (SPEC 5.1) of instance 79, valid values, through the internals */
    crowd_rig crig;
    uint32_t row;
    OK(e, crowd_instance_info(e, s->h[79], NULL, &crig, &row));
    crowdi_rig *cr = crowdi_rig_get(e, crig);
    assert_non_null(cr);
    assert_true(cr->view.limb_visibility_threshold > 0.0f && cr->view.limb_side_mode == CROWDI_SIDE_STABLE);
    cr->columns[cr->col_track + 3][row] = MARK_TRACK;
    cr->columns[cr->col_src + 4 * 3 + 0][row] = MARK_SRC;
    cr->columns[cr->col_src + 4 * 3 + 1][row] = 0.0f;
    cr->columns[cr->col_src + 4 * 3 + 2][row] = 0.0f;
    cr->columns[cr->col_src + 4 * 3 + 3][row] = sqrtf(1.0f - MARK_SRC * MARK_SRC);
    cr->columns[cr->col_side + 0][row] = MARK_SIDE;
    *out = save(e);
    return s;
}

/* The single offset of a float's bytes in the payload. */
static size_t find_float(blob b, float f) {
    unsigned char pat[4];
    uint32_t u;
    memcpy(&u, &f, 4);
    wr32(pat, u);
    size_t at = 0, hits = 0;
    for (size_t k = 32; k + 4 <= b.n; k++)
        if (memcmp(b.p + k, pat, 4) == 0) {
            at = k;
            hits++;
        }
    if (hits != 1) FAILF("the marker %.9g occurs %zu times in the snapshot", (double)f, hits);
    return at;
}

/* A target engine with its own state, and what it must still be after a rejected load. */
typedef struct target {
    scene s;
    blob before;
    uint64_t hash;
} target;

static void target_open(target *t) {
    scene_open(&t->s, 31337, crowd_test_simd, 2);
    scene_add(&t->s, RIG_FACE, 3, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(&t->s, RIG_BODY, 2, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    for (uint32_t k = 1; k <= 5; k++) {
        scene_drive(&t->s);
        scene_tick(&t->s, DT);
    }
    scene_pause(&t->s, 1, true);
    t->before = save(t->s.e);
    t->hash = hash_scene(&t->s);
}

/* Loads a bad blob into the target: rejected with CROWD_ERR_BAD_SNAPSHOT and a message, the
 * target unchanged. A soft check: the case is listed, the test goes on. */
static void expect_rejected(target *t, const void *data, size_t size, const char *what, const char *must_say) {
    crowd_engine *e = t->s.e;
    crowd_result res = crowd_snapshot_load(e, data, size);
    if (res != CROWD_ERR_BAD_SNAPSHOT) {
        SOFT("%s: %s, want CROWD_ERR_BAD_SNAPSHOT (%s)", what, rname(res), res ? crowd_last_error(e) : "loaded");
        if (res == CROWD_OK) { /* put the target back as it was */
            OK(e, crowd_snapshot_load(e, t->before.p, t->before.n));
        }
        return;
    }
    const char *msg = crowd_last_error(e);
    if (strncmp(msg, "crowd_snapshot_load: ", 21) != 0 || strlen(msg) < 30) SOFT("%s: the message is \"%s\"", what, msg);
    if (must_say && !strstr(msg, must_say)) SOFT("%s: the message \"%s\" does not say \"%s\"", what, msg, must_say);
    blob after = save(e);
    if (!blob_eq(after, t->before)) SOFT("%s: the rejected load changed the engine", what);
    free(after.p);
    if (hash_scene(&t->s) != t->hash) SOFT("%s: the rejected load changed a field", what);
}

/* The target still ticks exactly like a twin that never saw a bad blob. */
static void target_close(target *t) {
    target twin;
    target_open(&twin);
    for (uint32_t k = 0; k < 10; k++) {
        scene_drive(&t->s);
        scene_tick(&t->s, DT);
        scene_drive(&twin.s);
        scene_tick(&twin.s, DT);
        if (hash_scene(&t->s) != hash_scene(&twin.s)) FAILF("after the rejected loads, tick %u differs from a twin", k);
    }
    scene_close(&twin.s);
    free(twin.before.p);
    scene_close(&t->s);
    free(t->before.p);
}

static void snapshot_rejects(void **state) {
    (void)state;
    blob good;
    scene *src = corrupt_source(&good);
    target *t = malloc(sizeof *t);
    assert_non_null(t);
    target_open(t);
    soft_begin();
    char what[128];
    /* the good blob loads (into a scratch engine) */
    crowd_engine *scratch = crowd_test_engine(0);
    OK(scratch, crowd_snapshot_load(scratch, good.p, good.n));
    crowd_engine_destroy(scratch);

    /* truncated: every length of the header and the start of the payload, then a sweep */
    for (size_t len = 0; len < good.n; len += len < 160 ? 1 : 97 + len % 13) {
        snprintf(what, sizeof what, "truncated to %zu of %zu bytes", len, good.n);
        expect_rejected(t, good.p, len, what, NULL);
    }
    expect_rejected(t, good.p, good.n - 1, "truncated by one byte", NULL);
    expect_rejected(t, good.p, good.n - 24, "truncated by one slot", NULL);

    /* every header byte, flipped two ways */
    blob c = blob_copy(good);
    for (size_t k = 0; k < 32; k++)
        for (int m = 0; m < 2; m++) {
            unsigned char mask = m ? 0xff : 0x01;
            c.p[k] ^= mask;
            snprintf(what, sizeof what, "header byte %zu ^ 0x%02x", k, mask);
            expect_rejected(t, c.p, c.n, what, NULL);
            c.p[k] ^= mask;
        }
    /* payload bytes: every byte of the first 512, then a sample */
    uint64_t rng = 17;
    for (size_t k = 32; k < good.n; k += k < 544 ? 1 : 1 + rnd(&rng, 211)) {
        unsigned char mask = (unsigned char)(1u << (k % 8));
        c.p[k] ^= mask;
        snprintf(what, sizeof what, "payload byte %zu ^ 0x%02x", k, mask);
        expect_rejected(t, c.p, c.n, what, "checksum");
        c.p[k] ^= mask;
    }
    c.p[good.n - 1] ^= 0x80;
    expect_rejected(t, c.p, c.n, "last byte flipped", "checksum");
    c.p[good.n - 1] ^= 0x80;

    /* foreign versions, the checksum intact */
    const uint32_t versions[] = {0, 1, 3, 0x100, 0x01000001u, 0xffffffffu};
    for (size_t k = 0; k < sizeof versions / sizeof versions[0]; k++) {
        wr32(c.p + 8, versions[k]);
        snprintf(what, sizeof what, "version %u", versions[k]);
        expect_rejected(t, c.p, c.n, what, "version");
    }
    wr32(c.p + 8, 1);
    /* flags other than 0 */
    wr32(c.p + 12, 1);
    expect_rejected(t, c.p, c.n, "flags 1", NULL);
    wr32(c.p + 12, 0);

    /* oversized: trailing bytes; a payload size beyond the blob; a consistent header over a
     * payload with trailing bytes */
    memset(c.p + good.n, 0, 8192);
    const size_t extra[] = {1, 8, 24, 4096};
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        snprintf(what, sizeof what, "%zu trailing bytes", extra[k]);
        expect_rejected(t, c.p, c.n + extra[k], what, NULL);
    }
    const uint64_t sizes[] = {good.n - 32 + 1, good.n - 32 + 24, (uint64_t)1 << 40, (uint64_t)1 << 63, UINT64_MAX};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        wr64(c.p + 16, sizes[k]);
        snprintf(what, sizeof what, "payload size field %llu", (unsigned long long)sizes[k]);
        expect_rejected(t, c.p, c.n, what, NULL);
        expect_rejected(t, c.p, c.n + (sizes[k] - (good.n - 32) < 8192 ? sizes[k] - (good.n - 32) : 0), what, NULL);
    }
    wr64(c.p + 16, good.n - 32);
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        blob big = {c.p, good.n + extra[k]};
        fix_header(&big);
        snprintf(what, sizeof what, "%zu trailing bytes inside a consistent header", extra[k]);
        expect_rejected(t, big.p, big.n, what, NULL);
    }
    /* a consistent header over a shortened payload */
    for (size_t cut = 1; cut <= 64; cut += 7) {
        memcpy(c.p, good.p, good.n);
        blob small = {c.p, good.n - cut};
        fix_header(&small);
        snprintf(what, sizeof what, "payload cut by %zu bytes inside a consistent header", cut);
        expect_rejected(t, small.p, small.n, what, NULL);
    }
    /* not a snapshot at all */
    expect_rejected(t, "CROWDSNP", 8, "the magic alone", NULL);
    expect_rejected(t, "{\"seed\": 0}", 11, "a JSON text", "not a crowd snapshot");
    soft_end("snapshot rejection");
    target_close(t);
    free(t);
    free(c.p);
    free(good.p);
    scene_close(src);
    free(src);
}

/* The layout from the end of the payload: the slot table, and the last rig's row block. */
typedef struct layout {
    size_t slots_at;   /* u32 slot count; u32 first free slot; then the slots */
    uint32_t slots;
    size_t rows_at;    /* the last rig: u32 rows, u32 running, u32 columns */
    uint32_t rows, running, columns;
    size_t columns_at, handles_at;
    size_t rig0_name_at, rig0_params_at; /* u32 name length; u32 parameter count */
} layout;

static layout find_layout(blob b, uint32_t last_rig_rows) {
    layout l = {0};
    bool found = false;
    /* the largest candidate: a suffix of the table looks like a table too */
    for (uint32_t s = (uint32_t)((b.n - 40) / 24); s >= 1 && !found; s--) {
        size_t at = b.n - (size_t)s * 24 - 8;
        if (rd32(b.p + at) != s) continue;
        /* a slot table: the free list head and every slot's rig make sense */
        uint32_t head = rd32(b.p + at + 4);
        bool plausible = head < s || head == UINT32_MAX;
        for (uint32_t k = 0; k < s && plausible; k++) {
            const unsigned char *slot = b.p + at + 8 + 24 * (size_t)k;
            uint32_t gen = rd32(slot + 8), rig = rd32(slot + 12), next = rd32(slot + 20);
            plausible = gen >= 1 && gen <= 0xffff &&
                        (rig < RIGS ? next == UINT32_MAX : rig == UINT32_MAX && (next < s || next == UINT32_MAX));
        }
        if (plausible) {
            l.slots_at = at;
            l.slots = s;
            found = true;
        }
    }
    if (!found) FAILF("no slot table at the end of the snapshot");
    uint32_t n = last_rig_rows;
    l.handles_at = l.slots_at - (size_t)n * 8;
    found = false;
    for (uint32_t c = 1; c < 4096 && !found; c++) {
        size_t at = l.handles_at - (size_t)c * n * 4 - 12;
        if (at < 32 || at > b.n) break;
        if (rd32(b.p + at) == n && rd32(b.p + at + 8) == c && rd32(b.p + at + 4) <= n) {
            l.rows_at = at;
            l.rows = n;
            l.running = rd32(b.p + at + 4);
            l.columns = c;
            l.columns_at = at + 12;
            found = true;
        }
    }
    if (!found) FAILF("the last rig's rows are not where the format puts them (slots %u at %zu, rows %u)", l.slots, l.slots_at, n);
    l.rig0_name_at = 32 + 8 + 8 + 4 + 4;
    l.rig0_params_at = l.rig0_name_at + 4 + rd32(b.p + l.rig0_name_at);
    return l;
}

typedef struct patch {
    const char *what;
    size_t at;
    int width; /* 4 or 8 */
    uint64_t value;
} patch;

static void snapshot_structure(void **state) {
    (void)state;
    blob good;
    scene *src = corrupt_source(&good);
    uint32_t calib_rows = crowd_rig_instance_count(src->e, src->rig[RIG_CALIB]);
    layout l = find_layout(good, calib_rows);
    assert_int_equal(rd32(good.p + 52), RIGS);
    assert_int_equal(rd32(good.p + l.rig0_params_at), 7);
    /* a live slot and a free slot */
    size_t slot0 = l.slots_at + 8;
    uint32_t live_slot = UINT32_MAX, free_slot = UINT32_MAX;
    for (uint32_t s = 0; s < l.slots; s++) {
        uint32_t rig = rd32(good.p + slot0 + 24 * s + 12);
        if (rig == UINT32_MAX && free_slot == UINT32_MAX) free_slot = s;
        if (rig == RIG_CALIB && live_slot == UINT32_MAX) live_slot = s;
    }
    assert_true(live_slot != UINT32_MAX);
    assert_true(free_slot != UINT32_MAX); /* the churn left free slots */
    size_t ls = slot0 + 24 * (size_t)live_slot, fs = slot0 + 24 * (size_t)free_slot;
    uint64_t next_id = rd64(good.p + 40);
    uint32_t tag = rd32(good.p + 48);
    uint64_t h0 = rd64(good.p + l.handles_at), h1 = rd64(good.p + l.handles_at + 8);
    uint32_t live_row = rd32(good.p + ls + 16);

    const patch patches[] = {
        {"next instance id 0", 40, 8, 0},
        {"next instance id below a live id", 40, 8, rd64(good.p + ls)},
        {"tag 0", 48, 4, 0},
        {"tag 0x10000", 48, 4, 0x10000},
        {"another tag", 48, 4, tag ^ 0x5a5a},
        {"rig count + 1", 52, 4, RIGS + 1},
        {"rig count - 1", 52, 4, RIGS - 1},
        {"rig count 0", 52, 4, 0},
        {"rig count 0xffffffff", 52, 4, 0xffffffffu},
        {"rig 0 name length huge", l.rig0_name_at, 4, 0xfffffff0u},
        {"rig 0 name length + 1", l.rig0_name_at, 4, rd32(good.p + l.rig0_name_at) + 1},
        {"rig 0 parameter count + 1", l.rig0_params_at, 4, 8},
        {"rig 0 parameter count - 1", l.rig0_params_at, 4, 6},
        {"rig 0 parameter count 0", l.rig0_params_at, 4, 0},
        {"rig 0 parameter count 65537", l.rig0_params_at, 4, 65537},
        {"rig 0 parameter count huge", l.rig0_params_at, 4, 0xffffffffu},
        {"last rig rows + 1", l.rows_at, 4, l.rows + 1},
        {"last rig rows - 1", l.rows_at, 4, l.rows - 1},
        {"last rig rows huge", l.rows_at, 4, 0x7fffffffu},
        {"last rig running > rows", l.rows_at + 4, 4, l.rows + 1},
        {"last rig columns + 1", l.rows_at + 8, 4, l.columns + 1},
        {"last rig columns - 1", l.rows_at + 8, 4, l.columns - 1},
        {"last rig columns 0", l.rows_at + 8, 4, 0},
        {"row 0 handle: row 1's", l.handles_at, 8, h1},
        {"row 1 handle: row 0's", l.handles_at + 8, 8, h0},
        {"row 0 handle generation + 1", l.handles_at, 8, h0 + ((uint64_t)1 << 32)},
        {"row 0 handle tag", l.handles_at, 8, h0 ^ ((uint64_t)1 << 50)},
        {"row 0 handle 0", l.handles_at, 8, 0},
        {"slot count + 1", l.slots_at, 4, l.slots + 1},
        {"slot count - 1", l.slots_at, 4, l.slots - 1},
        {"first free slot none", l.slots_at + 4, 4, 0xffffffffu},
        {"first free slot out of range", l.slots_at + 4, 4, l.slots},
        {"first free slot a live one", l.slots_at + 4, 4, live_slot},
        {"first free slot 0xfffffffe", l.slots_at + 4, 4, 0xfffffffeu},
        {"live slot id = next id", ls, 8, next_id},
        {"live slot generation 0", ls + 8, 4, 0},
        {"live slot generation 0x10000", ls + 8, 4, 0x10000},
        {"live slot generation + 1", ls + 8, 4, rd32(good.p + ls + 8) + 1},
        {"live slot rig out of range", ls + 12, 4, RIGS},
        {"live slot in another rig", ls + 12, 4, RIG_FACE},
        {"live slot freed", ls + 12, 4, 0xffffffffu},
        {"live slot row + 1", ls + 16, 4, live_row + 1},
        {"live slot row beyond the rig", ls + 16, 4, l.rows},
        {"free slot claims a row", fs + 12, 4, RIG_CALIB},
        {"free slot points to itself", fs + 20, 4, free_slot},
        {"free slot points out of range", fs + 20, 4, l.slots + 5},
        {"free slot points to a live one", fs + 20, 4, live_slot},
        {"free slot generation 0", fs + 8, 4, 0},
        {"two live slots with one id", ls, 8, rd64(good.p + slot0 + 24 * (size_t)(live_slot ? 0 : 1))},
    };
    target *t = malloc(sizeof *t);
    assert_non_null(t);
    target_open(t);
    soft_begin();
    blob c = blob_copy(good);
    for (size_t k = 0; k < sizeof patches / sizeof patches[0]; k++) {
        memcpy(c.p, good.p, good.n);
        const patch *p = &patches[k];
        if (p->width == 4) wr32(c.p + p->at, (uint32_t)p->value);
        else wr64(c.p + p->at, p->value);
        fix_header(&c);
        expect_rejected(t, c.p, c.n, p->what, NULL);
    }
    /* values the tick never meets */
    struct { const char *what; float marker; uint32_t bits; const char *say; } values[] = {
        {"a NaN in a column", MARK_WEIGHT, 0x7fc00000u, "finite"},
        {"+inf in a column", MARK_DAMPING, 0x7f800000u, "finite"},
        {"-inf in the pose", MARK_VIS, 0xff800000u, "finite"},
        {"a signalling NaN", MARK_OPENING, 0x7f800001u, "finite"},
        {"a harmonic phase past the duration", MARK_PHASE, 0x41200000u /* 10 */, "harmonic"},
        {"a negative harmonic phase", MARK_PHASE, 0xbf800000u /* -1 */, "harmonic"},
    };
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        memcpy(c.p, good.p, good.n);
        wr32(c.p + find_float(good, values[k].marker), values[k].bits);
        fix_header(&c);
        expect_rejected(t, c.p, c.n, values[k].what, values[k].say);
    }
    /* a blink phase out of its model's range: instance 5's phase column follows its opening
     * column by -2 columns (CLOCK, PHASE, LAST, OPENING): find it through the face rig's rows */
    {
        uint32_t face_rows = crowd_rig_instance_count(src->e, src->rig[RIG_FACE]);
        size_t opening_at = find_float(good, MARK_OPENING);
        size_t phase_at = opening_at - 2 * (size_t)face_rows * 4;
        const uint32_t bad_phases[] = {0x40400000u /* 3: timed only */, 0x40200000u /* 2.5 */, 0xbf800000u /* -1 */};
        for (size_t k = 0; k < 3; k++) {
            memcpy(c.p, good.p, good.n);
            wr32(c.p + phase_at, bad_phases[k]);
            fix_header(&c);
            char what[64];
            snprintf(what, sizeof what, "sine blink phase bits 0x%08x", bad_phases[k]);
            expect_rejected(t, c.p, c.n, what, "blink");
        }
    }
    /* a rig setting the engine would refuse at crowd_rig_create: rig 0's first parameter has
     * min > max (min at name, then id length + id, then min, max) */
    {
        size_t p0 = l.rig0_params_at + 4;
        size_t min_at = p0 + 4 + rd32(good.p + p0);
        memcpy(c.p, good.p, good.n);
        wr32(c.p + min_at, 0x42c80000u); /* 100 > max 30 */
        fix_header(&c);
        expect_rejected(t, c.p, c.n, "rig 0 parameter 0 min > max", "min");
        memcpy(c.p, good.p, good.n);
        wr32(c.p + p0, 0); /* an empty id */
        fix_header(&c);
        expect_rejected(t, c.p, c.n, "rig 0 parameter 0 id empty", NULL);
    }
    /* 4-byte words of the payload set to hard values, checksum recomputed: every word of the
     * engine header, the first rig's settings and the last rig's rows block header, handles
     * and slot table, and a sample of the columns. Each is rejected, or it loads into an
     * engine that ticks and whose own snapshot loads again and saves the same bytes. (A loaded
     * blob may be normalised: a blend 0 becomes the controller's default.) */
    const uint32_t nasty[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u};
    uint32_t loaded = 0, rejected = 0, normalised = 0;
    uint64_t srng = 23;
    for (size_t at = 32; at + 4 <= good.n;) {
        for (size_t v = 0; v < sizeof nasty / sizeof nasty[0]; v++) {
            memcpy(c.p, good.p, good.n);
            if (rd32(c.p + at) == nasty[v]) continue;
            wr32(c.p + at, nasty[v]);
            fix_header(&c);
            crowd_engine *e = crowd_test_engine(0);
            crowd_result res = crowd_snapshot_load(e, c.p, c.n);
            if (res == CROWD_OK) {
                loaded++;
                blob once = save(e);
                normalised += !blob_eq(once, c);
                for (int k = 0; k < 3; k++) OK(e, crowd_tick(e, k ? DT : 1.0f));
                crowd_engine *f = crowd_test_engine(0);
                res = crowd_snapshot_load(f, once.p, once.n);
                if (res != CROWD_OK) {
                    SOFT("word at %zu = 0x%08x: loaded, but its own snapshot does not load: %s", at, nasty[v],
                         crowd_last_error(f));
                } else {
                    blob twice = save(f);
                    if (!blob_eq(once, twice)) SOFT("word at %zu = 0x%08x: save/load/save differs", at, nasty[v]);
                    free(twice.p);
                }
                crowd_engine_destroy(f);
                free(once.p);
            } else if (res == CROWD_ERR_BAD_SNAPSHOT) {
                rejected++;
            } else {
                SOFT("word at %zu = 0x%08x: %s", at, nasty[v], rname(res));
            }
            crowd_engine_destroy(e);
        }
        bool dense = at < 32 + 1024 || (at >= l.rows_at && at < l.columns_at) || at >= l.handles_at;
        at += dense ? 4 * (1 + 3 * SANITIZED) : 4 + 4 * rnd(&srng, 400 * (1 + 3 * SANITIZED));
        if (at > l.columns_at && at < l.handles_at && !dense && at > l.handles_at - 64) at = l.handles_at;
    }
    printf("  word sweep: %u loaded (%u normalised), %u rejected\n", loaded, normalised, rejected);
    soft_end("structural snapshot");
    target_close(t);
    free(t);
    free(c.p);
    free(good.p);
    scene_close(src);
    free(src);
}

/* Values crowd_instances_set refuses are corruption in a snapshot too: rejected, or at least
 * never a NaN or an infinity from the tick. */
static void snapshot_value_rules(void **state) {
    (void)state;
    blob good;
    scene *src = corrupt_source(&good);
    target *t = malloc(sizeof *t);
    assert_non_null(t);
    target_open(t);
    soft_begin();
    struct { const char *what; float marker; float value; } cases[] = {
        {"look weight 1e30", MARK_WEIGHT, 1e30f},
        {"look weight -1", MARK_WEIGHT, -1.0f},
        {"blink manual 5", MARK_MANUAL, 5.0f},
        {"blink manual -0.5", MARK_MANUAL, -0.5f},
        {"blink opening 2", MARK_OPENING, 2.0f},
        {"look damping -1", MARK_DAMPING, -1.0f},
        {"a visibility of 3", MARK_VIS, 3.0f},
        {"root (2, 0, 0, w)", MARK_ROOT, 2.0f},
        {"a re-acquisition progress of 2", MARK_TRACK, 2.0f},
        {"a re-acquisition progress of -0.5", MARK_TRACK, -0.5f},
        {"a re-acquisition progress of NaN", MARK_TRACK, NAN},
        {"an ease source (3, 0, 0, w)", MARK_SRC, 3.0f},
        {"an ease source (inf, 0, 0, w)", MARK_SRC, INFINITY},
        {"a stable side (7, y, z)", MARK_SIDE, 7.0f},
        {"a stable side (NaN, y, z)", MARK_SIDE, NAN},
    };
    blob c = blob_copy(good);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(c.p, good.p, good.n);
        uint32_t u;
        memcpy(&u, &cases[k].value, 4);
        wr32(c.p + find_float(good, cases[k].marker), u);
        fix_header(&c);
        expect_rejected(t, c.p, c.n, cases[k].what, NULL);
        /* and if it loads anyway: does the tick stay finite? */
        crowd_engine *e = crowd_test_engine(0);
        if (crowd_snapshot_load(e, c.p, c.n) == CROWD_OK) {
            scene *s = malloc(sizeof *s);
            assert_non_null(s);
            memcpy(s, src, sizeof *s);
            s->e = e;
            for (int j = 0; j < 5; j++) OK(e, crowd_tick(e, DT));
            for (uint32_t n = 0; n < s->n; n++) {
                if (!s->live[n]) continue;
                crowd_rig rig;
                OK(e, crowd_instance_info(e, s->h[n], NULL, &rig, NULL));
                for (uint32_t p = 0; p < crowd_rig_parameter_count(e, rig); p++) {
                    float v;
                    OK(e, crowd_get(e, s->h[n], CROWD_FIELD_OUTPUT, p, &v));
                    if (!isfinite(v)) SOFT("%s, loaded and ticked: instance %u output %u is %g", cases[k].what, n, p, (double)v);
                }
                for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
                    float q[4];
                    if (crowd_get(e, s->h[n], CROWD_FIELD_BONE_WORLD, b, q) != CROWD_OK) break;
                    for (int j = 0; j < 4; j++)
                        if (!isfinite(q[j])) SOFT("%s, loaded and ticked: instance %u bone %u is not finite", cases[k].what, n, b);
                }
            }
            free(s);
        }
        crowd_engine_destroy(e);
    }
    /* a stored bone rotation that is not a rotation, on a bone that holds (its knee hidden):
     * the hold eases the stored local rotation toward rest */
    {
        float q[4];
        OK(src->e, crowd_get(src->e, src->h[44], CROWD_FIELD_BONE_LOCAL, CROWD_BONE_RIGHT_UPPER_LEG, q));
        memcpy(c.p, good.p, good.n);
        float huge = 1e30f;
        uint32_t u;
        memcpy(&u, &huge, 4);
        size_t at = find_float(good, q[3]); /* w; x, y, z are the columns before it */
        uint32_t rows = crowd_rig_instance_count(src->e, src->rig[RIG_BODY]);
        wr32(c.p + at, u);
        wr32(c.p + at - 3 * (size_t)rows * 4, u);
        fix_header(&c);
        expect_rejected(t, c.p, c.n, "right upper leg local rotation (1e30, y, z, 1e30)", NULL);
        crowd_engine *e = crowd_test_engine(0);
        if (crowd_snapshot_load(e, c.p, c.n) == CROWD_OK) {
            for (int j = 0; j < 3; j++) OK(e, crowd_tick(e, DT));
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
                float w[4], l[4];
                OK(e, crowd_get(e, src->h[44], CROWD_FIELD_BONE_WORLD, b, w));
                OK(e, crowd_get(e, src->h[44], CROWD_FIELD_BONE_LOCAL, b, l));
                for (int j = 0; j < 4; j++)
                    if (!isfinite(w[j]) || !isfinite(l[j])) {
                        SOFT("a bone rotation (1e30, y, z, 1e30), loaded and ticked: bone %s is (%g, %g, %g, %g), local "
                             "(%g, %g, %g, %g)", crowd_bone_name((crowd_bone)b), (double)w[0], (double)w[1], (double)w[2],
                             (double)w[3], (double)l[0], (double)l[1], (double)l[2], (double)l[3]);
                        break;
                    }
            }
        }
        crowd_engine_destroy(e);
    }
    soft_end("snapshot value rule");
    target_close(t);
    free(t);
    free(c.p);
    free(good.p);
    scene_close(src);
    free(src);
}

/* Whatever state the engine reaches from input it accepted, it can save and load again, and
 * its outputs stay finite. Each field is set to the largest magnitude crowd_instances_set
 * accepts (found by trying 3e38, 3e37, ... down), with both signs. */
static float largest_accepted(crowd_engine *e, crowd_instance h, crowd_field f, uint32_t width, float sign) {
    float v[132];
    for (float m = 3e38f; m > 1.0f; m /= 10.0f) {
        for (uint32_t c = 0; c < width; c++) v[c] = c % 4 == 3 && f == CROWD_FIELD_POSE ? 1.0f : (c % 2 ? -sign : sign) * m;
        float before[132];
        OK(e, crowd_get(e, h, f, 0, before));
        if (crowd_set(e, h, f, 0, v) == CROWD_OK) return m;
    }
    FAILF("crowd_set(%s) accepts no magnitude above 1", crowd_field_name(f));
    return 0;
}

static void snapshot_state_reloads(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(8);
    static const crowd_parameter_desc params[] = {{"A", -30, 30, 0, false}, {"B", 0, 1, 0, false}};
    static const crowd_look_parameter_desc lp[] = {{"A", CROWD_AXIS_X, 30}};
    crowd_look_desc look = crowd_look_defaults(); /* max_speed +inf */
    look.parameters = lp;
    look.parameter_count = 1;
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("B");
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = &hp;
    harm.parameter_count = 1;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.smoothing = true;
    limbs.fallback = CROWD_FALLBACK_PREVIOUS;
    crowd_rig_desc rd = {.name = "extreme", .parameters = params, .parameter_count = 2, .look = &look,
                         .harmonic = &harm, .limbs = &limbs};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    crowd_instance h[4];
    crowd_add_desc add = {.rig = rig, .count = 4};
    OK(e, crowd_instances_add(e, &add, h));
    const crowd_field fields[] = {CROWD_FIELD_LOOK_POSITION, CROWD_FIELD_LOOK_VELOCITY, CROWD_FIELD_LOOK_TARGET,
                                  CROWD_FIELD_LOOK_CENTER, CROWD_FIELD_BASE, CROWD_FIELD_HARMONIC_RANGE, CROWD_FIELD_POSE};
    for (uint32_t i = 0; i < 4; i++) {
        float one = 1.0f;
        OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_ACTIVE, 0, &one));
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
            /* instance i: a different mix of extremes and signs */
            if ((i + k) % 3 == 0) continue;
            largest_accepted(e, h[i], fields[k], crowd_field_width(fields[k]), i % 2 ? -1.0f : 1.0f);
        }
    }
    soft_begin();
    const float dts[] = {DT, 1.0f, 0.0f, DT, 0.5f};
    for (int k = 0; k < 5; k++) {
        OK(e, crowd_tick(e, dts[k]));
        for (int i = 0; i < 4; i++) {
            float p[3], v[3], out[2], bone[4];
            OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, p));
            OK(e, crowd_get(e, h[i], CROWD_FIELD_LOOK_VELOCITY, 0, v));
            OK(e, crowd_get_outputs(e, h[i], out, 2));
            bool finite = isfinite(out[0]) && isfinite(out[1]);
            for (int j = 0; j < 3; j++) finite = finite && isfinite(p[j]) && isfinite(v[j]);
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
                OK(e, crowd_get(e, h[i], CROWD_FIELD_BONE_WORLD, b, bone));
                for (int j = 0; j < 4; j++) finite = finite && isfinite(bone[j]);
            }
            if (!finite)
                SOFT("tick %d, instance %d from the largest accepted values: pos (%g, %g, %g) vel (%g, %g, %g), "
                     "outputs %g %g, or a bone, is not finite", k + 1, i, (double)p[0], (double)p[1], (double)p[2],
                     (double)v[0], (double)v[1], (double)v[2], (double)out[0], (double)out[1]);
        }
        blob b = save(e);
        crowd_engine *f = crowd_test_engine(0);
        crowd_result res = crowd_snapshot_load(f, b.p, b.n);
        if (res != CROWD_OK) SOFT("tick %d: the engine's own snapshot does not load: %s", k + 1, crowd_last_error(f));
        crowd_engine_destroy(f);
        free(b.p);
    }
    /* a timed blink closing, its clock set to a negative (finite: accepted) value */
    static const crowd_parameter_desc eye[] = {{"E", 0, 1, 1, false}};
    static const char *const eye_ids[] = {"E"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.model = CROWD_BLINK_TIMED;
    blink.parameters = eye_ids;
    blink.parameter_count = 1;
    crowd_rig_desc td = {.name = "timed", .parameters = eye, .parameter_count = 1, .blink = &blink};
    OK(e, crowd_rig_create(e, &td, &rig));
    crowd_instance t;
    add = (crowd_add_desc){.rig = rig, .count = 1};
    OK(e, crowd_instances_add(e, &add, &t));
    float closing = 1.0f, clock = -5.0f;
    OK(e, crowd_set(e, t, CROWD_FIELD_BLINK_PHASE, 0, &closing));
    if (crowd_set(e, t, CROWD_FIELD_BLINK_CLOCK, 0, &clock) == CROWD_OK) {
        OK(e, crowd_tick(e, DT));
        float opening;
        OK(e, crowd_get(e, t, CROWD_FIELD_BLINK_OPENING, 0, &opening));
        if (!(opening <= 1.0f))
            SOFT("a timed blink closing from clock -5: eye_opening %g, its rule is <= 1", (double)opening);
        blob b = save(e);
        crowd_engine *f = crowd_test_engine(0);
        crowd_result res = crowd_snapshot_load(f, b.p, b.n);
        if (res != CROWD_OK) SOFT("the timed blink's snapshot does not load: %s", crowd_last_error(f));
        crowd_engine_destroy(f);
        free(b.p);
    }
    soft_end("state reload");
    crowd_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------------
 * live add / remove
 * ---------------------------------------------------------------------------------------- */
#define CHURN_TICKS 150

static void churn(void **state) {
    (void)state;
    scene *r = malloc(sizeof *r), *c = malloc(sizeof *c);
    assert_non_null(r);
    assert_non_null(c);
    scene_open(r, 2024, crowd_test_simd, 1);
    scene_open(c, 2024, crowd_test_simd, 3);
    scene_populate(r);
    scene_populate(c);
    uint8_t *ever_paused = calloc(MAX_INSTANCES, 1);
    assert_non_null(ever_paused);
    uint64_t rng = 11;
    uint32_t removed_total = 0, stale_checked = 0;
    crowd_instance stale[64];
    uint32_t nstale = 0;
    for (uint32_t k = 1; k <= CHURN_TICKS; k++) {
        /* the same adds in both engines (the ids key the randomness) */
        int rig = (int)(k % RIGS);
        uint32_t count = 1 + k % 4;
        crowd_blink_start bs = k % 2 ? CROWD_BLINK_START_RANDOM : CROWD_BLINK_START_CUBISM;
        crowd_harmonic_phase hp = k % 3 ? CROWD_HARMONIC_PHASE_RANDOM : CROWD_HARMONIC_PHASE_ZERO;
        uint32_t first = scene_add(r, rig, count, bs, hp);
        assert_int_equal(scene_add(c, rig, count, bs, hp), first);
        /* churn in c: remove up to 5 random instances (batched, paused ones included) and
         * pause or resume some others; never the standard population */
        crowd_instance batch[5];
        uint32_t nb = 0, want = rnd(&rng, 6);
        for (uint32_t tries = 0; nb < want && tries < 50; tries++) {
            uint32_t n = POPULATION + rnd(&rng, c->n - POPULATION);
            if (!c->live[n]) continue;
            bool dup = false;
            for (uint32_t j = 0; j < nb; j++) dup |= batch[j].id == c->h[n].id;
            if (dup) continue;
            batch[nb++] = c->h[n];
            c->live[n] = 0;
        }
        OK(c->e, crowd_instances_remove(c->e, batch, nb));
        removed_total += nb;
        for (uint32_t j = 0; j < nb && nstale < 64; j++) stale[nstale++] = batch[j];
        for (uint32_t j = 0; j < 3; j++) {
            uint32_t n = POPULATION + rnd(&rng, c->n - POPULATION);
            if (!c->live[n]) continue;
            bool p = rnd(&rng, 3) != 0;
            scene_pause(c, n, p);
            ever_paused[n] |= p;
        }
        /* a removed handle stays stale, also when its slot is reused */
        for (uint32_t j = 0; j < nstale; j++) {
            bool paused;
            EXPECT(c->e, crowd_instance_paused(c->e, stale[j], &paused), CROWD_ERR_HANDLE);
            EXPECT(c->e, crowd_instances_remove(c->e, &stale[j], 1), CROWD_ERR_HANDLE);
            stale_checked++;
        }
        scene_drive(r);
        scene_drive(c);
        scene_tick(r, dt_of(k));
        scene_tick(c, dt_of(k));
        if (k % 10 == 0) check_rows(c);
        for (uint32_t n = 0; n < c->n; n++) {
            if (!c->live[n] || ever_paused[n]) continue;
            if (hash_instance(r->e, r->h[n]) != hash_instance(c->e, c->h[n]))
                FAILF("tick %u: instance %u (rig %s) differs with churn", k, n, rig_names[c->rig_of[n]]);
        }
    }
    assert_true(removed_total > 100);
    assert_true(stale_checked > 0);
    check_finite(c);
    scene_close(r);
    scene_close(c);
    free(ever_paused);
    free(r);
    free(c);
}

/* ------------------------------------------------------------------------------------------
 * paused instances
 * ---------------------------------------------------------------------------------------- */
#define PAUSE_TICKS 180

static void pause_shift(void **state) {
    (void)state;
    /* q never pauses: the hash of every instance after each of its steps */
    scene *q = malloc(sizeof *q), *p = malloc(sizeof *p);
    assert_non_null(q);
    assert_non_null(p);
    scene_open(q, 606, crowd_test_simd, 1);
    scene_populate(q);
    uint32_t n = q->n;
    uint64_t *qh = malloc(sizeof *qh * n * (PAUSE_TICKS + 1));
    assert_non_null(qh);
    for (uint32_t i = 0; i < n; i++) qh[i * (PAUSE_TICKS + 1)] = hash_instance(q->e, q->h[i]);
    for (uint32_t k = 1; k <= PAUSE_TICKS; k++) {
        scene_drive(q);
        scene_tick(q, DT);
        for (uint32_t i = 0; i < n; i++) qh[i * (PAUSE_TICKS + 1) + k] = hash_instance(q->e, q->h[i]);
    }
    scene_close(q);

    /* p pauses and resumes instances at random, on a pool; each must always look like q's
     * after as many steps as it ran */
    scene_open(p, 606, crowd_test_simd, 2);
    scene_populate(p);
    uint64_t rng = 3;
    uint32_t frozen_checks = 0, max_lag = 0;
    for (uint32_t k = 1; k <= PAUSE_TICKS; k++) {
        for (uint32_t j = 0; j < 6; j++) {
            uint32_t i = rnd(&rng, n);
            bool pause = rnd(&rng, 2) == 0;
            /* sometimes a batch with the same handle twice, or a no-op */
            crowd_instance hh[2] = {p->h[i], p->h[i]};
            OK(p->e, crowd_instances_pause(p->e, hh, 1 + j % 2, pause));
            p->paused[i] = pause;
        }
        if (k == 100) /* everyone paused: the tick has nothing to do */
            for (uint32_t i = 0; i < n; i++) scene_pause(p, i, true);
        if (k == 103)
            for (uint32_t i = 0; i < n; i++) scene_pause(p, i, false);
        scene_drive(p);
        scene_tick(p, DT);
        if (k % 15 == 0) check_rows(p);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t st = p->steps[i];
            if (k - st > max_lag) max_lag = k - st;
            frozen_checks += p->paused[i];
            if (hash_instance(p->e, p->h[i]) != qh[i * (PAUSE_TICKS + 1) + st])
                FAILF("tick %u: instance %u (rig %s, %s) after %u steps differs from the never-paused run", k, i,
                      rig_names[p->rig_of[i]], p->paused[i] ? "paused" : "running", st);
        }
    }
    assert_true(frozen_checks > 1000);
    assert_true(max_lag > 20);
    scene_close(p);
    free(qh);
    free(q);
    free(p);
}

static void pause_api(void **state) {
    (void)state;
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 1, crowd_test_simd, 1);
    scene_populate(s);
    crowd_engine *e = s->e;
    bool paused = true;
    EXPECT(NULL, crowd_instances_pause(NULL, s->h, 1, true), CROWD_ERR_NULL);
    EXPECT(e, crowd_instances_pause(e, NULL, 1, true), CROWD_ERR_NULL);
    OK(e, crowd_instances_pause(e, NULL, 0, true));
    EXPECT(NULL, crowd_instance_paused(NULL, s->h[0], &paused), CROWD_ERR_NULL);
    EXPECT(e, crowd_instance_paused(e, s->h[0], NULL), CROWD_ERR_NULL);
    EXPECT(e, crowd_instance_paused(e, (crowd_instance){0}, &paused), CROWD_ERR_HANDLE);
    assert_int_equal(crowd_rig_running_count(e, (crowd_rig){0}), 0);
    assert_int_equal(crowd_rig_running_count(NULL, s->rig[0]), 0);
    assert_int_equal(crowd_rig_running_count(e, s->rig[RIG_FACE]), 37);
    OK(e, crowd_instance_paused(e, s->h[0], &paused));
    assert_false(paused);

    /* a bad handle anywhere: nothing is paused */
    scene_remove(s, 10);
    crowd_instance bad[3] = {s->h[0], s->h[1], s->h[10]};
    EXPECT(e, crowd_instances_pause(e, bad, 3, true), CROWD_ERR_HANDLE);
    assert_non_null(strstr(crowd_last_error(e), "handles[2]"));
    bad[2] = (crowd_instance){s->h[0].id ^ ((uint64_t)1 << 52)}; /* another engine's tag */
    EXPECT(e, crowd_instances_pause(e, bad, 3, true), CROWD_ERR_HANDLE);
    check_rows(s);

    /* pausing twice, resuming a running one, the same handle twice in one call */
    scene_pause(s, 0, true);
    scene_pause(s, 0, true);
    scene_pause(s, 1, false);
    crowd_instance twice[2] = {s->h[2], s->h[2]};
    OK(e, crowd_instances_pause(e, twice, 2, true));
    s->paused[2] = 1;
    check_rows(s);
    OK(e, crowd_instances_pause(e, twice, 2, false));
    s->paused[2] = 0;
    scene_pause(s, 2, true);
    check_rows(s);

    /* remove a paused one, a running one, the last running row, the last row */
    scene_pause(s, 5, true);
    scene_pause(s, 6, true);
    scene_remove(s, 5);
    check_rows(s);
    scene_remove(s, 7);
    check_rows(s);
    const crowd_instance *rows;
    uint32_t count;
    OK(e, crowd_rig_handles(e, s->rig[RIG_FACE], &rows, &count));
    uint32_t running = crowd_rig_running_count(e, s->rig[RIG_FACE]);
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->h[k].id == rows[running - 1].id) {
            scene_remove(s, k);
            break;
        }
    check_rows(s);
    OK(e, crowd_rig_handles(e, s->rig[RIG_FACE], &rows, &count));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->h[k].id == rows[count - 1].id) {
            scene_remove(s, k);
            break;
        }
    check_rows(s);
    /* adding while rows are paused: the new ones run */
    uint32_t first = scene_add(s, RIG_FACE, 20, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    check_rows(s);
    for (uint32_t k = first; k < first + 20; k++) {
        OK(e, crowd_instance_paused(e, s->h[k], &paused));
        assert_false(paused);
    }
    /* everyone in a rig paused, then all resumed in one call */
    crowd_instance all[MAX_INSTANCES];
    uint32_t na = 0;
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->rig_of[k] == RIG_TIMED) {
            all[na++] = s->h[k];
            s->paused[k] = 1;
        }
    OK(e, crowd_instances_pause(e, all, na, true));
    assert_int_equal(crowd_rig_running_count(e, s->rig[RIG_TIMED]), 0);
    check_rows(s);

    /* crowd_tick_range over all rows leaves the paused ones as they are */
    uint64_t before[MAX_INSTANCES];
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k]) before[k] = hash_instance(e, s->h[k]);
    for (int r = 0; r < RIGS; r++)
        OK(e, crowd_tick_range(e, DT, s->rig[r], 0, crowd_rig_instance_count(e, s->rig[r])));
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        bool same = hash_instance(e, s->h[k]) == before[k];
        /* a running instance of a rig with controllers changes on a tick (blink clocks, phases,
         * filters); a paused one must not */
        if (s->paused[k] && !same) FAILF("crowd_tick_range changed paused instance %u", k);
        if (!s->paused[k] && same && s->rig_of[k] != RIG_CUSTOM && s->rig_of[k] != RIG_CALIB) FAILF("crowd_tick_range left running instance %u", k);
    }
    /* a range of paused rows only: nothing to do */
    uint32_t rows_timed = crowd_rig_instance_count(e, s->rig[RIG_TIMED]);
    OK(e, crowd_tick_range(e, DT, s->rig[RIG_TIMED], 0, rows_timed));
    EXPECT(e, crowd_tick_range(e, DT, s->rig[RIG_TIMED], 0, rows_timed + 1), CROWD_ERR_RANGE);
    OK(e, crowd_instances_pause(e, all, na, false));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->rig_of[k] == RIG_TIMED) s->paused[k] = 0;
    check_rows(s);
    /* inputs of a paused instance can be written; its outputs stay */
    scene_pause(s, 0, true);
    float out_before[7], out_after[7], base = 12.0f;
    OK(e, crowd_get_outputs(e, s->h[0], out_before, 7));
    OK(e, crowd_set(e, s->h[0], CROWD_FIELD_BASE, 0, &base));
    OK(e, crowd_blink_now(e, &s->h[0], 1));
    OK(e, crowd_tick(e, DT));
    OK(e, crowd_get_outputs(e, s->h[0], out_after, 7));
    assert_memory_equal(out_before, out_after, sizeof out_before);
    scene_close(s);
    free(s);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    /* argv[2], when given: run only the tests matching this pattern (e.g. "snapshot_*") */
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_and_targets),
        cmocka_unit_test(host_ranges),
        cmocka_unit_test(thread_limits),
        cmocka_unit_test(snapshot_round_trip),
        cmocka_unit_test(snapshot_api),
        cmocka_unit_test(snapshot_rejects),
        cmocka_unit_test(snapshot_structure),
        cmocka_unit_test(snapshot_value_rules),
        cmocka_unit_test(snapshot_state_reloads),
        cmocka_unit_test(churn),
        cmocka_unit_test(pause_shift),
        cmocka_unit_test(pause_api),
    };
    return cmocka_run_group_tests_name("embed", tests, NULL, NULL);
}
