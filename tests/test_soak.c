/* test_soak.c — 10^6 ticks of a churning crowd: every tick adds and removes instances, pauses
 * and resumes some, and every 10,000 ticks the engine saves a snapshot and loads it into a
 * fresh engine that takes over. Nothing may fail, every output stays finite, and the memory the
 * engine holds stays flat: after the first 10^5 ticks it never exceeds the most it held by then
 * by more than the slot table's growth for retired slots (24 bytes per 65,535 reuses of one).
 *
 * Only when asked: ctest -L soak (tools/dev test leaves the label out). argv: TARGET [TICKS]. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static crowd_engine *engine(counting *t) {
    crowd_engine_desc d = {.seed = 2024, .simd = crowd_test_simd, .allocator = counting_allocator(t)};
    crowd_engine *e = NULL;
    if (crowd_engine_create(&d, &e) != CROWD_OK) FAILF("crowd_engine_create failed");
    return e;
}

static const crowd_parameter_desc params[] = {
    {"ParamAngleX", -30, 30, 0, false}, {"ParamBreath", 0, 1, 0, false}, {"ParamEyeLOpen", 0, 1, 1, false}};

static crowd_rig make_rig(crowd_engine *e) {
    crowd_look_parameter_desc lp = {"ParamAngleX", CROWD_AXIS_X, 30};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = &lp, look.parameter_count = 1;
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("ParamBreath");
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = &hp, harm.parameter_count = 1;
    const char *ids[] = {"ParamEyeLOpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = ids, blink.parameter_count = 1;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.smoothing = true;
    crowd_rig_desc rd = {.name = "soak", .parameters = params, .parameter_count = 3, .look = &look, .harmonic = &harm,
                         .blink = &blink, .limbs = &limbs};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

static rng draws = {0x9e3779b97f4a7c15ull};
static uint32_t rnd(uint32_t n) { return rng_below(&draws, n); }

static void test_soak(void **state) {
    long ticks = *(long *)*state;
    enum { POP = 256 };
    counting t = {.fail_at = -1};
    crowd_engine *e = engine(&t);
    crowd_rig rig = make_rig(e);
    crowd_add_desc ad = {.rig = rig, .count = POP};
    OK(e, crowd_instances_add(e, &ad, NULL));
    size_t settled = 0;
    long snapshots = 0;
    for (long k = 1; k <= ticks; k++) {
        const crowd_instance *h;
        uint32_t n;
        OK(e, crowd_rig_handles(e, rig, &h, &n));
        /* churn: remove two, add two, pause one, resume one, move a look target */
        crowd_instance gone[2] = {h[rnd(n)], h[rnd(n)]};
        OK(e, crowd_instances_remove(e, gone, gone[0].id == gone[1].id ? 1 : 2));
        ad.count = POP - crowd_rig_instance_count(e, rig);
        OK(e, crowd_instances_add(e, &ad, NULL));
        OK(e, crowd_rig_handles(e, rig, &h, &n));
        crowd_instance one = h[rnd(n)], other = h[rnd(n)];
        OK(e, crowd_instances_pause(e, &one, 1, true));
        OK(e, crowd_instances_pause(e, &other, 1, false));
        OK(e, crowd_set_look_target(e, h[rnd(n)], (float)rnd(200) - 100, 0, 1, true));
        OK(e, crowd_tick(e, 1.0f / 60.0f));
        if (k % 10000 == 0) { /* the state moves to a fresh engine through a snapshot */
            size_t size;
            OK(e, crowd_snapshot_size(e, &size));
            void *buf = malloc(size);
            assert_non_null(buf);
            OK(e, crowd_snapshot_save(e, buf, size, NULL));
            crowd_engine *f = engine(&t);
            OK(f, crowd_snapshot_load(f, buf, size));
            free(buf);
            crowd_engine_destroy(e);
            e = f;
            snapshots++;
            float *out;
            uint32_t count;
            for (uint32_t p = 0; p < 3; p++) {
                OK(e, crowd_rig_column(e, rig, CROWD_FIELD_OUTPUT, p, 0, &out, &count));
                for (uint32_t i = 0; i < count; i++)
                    if (!isfinite(out[i])) FAILF("tick %ld: output %u of row %u is %g", k, p, i, (double)out[i]);
            }
        }
        if (k == ticks / 10) settled = t.peak_bytes;
        /* after the first tenth: never above that peak, but for retired slots' growth */
        size_t allowance = (size_t)(2 * k / 65535 + 2) * 24 * 2 + 4096;
        if (settled && t.live_bytes > settled + allowance)
            FAILF("tick %ld: the engine holds %zu bytes, %zu more than its peak after %ld ticks", k, t.live_bytes, t.live_bytes - settled,
                  ticks / 10);
    }
    printf("%ld ticks, %ld snapshots, %ld allocations: %zu bytes live at the end, peak %zu (%zu after the first tenth)\n",
           ticks, snapshots, t.allocs, t.live_bytes, t.peak_bytes, settled);
    crowd_engine_destroy(e);
    if (t.live_bytes != 0 || t.live != 0 || t.bad_frees != 0)
        FAILF("%zu bytes in %ld blocks still live after destroy, %ld bad frees", t.live_bytes, t.live, t.bad_frees);
    counting_release(&t);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    static long ticks = 1000000;
    if (argc > 2) ticks = atol(argv[2]);
    const struct CMUnitTest tests[] = {cmocka_unit_test_prestate(test_soak, &ticks)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
