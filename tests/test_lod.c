/* Level of detail (crowd.h 8a): per-instance update intervals.
 *   determinism   intervals changing mid-run: the same bytes as scalar, as range splits, as two
 *                 threads and after a snapshot taken between updates
 *   rate          an instance at interval k after its updates holds bit for bit what the same
 *                 instance holds when ticked once per update with the elapsed time (k*dt
 *                 exactly for a dyadic dt)
 *   interval one  every instance at interval 1 through the level of detail path: the bytes of
 *                 the plain tick
 *   bad values    intervals 3, 0, 16, NaN, an elapsed time out of range and bad rig settings are
 *                 refused with the field named, nothing changed */
#include "engine_suite.h"
#include "internal.h"

static const float INTERVALS[4] = {1.0f, 2.0f, 4.0f, 8.0f};

/* A third rig: parameters every tick (blink, harmonic, look), limbs at the instance's interval. */
static crowd_rig limbs_rig(crowd_engine *e) {
    static const crowd_look_parameter_desc lp[] = {{"ParamAngleX", CROWD_AXIS_X, 30}, {"ParamAngleY", CROWD_AXIS_Y, 30}};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = lp;
    look.parameter_count = 2;
    crowd_harmonic_parameter_desc hp[1] = {{"ParamBreath", 0, CROWD_DIRECTION_CENTRIC, 0.5f, 0.5f, 3.2f}};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = 1;
    const char *blink_ids[] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = blink_ids;
    blink.parameter_count = 2;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    crowd_rig_desc rd = {.name = "limbs-slow", .parameters = world_params, .parameter_count = WORLD_P,
                         .look = &look, .harmonic = &harm, .blink = &blink, .limbs = &limbs,
                         .lod_interval = CROWD_LOD_INTERVAL_4,
                         .lod_every_tick = 1u << CROWD_CONTROLLER_LOOK | 1u << CROWD_CONTROLLER_HARMONIC |
                                           1u << CROWD_CONTROLLER_BLINK};
    return make_rig(e, &rd);
}

/* Random landmarks (visibility anywhere in [0, 1], so bones drop and come back) and targets. */
static void limbs_inputs(crowd_engine *e, rng *r, const crowd_instance *h, uint32_t n, double pick) {
    for (uint32_t i = 0; i < n; i++) {
        if (!rng_chance(r, pick)) continue;
        float pose[4 * CROWD_LANDMARK_COUNT];
        for (uint32_t k = 0; k < CROWD_LANDMARK_COUNT; k++) {
            for (uint32_t c = 0; c < 3; c++) pose[4 * k + c] = rng_rangef(r, -1, 1);
            pose[4 * k + 3] = rng_chance(r, 0.8) ? 1.0f : rng_rangef(r, 0, 1);
        }
        OK(e, crowd_set(e, h[i], CROWD_FIELD_POSE, 0, pose));
        OK(e, crowd_set_look_target(e, h[i], rng_rangef(r, -2, 2), rng_rangef(r, -2, 2), 1, true));
    }
}

/* New intervals for a fraction of the instances (the rng of the intervals alone). */
static void lod_inputs(crowd_engine *e, rng *r, const crowd_instance *h, uint32_t n, double pick) {
    for (uint32_t i = 0; i < n; i++)
        if (rng_chance(r, pick)) set1(e, h[i], CROWD_FIELD_LOD_INTERVAL, 0, INTERVALS[rng_below(r, 4)]);
}

enum { LOD_N = 300, LOD_TICKS = 240, LOD_SAVE_AT = 101 };

typedef struct lod_world {
    world w;
    crowd_rig rig3;
    crowd_instance h3[LOD_N];
    rng lod;
} lod_world;

/* An engine whose next instance ids start at `first_id` (a rig of that many bare instances
 * first): the worlds' ids then span several phases (crowdi_lod_phase: 512 ids a phase). */
static crowd_engine *padded(crowd_engine *e, uint32_t first_id) {
    crowd_rig_desc bare = crowd_rig_defaults();
    crowd_rig pad;
    OK(e, crowd_rig_create(e, &bare, &pad));
    crowd_add_desc add = crowd_add_defaults(pad, first_id);
    OK(e, crowd_instances_add(e, &add, NULL));
    return e;
}

static crowd_engine *engine_with(crowd_simd simd, uint32_t threads) {
    crowd_engine_desc desc = {.seed = 33, .simd = simd, .threads = threads};
    crowd_engine *e = NULL;
    OK(NULL, crowd_engine_create(&desc, &e));
    return padded(e, 3500);
}

static void lod_init(lod_world *l, crowd_engine *e) {
    world_init(&l->w, e, LOD_N, 777);
    l->rig3 = limbs_rig(e);
    add_into(e, l->rig3, LOD_N, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM, l->h3);
    l->lod.s = 99;
    limbs_inputs(e, &l->lod, l->h3, LOD_N, 1.0);
    for (int k = 0; k < 2; k++) lod_inputs(e, &l->lod, l->w.h[k], LOD_N, 0.8);
    lod_inputs(e, &l->lod, l->h3, LOD_N, 0.5);
}

/* One step: world_step's inputs and dt, intervals changing every 13 steps and new landmarks
 * every 7, then a tick of all three rigs (whole, or each in ranges of random sizes). */
static void lod_step(lod_world *l, int step, bool ranges) {
    world *w = &l->w;
    crowd_engine *e = w->e;
    if (step % 13 == 5) {
        for (int k = 0; k < 2; k++) lod_inputs(e, &l->lod, w->h[k], LOD_N, 0.2);
        lod_inputs(e, &l->lod, l->h3, LOD_N, 0.2);
    }
    if (step % 7 == 3) limbs_inputs(e, &l->lod, l->h3, LOD_N, 0.3);
    if (step % 10 == 0)
        for (int k = 0; k < 2; k++) world_inputs(w, k, 0.1);
    if (step % 17 == 0)
        for (int k = 0; k < 2; k++) {
            uint32_t first = rng_below(&w->r, w->n[k]), count = rng_below(&w->r, w->n[k] - first + 1);
            OK(e, crowd_blink_now(e, w->h[k] + first, count / 8));
        }
    const float dt = world_dt(w);
    if (!ranges) {
        tick(e, dt);
    } else {
        const crowd_rig rigs[3] = {l->rig3, w->rig[1], w->rig[0]};
        for (int k = 0; k < 3; k++)
            for (uint32_t first = 0; first < LOD_N;) {
                uint32_t size = 1 + rng_below(&w->split, 40);
                if (size > LOD_N - first) size = LOD_N - first;
                OK(e, crowd_tick_range(e, dt, rigs[k], first, size));
                first += size;
            }
    }
    const crowd_rig rigs[3] = {w->rig[0], w->rig[1], l->rig3};
    for (int k = 0; k < 3; k++)
        for (uint32_t p = 0; p < WORLD_P; p++) {
            float *col;
            uint32_t count;
            OK(e, crowd_rig_column(e, rigs[k], CROWD_FIELD_OUTPUT, p, 0, &col, &count));
            for (uint32_t i = 0; i < count; i++) w->out_hash = (w->out_hash ^ fbits(col[i])) * 1099511628211ull;
        }
}

static void lod_snapshot(lod_world *l, snapshot *s) {
    world_snapshot(&l->w, s);
    snap_rig(s, l->w.e, 2, l->h3, LOD_N);
}

static void lod_free(lod_world *l) { world_free(&l->w); }

/* Moves a world into a fresh engine through a snapshot (the handles stay valid there). */
static void lod_reload(lod_world *l, crowd_simd simd) {
    size_t size;
    OK(l->w.e, crowd_snapshot_size(l->w.e, &size));
    void *bytes = malloc(size);
    assert_non_null(bytes);
    OK(l->w.e, crowd_snapshot_save(l->w.e, bytes, size, &size));
    crowd_engine *e = engine_with(simd, 1);
    OK(e, crowd_snapshot_load(e, bytes, size));
    free(bytes);
    crowd_engine_destroy(l->w.e);
    l->w.e = e;
}

typedef enum { PLAIN, RANGES, THREADS, RELOAD } lod_way;

static void lod_run(crowd_simd simd, lod_way way, snapshot *s, uint64_t *hash, uint32_t *between) {
    lod_world l;
    lod_init(&l, engine_with(simd, way == THREADS ? 2 : 1));
    for (int step = 0; step < LOD_TICKS; step++) {
        if (way == RELOAD && step == LOD_SAVE_AT) {
            /* the snapshot is taken between updates: some instances hold elapsed time */
            uint32_t held = 0;
            for (uint32_t i = 0; i < LOD_N; i++) held += get1(l.w.e, l.h3[i], CROWD_FIELD_LOD_ELAPSED, 0) > 0;
            if (between) *between = held;
            lod_reload(&l, simd);
        }
        lod_step(&l, step, way == RANGES);
    }
    lod_snapshot(&l, s);
    *hash = l.w.out_hash;
    lod_free(&l);
}

static void test_lod_determinism(void **state) {
    (void)state;
    snapshot base = {0}, other = {0};
    uint64_t h_base, h_other;
    uint32_t between = 0;
    lod_run(crowd_test_simd, PLAIN, &base, &h_base, NULL);
    static const struct { crowd_simd simd; lod_way way; const char *what; } runs[] = {
        {CROWD_SIMD_SCALAR, PLAIN, "target vs scalar"},
        {CROWD_SIMD_AUTO, RANGES, "crowd_tick vs crowd_tick_range splits"},
        {CROWD_SIMD_AUTO, THREADS, "one thread vs two"},
        {CROWD_SIMD_AUTO, RELOAD, "a run vs one through a snapshot taken between updates"},
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        lod_run(runs[k].simd == CROWD_SIMD_AUTO ? crowd_test_simd : runs[k].simd, runs[k].way, &other, &h_other,
                &between);
        snap_expect_equal(&base, &other, runs[k].what);
        if (h_base != h_other) FAILF("%s: the per-tick output hash differs", runs[k].what);
        snap_free(&other);
    }
    if (between == 0) FAILF("the snapshot was not taken between updates (no instance held elapsed time)");
    /* the run did exercise level of detail: outputs of interval-8 instances hold between updates */
    snap_free(&base);
}

/* ---- rate: k*n ticks at interval k == n ticks of the elapsed time ---- */
enum { RATE_N = 64 };

/* Two engines with the world's rigs and the same inputs: `slow` at interval k, `ref` at 1
 * ticked row by row with the elapsed time on the slow instance's update ticks, by the
 * documented schedule (the phase of the id, counter + 1 a tick, update when counter % k == 0). */
static void rate_case(float k, bool dyadic) {
    world slow, ref;
    world_init(&slow, padded(crowd_test_engine(5), 480), RATE_N, 4242); /* ids 480..607: phases 0 and 1 */
    world_init(&ref, padded(crowd_test_engine(5), 480), RATE_N, 4242);
    uint32_t counter[2][RATE_N];
    float elapsed[2][RATE_N] = {{0}};
    uint32_t since[2][RATE_N] = {{0}}; /* ticks since the last update */
    for (int r = 0; r < 2; r++)
        for (uint32_t i = 0; i < RATE_N; i++) {
            set1(slow.e, slow.h[r][i], CROWD_FIELD_LOD_INTERVAL, 0, k);
            uint64_t id;
            uint32_t row;
            OK(ref.e, crowd_instance_info(ref.e, ref.h[r][i], &id, NULL, &row));
            if (row != i) FAILF("rows follow the order of adding");
            counter[r][i] = crowdi_lod_phase(id);
        }
    const uint32_t mask = (uint32_t)k - 1;
    uint32_t updates = 0;
    for (int step = 0; step < 8 * 30; step++) {
        if (step % 10 == 0)
            for (int r = 0; r < 2; r++) { /* the same inputs into both */
                rng a = slow.r;
                world_inputs(&slow, r, 0.1);
                ref.r = a;
                world_inputs(&ref, r, 0.1);
            }
        /* varied: 1/60, 0 and others up to 0.1 s, so that 8 of them stay a dt the tick accepts */
        const double u = rng_unit(&slow.r);
        const float dt = dyadic ? 1.0f / 64.0f : u < 0.6 ? DT60 : u < 0.7 ? 0.0f : rng_rangef(&slow.r, 0, 0.1);
        tick(slow.e, dt);
        for (int r = 0; r < 2; r++)
            for (uint32_t i = 0; i < RATE_N; i++) {
                counter[r][i] += mask != 0;
                elapsed[r][i] += dt;
                since[r][i]++;
                if ((counter[r][i] & mask) == 0) {
                    if (dyadic && since[r][i] == (uint32_t)k && elapsed[r][i] != k * dt)
                        FAILF("dyadic dt: elapsed %.9g is not k*dt %.9g", (double)elapsed[r][i], (double)(k * dt));
                    OK(ref.e, crowd_tick_range(ref.e, elapsed[r][i], ref.rig[r], i, 1));
                    elapsed[r][i] = 0;
                    since[r][i] = 0;
                    updates++;
                }
            }
        if (step % 8 == 7) { /* compare, with the bookkeeping fields copied over */
            snapshot a = {0}, b = {0};
            for (int r = 0; r < 2; r++)
                for (uint32_t i = 0; i < RATE_N; i++) {
                    set1(ref.e, ref.h[r][i], CROWD_FIELD_LOD_INTERVAL, 0, k);
                    set1(ref.e, ref.h[r][i], CROWD_FIELD_LOD_ELAPSED, 0, elapsed[r][i]);
                }
            world_snapshot(&slow, &a);
            world_snapshot(&ref, &b);
            char what[96];
            snprintf(what, sizeof what, "interval %g after %d ticks (%s dt)", (double)k, step + 1, dyadic ? "1/64" : "varied");
            snap_expect_equal(&a, &b, what);
            snap_free(&a), snap_free(&b);
            for (int r = 0; r < 2; r++) /* ref ticks at interval 1 again (its rows by hand) */
                for (uint32_t i = 0; i < RATE_N; i++) {
                    set1(ref.e, ref.h[r][i], CROWD_FIELD_LOD_INTERVAL, 0, 1.0f);
                    set1(ref.e, ref.h[r][i], CROWD_FIELD_LOD_ELAPSED, 0, 0.0f);
                }
        }
    }
    if (updates != (uint32_t)(2 * RATE_N * 8 * 30 / (uint32_t)k)) FAILF("%u updates at interval %g", updates, (double)k);
    world_free(&slow), world_free(&ref);
}

static void test_lod_rate(void **state) {
    (void)state;
    for (int dyadic = 0; dyadic < 2; dyadic++)
        for (int k = 1; k < 4; k++) rate_case(INTERVALS[k], dyadic);
}

/* ---- outputs hold between update ticks, and change on them ---- */
static void test_lod_holds(void **state) {
    (void)state;
    lod_world l;
    lod_init(&l, crowd_test_engine(11));
    crowd_instance a = l.w.h[0][5], b = l.h3[7];
    set1(l.w.e, a, CROWD_FIELD_LOD_INTERVAL, 0, 8.0f);
    set1(l.w.e, b, CROWD_FIELD_LOD_INTERVAL, 0, 4.0f);
    float prev_out[WORLD_P], prev_bone[4] = {0}, prev_param3[WORLD_P];
    uint32_t updates_a = 0, changes_a = 0, updates_b = 0, every_tick_changes = 0;
    for (int step = 0; step < 64; step++) {
        world_inputs(&l.w, 0, 0.5); /* new inputs every tick, dt never 0: elapsed 0 marks an update */
        limbs_inputs(l.w.e, &l.lod, l.h3, LOD_N, 0.5);
        tick(l.w.e, DT60);
        float out[WORLD_P], bone[4], param3[WORLD_P];
        OK(l.w.e, crowd_get_outputs(l.w.e, a, out, WORLD_P));
        OK(l.w.e, crowd_get_outputs(l.w.e, b, param3, WORLD_P));
        OK(l.w.e, crowd_get(l.w.e, b, CROWD_FIELD_BONE_LOCAL, CROWD_BONE_LEFT_UPPER_ARM, bone));
        const bool update_a = get1(l.w.e, a, CROWD_FIELD_LOD_ELAPSED, 0) == 0.0f;
        const bool update_b = get1(l.w.e, b, CROWD_FIELD_LOD_ELAPSED, 0) == 0.0f;
        if (step > 0) {
            const bool changed_a = memcmp(out, prev_out, sizeof out) != 0;
            const bool changed_bone = memcmp(bone, prev_bone, sizeof bone) != 0;
            if (changed_a && !update_a) FAILF("step %d: an interval-8 instance's outputs changed between updates", step);
            if (changed_bone && !update_b) FAILF("step %d: an interval-4 instance's bone changed between updates", step);
            changes_a += changed_a;
            every_tick_changes += memcmp(param3, prev_param3, sizeof param3) != 0;
        }
        updates_a += update_a, updates_b += update_b;
        memcpy(prev_out, out, sizeof out), memcpy(prev_bone, bone, sizeof bone), memcpy(prev_param3, param3, sizeof param3);
    }
    if (updates_a != 8 || updates_b != 16) FAILF("%u and %u updates in 64 ticks at intervals 8 and 4", updates_a, updates_b);
    if (changes_a < 4) FAILF("the interval-8 instance's outputs changed on only %u of its updates", changes_a);
    /* its parameters run every tick (the rig's lod_every_tick): they move between the bone's updates */
    if (every_tick_changes < 40) FAILF("every-tick parameters changed on only %u of 63 ticks", every_tick_changes);
    lod_free(&l);
}

/* ---- interval 1 through the level of detail path: the plain tick's bytes ---- */
static void test_lod_interval_one(void **state) {
    (void)state;
    world plain, lod;
    world_init(&plain, crowd_test_engine(7), 200, 31);
    world_init(&lod, crowd_test_engine(7), 200, 31);
    for (int r = 0; r < 2; r++) { /* handing the column out makes the tick read it row by row */
        float *col;
        uint32_t count;
        OK(lod.e, crowd_rig_column(lod.e, lod.rig[r], CROWD_FIELD_LOD_INTERVAL, 0, 0, &col, &count));
        for (uint32_t i = 0; i < count; i++) col[i] = 1.0f;
    }
    for (int step = 0; step < 150; step++) {
        world_step(&plain, step, false);
        world_step(&lod, step, step % 2 == 1);
    }
    snapshot a = {0}, b = {0};
    world_snapshot(&plain, &a);
    world_snapshot(&lod, &b);
    snap_expect_equal(&a, &b, "interval 1 by the level of detail path vs the plain tick");
    if (plain.out_hash != lod.out_hash) FAILF("per-tick output hash differs");
    snap_free(&a), snap_free(&b);
    world_free(&plain), world_free(&lod);
}

/* ---- bad values ---- */
static void expect_refused(crowd_engine *e, crowd_result got, crowd_result want, const char *field, const char *what) {
    if (got != want) FAILF("%s: %s, want %s", what, rname(got), rname(want));
    if (!strstr(crowd_last_error(e), field)) FAILF("%s: the message \"%s\" does not name %s", what, crowd_last_error(e), field);
}

static void test_lod_bad_values(void **state) {
    (void)state;
    world w;
    world_init(&w, crowd_test_engine(3), 20, 5);
    crowd_instance h = w.h[0][3];
    set1(w.e, h, CROWD_FIELD_LOD_INTERVAL, 0, 4.0f);
    static const float bad[] = {3.0f, 0.0f, 16.0f, -1.0f, 1.5f};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char what[48];
        snprintf(what, sizeof what, "interval %g", (double)bad[k]);
        expect_refused(w.e, crowd_set(w.e, h, CROWD_FIELD_LOD_INTERVAL, 0, &bad[k]), CROWD_ERR_RANGE, "lod_interval", what);
        if (get1(w.e, h, CROWD_FIELD_LOD_INTERVAL, 0) != 4.0f) FAILF("%s changed the stored interval", what);
    }
    const float nan = NAN, too_long = 17.0f, negative = -0.5f;
    expect_refused(w.e, crowd_set(w.e, h, CROWD_FIELD_LOD_INTERVAL, 0, &nan), CROWD_ERR_NOT_FINITE, "lod_interval", "NaN");
    expect_refused(w.e, crowd_set(w.e, h, CROWD_FIELD_LOD_ELAPSED, 0, &too_long), CROWD_ERR_RANGE, "lod_elapsed", "17 s");
    expect_refused(w.e, crowd_set(w.e, h, CROWD_FIELD_LOD_ELAPSED, 0, &negative), CROWD_ERR_RANGE, "lod_elapsed", "-0.5 s");

    /* rig settings: an interval beyond the enum, bits beyond the controllers, parameter
     * controllers split between every tick and the interval */
    const char *blink_ids[] = {"ParamEyeLOpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = blink_ids;
    blink.parameter_count = 1;
    crowd_harmonic_parameter_desc hp[1] = {{"ParamBreath", 0, CROWD_DIRECTION_CENTRIC, 0.5f, 0.5f, 3.2f}};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = 1;
    crowd_rig_desc rd = {.name = "bad", .parameters = world_params, .parameter_count = WORLD_P, .blink = &blink,
                         .harmonic = &harm};
    crowd_rig rig;
    rd.lod_interval = CROWD_LOD_INTERVAL_COUNT;
    expect_refused(w.e, crowd_rig_create(w.e, &rd, &rig), CROWD_ERR_BAD_ENUM, "desc->lod_interval", "lod_interval 4");
    rd.lod_interval = CROWD_LOD_INTERVAL_8;
    rd.lod_every_tick = 1ull << 40;
    expect_refused(w.e, crowd_rig_create(w.e, &rd, &rig), CROWD_ERR_RANGE, "desc->lod_every_tick", "bit 40");
    rd.lod_every_tick = 1u << CROWD_CONTROLLER_BLINK;
    expect_refused(w.e, crowd_rig_create(w.e, &rd, &rig), CROWD_ERR_RANGE, "desc->lod_every_tick", "blink without harmonic");
    /* and a good one: blink and harmonic both every tick; new instances start at interval 8 */
    rd.lod_every_tick = 1u << CROWD_CONTROLLER_BLINK | 1u << CROWD_CONTROLLER_HARMONIC;
    OK(w.e, crowd_rig_create(w.e, &rd, &rig));
    crowd_instance added;
    add_into(w.e, rig, 1, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO, &added);
    if (get1(w.e, added, CROWD_FIELD_LOD_INTERVAL, 0) != 8.0f) FAILF("a new instance does not start at the rig's interval");
    world_free(&w);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest lod[] = {
        cmocka_unit_test(test_lod_determinism),
        cmocka_unit_test(test_lod_rate),
        cmocka_unit_test(test_lod_holds),
        cmocka_unit_test(test_lod_interval_one),
        cmocka_unit_test(test_lod_bad_values),
    };
    return CROWD_TEST_GROUP("lod", lod) ? 1 : 0;
}
