#include "engine_suite.h"


/* ------------------------------------------------------------------------------------------
 * 7. Long runs (SPEC §4): day 30 looks like day 1
 * ---------------------------------------------------------------------------------------- */
typedef struct long_rigs {
    crowd_rig harm, sine, timed;
    uint32_t n; /* instances per rig: one block of the target (at least 2) */
    crowd_instance h[3][16];
} long_rigs;

static void long_setup(crowd_engine *e, long_rigs *L) {
    L->n = crowd_simd_width(crowd_test_simd) < 2 ? 2 : crowd_simd_width(crowd_test_simd);
    crowd_parameter_desc p[3] = {{"ParamBreath", 0, 1, 0, false}, {"ParamAngleZ", -180, 180, 0, true}, {"ParamAngleX", -30, 30, 0, false}};
    crowd_harmonic_parameter_desc hp[3] = {{"ParamBreath", 0, CROWD_DIRECTION_CENTRIC, 0.5f, 0.5f, 3.7f},
                                           {"ParamAngleZ", 1, CROWD_DIRECTION_LEFT, 0.5f, 0.6f, 6.1f},
                                           {"ParamAngleX", 1, CROWD_DIRECTION_RIGHT, 0.4f, 0.9f, 2.3f}};
    const float ts[2] = {1.0f, 0.77f};
    crowd_harmonic_desc hd = crowd_harmonic_defaults();
    hd.parameters = hp;
    hd.parameter_count = 3;
    hd.channel_timescales = ts;
    hd.channel_count = 2;
    crowd_rig_desc rh = {.name = "breath", .parameters = p, .parameter_count = 3, .harmonic = &hd};
    L->harm = make_rig(e, &rh);
    const char *ids[] = {"ParamBreath"};
    crowd_blink_desc bd = crowd_blink_defaults();
    bd.parameters = ids;
    bd.parameter_count = 1;
    crowd_rig_desc rs = {.name = "sine", .parameters = p, .parameter_count = 1, .blink = &bd};
    L->sine = make_rig(e, &rs);
    bd.model = CROWD_BLINK_TIMED;
    crowd_rig_desc rt = {.name = "timed", .parameters = p, .parameter_count = 1, .blink = &bd};
    L->timed = make_rig(e, &rt);
    add_into(e, L->harm, L->n, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_RANDOM, L->h[0]);
    add_into(e, L->sine, L->n, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO, L->h[1]);
    add_into(e, L->timed, L->n, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO, L->h[2]);
}

/* Records the blink of one instance from its start (phase leaves 0) to its end (phase back to
 * 0): the eye_opening sequence. Returns its length, 0 if none completed within max ticks. */
static int record_blink(crowd_engine *e, crowd_instance h, float dt, int max_ticks, float *shape, int *idle_ticks) {
    int n = 0, idle = 0;
    bool in_blink = get1(e, h, CROWD_FIELD_BLINK_PHASE, 0) != 0.0f;
    for (int k = 0; k < max_ticks; k++) {
        tick(e, dt);
        float phase = get1(e, h, CROWD_FIELD_BLINK_PHASE, 0);
        if (!in_blink && phase != 0.0f) in_blink = true;
        if (!in_blink) idle++;
        if (in_blink) {
            shape[n++] = get1(e, h, CROWD_FIELD_BLINK_OPENING, 0);
            if (phase == 0.0f) {
                if (idle_ticks) *idle_ticks = idle;
                return n;
            }
        }
    }
    return 0;
}

static void test_long_run_day30(void **state) {
    (void)state;
    const uint64_t seed = 30;
    /* day 30: 30 simulated days at dt = 1 (2,592,000 ticks), then the states of a day-1 engine
     * are compared with it */
    crowd_engine *day30 = crowd_test_engine(seed);
    long_rigs L30;
    long_setup(day30, &L30);
    const float durations[3] = {3.7f, 6.1f, 2.3f};
    const long ticks = 30L * 86400;
    for (long k = 0; k < ticks; k++) {
        tick(day30, 1.0f);
        if (k % 4099 == 0) {
            for (uint32_t j = 0; j < 3; j++) {
                float T[16];
                OK(day30, crowd_instances_get(day30, CROWD_FIELD_HARMONIC_PHASE, j, L30.h[0], L30.n, T));
                for (uint32_t i = 0; i < L30.n; i++)
                    if (!(T[i] > 0.0f && T[i] <= durations[j]))
                        FAILF("tick %ld entry %u instance %u: T = %.9g is outside (0, %g]", k, j, i, (double)T[i], (double)durations[j]);
            }
        }
    }
    /* harmonic: a day-1 engine whose instances hold the day-30 T and NR gives the same bytes
     * for the next 600 ticks at 60 fps */
    crowd_engine *day1 = crowd_test_engine(seed);
    long_rigs L1;
    long_setup(day1, &L1);
    for (uint32_t j = 0; j < 3; j++) {
        float T[16], NR[16];
        OK(day30, crowd_instances_get(day30, CROWD_FIELD_HARMONIC_PHASE, j, L30.h[0], L30.n, T));
        OK(day30, crowd_instances_get(day30, CROWD_FIELD_HARMONIC_RANGE, j, L30.h[0], L30.n, NR));
        OK(day1, crowd_instances_set(day1, CROWD_FIELD_HARMONIC_PHASE, j, L1.h[0], L1.n, T));
        OK(day1, crowd_instances_set(day1, CROWD_FIELD_HARMONIC_RANGE, j, L1.h[0], L1.n, NR));
    }
    /* and one instance of each at the phase fmodf(30 days, D) */
    for (uint32_t j = 0; j < 3; j++) {
        float T = fmodf(30.0f * 86400.0f, durations[j]);
        set1(day1, L1.h[0][L1.n - 1], CROWD_FIELD_HARMONIC_PHASE, j, T);
        set1(day30, L30.h[0][L30.n - 1], CROWD_FIELD_HARMONIC_PHASE, j, T);
    }
    float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
    for (int k = 0; k < 600; k++) {
        tick(day30, DT60);
        tick(day1, DT60);
        for (uint32_t p = 0; p < 3; p++) {
            float a[16], b[16];
            OK(day30, crowd_instances_get(day30, CROWD_FIELD_OUTPUT, p, L30.h[0], L30.n, a));
            OK(day1, crowd_instances_get(day1, CROWD_FIELD_OUTPUT, p, L1.h[0], L1.n, b));
            if (memcmp(a, b, L1.n * sizeof a[0]) != 0) FAILF("harmonic day 30 vs day 1: tick %d parameter %u differs", k, p);
            if (a[0] < lo[p]) lo[p] = a[0];
            if (a[0] > hi[p]) hi[p] = a[0];
        }
    }
    /* still breathing over its full band: centric NO .5 NR .5 on [0,1] spans [0, 1] */
    EXPECT_NEAR(lo[0], 0.0, 1e-3, "day 30 breath minimum");
    EXPECT_NEAR(hi[0], 1.0, 1e-3, "day 30 breath maximum");

    /* blink: a day-1 instance and a day-30 instance put in the same mid-blink state blink the
     * same shape; afterwards every blink has that shape and every wait is within
     * [mean - max_dev, mean + max_dev] */
    for (int m = 1; m <= 2; m++) {
        crowd_instance *h30 = L30.h[m], *h1 = L1.h[m];
        /* the reference blink on day 1: idle with a zero wait (blink on the next tick), then 3
         * ticks into it */
        set1(day1, h1[0], CROWD_FIELD_BLINK_PHASE, 0, 0.0f);
        set1(day1, h1[0], CROWD_FIELD_BLINK_CLOCK, 0, 0.0f);
        for (int k = 0; k < 3; k++) tick(day1, DT60);
        static const crowd_field fields[] = {CROWD_FIELD_BLINK_CLOCK, CROWD_FIELD_BLINK_PHASE, CROWD_FIELD_BLINK_LAST,
                                             CROWD_FIELD_BLINK_OPENING};
        for (size_t f = 0; f < 4; f++) {
            float v = get1(day1, h1[0], fields[f], 0);
            set1(day30, h30[0], fields[f], 0, v);
        }
        float shape1[200], shape30[200];
        int n1 = record_blink(day1, h1[0], DT60, 200, shape1, NULL);
        int n30 = record_blink(day30, h30[0], DT60, 200, shape30, NULL);
        assert_true(n1 > 3);
        if (n1 != n30 || memcmp(shape1, shape30, (size_t)n1 * sizeof(float)) != 0)
            FAILF("model %d: the day-30 blink from the same state differs from day 1 (%d vs %d ticks)", m, n30, n1);
        /* a full blink from idle on day 1, as the reference shape */
        set1(day1, h1[1], CROWD_FIELD_BLINK_PHASE, 0, 0.0f);
        set1(day1, h1[1], CROWD_FIELD_BLINK_CLOCK, 0, 0.1f);
        float ref[200];
        int nref = record_blink(day1, h1[1], DT60, 400, ref, NULL);
        assert_true(nref > 3);
        for (int b = 0; b < 5; b++) {
            float shape[200];
            int idle = -1;
            float wait = get1(day30, h30[0], CROWD_FIELD_BLINK_CLOCK, 0);
            if (!(wait >= 0.5f && wait <= 4.5f)) FAILF("model %d blink %d: drawn wait %.9g outside [0.5, 4.5]", m, b, (double)wait);
            int n = record_blink(day30, h30[0], DT60, 400, shape, &idle);
            if (n != nref || memcmp(shape, ref, (size_t)n * sizeof(float)) != 0)
                FAILF("model %d day-30 blink %d has another shape than day 1's (%d vs %d ticks)", m, b, n, nref);
            /* the wait w is spent at dt per tick; the blink starts on the tick the clock goes
             * below 0 (sine) / next_blink < 0 (timed) */
            double want = ceil(wait / DT60);
            if (fabs(idle + 1 - want) > 1.0)
                FAILF("model %d blink %d: %d idle ticks for a wait of %.6g s (%g ticks)", m, b, idle, (double)wait, want);
        }
    }
    crowd_engine_destroy(day30);
    crowd_engine_destroy(day1);
}

/* ------------------------------------------------------------------------------------------
 * 8. Random blink starts are spread out
 * ---------------------------------------------------------------------------------------- */
static void test_blink_spread(void **state) {
    (void)state;
    enum { N = 1000, MAX_TICKS = 300 };
    for (int m = 0; m < 2; m++) {
        crowd_engine *e = crowd_test_engine(40 + (uint64_t)m);
        crowd_rig rig = blink_rig(e, m == 0 ? CROWD_BLINK_SINE : CROWD_BLINK_TIMED, CROWD_BLEND_DEFAULT, 0);
        crowd_instance *h = add_n(e, rig, N, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
        int first[N];
        for (int i = 0; i < N; i++) first[i] = -1;
        float phase[N];
        for (int k = 1; k <= MAX_TICKS; k++) {
            tick(e, DT60);
            OK(e, crowd_instances_get(e, CROWD_FIELD_BLINK_PHASE, 0, h, N, phase));
            for (int i = 0; i < N; i++)
                if (first[i] < 0 && phase[i] != 0.0f) first[i] = k;
        }
        bool seen[MAX_TICKS + 1] = {false};
        int distinct = 0;
        for (int i = 0; i < N; i++) {
            /* waits in [0.5, 4.5] s: the first blink between tick 30 and tick 271 */
            if (first[i] < 30 || first[i] > 271) FAILF("model %d instance %d: first blink at tick %d", m, i, first[i]);
            if (!seen[first[i]]) seen[first[i]] = true, distinct++;
        }
        if (distinct <= 50) FAILF("model %d: only %d distinct first-blink ticks over %d instances", m, distinct, N);
        /* CUBISM start (sine): every instance blinks on tick 1, the unison the default avoids */
        if (m == 0) {
            crowd_instance *hc = add_n(e, rig, 64, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO);
            tick(e, DT60);
            for (int i = 0; i < 64; i++) EXPECT_BITS(get1(e, hc[i], CROWD_FIELD_BLINK_PHASE, 0), 1.0f, "CUBISM start blinks on tick 1");
            free(hc);
        }
        free(h);
        crowd_engine_destroy(e);
    }
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest long_runs[] = {
        cmocka_unit_test(test_long_run_day30),
        cmocka_unit_test(test_blink_spread),
    };
    return CROWD_TEST_GROUP("long_runs", long_runs) ? 1 : 0;
}
