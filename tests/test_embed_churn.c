#include "embed_suite.h"


/* ------------------------------------------------------------------------------------------
 * live add / remove
 * ---------------------------------------------------------------------------------------- */
#define CHURN_TICKS 150

static void test_churn(void **state) {
    (void)state;
    scene *r = malloc(sizeof *r), *c = malloc(sizeof *c);
    assert_non_null(r);
    assert_non_null(c);
    scene_open(r, 2024, crowd_test_simd, 1);
    scene_open(c, 2024, crowd_test_simd, 3);
    scene_populate(r);
    scene_populate(c);
    uint8_t *ever_paused = calloc(MAX_INSTANCES, 1);
    assert_non_null(ever_paused);
    rng draws = {11};
    uint32_t removed_total = 0, stale_checked = 0;
    crowd_instance stale[64];
    uint32_t nstale = 0;
    for (uint32_t k = 1; k <= CHURN_TICKS; k++) {
        /* the same adds in both engines (the ids key the randomness) */
        int rig = (int)(k % RIGS);
        uint32_t count = 1 + k % 4;
        crowd_blink_start bs = k % 2 ? CROWD_BLINK_START_RANDOM : CROWD_BLINK_START_CUBISM;
        crowd_harmonic_phase hp = k % 3 ? CROWD_HARMONIC_PHASE_RANDOM : CROWD_HARMONIC_PHASE_ZERO;
        uint32_t first = scene_add(r, rig, count, bs, hp);
        assert_int_equal(scene_add(c, rig, count, bs, hp), first);
        /* churn in c: remove up to 5 random instances (batched, paused ones included) and
         * pause or resume some others; never the standard population */
        crowd_instance batch[5];
        uint32_t nb = 0, want = rng_mod(&draws, 6);
        for (uint32_t tries = 0; nb < want && tries < 50; tries++) {
            uint32_t n = POPULATION + rng_mod(&draws, c->n - POPULATION);
            if (!c->live[n]) continue;
            bool dup = false;
            for (uint32_t j = 0; j < nb; j++) dup |= batch[j].id == c->h[n].id;
            if (dup) continue;
            batch[nb++] = c->h[n];
            c->live[n] = 0;
        }
        OK(c->e, crowd_instances_remove(c->e, batch, nb));
        removed_total += nb;
        for (uint32_t j = 0; j < nb && nstale < 64; j++) stale[nstale++] = batch[j];
        for (uint32_t j = 0; j < 3; j++) {
            uint32_t n = POPULATION + rng_mod(&draws, c->n - POPULATION);
            if (!c->live[n]) continue;
            bool p = rng_mod(&draws, 3) != 0;
            scene_pause(c, n, p);
            ever_paused[n] |= p;
        }
        /* a removed handle stays stale, also when its slot is reused */
        for (uint32_t j = 0; j < nstale; j++) {
            bool paused;
            EXPECT(c->e, crowd_instance_paused(c->e, stale[j], &paused), CROWD_ERR_HANDLE);
            EXPECT(c->e, crowd_instances_remove(c->e, &stale[j], 1), CROWD_ERR_HANDLE);
            stale_checked++;
        }
        scene_drive(r);
        scene_drive(c);
        scene_tick(r, dt_of(k));
        scene_tick(c, dt_of(k));
        if (k % 10 == 0) check_rows(c);
        for (uint32_t n = 0; n < c->n; n++) {
            if (!c->live[n] || ever_paused[n]) continue;
            if (hash_instance(r->e, r->h[n]) != hash_instance(c->e, c->h[n]))
                FAILF("tick %u: instance %u (rig %s) differs with churn", k, n, rig_names[c->rig_of[n]]);
        }
    }
    assert_true(removed_total > 100);
    assert_true(stale_checked > 0);
    check_finite(c);
    scene_close(r);
    scene_close(c);
    free(ever_paused);
    free(r);
    free(c);
}

/* ------------------------------------------------------------------------------------------
 * paused instances
 * ---------------------------------------------------------------------------------------- */
#define PAUSE_TICKS 180

static void test_pause_shift(void **state) {
    (void)state;
    /* q never pauses: the hash of every instance after each of its steps */
    scene *q = malloc(sizeof *q), *p = malloc(sizeof *p);
    assert_non_null(q);
    assert_non_null(p);
    scene_open(q, 606, crowd_test_simd, 1);
    scene_populate(q);
    uint32_t n = q->n;
    uint64_t *qh = malloc(sizeof *qh * n * (PAUSE_TICKS + 1));
    assert_non_null(qh);
    for (uint32_t i = 0; i < n; i++) qh[i * (PAUSE_TICKS + 1)] = hash_instance(q->e, q->h[i]);
    for (uint32_t k = 1; k <= PAUSE_TICKS; k++) {
        scene_drive(q);
        scene_tick(q, DT);
        for (uint32_t i = 0; i < n; i++) qh[i * (PAUSE_TICKS + 1) + k] = hash_instance(q->e, q->h[i]);
    }
    scene_close(q);

    /* p pauses and resumes instances at random, on a pool; each must always look like q's
     * after as many steps as it ran */
    scene_open(p, 606, crowd_test_simd, 2);
    scene_populate(p);
    rng draws = {3};
    uint32_t frozen_checks = 0, max_lag = 0;
    for (uint32_t k = 1; k <= PAUSE_TICKS; k++) {
        for (uint32_t j = 0; j < 6; j++) {
            uint32_t i = rng_mod(&draws, n);
            bool pause = rng_mod(&draws, 2) == 0;
            /* sometimes a batch with the same handle twice, or a no-op */
            crowd_instance hh[2] = {p->h[i], p->h[i]};
            OK(p->e, crowd_instances_pause(p->e, hh, 1 + j % 2, pause));
            p->paused[i] = pause;
        }
        if (k == 100) /* everyone paused: the tick has nothing to do */
            for (uint32_t i = 0; i < n; i++) scene_pause(p, i, true);
        if (k == 103)
            for (uint32_t i = 0; i < n; i++) scene_pause(p, i, false);
        scene_drive(p);
        scene_tick(p, DT);
        if (k % 15 == 0) check_rows(p);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t st = p->steps[i];
            if (k - st > max_lag) max_lag = k - st;
            frozen_checks += p->paused[i];
            if (hash_instance(p->e, p->h[i]) != qh[i * (PAUSE_TICKS + 1) + st])
                FAILF("tick %u: instance %u (rig %s, %s) after %u steps differs from the never-paused run", k, i,
                      rig_names[p->rig_of[i]], p->paused[i] ? "paused" : "running", st);
        }
    }
    assert_true(frozen_checks > 1000);
    assert_true(max_lag > 20);
    scene_close(p);
    free(qh);
    free(q);
    free(p);
}

static void test_pause_api(void **state) {
    (void)state;
    scene *s = malloc(sizeof *s);
    assert_non_null(s);
    scene_open(s, 1, crowd_test_simd, 1);
    scene_populate(s);
    crowd_engine *e = s->e;
    bool paused = true;
    EXPECT(NULL, crowd_instances_pause(NULL, s->h, 1, true), CROWD_ERR_NULL);
    EXPECT(e, crowd_instances_pause(e, NULL, 1, true), CROWD_ERR_NULL);
    OK(e, crowd_instances_pause(e, NULL, 0, true));
    EXPECT(NULL, crowd_instance_paused(NULL, s->h[0], &paused), CROWD_ERR_NULL);
    EXPECT(e, crowd_instance_paused(e, s->h[0], NULL), CROWD_ERR_NULL);
    EXPECT(e, crowd_instance_paused(e, (crowd_instance){0}, &paused), CROWD_ERR_HANDLE);
    assert_int_equal(crowd_rig_running_count(e, (crowd_rig){0}), 0);
    assert_int_equal(crowd_rig_running_count(NULL, s->rig[0]), 0);
    assert_int_equal(crowd_rig_running_count(e, s->rig[RIG_FACE]), 37);
    OK(e, crowd_instance_paused(e, s->h[0], &paused));
    assert_false(paused);

    /* a bad handle anywhere: nothing is paused */
    scene_remove(s, 10);
    crowd_instance bad[3] = {s->h[0], s->h[1], s->h[10]};
    EXPECT(e, crowd_instances_pause(e, bad, 3, true), CROWD_ERR_HANDLE);
    assert_non_null(strstr(crowd_last_error(e), "handles[2]"));
    bad[2] = (crowd_instance){s->h[0].id ^ ((uint64_t)1 << 52)}; /* another engine's tag */
    EXPECT(e, crowd_instances_pause(e, bad, 3, true), CROWD_ERR_HANDLE);
    check_rows(s);

    /* pausing twice, resuming a running one, the same handle twice in one call */
    scene_pause(s, 0, true);
    scene_pause(s, 0, true);
    scene_pause(s, 1, false);
    crowd_instance twice[2] = {s->h[2], s->h[2]};
    OK(e, crowd_instances_pause(e, twice, 2, true));
    s->paused[2] = 1;
    check_rows(s);
    OK(e, crowd_instances_pause(e, twice, 2, false));
    s->paused[2] = 0;
    scene_pause(s, 2, true);
    check_rows(s);

    /* remove a paused one, a running one, the last running row, the last row */
    scene_pause(s, 5, true);
    scene_pause(s, 6, true);
    scene_remove(s, 5);
    check_rows(s);
    scene_remove(s, 7);
    check_rows(s);
    const crowd_instance *rows;
    uint32_t count;
    OK(e, crowd_rig_handles(e, s->rig[RIG_FACE], &rows, &count));
    uint32_t running = crowd_rig_running_count(e, s->rig[RIG_FACE]);
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->h[k].id == rows[running - 1].id) {
            scene_remove(s, k);
            break;
        }
    check_rows(s);
    OK(e, crowd_rig_handles(e, s->rig[RIG_FACE], &rows, &count));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->h[k].id == rows[count - 1].id) {
            scene_remove(s, k);
            break;
        }
    check_rows(s);
    /* adding while rows are paused: the new ones run */
    uint32_t first = scene_add(s, RIG_FACE, 20, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM);
    check_rows(s);
    for (uint32_t k = first; k < first + 20; k++) {
        OK(e, crowd_instance_paused(e, s->h[k], &paused));
        assert_false(paused);
    }
    /* everyone in a rig paused, then all resumed in one call */
    crowd_instance all[MAX_INSTANCES];
    uint32_t na = 0;
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->rig_of[k] == RIG_TIMED) {
            all[na++] = s->h[k];
            s->paused[k] = 1;
        }
    OK(e, crowd_instances_pause(e, all, na, true));
    assert_int_equal(crowd_rig_running_count(e, s->rig[RIG_TIMED]), 0);
    check_rows(s);

    /* crowd_tick_range over all rows leaves the paused ones as they are */
    uint64_t before[MAX_INSTANCES];
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k]) before[k] = hash_instance(e, s->h[k]);
    for (int r = 0; r < RIGS; r++)
        OK(e, crowd_tick_range(e, DT, s->rig[r], 0, crowd_rig_instance_count(e, s->rig[r])));
    for (uint32_t k = 0; k < s->n; k++) {
        if (!s->live[k]) continue;
        bool same = hash_instance(e, s->h[k]) == before[k];
        /* a running instance of a rig with controllers changes on a tick (blink clocks, phases,
         * filters); a paused one must not */
        if (s->paused[k] && !same) FAILF("crowd_tick_range changed paused instance %u", k);
        if (!s->paused[k] && same && s->rig_of[k] != RIG_CUSTOM && s->rig_of[k] != RIG_CALIB) FAILF("crowd_tick_range left running instance %u", k);
    }
    /* a range of paused rows only: nothing to do */
    uint32_t rows_timed = crowd_rig_instance_count(e, s->rig[RIG_TIMED]);
    OK(e, crowd_tick_range(e, DT, s->rig[RIG_TIMED], 0, rows_timed));
    EXPECT(e, crowd_tick_range(e, DT, s->rig[RIG_TIMED], 0, rows_timed + 1), CROWD_ERR_RANGE);
    OK(e, crowd_instances_pause(e, all, na, false));
    for (uint32_t k = 0; k < s->n; k++)
        if (s->live[k] && s->rig_of[k] == RIG_TIMED) s->paused[k] = 0;
    check_rows(s);
    /* inputs of a paused instance can be written; its outputs stay */
    scene_pause(s, 0, true);
    float out_before[7], out_after[7], base = 12.0f;
    OK(e, crowd_get_outputs(e, s->h[0], out_before, 7));
    OK(e, crowd_set(e, s->h[0], CROWD_FIELD_BASE, 0, &base));
    OK(e, crowd_blink_now(e, &s->h[0], 1));
    OK(e, crowd_tick(e, DT));
    OK(e, crowd_get_outputs(e, s->h[0], out_after, 7));
    assert_memory_equal(out_before, out_after, sizeof out_before);
    scene_close(s);
    free(s);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    /* argv[2], when given: run only the tests matching this pattern (e.g. "test_snapshot_*") */
    if (argc > 2) cmocka_set_test_filter(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_churn),
        cmocka_unit_test(test_pause_shift),
        cmocka_unit_test(test_pause_api),
    };
    return cmocka_run_group_tests_name("embed_churn", tests, NULL, NULL);
}
