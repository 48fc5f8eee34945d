/* The engine suites' shared helpers (engine_suite.h), compiled once. */
#include "engine_suite.h"

double sin_tol(double range, double value) {
    return 0x1p-22 * fabs(range) + 4.0 * 0x1p-23 * (fabs(value) + fabs(range)) + 1e-30;
}

crowd_rig make_rig(crowd_engine *e, const crowd_rig_desc *d) {
    crowd_rig rig = {0};
    crowd_result res = crowd_rig_create(e, d, &rig);
    if (res != CROWD_OK) FAILF("crowd_rig_create(%s): %s %s", d->name ? d->name : "?", rname(res), crowd_last_error(e));
    return rig;
}

void add_into(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_blink_start bs, crowd_harmonic_phase hp,
              crowd_instance *out) {
    crowd_add_desc ad = {.rig = rig, .count = n, .blink_start = bs, .harmonic_phase = hp};
    OK(e, crowd_instances_add(e, &ad, out));
}

crowd_instance *add_n(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_blink_start bs, crowd_harmonic_phase hp) {
    crowd_instance *h = calloc(n, sizeof *h);
    assert_non_null(h);
    add_into(e, rig, n, bs, hp, h);
    return h;
}

void tick(crowd_engine *e, float dt) { OK(e, crowd_tick(e, dt)); }

float get1(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index) {
    float v[3] = {0};
    OK(e, crowd_get(e, h, f, index, v));
    return v[0];
}

void set1(crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, float v) {
    float vv[3] = {v, v, v};
    OK(e, crowd_set(e, h, f, index, vv));
}

void set_all1(crowd_engine *e, const crowd_instance *h, uint32_t n, crowd_field f, uint32_t index, float v) {
    for (uint32_t i = 0; i < n; i++) set1(e, h[i], f, index, v);
}

uint32_t instance_key(const crowd_engine *e, uint64_t seed, crowd_instance h) {
    uint64_t id = 0;
    OK(e, crowd_instance_info(e, h, &id, NULL, NULL));
    return crowdi_instance_key(seed, id);
}

float spec_wait(float mean, float dev, float u) {
    volatile float t = u * (2.0f * dev);
    volatile float s = mean + t;
    return s - dev;
}

void snap_free(snapshot *s) {
    free(s->data);
    free(s->sec);
    memset(s, 0, sizeof *s);
}

float *snap_reserve(snapshot *s, size_t n) {
    if (s->size + n > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->size + n) cap *= 2;
        s->data = realloc(s->data, cap * sizeof *s->data);
        assert_non_null(s->data);
        s->cap = cap;
    }
    float *p = s->data + s->size;
    s->size += n;
    return p;
}

static void snap_section(snapshot *s, section sec) {
    if (s->nsec == s->capsec) {
        s->capsec = s->capsec ? s->capsec * 2 : 64;
        s->sec = realloc(s->sec, s->capsec * sizeof *s->sec);
        assert_non_null(s->sec);
    }
    s->sec[s->nsec++] = sec;
}

bool indexed_field(crowd_field f) {
    return f == CROWD_FIELD_BASE || f == CROWD_FIELD_OUTPUT || f == CROWD_FIELD_HARMONIC_PHASE ||
           f == CROWD_FIELD_HARMONIC_RANGE || f == CROWD_FIELD_BONE_WORLD || f == CROWD_FIELD_BONE_LOCAL;
}

void snap_rig(snapshot *s, const crowd_engine *e, uint32_t rig_no, const crowd_instance *h, uint32_t n) {
    for (int f = 0; f < CROWD_FIELD_COUNT; f++) {
        uint32_t w = crowd_field_width((crowd_field)f);
        for (uint32_t idx = 0; idx < 256; idx++) {
            float probe[4 * CROWD_LANDMARK_COUNT];
            crowd_result res = n ? crowd_get(e, h[0], (crowd_field)f, idx, probe) : CROWD_ERR_RANGE;
            if (res == CROWD_ERR_NO_CONTROLLER || res == CROWD_ERR_RANGE) break;
            if (res != CROWD_OK) FAILF("snapshot: crowd_get(%s) -> %s", crowd_field_name((crowd_field)f), rname(res));
            size_t offset = s->size;
            float *dst = snap_reserve(s, (size_t)n * w);
            OK(e, crowd_instances_get(e, (crowd_field)f, idx, h, n, dst));
            snap_section(s, (section){rig_no, (uint32_t)f, idx, n, w, offset});
            if (!indexed_field((crowd_field)f)) break;
        }
    }
    memcpy(snap_reserve(s, 1), &n, sizeof n);
}

void snap_expect_equal(const snapshot *a, const snapshot *b, const char *what) {
    if (a->size == b->size && a->nsec == b->nsec && memcmp(a->data, b->data, a->size * sizeof(float)) == 0) return;
    if (a->nsec != b->nsec || a->size != b->size)
        FAILF("%s: snapshots differ in layout (%zu vs %zu sections, %zu vs %zu floats)", what, a->nsec, b->nsec,
              a->size, b->size);
    for (size_t k = 0; k < a->nsec; k++) {
        const section *sa = &a->sec[k];
        for (uint32_t i = 0; i < sa->count * sa->width; i++) {
            float x = a->data[sa->offset + i], y = b->data[sa->offset + i];
            if (fbits(x) != fbits(y))
                FAILF("%s: rig %u field %s[%u] instance %u component %u: %.9g (0x%08x) vs %.9g (0x%08x)", what,
                      sa->rig_no, crowd_field_name((crowd_field)sa->field), sa->index, i / sa->width, i % sa->width,
                      (double)x, fbits(x), (double)y, fbits(y));
        }
    }
    FAILF("%s: snapshots differ outside the field sections (instance counts)", what);
}

crowd_rig harmonic_rig(crowd_engine *e, float min, float max, crowd_direction dir, float no, float nr, float d) {
    crowd_parameter_desc p = {"ParamAngleX", min, max, 0, false};
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("ParamAngleX");
    hp.direction = dir;
    hp.origin = no;
    hp.range = nr;
    hp.duration = d;
    crowd_harmonic_desc hd = crowd_harmonic_defaults();
    hd.parameters = &hp;
    hd.parameter_count = 1;
    crowd_rig_desc rd = {.name = "harmonic", .parameters = &p, .parameter_count = 1, .harmonic = &hd};
    return make_rig(e, &rd);
}

crowd_rig blink_rig(crowd_engine *e, crowd_blink_model model, crowd_blend blend, float min) {
    crowd_parameter_desc p = {"ParamEyeLOpen", min, 1, 1, false};
    const char *ids[] = {"ParamEyeLOpen"};
    crowd_blink_desc bd = crowd_blink_defaults();
    bd.parameters = ids;
    bd.parameter_count = 1;
    bd.model = model;
    bd.blend = blend;
    crowd_rig_desc rd = {.name = "blink", .parameters = &p, .parameter_count = 1, .blink = &bd};
    return make_rig(e, &rd);
}

const crowd_parameter_desc world_params[] = {
    {"ParamAngleX", -30, 30, 0, false},   {"ParamAngleY", -30, 30, 0, false},
    {"ParamAngleZ", -180, 180, 0, true},  {"ParamBodyAngleX", -10, 10, 0, false},
    {"ParamBreath", 0, 1, 0, false},      {"ParamEyeLOpen", 0, 1, 1, false},
    {"ParamEyeROpen", 0, 1, 1, false},    {"ParamHairFront", -1, 1, 0, false},
};

void world_rigs(world *w) {
    /* rig 0: look with 3 entries, harmonic left/right/centric on 2 channels, blink sine */
    static const crowd_look_parameter_desc lp0[] = {
        {"ParamAngleX", CROWD_AXIS_X, 30}, {"ParamAngleY", CROWD_AXIS_Y, 30}, {"ParamAngleZ", CROWD_AXIS_X, 250}};
    crowd_look_desc look0 = crowd_look_defaults();
    look0.parameters = lp0;
    look0.parameter_count = 3;
    crowd_harmonic_parameter_desc hp0[3] = {
        {"ParamBreath", 0, CROWD_DIRECTION_CENTRIC, 0.5f, 0.5f, 3.2f},
        {"ParamHairFront", 1, CROWD_DIRECTION_LEFT, 0.6f, 0.7f, 2.1f},
        {"ParamBodyAngleX", 1, CROWD_DIRECTION_RIGHT, 0.3f, 0.9f, 4.7f},
    };
    const float ts0[] = {1.0f, 0.7f};
    crowd_harmonic_desc harm0 = crowd_harmonic_defaults();
    harm0.parameters = hp0;
    harm0.parameter_count = 3;
    harm0.channel_timescales = ts0;
    harm0.channel_count = 2;
    const char *blink_ids[] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink0 = crowd_blink_defaults();
    blink0.parameters = blink_ids;
    blink0.parameter_count = 2;
    crowd_rig_desc rd0 = {.name = "mixed", .parameters = world_params, .parameter_count = WORLD_P,
                          .look = &look0, .harmonic = &harm0, .blink = &blink0};
    w->rig[0] = make_rig(w->e, &rd0);

    /* rig 1: override blends everywhere, a speed limit, blink timed */
    static const crowd_look_parameter_desc lp1[] = {
        {"ParamAngleX", CROWD_AXIS_X, 30}, {"ParamAngleY", CROWD_AXIS_Z, -20}, {"ParamBodyAngleX", CROWD_AXIS_Y, 10}};
    crowd_look_desc look1 = crowd_look_defaults();
    look1.parameters = lp1;
    look1.parameter_count = 3;
    look1.blend = CROWD_BLEND_OVERRIDE;
    look1.max_speed = 2.0f;
    look1.damping = 0.3f;
    crowd_harmonic_parameter_desc hp1[3] = {
        {"ParamBreath", 0, CROWD_DIRECTION_RIGHT, 0.4f, 0.8f, 1.3f},
        {"ParamAngleZ", 1, CROWD_DIRECTION_CENTRIC, 0.5f, 0.9f, 5.0f},
        {"ParamHairFront", 0, CROWD_DIRECTION_LEFT, 0.2f, 0.5f, 0.9f},
    };
    const float ts1[] = {1.3f, 0.5f};
    crowd_harmonic_desc harm1 = crowd_harmonic_defaults();
    harm1.parameters = hp1;
    harm1.parameter_count = 3;
    harm1.channel_timescales = ts1;
    harm1.channel_count = 2;
    harm1.blend = CROWD_BLEND_OVERRIDE;
    crowd_blink_desc blink1 = crowd_blink_defaults();
    blink1.parameters = blink_ids;
    blink1.parameter_count = 2;
    blink1.model = CROWD_BLINK_TIMED;
    blink1.blend = CROWD_BLEND_OVERRIDE;
    blink1.mean = 1.5f;
    blink1.max_deviation = 1.0f;
    blink1.timescale = 12.0f;
    crowd_rig_desc rd1 = {.name = "override-timed", .parameters = world_params, .parameter_count = WORLD_P,
                          .look = &look1, .harmonic = &harm1, .blink = &blink1};
    w->rig[1] = make_rig(w->e, &rd1);
}

void world_inputs(world *w, int k, double pick) {
    crowd_engine *e = w->e;
    for (uint32_t i = 0; i < w->n[k]; i++) {
        if (!rng_chance(&w->r, pick)) continue;
        crowd_instance h = w->h[k][i];
        for (uint32_t p = 0; p < WORLD_P; p++) {
            float lo = world_params[p].min, hi = world_params[p].max, span = hi - lo;
            set1(e, h, CROWD_FIELD_BASE, p, rng_rangef(&w->r, lo - 0.2 * span, hi + 0.2 * span));
        }
        float t[3] = {rng_rangef(&w->r, -2, 2), rng_rangef(&w->r, -2, 2), rng_rangef(&w->r, -2, 2)};
        OK(e, crowd_set_look_target(e, h, t[0], t[1], t[2], rng_chance(&w->r, 0.7)));
        float c[3] = {rng_rangef(&w->r, -0.2, 0.2), rng_rangef(&w->r, -0.2, 0.2), 0};
        OK(e, crowd_set(e, h, CROWD_FIELD_LOOK_CENTER, 0, c));
        if (rng_chance(&w->r, 0.3)) set1(e, h, CROWD_FIELD_LOOK_DAMPING, 0, rng_rangef(&w->r, 0, 0.5));
        set1(e, h, CROWD_FIELD_LOOK_WEIGHT, 0, rng_chance(&w->r, 0.5) ? 1.0f : rng_rangef(&w->r, 0, 1));
        set1(e, h, CROWD_FIELD_HARMONIC_WEIGHT, 0, rng_chance(&w->r, 0.5) ? 1.0f : rng_rangef(&w->r, 0, 1));
        set1(e, h, CROWD_FIELD_BLINK_WEIGHT, 0, rng_chance(&w->r, 0.5) ? 1.0f : rng_rangef(&w->r, 0, 1));
        set1(e, h, CROWD_FIELD_BLINK_MANUAL, 0, rng_chance(&w->r, 0.1) ? rng_rangef(&w->r, 0, 1) : -1.0f);
    }
}

void world_init(world *w, crowd_engine *e, uint32_t n, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->e = e;
    w->r.s = seed;
    w->split.s = seed ^ 0x5eed;
    w->out_hash = 1469598103934665603ull;
    world_rigs(w);
    for (int k = 0; k < 2; k++) {
        w->n[k] = n;
        w->h[k] = calloc(n, sizeof *w->h[k]);
        assert_non_null(w->h[k]);
        uint32_t half = n / 2;
        add_into(e, w->rig[k], half, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM, w->h[k]);
        add_into(e, w->rig[k], n - half, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO, w->h[k] + half);
        world_inputs(w, k, 1.0);
    }
}

void world_free(world *w) {
    for (int k = 0; k < 2; k++) free(w->h[k]);
    crowd_engine_destroy(w->e);
    memset(w, 0, sizeof *w);
}

float world_dt(world *w) {
    double u = rng_unit(&w->r);
    if (u < 0.65) return DT60;
    if (u < 0.75) return 0.0f;
    if (u < 0.80) return 1.0f;
    if (u < 0.85) return 0.5f;
    return rng_rangef(&w->r, 0, 0.1);
}

void world_step(world *w, int step, bool ranges) {
    crowd_engine *e = w->e;
    if (step % 10 == 0)
        for (int k = 0; k < 2; k++) world_inputs(w, k, 0.1);
    if (step % 17 == 0)
        for (int k = 0; k < 2; k++) {
            uint32_t first = rng_below(&w->r, w->n[k]), count = rng_below(&w->r, w->n[k] - first + 1);
            OK(e, crowd_blink_now(e, w->h[k] + first, count / 8));
        }
    float dt = world_dt(w);
    if (!ranges) {
        tick(e, dt);
    } else {
        static const uint32_t sizes[] = {1, 3, 7, 16, 33, 2, 64, 5, 17, 100, 8, 4, 15, 31, 250};
        const uint32_t nsizes = sizeof sizes / sizeof sizes[0];
        for (int k = 1; k >= 0; k--) { /* rigs in reverse order: rigs are independent */
            uint32_t n = crowd_rig_instance_count(e, w->rig[k]);
            for (uint32_t first = 0; first < n;) {
                uint32_t size = sizes[rng_below(&w->split, nsizes)];
                if (size > n - first) size = n - first;
                OK(e, crowd_tick_range(e, dt, w->rig[k], first, size));
                first += size;
            }
        }
    }
    /* every tick's outputs feed a running hash, so a transient difference is seen too */
    for (int k = 0; k < 2; k++)
        for (uint32_t p = 0; p < WORLD_P; p++) {
            float *col;
            uint32_t count;
            OK(e, crowd_rig_column(e, w->rig[k], CROWD_FIELD_OUTPUT, p, 0, &col, &count));
            for (uint32_t i = 0; i < count; i++) {
                if (!isfinite(col[i])) FAILF("step %d rig %d parameter %u row %u: output %g is not finite", step, k, p, i, (double)col[i]);
                w->out_hash = (w->out_hash ^ fbits(col[i])) * 1099511628211ull;
            }
        }
}

void world_snapshot(world *w, snapshot *s) {
    for (int k = 0; k < 2; k++) snap_rig(s, w->e, (uint32_t)k, w->h[k], w->n[k]);
}
