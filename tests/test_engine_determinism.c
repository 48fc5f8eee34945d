#include "engine_suite.h"


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
        cmocka_unit_test(test_tick_allocates_nothing),
        cmocka_unit_test(test_allocation_failures),
    };
    return CROWD_TEST_GROUP("determinism", determinism) ? 1 : 0;
}
