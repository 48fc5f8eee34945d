/* test_harden.c — the engine's resource and misuse limits (SPEC §6, its last paragraph), on the
 * SIMD target named by argv[1]. Target-independent checks run on the scalar target only.
 *
 *   test_snapshot_load_oom      every allocation of crowd_snapshot_load fails in turn, over blobs that
 *                               take every load path: CROWD_ERR_OUT_OF_MEMORY each time (never
 *                               BAD_SNAPSHOT), the engine unchanged, nothing leaked or freed twice
 *   test_thread_failure         a pool thread the system refuses is CROWD_ERR_THREAD, not memory
 *   test_generation_retire      70,000 add/remove cycles of one slot: every handle distinct, every
 *                               removed one rejected, and the state still saves and loads
 *   test_foreign_tags           5,000 live engines: no engine accepts another's rig or instance
 *   test_shared_tag             an engine that loaded a snapshot keeps its tag while the saver's
 *                               other engines come and go (65,600 of them)
 *   test_concurrent_range_errors failing crowd_tick_range calls on 4 threads (run under TSan too)
 *   test_entry_limits           65,536 parameters and 65,536 entries per controller are created
 *                               (checked by hashing), one more is CROWD_ERR_CAPACITY, a duplicate or
 *                               unknown id at the far end is found
 *   test_bytes_per_instance     crowd_rig_bytes_per_instance against the bytes the allocator hands out
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "internal.h"

static const float DT = 1.0f / 60.0f;

static bool scalar_only(void) {
    if (crowd_test_simd == CROWD_SIMD_SCALAR) return true;
    printf("(target-independent: checked on the scalar target)\n");
    return false;
}

/* ---- the shared counting allocator (test_support.h): counts, fails the Nth allocation ---- */
static crowd_engine *tracked_engine(counting *t) {
    crowd_engine_desc d = {.seed = 5, .simd = crowd_test_simd, .allocator = counting_allocator(t)};
    crowd_engine *e = NULL;
    crowd_result res = crowd_engine_create(&d, &e);
    if (res != CROWD_OK) FAILF("crowd_engine_create -> %s", rname(res));
    return e;
}

typedef struct blob { unsigned char *p; size_t n; } blob;

static blob save(const crowd_engine *e) {
    blob b = {0};
    OK(e, crowd_snapshot_size(e, &b.n));
    b.p = malloc(b.n);
    assert_non_null(b.p);
    OK(e, crowd_snapshot_save(e, b.p, b.n, NULL));
    return b;
}

/* ---- engines whose snapshots take every load path ---- */
static const crowd_parameter_desc params[] = {
    {"A", -1, 1, 0, false}, {"B", 0, 1, 1, false}, {"C", -180, 180, 0, true}, {"D", 0, 10, 5, false}};

static crowd_rig full_rig(crowd_engine *e, const char *name) {
    crowd_look_parameter_desc lp[2] = {{"A", CROWD_AXIS_X, 1}, {"C", CROWD_AXIS_Y, 30}};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = lp;
    look.parameter_count = 2;
    crowd_harmonic_parameter_desc hp[2] = {crowd_harmonic_parameter_defaults("D"), crowd_harmonic_parameter_defaults("C")};
    hp[1].channel = 1;
    hp[1].direction = CROWD_DIRECTION_LEFT;
    const float ts[2] = {1.0f, 0.5f};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = 2;
    harm.channel_timescales = ts;
    harm.channel_count = 2;
    const char *blink_ids[] = {"B"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = blink_ids;
    blink.parameter_count = 1;
    crowd_rig_desc rd = {.name = name, .parameters = params, .parameter_count = 4, .look = &look, .harmonic = &harm,
                         .blink = &blink};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

static crowd_rig limbs_rig(crowd_engine *e, bool custom) {
    crowd_quat fix[CROWD_BONE_COUNT];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) fix[b] = (crowd_quat){0, 0, 0, 1};
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    if (custom) {
        limbs.axis_fix = CROWD_AXIS_FIX_CUSTOM;
        limbs.custom_fix = fix;
        limbs.smoothing = true;
        limbs.fallback = CROWD_FALLBACK_PREVIOUS;
    }
    crowd_rig_desc rd = {.name = custom ? "limbs custom" : "limbs", .parameters = params, .parameter_count = 1,
                         .limbs = &limbs};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

/* calibrated from a made-up bind pose (distinct points, no straight limb) */
static crowd_rig calibrated_rig(crowd_engine *e) {
    static float bind[4 * CROWD_LANDMARK_COUNT];
    for (int k = 0; k < CROWD_LANDMARK_COUNT; k++) {
        bind[4 * k] = 0.3f * sinf(1.7f * (float)k + 0.3f);
        bind[4 * k + 1] = 0.5f * cosf(1.1f * (float)k);
        bind[4 * k + 2] = 0.05f * (float)k;
        bind[4 * k + 3] = 1.0f;
    }
    crowd_quat rot[CROWD_BONE_COUNT];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) rot[b] = b % 2 ? (crowd_quat){0, 0, 0, 1} : (crowd_quat){0, 0.6f, 0, 0.8f};
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.frame = CROWD_FRAME_ENGINE;
    limbs.axis_fix = CROWD_AXIS_FIX_CALIBRATED;
    limbs.bind_landmarks = bind;
    limbs.bind_rotations = rot;
    crowd_rig_desc rd = {.name = "calibrated", .parameters = params, .parameter_count = 2, .limbs = &limbs};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

static void add(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_instance *out) {
    crowd_add_desc ad = {.rig = rig, .count = n, .harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM};
    OK(e, crowd_instances_add(e, &ad, out));
}

/* blob k of the set: 0 every controller, paused rows and free slots (the id bitmap check),
 * 1 limbs with a custom fix, smoothing and the previous-side fallback, calibrated limbs and a
 * bare rig, 2 ids
 * spread thin by churn (the sorted id check) with retired slots, 3 an empty engine */
static blob make_blob(int k) {
    crowd_engine *e = crowd_test_engine(11 + (uint64_t)k);
    crowd_instance h[64];
    if (k == 0) {
        crowd_rig a = full_rig(e, "full"), b = full_rig(e, "second");
        add(e, a, 40, h);
        add(e, b, 8, h + 40);
        OK(e, crowd_instances_pause(e, h + 3, 5, true));
        OK(e, crowd_instances_remove(e, h + 10, 4));
    } else if (k == 1) {
        crowd_rig a = limbs_rig(e, true), b = limbs_rig(e, false), d = calibrated_rig(e);
        crowd_rig_desc bare = {.name = "bare"};
        crowd_rig c;
        OK(e, crowd_rig_create(e, &bare, &c));
        add(e, a, 20, h);
        add(e, b, 4, h);
        add(e, c, 3, h);
        add(e, d, 5, h);
    } else if (k == 2) {
        crowd_rig a = full_rig(e, "churn");
        add(e, a, 4, h);
        for (int cycle = 0; cycle < 66000; cycle++) { /* one slot retires; ids spread thin */
            crowd_instance x;
            add(e, a, 1, &x);
            OK(e, crowd_instances_remove(e, &x, 1));
        }
    }
    for (int t = 0; t < 3; t++) OK(e, crowd_tick(e, DT));
    blob b = save(e);
    crowd_engine_destroy(e);
    return b;
}

static void test_snapshot_load_oom(void **state) {
    (void)state;
    if (!scalar_only()) return;
    long runs = 0;
    for (int k = 0; k < 4; k++) {
        blob b = make_blob(k);
        bool loaded = false;
        for (long n = 0; !loaded && n < 100000; n++) {
            counting t = {.fail_at = -1};
            crowd_engine *e = tracked_engine(&t);
            crowd_rig own = full_rig(e, "own");
            crowd_instance mine[3];
            add(e, own, 3, mine);
            blob before = save(e);
            long live = t.live;
            t.fail_at = t.allocs + n; /* the load's allocation number n fails */
            crowd_result res = crowd_snapshot_load(e, b.p, b.n);
            t.fail_at = -1;
            runs++;
            if (res == CROWD_OK) {
                loaded = true;
                blob after = save(e);
                if (after.n != b.n || memcmp(after.p, b.p, b.n) != 0) FAILF("blob %d: loaded state saves differently", k);
                free(after.p);
            } else {
                if (res != CROWD_ERR_OUT_OF_MEMORY)
                    FAILF("blob %d, allocation %ld of the load failing: %s (%s), want CROWD_ERR_OUT_OF_MEMORY", k, n,
                          rname(res), crowd_last_error(e));
                if (t.live != live) FAILF("blob %d, allocation %ld failing: %ld blocks leaked", k, n, t.live - live);
                blob after = save(e);
                if (after.n != before.n || memcmp(after.p, before.p, before.n) != 0)
                    FAILF("blob %d, allocation %ld failing: the engine changed", k, n);
                free(after.p);
                OK(e, crowd_instance_info(e, mine[2], NULL, NULL, NULL)); /* its handles still work */
            }
            free(before.p);
            crowd_engine_destroy(e);
            if (t.live || t.bad_frees)
                FAILF("blob %d, allocation %ld failing: %ld leaks, %ld frees of pointers never allocated", k, n, t.live,
                      t.bad_frees);
            counting_release(&t);
        }
        if (!loaded) FAILF("blob %d never loaded", k);
        free(b.p);
    }
    printf("%ld loads with one allocation failing, each CROWD_ERR_OUT_OF_MEMORY and clean\n", runs);
}

/* ---- threads ---- */
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int creates_before_failure = -1; /* -1: never fail */
static int wrapped_calls;

/* The link wraps the engine's pthread_create (-Wl,--wrap): the system refusing a thread. */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    wrapped_calls++;
    if (creates_before_failure == 0) return EAGAIN;
    if (creates_before_failure > 0) creates_before_failure--;
    return __real_pthread_create(t, a, fn, arg);
}

static void test_thread_failure(void **state) {
    (void)state;
    if (!scalar_only()) return;
    for (int before = 0; before < 3; before++) {
        wrapped_calls = 0;
        creates_before_failure = before;
        char msg[512] = "";
        crowd_engine *e = NULL;
        crowd_engine_desc d = {.threads = 4, .simd = crowd_test_simd};
        crowd_result res = crowd_engine_create(&d, &e);
        creates_before_failure = -1;
        if (wrapped_calls == 0) {
            printf("(the engine is a shared library here: pthread_create is not wrapped, skipped)\n");
            crowd_engine_destroy(e);
            return;
        }
        (void)msg;
        if (res != CROWD_ERR_THREAD)
            FAILF("pthread_create failing after %d threads: %s, want CROWD_ERR_THREAD", before, rname(res));
        if (strstr(crowd_result_text(res), "allocator")) FAILF("CROWD_ERR_THREAD's text names the allocator");
        assert_null(e);
    }
    crowd_engine *e = NULL;
    crowd_engine_desc d = {.threads = 4, .simd = crowd_test_simd};
    OK(e, crowd_engine_create(&d, &e));
    crowd_engine_destroy(e);
}

/* ---- handles ---- */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_generation_retire(void **state) {
    (void)state;
    if (!scalar_only()) return;
    enum { CYCLES = 70000 };
    crowd_engine *e = crowd_test_engine(3);
    crowd_rig_desc bare = {.name = "bare", .parameters = params, .parameter_count = 1};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &bare, &rig));
    crowd_instance keep;
    add(e, rig, 1, &keep);
    uint64_t *ids = malloc(sizeof *ids * CYCLES);
    assert_non_null(ids);
    for (int k = 0; k < CYCLES; k++) {
        crowd_instance h;
        add(e, rig, 1, &h);
        ids[k] = h.id;
        OK(e, crowd_instances_remove(e, &h, 1));
        if (crowd_instance_info(e, h, NULL, NULL, NULL) != CROWD_ERR_HANDLE) FAILF("cycle %d: a removed handle works", k);
        /* the first handle of all must stay dead: a wrapped generation would revive it */
        crowd_instance first = {ids[0]};
        if (crowd_instance_info(e, first, NULL, NULL, NULL) != CROWD_ERR_HANDLE)
            FAILF("cycle %d: the handle removed in cycle 0 names an instance again", k);
    }
    qsort(ids, CYCLES, sizeof *ids, cmp_u64);
    for (int k = 1; k < CYCLES; k++)
        if (ids[k] == ids[k - 1]) FAILF("handle 0x%llx was issued twice in %d cycles", (unsigned long long)ids[k], CYCLES);
    /* retired slots travel in snapshots: the loaded engine does not reuse them either */
    blob b = save(e);
    crowd_engine *f = crowd_test_engine(3);
    OK(f, crowd_snapshot_load(f, b.p, b.n));
    OK(f, crowd_instance_info(f, keep, NULL, NULL, NULL));
    for (int k = 0; k < 10; k++) {
        crowd_instance h;
        add(f, rig, 1, &h);
        if (bsearch(&h.id, ids, CYCLES, sizeof *ids, cmp_u64)) FAILF("after loading, handle 0x%llx came back",
                                                                    (unsigned long long)h.id);
        OK(f, crowd_instances_remove(f, &h, 1));
    }
    free(b.p);
    free(ids);
    crowd_engine_destroy(f);
    crowd_engine_destroy(e);
}

static void test_foreign_tags(void **state) {
    (void)state;
    if (!scalar_only()) return;
    enum { ENGINES = 5000 };
    crowd_engine **e = calloc(ENGINES, sizeof *e);
    crowd_rig *rig = calloc(ENGINES, sizeof *rig);
    crowd_instance *h = calloc(ENGINES, sizeof *h);
    uint64_t *tags = calloc(ENGINES, sizeof *tags);
    assert_true(e && rig && h && tags);
    crowd_rig_desc bare = {.name = "bare", .parameters = params, .parameter_count = 1};
    for (int i = 0; i < ENGINES; i++) {
        e[i] = crowd_test_engine((uint64_t)i);
        OK(e[i], crowd_rig_create(e[i], &bare, &rig[i]));
        add(e[i], rig[i], 1, &h[i]);
        tags[i] = h[i].id >> 48;
    }
    /* every pair, through a getter that cannot fail: another engine's rig is no rig here */
    long accepted = 0;
    for (int i = 0; i < ENGINES; i++)
        for (int j = 0; j < ENGINES; j++)
            if (i != j && crowd_rig_instance_count(e[j], rig[i]) != 0) accepted++;
    if (accepted) FAILF("%ld (engine, foreign rig) pairs of %d live engines accept the rig", accepted, ENGINES);
    /* instance handles: their tags all differ, and a sample of pairs through the API */
    qsort(tags, ENGINES, sizeof *tags, cmp_u64);
    for (int i = 1; i < ENGINES; i++)
        if (tags[i] == tags[i - 1]) FAILF("two of %d live engines share handle tag %llu", ENGINES, (unsigned long long)tags[i]);
    for (int i = 0; i < ENGINES; i++)
        for (int d = 1; d <= 16; d++) {
            int j = (i + d * 313) % ENGINES;
            if (crowd_instance_info(e[j], h[i], NULL, NULL, NULL) != CROWD_ERR_HANDLE)
                FAILF("engine %d accepts an instance handle of engine %d", j, i);
        }
    for (int i = 0; i < ENGINES; i++) crowd_engine_destroy(e[i]);
    free(e), free(rig), free(h), free(tags);
}

static void test_shared_tag(void **state) {
    (void)state;
    if (!scalar_only()) return;
    crowd_engine *a = crowd_test_engine(1), *b = crowd_test_engine(1);
    crowd_rig_desc bare = {.name = "bare", .parameters = params, .parameter_count = 1};
    crowd_rig rig;
    OK(a, crowd_rig_create(a, &bare, &rig));
    crowd_instance h;
    add(a, rig, 1, &h);
    blob snap = save(a);
    OK(b, crowd_snapshot_load(b, snap.p, snap.n));
    OK(b, crowd_instance_info(b, h, NULL, NULL, NULL)); /* the saved handles name the same instance in b */
    crowd_engine_destroy(a);
    /* b still holds the tag: no engine created later (the counter wraps past it) takes it */
    for (int k = 0; k < 65600; k++) {
        crowd_engine *x = crowd_test_engine(2);
        crowd_rig xr;
        OK(x, crowd_rig_create(x, &bare, &xr));
        if (xr.id == rig.id) FAILF("engine %d got the tag b holds since loading a's snapshot", k);
        crowd_engine_destroy(x);
    }
    OK(b, crowd_instance_info(b, h, NULL, NULL, NULL));
    free(snap.p);
    crowd_engine_destroy(b);
}

/* ---- concurrent failing ranges ---- */
typedef struct range_job {
    crowd_engine *e;
    crowd_rig rig, foreign;
    uint32_t first, count, rows;
    int wrong; /* results that were not the expected code */
} range_job;

static int log_calls; /* written by the logger: concurrent calls would race on it */
static char log_last[512];

static void count_log(crowd_result r, const char *msg, void *user) {
    (void)r, (void)user;
    log_calls++;
    snprintf(log_last, sizeof log_last, "%s", msg);
}

static void *range_worker(void *p) {
    range_job *j = p;
    for (int k = 0; k < 3000; k++) {
        crowd_result want = CROWD_OK, got;
        switch (k % 4) {
        case 0: got = crowd_tick_range(j->e, DT, j->rig, j->first, j->count); break;
        case 1: want = CROWD_ERR_RANGE, got = crowd_tick_range(j->e, DT, j->rig, j->rows, 5); break;
        case 2: want = CROWD_ERR_NOT_FINITE, got = crowd_tick_range(j->e, (float)NAN, j->rig, j->first, j->count); break;
        default: want = CROWD_ERR_HANDLE, got = crowd_tick_range(j->e, DT, j->foreign, 0, 1); break;
        }
        j->wrong += got != want;
    }
    return NULL;
}

static void test_concurrent_range_errors(void **state) {
    (void)state;
    crowd_engine_desc d = {.seed = 9, .simd = crowd_test_simd, .logger = {count_log, NULL}};
    crowd_engine *e = NULL, *other = crowd_test_engine(9);
    OK(e, crowd_engine_create(&d, &e));
    crowd_rig rig = full_rig(e, "ranges"), foreign = full_rig(other, "foreign");
    add(e, rig, 64, NULL);
    range_job jobs[4];
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (range_job){e, rig, foreign, 16u * (uint32_t)t, 16, 64, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, range_worker, &jobs[t]), 0);
    }
    for (int t = 0; t < 4; t++) pthread_join(threads[t], NULL);
    for (int t = 0; t < 4; t++)
        if (jobs[t].wrong) FAILF("thread %d: %d calls returned another code than expected", t, jobs[t].wrong);
    if (log_calls == 0 || !strstr(crowd_last_error(e), "crowd_tick_range") || !strstr(log_last, "crowd_tick_range"))
        FAILF("no failing range call was recorded (%d logged, last \"%s\")", log_calls, crowd_last_error(e));
    printf("%d of 9000 failing calls logged their message\n", log_calls);
    crowd_engine_destroy(e);
    crowd_engine_destroy(other);
}

/* ---- entry limits, near-linear id checks ---- */
static void test_entry_limits(void **state) {
    (void)state;
    if (!scalar_only()) return;
    enum { N = 65536 };
    crowd_engine *e = crowd_test_engine(1);
    crowd_parameter_desc *p = calloc(N + 1, sizeof *p);
    char (*ids)[12] = calloc(N + 1, sizeof *ids);
    crowd_look_parameter_desc *lp = calloc(N + 1, sizeof *lp);
    crowd_harmonic_parameter_desc *hp = calloc(N + 1, sizeof *hp);
    const char **bp = calloc(N + 1, sizeof *bp);
    assert_true(p && ids && lp && hp && bp);
    for (uint32_t k = 0; k <= N; k++) {
        snprintf(ids[k], sizeof ids[k], "P%u", k);
        p[k] = (crowd_parameter_desc){ids[k], 0, 1, 0, false};
        /* entries run through the parameters backwards: every lookup is a far one */
        lp[k] = (crowd_look_parameter_desc){ids[N - 1 - k % N], CROWD_AXIS_X, 1};
        hp[k] = crowd_harmonic_parameter_defaults(ids[N - 1 - k % N]);
        bp[k] = ids[N - 1 - k % N];
    }
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = lp, look.parameter_count = N;
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp, harm.parameter_count = N;
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = bp, blink.parameter_count = N;
    crowd_rig_desc rd = {.name = "wide", .parameters = p, .parameter_count = N, .look = &look, .harmonic = &harm, .blink = &blink};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    assert_int_equal(crowd_rig_parameter_count(e, rig), N);
    add(e, rig, 2, NULL);
    OK(e, crowd_tick(e, DT));
    /* one more of each is refused before anything is allocated */
    struct { const char *what; uint32_t *count; const char *needle; } over[] = {
        {"parameters", &rd.parameter_count, "parameter_count (65537) exceeds 65536"},
        {"look", &look.parameter_count, "look->parameter_count (65537) exceeds 65536"},
        {"harmonic", &harm.parameter_count, "harmonic->parameter_count (65537) exceeds 65536"},
        {"blink", &blink.parameter_count, "blink->parameter_count (65537) exceeds 65536"}};
    for (size_t k = 0; k < 4; k++) {
        *over[k].count = N + 1;
        crowd_result res = crowd_rig_create(e, &rd, &rig);
        if (res != CROWD_ERR_CAPACITY || !strstr(crowd_last_error(e), over[k].needle))
            FAILF("%u %s: %s (%s), want CROWD_ERR_CAPACITY naming the count", N + 1, over[k].what, rname(res),
                  crowd_last_error(e));
        *over[k].count = N;
    }
    /* a duplicate id at the far end, and an entry naming no parameter at the far end */
    p[N - 1].id = ids[7];
    crowd_result res = crowd_rig_create(e, &rd, &rig);
    if (res != CROWD_ERR_DUPLICATE_ID || !strstr(crowd_last_error(e), "parameters[65535].id \"P7\" repeats desc->parameters[7]"))
        FAILF("duplicate id: %s (%s)", rname(res), crowd_last_error(e));
    p[N - 1].id = ids[N - 1];
    lp[N - 1].id = "missing";
    res = crowd_rig_create(e, &rd, &rig);
    if (res != CROWD_ERR_UNKNOWN_ID || !strstr(crowd_last_error(e), "look->parameters[65535].id \"missing\""))
        FAILF("unknown id: %s (%s)", rname(res), crowd_last_error(e));
    free(p), free(ids), free(lp), free(hp), free(bp);
    crowd_engine_destroy(e);
}

/* ---- memory planning ---- */
static void test_bytes_per_instance(void **state) {
    (void)state;
    if (!scalar_only()) return;
    enum { N = 4096 }; /* a power of two: the slot table, doubling from 64, holds exactly N */
    for (int k = 0; k < 3; k++) {
        counting t = {.fail_at = -1};
        crowd_engine *e = tracked_engine(&t);
        crowd_rig rig = k == 0 ? full_rig(e, "full") : limbs_rig(e, k == 1);
        size_t per = 0;
        OK(e, crowd_rig_bytes_per_instance(e, rig, &per));
        size_t before = t.live_bytes;
        OK(e, crowd_reserve(e, rig, N));
        add(e, rig, N, NULL);
        size_t used = t.live_bytes - before;
        /* capacity rounds up to 16 rows and pads 16 more when columns would be 4 KiB apart */
        if (used < (size_t)N * per || used > (size_t)(N + 32) * per + 4096)
            FAILF("rig %d: %u instances took %zu bytes, crowd_rig_bytes_per_instance says %zu each (%zu)", k, N, used, per,
                  (size_t)N * per);
        size_t none;
        assert_int_equal(crowd_rig_bytes_per_instance(e, (crowd_rig){0}, &none), CROWD_ERR_HANDLE);
        assert_int_equal(crowd_rig_bytes_per_instance(e, rig, NULL), CROWD_ERR_NULL);
        crowd_engine_destroy(e);
        assert_int_equal(t.live, 0);
        counting_release(&t);
    }
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_load_oom),     cmocka_unit_test(test_thread_failure),
        cmocka_unit_test(test_generation_retire),     cmocka_unit_test(test_foreign_tags),
        cmocka_unit_test(test_shared_tag),            cmocka_unit_test(test_concurrent_range_errors),
        cmocka_unit_test(test_entry_limits),          cmocka_unit_test(test_bytes_per_instance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
