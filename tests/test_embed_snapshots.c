#include "embed_suite.h"


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

/* s's engine loads the snapshot at80 and its bookkeeping goes back to saved80 (tick 80): the
 * state is the reference run's at tick 80 and continues as it did to SNAP_TICKS. */
static void expect_continues(scene *s, blob at80, const scene *saved80, const uint64_t *ref, const char *what) {
    OK(s->e, crowd_snapshot_load(s->e, at80.p, at80.n));
    crowd_engine *keep = s->e;
    memcpy(s, saved80, sizeof *s);
    s->e = keep;
    if (hash_scene(s) != ref[80]) FAILF("%s: the state differs", what);
    for (uint32_t k = 81; k <= SNAP_TICKS; k++) {
        snap_step(s, k);
        if (hash_scene(s) != ref[k]) FAILF("%s: tick %u differs", what, k);
    }
}

static void test_snapshot_round_trip(void **state) {
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
    rng draws = {99};
    while (npoints < 24) points[npoints++] = 1 + rng_mod(&draws, SNAP_TICKS - 1);
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
    expect_continues(a, at80, &saved80, ref, "rollback to tick 80");
    scene_close(a);

    scene_open(b, 9, CROWD_SIMD_SCALAR, 2);
    scene_add(b, RIG_TIMED, 40, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    scene_add(b, RIG_BODY, 3, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    for (uint32_t k = 1; k <= 10; k++) {
        scene_drive(b);
        scene_tick(b, DT);
    }
    expect_continues(b, at80, &saved80, ref, "a used engine loading tick 80");
    scene_close(b);
    free(at80.p);
    free(a);
    free(b);
}

static void test_snapshot_api(void **state) {
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
    assert_int_equal(rd32(buf + 8), 6);
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
    const crowdi_limbs_view *cl = CROWDI_PART(cr, LIMBS, const crowdi_limbs_view);
    assert_true(cl->limb_visibility_threshold > 0.0f && cl->limb_side_mode == CROWDI_SIDE_STABLE);
    const size_t st = cl->limb_stride; /* column k of a group is k * stride rows on */
    cl->limb_track[3 * st + row] = MARK_TRACK;
    cl->limb_side[0 * st + row] = MARK_SIDE;
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

static void test_snapshot_rejects(void **state) {
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
            /* version 6 ^ 1 is 7, a foreign version; ^ 0xff: refused (versions 2 and 3 of a tracked rig are
             * refused by name: the limbs_outputs suite loads a real one) */
            c.p[k] ^= mask;
            snprintf(what, sizeof what, "header byte %zu ^ 0x%02x", k, mask);
            expect_rejected(t, c.p, c.n, what, NULL);
            c.p[k] ^= mask;
        }
    /* payload bytes: every byte of the first 512, then a sample */
    rng draws = {17};
    for (size_t k = 32; k < good.n; k += k < 544 ? 1 : 1 + rng_mod(&draws, 211)) {
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
    const uint32_t versions[] = {0, 1, 7, 0x100, 0x01000001u, 0xffffffffu};
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

static void test_snapshot_structure(void **state) {
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
    rng sdraws = {23};
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
        at += dense ? 4 * (1 + 3 * SANITIZED) : 4 + 4 * rng_mod(&sdraws, 400 * (1 + 3 * SANITIZED));
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
static void test_snapshot_value_rules(void **state) {
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

static void test_snapshot_state_reloads(void **state) {
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
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    /* argv[2], when given: run only the tests matching this pattern (e.g. "test_snapshot_*") */
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_round_trip),
        cmocka_unit_test(test_snapshot_api),
        cmocka_unit_test(test_snapshot_rejects),
        cmocka_unit_test(test_snapshot_structure),
        cmocka_unit_test(test_snapshot_value_rules),
        cmocka_unit_test(test_snapshot_state_reloads),
    };
    return cmocka_run_group_tests_name("embed_snapshots", tests, NULL, NULL);
}
