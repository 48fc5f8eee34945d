/* The embed suites' shared helpers (embed_suite.h), compiled once. */
#include "embed_suite.h"

#define FNV_INIT 0xcbf29ce484222325ull

static uint64_t fnv_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) h = (h ^ p[k]) * 0x100000001b3ull;
    return h;
}

uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void wr32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}

uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

void wr64(unsigned char *p, uint64_t v) {
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

int soft_failures;

void soft_begin(void) { soft_failures = 0; }

void soft_end(const char *what) {
    if (soft_failures) FAILF("%d %s case(s) failed (listed above)", soft_failures, what);
}

const char *const rig_names[RIGS] = {"face", "timed", "body", "custom", "calib"};

static void put(float *lm, int k, double x, double y, double z, double vis) {
    lm[4 * k] = (float)x;
    lm[4 * k + 1] = (float)y;
    lm[4 * k + 2] = (float)z;
    lm[4 * k + 3] = (float)vis;
}

void body_pose(uint32_t num, uint32_t s, float lm[132]) {
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

void make_rigs(scene *s) {
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

void scene_open(scene *s, uint64_t seed, crowd_simd simd, uint32_t threads) {
    memset(s, 0, sizeof *s);
    crowd_engine_desc desc = {.seed = seed, .simd = simd, .threads = threads};
    crowd_result res = crowd_engine_create(&desc, &s->e);
    if (res != CROWD_OK) FAILF("crowd_engine_create(threads %u): %s", threads, rname(res));
    assert_int_equal(crowd_engine_threads(s->e), threads > 1 ? threads : 1);
    make_rigs(s);
}

void scene_close(scene *s) {
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

uint32_t scene_add(scene *s, int rig, uint32_t count, crowd_blink_start start, crowd_harmonic_phase phase) {
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

void scene_populate(scene *s) {
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

void scene_drive(scene *s) {
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && !s->paused[k]) drive_instance(s, k, s->steps[k] + 1);
}

void scene_tick(scene *s, float dt) {
    OK(s->e, crowd_tick(s->e, dt));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && !s->paused[k]) s->steps[k]++;
}

void scene_pause(scene *s, uint32_t num, bool paused) {
    OK(s->e, crowd_instances_pause(s->e, &s->h[num], 1, paused));
    s->paused[num] = paused;
}

void scene_remove(scene *s, uint32_t num) {
    OK(s->e, crowd_instances_remove(s->e, &s->h[num], 1));
    s->live[num] = 0;
}

float dt_of(uint32_t k) {
    if (k % 37 == 0) return 0.0f;
    if (k == 101) return 0.5f;
    return DT + 0.002f * (float)(k % 5);
}

static uint64_t hash_field(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, uint64_t acc,
                           crowd_result *res) {
    float v[4 * CROWD_LANDMARK_COUNT];
    *res = crowd_get(e, h, f, index, v);
    if (*res != CROWD_OK) return acc;
    acc = fnv_bytes(acc, &f, sizeof f);
    acc = fnv_bytes(acc, &index, sizeof index);
    return fnv_bytes(acc, v, sizeof(float) * crowd_field_width(f));
}

uint64_t hash_instance(const crowd_engine *e, crowd_instance h) {
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

uint64_t hash_scene(const scene *s) {
    uint64_t acc = FNV_INIT;
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        uint64_t hi = hash_instance(s->e, s->h[k]);
        acc = fnv_bytes(acc, &k, sizeof k);
        acc = fnv_bytes(acc, &hi, sizeof hi);
    }
    return acc;
}

void check_finite(const scene *s) {
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

void check_rows(const scene *s) {
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

blob save(const crowd_engine *e) {
    blob b = {0};
    OK(e, crowd_snapshot_size(e, &b.n));
    b.p = malloc(b.n + 1);
    assert_non_null(b.p);
    size_t written = 0;
    OK(e, crowd_snapshot_save(e, b.p, b.n, &written));
    assert_int_equal(written, b.n);
    return b;
}

bool blob_eq(blob a, blob b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

blob blob_copy(blob b) {
    blob c = {malloc(b.n + 8192), b.n};
    assert_non_null(c.p);
    memcpy(c.p, b.p, b.n);
    return c;
}

void fix_header(blob *b) {
    wr64(b->p + 16, b->n - 32);
    wr64(b->p + 24, snapshot_checksum(b->p + 32, b->n - 32));
}
