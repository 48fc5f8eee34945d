#include "engine_suite.h"
#include "internal.h"


enum { DET_N = 1000, DET_TICKS = 300 };

static void world_run(crowd_simd simd, bool ranges, snapshot *s, uint64_t *hash) {
    world w;
    world_init(&w, crowd_test_engine_on(77, simd), DET_N, 12345);
    for (int step = 0; step < DET_TICKS; step++) world_step(&w, step, ranges);
    world_snapshot(&w, s);
    *hash = w.out_hash;
    world_free(&w);
}

static void test_determinism(void **state) {
    (void)state;
    snapshot target = {0}, scalar = {0}, split = {0}, rerun = {0};
    uint64_t h_target, h_scalar, h_split, h_rerun;
    world_run(crowd_test_simd, false, &target, &h_target);
    world_run(CROWD_SIMD_SCALAR, false, &scalar, &h_scalar);
    world_run(crowd_test_simd, true, &split, &h_split);
    world_run(crowd_test_simd, false, &rerun, &h_rerun);
    snap_expect_equal(&target, &scalar, "target vs scalar");
    snap_expect_equal(&target, &split, "crowd_tick vs crowd_tick_range splits");
    snap_expect_equal(&target, &rerun, "run vs rerun");
    if (h_target != h_scalar) FAILF("per-tick output hash differs from scalar");
    if (h_target != h_split) FAILF("per-tick output hash differs with range splits");
    if (h_target != h_rerun) FAILF("per-tick output hash differs on rerun");
    snap_free(&target), snap_free(&scalar), snap_free(&split), snap_free(&rerun);
}

/* A rig whose columns pass 64 MiB (capacity reserved, few rows used) has crowd_tick build its
 * outputs in a scratch and stream them to the columns (crowdi_rig.scratch, x86): the same
 * bits as the plain rig, on one thread and on two (each its own part of the scratch), and as
 * crowd_tick_range, which writes in place. */
static void streamed_run(crowd_simd simd, uint32_t threads, bool streamed, snapshot *s, uint64_t *hash) {
    crowd_engine_desc desc = {.seed = 77, .simd = simd, .threads = threads};
    crowd_engine *e = NULL;
    if (crowd_engine_create(&desc, &e) != CROWD_OK) FAILF("crowd_engine_create with %u threads", threads);
    world w;
    world_init(&w, e, DET_N, 12345);
    for (int k = 0; k < 2 && streamed; k++) {
        const crowdi_rig *r = crowdi_rig_get(e, w.rig[k]);
        /* 64 MiB of columns, 4 bytes a row each */
        const uint32_t reserve = (uint32_t)((64u << 20) / (4u * r->column_count)) + 16;
        OK(e, crowd_reserve(e, w.rig[k], reserve));
        r = crowdi_rig_get(e, w.rig[k]);
#if defined(__x86_64__) || defined(__i386__)
        if (!r->scratch) FAILF("rig %d: %u rows reserved (%u columns) but no output scratch", k, reserve, r->column_count);
#else
        if (r->scratch) FAILF("rig %d: an output scratch where no streaming store exists", k);
#endif
    }
    for (int step = 0; step < DET_TICKS / 3; step++) world_step(&w, step, false);
    world_snapshot(&w, s);
    *hash = w.out_hash;
    world_free(&w);
}

static void test_streamed_outputs(void **state) {
    (void)state;
    snapshot plain = {0}, one = {0}, two = {0};
    uint64_t h_plain, h_one, h_two;
    streamed_run(crowd_test_simd, 1, false, &plain, &h_plain);
    streamed_run(crowd_test_simd, 1, true, &one, &h_one);
    streamed_run(crowd_test_simd, 2, true, &two, &h_two);
    snap_expect_equal(&plain, &one, "in place vs streamed outputs");
    snap_expect_equal(&plain, &two, "in place vs streamed outputs on two threads");
    if (h_plain != h_one || h_plain != h_two) FAILF("per-tick output hash differs with streamed outputs");
    snap_free(&plain), snap_free(&one), snap_free(&two);
}

/* ------------------------------------------------------------------------------------------
 * 3b. Settings nobody wrote are read once per rig (crowdi_rig.uniform): the same bits as
 *     columns read row by row
 * ---------------------------------------------------------------------------------------- */
/* The setting fields (the tick only reads them), with their component counts. */
static const struct { crowd_field f; uint32_t w; } setting_fields[] = {
    {CROWD_FIELD_LOOK_TARGET, 3}, {CROWD_FIELD_LOOK_ACTIVE, 1}, {CROWD_FIELD_LOOK_CENTER, 3},
    {CROWD_FIELD_LOOK_DAMPING, 1}, {CROWD_FIELD_LOOK_WEIGHT, 1}, {CROWD_FIELD_HARMONIC_WEIGHT, 1},
    {CROWD_FIELD_BLINK_MANUAL, 1}, {CROWD_FIELD_BLINK_WEIGHT, 1},
    {CROWD_FIELD_LOD_INTERVAL, 1}, {CROWD_FIELD_LOD_ELAPSED, 1}, /* the tick then takes the level of detail path */
};
enum { SETTING_FIELDS = sizeof setting_fields / sizeof setting_fields[0], UNI_N = 45 };

/* How many of the rig's columns the tick takes as one value. */
static uint32_t uniform_columns(const crowd_engine *e, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    uint32_t n = 0;
    for (uint32_t c = 0; c < r->column_count; c++) n += r->uniform[c];
    return n;
}

/* Hands every setting column of the rig out, so that the tick reads them all row by row. */
static void vary_all(crowd_engine *e, crowd_rig rig) {
    float *col;
    uint32_t count;
    for (uint32_t p = 0; p < WORLD_P; p++) OK(e, crowd_rig_column(e, rig, CROWD_FIELD_BASE, p, 0, &col, &count));
    for (int k = 0; k < SETTING_FIELDS; k++)
        for (uint32_t c = 0; c < setting_fields[k].w; c++)
            OK(e, crowd_rig_column(e, rig, setting_fields[k].f, 0, c, &col, &count));
}

static void uni_world(world *w, crowd_simd simd) {
    memset(w, 0, sizeof *w);
    w->e = crowd_test_engine_on(91, simd);
    w->r.s = 4242;
    world_rigs(w);
    for (int k = 0; k < 2; k++) {
        w->n[k] = UNI_N;
        w->h[k] = calloc(UNI_N, sizeof *w->h[k]);
        assert_non_null(w->h[k]);
        add_into(w->e, w->rig[k], 20, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM, w->h[k]);
        add_into(w->e, w->rig[k], UNI_N - 20, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO, w->h[k] + 20);
    }
}

static void uni_compare(world *a, world *b, const char *what) {
    snapshot sa = {0}, sb = {0};
    world_snapshot(a, &sa);
    world_snapshot(b, &sb);
    snap_expect_equal(&sa, &sb, what);
    snap_free(&sa), snap_free(&sb);
}

static void test_uniform_settings(void **state) {
    (void)state;
    world a, b; /* a: settings as the rig left them; b: the same values, every column handed out */
    uni_world(&a, crowd_test_simd);
    uni_world(&b, crowd_test_simd);
    const uint32_t settings = WORLD_P + 14; /* base values, then target 3, active, centre 3, damping,
                                               weight, harmonic weight, blink manual and weight, and
                                               level of detail's interval and elapsed time */
    for (int k = 0; k < 2; k++) {
        if (uniform_columns(a.e, a.rig[k]) != settings)
            FAILF("rig %d: %u columns read as one value at the start, want %u", k, uniform_columns(a.e, a.rig[k]), settings);
        vary_all(b.e, b.rig[k]);
        if (uniform_columns(b.e, b.rig[k]) != 0) FAILF("rig %d: a handed-out column is still read as one value", k);
    }
    for (int step = 0; step < 400; step++) {
        float dt = world_dt(&a);
        /* phase 2: writes of the value a column already holds keep it uniform; then one
         * instance gets other settings, which from then on the tick must read row by row */
        if (step == 150)
            for (int k = 0; k < 2; k++) {
                const crowd_instance h = a.h[k][7];
                set1(a.e, h, CROWD_FIELD_LOOK_WEIGHT, 0, 1.0f);
                set1(a.e, h, CROWD_FIELD_BLINK_MANUAL, 0, -1.0f);
                if (uniform_columns(a.e, a.rig[k]) != settings) FAILF("rig %d: writing the start value made a column vary", k);
            }
        if (step == 200)
            for (int k = 0; k < 2; k++)
                for (world *w = &a; w; w = w == &a ? &b : NULL) {
                    const crowd_instance h = w->h[k][7], h2 = w->h[k][UNI_N - 1];
                    set1(w->e, h, CROWD_FIELD_BASE, 1, 12.5f);
                    set1(w->e, h, CROWD_FIELD_LOOK_WEIGHT, 0, 0.25f);
                    set1(w->e, h2, CROWD_FIELD_BLINK_WEIGHT, 0, 0.5f);
                    set1(w->e, h2, CROWD_FIELD_HARMONIC_WEIGHT, 0, 0.75f);
                    OK(w->e, crowd_set_look_target(w->e, h, 1.0f, -0.5f, 2.0f, true));
                }
        /* a range that does not fit, written mid-run, is clamped and stored by the next tick
         * (NR is stored only where it changes): rig 0's entry 1 (HairFront on [-1, 1], left,
         * origin 0.6) takes the left-hand half range, entry 0 (Breath on [0, 1], centric,
         * origin 0.5) the range up to its bound */
        const bool range_step = step == 250;
        if (range_step)
            for (world *w = &a; w; w = w == &a ? &b : NULL) {
                set1(w->e, w->h[0][9], CROWD_FIELD_HARMONIC_RANGE, 1, 0.95f);
                set1(w->e, w->h[0][9], CROWD_FIELD_HARMONIC_RANGE, 0, 0.9f);
            }
        OK(a.e, crowd_tick(a.e, dt));
        OK(b.e, crowd_tick(b.e, dt));
        if (range_step) {
            const float min = -1.0f, VR = 2.0f, origin0 = min + 0.6f * VR, r2 = (origin0 - min) / 2.0f;
            EXPECT_BITS(get1(a.e, a.h[0][9], CROWD_FIELD_HARMONIC_RANGE, 1), (r2 * 2.0f) / VR, "left range written mid-run");
            EXPECT_BITS(get1(a.e, a.h[0][9], CROWD_FIELD_HARMONIC_RANGE, 0), (0.5f - 0.0f) / 1.0f, "centric range written mid-run");
        }
        if (step % 50 == 49 || step == 200) uni_compare(&a, &b, "uniform settings vs columns read row by row");
    }
    /* five written fields: base[1], look weight, blink weight, harmonic weight, and target 3 + active */
    for (int k = 0; k < 2; k++)
        if (uniform_columns(a.e, a.rig[k]) != settings - 8)
            FAILF("rig %d: %u uniform columns after the writes, want %u", k, uniform_columns(a.e, a.rig[k]), settings - 8);

    /* a snapshot keeps which columns are read as one value, and the run goes on the same */
    size_t size = 0;
    OK(a.e, crowd_snapshot_size(a.e, &size));
    void *blob = malloc(size);
    assert_non_null(blob);
    OK(a.e, crowd_snapshot_save(a.e, blob, size, &size));
    world c = a;
    c.e = crowd_test_engine_on(91, crowd_test_simd);
    OK(c.e, crowd_snapshot_load(c.e, blob, size));
    free(blob);
    for (int k = 0; k < 2; k++)
        if (uniform_columns(c.e, c.rig[k]) != uniform_columns(a.e, a.rig[k]))
            FAILF("rig %d: %u uniform columns after loading, %u before", k, uniform_columns(c.e, c.rig[k]),
                  uniform_columns(a.e, a.rig[k]));
    for (int step = 0; step < 60; step++) {
        OK(a.e, crowd_tick(a.e, DT60));
        OK(c.e, crowd_tick(c.e, DT60));
    }
    uni_compare(&a, &c, "loaded snapshot vs the run it was saved from");
    crowd_engine_destroy(c.e);
    world_free(&a);
    world_free(&b);
}

/* ------------------------------------------------------------------------------------------
 * 4. Allocation
 * ---------------------------------------------------------------------------------------- */
static crowd_engine *counting_engine(counting *c, crowd_result *res) {
    crowd_engine_desc d = {.seed = 77, .simd = crowd_test_simd,
                           .allocator = counting_allocator(c)};
    crowd_engine *e = NULL;
    *res = crowd_engine_create(&d, &e);
    return e;
}

static void test_tick_allocates_nothing(void **state) {
    (void)state;
    counting c = {.fail_at = -1};
    crowd_result res;
    crowd_engine *e = counting_engine(&c, &res);
    assert_int_equal(res, CROWD_OK);
    world w;
    world_init(&w, e, 200, 99);
    long allocs = c.allocs, frees = c.frees;
    assert_true(allocs > 0);
    for (int step = 0; step < 1000; step++) world_step(&w, step, step % 2 == 1);
    if (c.allocs != allocs || c.frees != frees)
        FAILF("1000 ticks made %ld allocations and %ld frees", c.allocs - allocs, c.frees - frees);
    world_free(&w);
    long live = c.live, bad = c.bad_frees;
    counting_release(&c);
    if (live != 0) FAILF("after crowd_engine_destroy %ld allocations are still live", live);
    if (bad != 0) FAILF("%ld frees of pointers the allocator never returned", bad);
}

/* Every allocation of a setup fails in turn: each call returns OK or OUT_OF_MEMORY, a failed
 * call changes nothing, and destroy frees everything. */
static void test_allocation_failures(void **state) {
    (void)state;
    char bad_points[512] = "";
    size_t bad_len = 0;
    int bad_count = 0;
    for (long fail_at = 0; fail_at < 10000; fail_at++) {
        counting c = {.fail_at = fail_at};
        crowd_result res;
        const char *stage = "crowd_engine_create";
        crowd_engine *e = counting_engine(&c, &res);
        bool failed = res != CROWD_OK;
        crowd_rig rig = {0};
        if (!failed) {
            crowd_parameter_desc p[2] = {{"A", 0, 1, 0, false}, {"B", -1, 1, 0, true}};
            crowd_look_parameter_desc lp = {"A", CROWD_AXIS_X, 1};
            crowd_look_desc look = crowd_look_defaults();
            look.parameters = &lp;
            look.parameter_count = 1;
            crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("B");
            crowd_harmonic_desc hd = crowd_harmonic_defaults();
            hd.parameters = &hp;
            hd.parameter_count = 1;
            const char *ids[] = {"A"};
            crowd_blink_desc bd = crowd_blink_defaults();
            bd.parameters = ids;
            bd.parameter_count = 1;
            crowd_rig_desc rd = {.name = "oom", .parameters = p, .parameter_count = 2, .look = &look, .harmonic = &hd, .blink = &bd};
            stage = "crowd_rig_create";
            res = crowd_rig_create(e, &rd, &rig);
            failed = res != CROWD_OK;
        }
        for (int batch = 0; !failed && batch < 4; batch++) {
            uint32_t before = crowd_rig_instance_count(e, rig);
            crowd_add_desc ad = {.rig = rig, .count = 40};
            stage = "crowd_instances_add";
            res = crowd_instances_add(e, &ad, NULL);
            failed = res != CROWD_OK;
            if (failed && crowd_rig_instance_count(e, rig) != before)
                FAILF("fail_at %ld: a failed crowd_instances_add changed the instance count", fail_at);
            if (!failed) OK(e, crowd_tick(e, DT60));
        }
        if (failed && res != CROWD_ERR_OUT_OF_MEMORY)
            FAILF("fail_at %ld: %s returned %s, want CROWD_ERR_OUT_OF_MEMORY", fail_at, stage, rname(res));
        crowd_engine_destroy(e);
        long live = c.live, bad = c.bad_frees;
        counting_release(&c);
        if (bad || live) {
            bad_count++;
            if (bad_len < sizeof bad_points - 80)
                bad_len += (size_t)snprintf(bad_points + bad_len, sizeof bad_points - bad_len,
                                            " [fail_at %ld in %s: %ld bad frees, %ld leaks]", fail_at, stage, bad, live);
        }
        if (!failed) break; /* the whole setup ran without meeting the failure: done */
    }
    if (bad_count)
        FAILF("%d allocation failure points mishandled (frees of pointers the allocator never returned, or leaks):%s",
              bad_count, bad_points);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest determinism[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_streamed_outputs),
        cmocka_unit_test(test_uniform_settings),
        cmocka_unit_test(test_tick_allocates_nothing),
        cmocka_unit_test(test_allocation_failures),
    };
    return CROWD_TEST_GROUP("determinism", determinism) ? 1 : 0;
}
