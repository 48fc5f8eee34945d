#include "engine_suite.h"


/* crowd_engine_desc.first_instance_id: an engine holding instances 20 .. 49 of a crowd (a
 * shard) gives them the whole crowd's ids, so their creation draws, host draws and every tick
 * are the whole crowd's bit for bit; an id past 2^62 is refused. */
static void test_first_instance_id(void **state) {
    (void)state;
    enum { N = 50, FIRST = 20 };
    crowd_engine *whole = crowd_test_engine(41), *shard = NULL;
    crowd_engine_desc d = {.seed = 41, .simd = crowd_test_simd, .first_instance_id = FIRST};
    assert_int_equal(crowd_engine_create(&d, &shard), CROWD_OK);
    crowd_rig rw = blink_rig(whole, CROWD_BLINK_SINE, CROWD_BLEND_DEFAULT, 0);
    crowd_rig rs = blink_rig(shard, CROWD_BLINK_SINE, CROWD_BLEND_DEFAULT, 0);
    crowd_instance *hw = add_n(whole, rw, N, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    crowd_instance *hs = add_n(shard, rs, N - FIRST, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    for (uint32_t j = 0; j < N - FIRST; j++) {
        uint64_t id = 0;
        OK(shard, crowd_instance_info(shard, hs[j], &id, NULL, NULL));
        assert_int_equal(id, FIRST + j);
        float uw[2], us[2];
        OK(whole, crowd_instance_random(whole, hw[FIRST + j], 2, uw));
        OK(shard, crowd_instance_random(shard, hs[j], 2, us));
        for (int c = 0; c < 2; c++) EXPECT_BITS(us[c], uw[c], "instance %u host draw %d", FIRST + j, c);
    }
    for (int k = 1; k <= 300; k++) {
        tick(whole, DT60);
        tick(shard, DT60);
        for (uint32_t j = 0; j < N - FIRST; j++) {
            EXPECT_BITS(get1(shard, hs[j], CROWD_FIELD_OUTPUT, 0), get1(whole, hw[FIRST + j], CROWD_FIELD_OUTPUT, 0),
                        "tick %d instance %u output", k, FIRST + j);
            EXPECT_BITS(get1(shard, hs[j], CROWD_FIELD_BLINK_CLOCK, 0), get1(whole, hw[FIRST + j], CROWD_FIELD_BLINK_CLOCK, 0),
                        "tick %d instance %u blink clock", k, FIRST + j);
        }
    }
    free(hw);
    free(hs);
    crowd_engine_destroy(whole);
    crowd_engine_destroy(shard);
    crowd_engine *e = NULL;
    d.first_instance_id = (1ull << 62) + 1;
    assert_int_equal(crowd_engine_create(&d, &e), CROWD_ERR_RANGE);
}

/* ------------------------------------------------------------------------------------------
 * 6. Handles: removal keeps survivors bit-identical to a run without it
 * ---------------------------------------------------------------------------------------- */
static void test_handles_remove(void **state) {
    (void)state;
    enum { N = 100, TICKS1 = 20, TICKS2 = 80 };
    world a, b;
    world_init(&a, crowd_test_engine(33), N, 4242);
    world_init(&b, crowd_test_engine(33), N, 4242);
    for (int step = 0; step < TICKS1; step++) {
        world_step(&a, step, false);
        world_step(&b, step, false);
    }
    /* remove 30 of each rig's instances in b: the first, the last and random ones */
    rng pick = {999};
    bool removed[2][N] = {{false}};
    crowd_instance gone[2][30];
    for (int k = 0; k < 2; k++) {
        uint32_t n = 0;
        removed[k][0] = removed[k][N - 1] = true;
        gone[k][n++] = b.h[k][0];
        gone[k][n++] = b.h[k][N - 1];
        while (n < 30) {
            uint32_t i = rng_below(&pick, N);
            if (removed[k][i]) continue;
            removed[k][i] = true;
            gone[k][n++] = b.h[k][i];
        }
        OK(b.e, crowd_instances_remove(b.e, gone[k], 30));
        assert_int_equal(crowd_rig_instance_count(b.e, b.rig[k]), N - 30);
        for (uint32_t i = 0; i < 30; i++)
            assert_int_equal(crowd_instance_info(b.e, gone[k][i], NULL, NULL, NULL), CROWD_ERR_HANDLE);
    }
    /* survivors: compact the handle lists of both worlds to the same instances */
    for (int k = 0; k < 2; k++) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < N; i++)
            if (!removed[k][i]) a.h[k][m] = a.h[k][i], b.h[k][m] = b.h[k][i], m++;
        a.n[k] = b.n[k] = m;
        for (uint32_t i = 0; i < m; i++) {
            uint64_t ida, idb;
            OK(a.e, crowd_instance_info(a.e, a.h[k][i], &ida, NULL, NULL));
            OK(b.e, crowd_instance_info(b.e, b.h[k][i], &idb, NULL, NULL));
            assert_true(ida == idb);
        }
    }
    /* a's removed instances keep running in a, untouched by the inputs the survivors get */
    for (int step = TICKS1; step < TICKS1 + TICKS2; step++) {
        if (step == TICKS1 + 30) {
            /* b gains new instances, which reuse the freed slots: stale handles stay stale */
            crowd_instance fresh[40];
            add_into(b.e, b.rig[0], 40, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM, fresh);
            for (uint32_t i = 0; i < 30; i++)
                assert_int_equal(crowd_instance_info(b.e, gone[0][i], NULL, NULL, NULL), CROWD_ERR_HANDLE);
            OK(b.e, crowd_instances_remove(b.e, fresh + 10, 5));
        }
        world_step(&a, step, false);
        world_step(&b, step, step % 3 == 0);
    }
    /* rows and handles agree */
    for (int k = 0; k < 2; k++) {
        const crowd_instance *hs;
        uint32_t n;
        OK(b.e, crowd_rig_handles(b.e, b.rig[k], &hs, &n));
        for (uint32_t row = 0; row < n; row++) {
            uint32_t r;
            crowd_rig rr;
            OK(b.e, crowd_instance_info(b.e, hs[row], NULL, &rr, &r));
            assert_int_equal(r, row);
            assert_int_equal(rr.id, b.rig[k].id);
        }
    }
    snapshot sa = {0}, sb = {0};
    world_snapshot(&a, &sa);
    world_snapshot(&b, &sb);
    snap_expect_equal(&sa, &sb, "survivors with removals vs without");
    snap_free(&sa), snap_free(&sb);
    world_free(&a);
    world_free(&b);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest handles[] = {
        cmocka_unit_test(test_handles_remove),
        cmocka_unit_test(test_first_instance_id),
    };
    return CROWD_TEST_GROUP("handles", handles) ? 1 : 0;
}
