#include "embed_suite.h"


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

static void test_threads_and_targets(void **state) {
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

static void test_host_ranges(void **state) {
    (void)state;
    uint64_t ref[THREAD_TICKS];
    threads_run(CROWD_SIMD_SCALAR, 1, THREAD_TICKS, ref);
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 77, crowd_test_simd, 1);
    scene_populate(s);
    rng draws = {5};
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
            uint32_t a = rng_mod(&draws, rows + 1), b = rng_mod(&draws, rows + 1);
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

static void test_thread_limits(void **state) {
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
    counting c = {.fail_at = -1};
    crowd_engine_desc cd = {.seed = 3, .simd = crowd_test_simd, .threads = 3,
                            .allocator = counting_allocator(&c)};
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
    assert_int_equal(c.bad_frees, 0);
    counting_release(&c);
    free(s);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    /* argv[2], when given: run only the tests matching this pattern (e.g. "test_snapshot_*") */
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_and_targets),
        cmocka_unit_test(test_host_ranges),
        cmocka_unit_test(test_thread_limits),
    };
    return cmocka_run_group_tests_name("embed_threads", tests, NULL, NULL);
}
