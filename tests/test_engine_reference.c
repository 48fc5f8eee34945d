#include "engine_suite.h"


static void test_gaze_reference(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    const crowd_parameter_desc params[] = {{"ParamAngleX", -30, 30, 0, false}};
    crowd_look_parameter_desc lp = {"ParamAngleX", CROWD_AXIS_X, 30.0f};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = &lp;
    look.parameter_count = 1;
    crowd_rig_desc rd = {.name = "gaze", .parameters = params, .parameter_count = 1, .look = &look};
    crowd_rig rig = make_rig(e, &rd);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    for (int i = 0; i < NREF; i++) OK(e, crowd_set_look_target(e, h[i], 1, 0, 0, true));

    float pos[NREF * 3], vel[NREF * 3], out[NREF], prev[NREF];
    for (int frame = 1; frame <= 200; frame++) {
        for (int i = 0; i < NREF; i++) prev[i] = frame > 1 ? pos[3 * i] : 0.0f;
        tick(e, DT60);
        OK(e, crowd_instances_get(e, CROWD_FIELD_LOOK_POSITION, 0, h, NREF, pos));
        OK(e, crowd_instances_get(e, CROWD_FIELD_LOOK_VELOCITY, 0, h, NREF, vel));
        OK(e, crowd_instances_get(e, CROWD_FIELD_OUTPUT, 0, h, NREF, out));
        for (int i = 0; i < NREF; i++) {
            float px = pos[3 * i], vx = vel[3 * i];
            EXPECT_BITS(pos[3 * i + 1], 0.0f, "frame %d instance %d pos.y", frame, i);
            EXPECT_BITS(pos[3 * i + 2], 0.0f, "frame %d instance %d pos.z", frame, i);
            EXPECT_BITS(vel[3 * i + 1], 0.0f, "frame %d instance %d vel.y", frame, i);
            EXPECT_BITS(vel[3 * i + 2], 0.0f, "frame %d instance %d vel.z", frame, i);
            /* additive onto base 0 with weight 1: C(0 + (pos.x*30)*1) */
            volatile float v = px * 30.0f;
            volatile float p = 0.0f + v * 1.0f;
            EXPECT_BITS(out[i], p, "frame %d instance %d parameter", frame, i);
            switch (frame) {
            case 1:
                EXPECT_BITS(px, 0.021051228f, "frame 1 pos.x");
                EXPECT_BITS(vx, 2.373209f, "frame 1 vel.x");
                EXPECT_BITS(out[i], 0.631536841f, "frame 1 parameter");
                break;
            case 2: EXPECT_BITS(px, 0.0733399391f, "frame 2 pos.x"); break;
            case 10: EXPECT_BITS(px, 0.649850488f, "frame 10 pos.x"); break;
            case 60: EXPECT_BITS(px, 0.999976516f, "frame 60 pos.x"); break;
            default: break;
            }
            if (frame <= 65 && fbits(px) == fbits(prev[i]))
                FAILF("frame %d instance %d: pos.x did not move (the last update is at frame 65)", frame, i);
            if (frame >= 65) {
                EXPECT_BITS(px, 0.999991715f, "frame %d (frozen) pos.x", frame);
                EXPECT_BITS(vx, 1.03799794e-4f, "frame %d (frozen) vel.x keeps its stale value", frame);
            }
        }
    }
    free(h);
    crowd_engine_destroy(e);
}

static void test_harmonic_reference(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(2);
    crowd_rig rig = harmonic_rig(e, -30, 30, CROWD_DIRECTION_CENTRIC, 0.5f, 0.5f, 3.0f);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    float out[NREF], T[NREF], NR[NREF];
    volatile float t_expect = 0.0f;
    for (int k = 1; k <= 135; k++) {
        tick(e, DT60);
        t_expect = t_expect + DT60 * 1.0f;
        if (t_expect > 3.0f) t_expect = t_expect - 3.0f;
        OK(e, crowd_instances_get(e, CROWD_FIELD_OUTPUT, 0, h, NREF, out));
        OK(e, crowd_instances_get(e, CROWD_FIELD_HARMONIC_PHASE, 0, h, NREF, T));
        OK(e, crowd_instances_get(e, CROWD_FIELD_HARMONIC_RANGE, 0, h, NREF, NR));
        for (int i = 0; i < NREF; i++) {
            EXPECT_BITS(T[i], t_expect, "tick %d instance %d T", k, i);
            EXPECT_BITS(NR[i], 0.5f, "tick %d instance %d NR (centric never writes it)", k, i);
            double want = NAN;
            if (k == 1) want = 1.04698503;
            if (k == 2) want = 2.09269428;
            if (k == 45) want = 30;
            if (k == 135) want = -30;
            if (!isnan(want)) EXPECT_NEAR(out[i], want, sin_tol(30, want), "tick %d instance %d value", k, i);
            /* every tick: 0 + 30*sin(2*pi*T/3) within the sin bound */
            EXPECT_NEAR(out[i], 30.0 * sin((double)((t_expect * 6.2831855f) / 3.0f)), sin_tol(30, 30),
                        "tick %d instance %d value against double sin", k, i);
        }
    }
    free(h);
    crowd_engine_destroy(e);
}

/* Sets T on every instance, ticks with dt = 0, and checks the value and NR. */
static void harmonic_at(crowd_engine *e, const crowd_instance *h, uint32_t n, float T, double want, double range,
                        float want_nr, const char *what) {
    set_all1(e, h, n, CROWD_FIELD_HARMONIC_PHASE, 0, T);
    tick(e, 0.0f);
    for (uint32_t i = 0; i < n; i++) {
        EXPECT_BITS(get1(e, h[i], CROWD_FIELD_HARMONIC_PHASE, 0), T, "%s: T after a dt = 0 tick", what);
        EXPECT_NEAR(get1(e, h[i], CROWD_FIELD_OUTPUT, 0), want, sin_tol(range, want), "%s: instance %u value", what, i);
        EXPECT_BITS(get1(e, h[i], CROWD_FIELD_HARMONIC_RANGE, 0), want_nr, "%s: instance %u NR", what, i);
    }
}

static void test_harmonic_directions(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(3);
    const float D = 3.0f;
    /* left on [-30, 30], NO 0.5, NR 0.5: band [-30, 0] (origin -15, range 15); NR stays 0.5 */
    crowd_rig left = harmonic_rig(e, -30, 30, CROWD_DIRECTION_LEFT, 0.5f, 0.5f, D);
    crowd_instance *hl = add_n(e, left, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    harmonic_at(e, hl, NREF, 0.0f, -15, 15, 0.5f, "left T=0");
    harmonic_at(e, hl, NREF, D / 4, 0, 15, 0.5f, "left T=D/4");
    harmonic_at(e, hl, NREF, 3 * D / 4, -30, 15, 0.5f, "left T=3D/4");
    /* the mirror: right on [-30, 30] gives band [0, 30] */
    crowd_rig right = harmonic_rig(e, -30, 30, CROWD_DIRECTION_RIGHT, 0.5f, 0.5f, D);
    crowd_instance *hr = add_n(e, right, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    harmonic_at(e, hr, NREF, 0.0f, 15, 15, 0.5f, "right T=0");
    harmonic_at(e, hr, NREF, D / 4, 30, 15, 0.5f, "right T=D/4");
    harmonic_at(e, hr, NREF, 3 * D / 4, 0, 15, 0.5f, "right T=3D/4");
    /* left on [0, 1], NO 0.25, NR 0.5: band [0, 0.25] (origin 0.125, range 0.125), NR -> 0.25 */
    crowd_rig l01 = harmonic_rig(e, 0, 1, CROWD_DIRECTION_LEFT, 0.25f, 0.5f, D);
    crowd_instance *h01 = add_n(e, l01, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    for (int i = 0; i < NREF; i++) EXPECT_BITS(get1(e, h01[i], CROWD_FIELD_HARMONIC_RANGE, 0), 0.5f, "NR before the first tick");
    harmonic_at(e, h01, NREF, 0.0f, 0.125, 0.125, 0.25f, "left [0,1] T=0");
    harmonic_at(e, h01, NREF, D / 4, 0.25, 0.125, 0.25f, "left [0,1] T=D/4");
    harmonic_at(e, h01, NREF, 3 * D / 4, 0.0, 0.125, 0.25f, "left [0,1] T=3D/4");
    /* right on [0, 1], NO 0.75, NR 0.5: band [0.75, 1], NR -> 0.25 */
    crowd_rig r01 = harmonic_rig(e, 0, 1, CROWD_DIRECTION_RIGHT, 0.75f, 0.5f, D);
    crowd_instance *hr01 = add_n(e, r01, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    harmonic_at(e, hr01, NREF, D / 4, 1.0, 0.125, 0.25f, "right [0,1] T=D/4");
    harmonic_at(e, hr01, NREF, 3 * D / 4, 0.75, 0.125, 0.25f, "right [0,1] T=3D/4");
    /* centric on [0, 1] with NO 0.25, NR 0.5: the clamp branch, range = origin - min = 0.25,
     * NR = 0.25 */
    crowd_rig c01 = harmonic_rig(e, 0, 1, CROWD_DIRECTION_CENTRIC, 0.25f, 0.5f, D);
    crowd_instance *hc01 = add_n(e, c01, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    harmonic_at(e, hc01, NREF, D / 4, 0.5, 0.25, 0.25f, "centric [0,1] clamp T=D/4");
    harmonic_at(e, hc01, NREF, 3 * D / 4, 0.0, 0.25, 0.25f, "centric [0,1] clamp T=3D/4");
    /* T = D exactly stays D (the wrap is `while T > D`) */
    harmonic_at(e, hl, NREF, D, -15, 15, 0.5f, "left T=D");
    free(hl), free(hr), free(h01), free(hr01), free(hc01);
    crowd_engine_destroy(e);
}

/* SPEC §3's "while T > D: T = T - D", float32, bounded by construction (crowd.h, harmonic):
 * at most 4 rounds, exactly the SPEC's, then for what is still above D one step
 * T - floor(T/D)*D, clamped into [0, D]. Here in volatile floats, one rounding per operation.
 * D = 0.25 and T = 20 (dt 1, timescale 20: 80 periods in a tick) takes 4 exact rounds to 19,
 * then the step to 0; D = 0.001 with timescale 65.5 (65500 periods per second, near the
 * accepted limit of 65536) the rounds and an inexact step. The SPEC's unbounded loop gives D
 * and a value 65500 inexact subtractions away: this fails on it. */
static float bounded_wrap(float T0, float D) {
    volatile float T = T0;
    for (int round = 0; round < 4 && T > D; round++) T = T - D;
    if (T > D) {
        volatile float q = floorf(T / D);
        volatile float qd = q * D;
        volatile float r = T - qd;
        if (r < 0.0f) r = r + D;
        if (r < 0.0f) r = 0.0f;
        if (r > D) r = D;
        T = r;
    }
    return T;
}

static void harmonic_wrap_case(float D, float ts) {
    crowd_engine *e = crowd_test_engine(4);
    crowd_parameter_desc p = {"ParamBreath", 0, 1, 0, false};
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("ParamBreath");
    hp.duration = D;
    const float tss[] = {ts};
    crowd_harmonic_desc hd = crowd_harmonic_defaults();
    hd.parameters = &hp;
    hd.parameter_count = 1;
    hd.channel_timescales = tss;
    hd.channel_count = 1;
    crowd_rig_desc rd = {.name = "fast", .parameters = &p, .parameter_count = 1, .harmonic = &hd};
    crowd_rig rig = make_rig(e, &rd);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    volatile float T = 0.0f;
    int bad = -1;
    float got = 0;
    for (int k = 0; k < 3 && bad < 0; k++) {
        tick(e, 1.0f);
        volatile float step = 1.0f * ts;
        T = bounded_wrap(T + step, D);
        for (int i = 0; i < NREF && bad < 0; i++) {
            got = get1(e, h[i], CROWD_FIELD_HARMONIC_PHASE, 0);
            if (fbits(got) != fbits(T) || !(got >= 0.0f && got <= D)) bad = i;
        }
    }
    free(h);
    crowd_engine_destroy(e);
    if (bad >= 0)
        FAILF("D %g, timescale %g: instance %d T = %.9g, the bounded wrap gives %.9g; T must stay in [0, D]", (double)D,
              (double)ts, bad, (double)got, (double)T);
}

static void test_harmonic_wrap_many_periods(void **state) {
    (void)state;
    harmonic_wrap_case(0.25f, 20.0f);
    harmonic_wrap_case(0.001f, 65.5f);
}

/* multiply with weight 1 onto base 1, literally: C(1*(1 + (v - 1)*1)) on [0, 1] */
static float multiply_onto_one(float v) {
    volatile float a = v - 1.0f;
    volatile float b = a * 1.0f;
    volatile float c = 1.0f + b;
    volatile float x = 1.0f * c;
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

static void test_blink_sine_reference(void **state) {
    (void)state;
    const uint64_t seed = 5;
    crowd_engine *e = crowd_test_engine(seed);
    crowd_rig rig = blink_rig(e, CROWD_BLINK_SINE, CROWD_BLEND_DEFAULT, 0);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO);
    static const double ref[10] = {0.986143231, 0.944956958, 0.877582669, 0.785887361, 0.672412336,
                                   0.540302396, 0.393218756, 0.235237643, 0.0707372725, 0.09572348};
    for (int i = 0; i < NREF; i++) {
        EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0), 0.0f, "CUBISM start: T = 0");
        EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_OPENING, 0), 1.0f, "eye_opening starts at 1");
    }
    float wait[NREF];
    for (int k = 1; k <= 40; k++) {
        tick(e, DT60);
        for (int i = 0; i < NREF; i++) {
            float open = get1(e, h[i], CROWD_FIELD_BLINK_OPENING, 0);
            float phase = get1(e, h[i], CROWD_FIELD_BLINK_PHASE, 0);
            float clock = get1(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0);
            EXPECT_BITS(get1(e, h[i], CROWD_FIELD_OUTPUT, 0), multiply_onto_one(open), "tick %d instance %d output", k, i);
            if (k <= 10) EXPECT_NEAR(open, ref[k - 1], sin_tol(1, 1), "tick %d instance %d eye_opening", k, i);
            if (k <= 9) EXPECT_BITS(phase, 1.0f, "tick %d instance %d phase (closing)", k, i);
            if (k >= 10 && k <= 19) EXPECT_BITS(phase, 2.0f, "tick %d instance %d phase (opening)", k, i);
            if (k >= 2 && k <= 19) EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_LAST, 0), open, "tick %d last", k);
            if (k == 20) {
                EXPECT_BITS(open, 1.0f, "tick 20 instance %d eye_opening returns to 1", i);
                EXPECT_BITS(phase, 0.0f, "tick 20 instance %d phase (idling)", i);
                /* CUBISM sine draws nothing at creation: this wait is draw 0 */
                wait[i] = spec_wait(2.5f, 2.0f, crowdi_draw(instance_key(e, seed, h[i]), 0));
                EXPECT_BITS(clock, wait[i], "tick 20 instance %d next idle wait", i);
            }
            if (k > 20 && wait[i] > (float)(k - 20) * DT60 + 1e-3f) {
                volatile float w = wait[i];
                for (int j = 21; j <= k; j++) w = w - DT60;
                EXPECT_BITS(phase, 0.0f, "tick %d instance %d idles", k, i);
                EXPECT_BITS(open, 1.0f, "tick %d instance %d idles open", k, i);
                EXPECT_BITS(clock, w, "tick %d instance %d idle clock counts down by dt", k, i);
            }
        }
    }
    free(h);
    crowd_engine_destroy(e);
}

static void test_blink_timed_reference(void **state) {
    (void)state;
    const uint64_t seed = 6;
    crowd_engine *e = crowd_test_engine(seed);
    crowd_rig rig = blink_rig(e, CROWD_BLINK_TIMED, CROWD_BLEND_DEFAULT, 0);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_CUBISM, CROWD_HARMONIC_PHASE_ZERO);
    for (int i = 0; i < NREF; i++) {
        /* timed, CUBISM: a drawn first wait (draw 0), as Unity */
        EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0),
                    spec_wait(2.5f, 2.0f, crowdi_draw(instance_key(e, seed, h[i]), 0)), "initial wait");
    }
    set_all1(e, h, NREF, CROWD_FIELD_BLINK_CLOCK, 0, 0.05f);
    /* expected values, computed as the SPEC states: u accumulates dt*timescale in float */
    const float step = DT60 * 10.0f;
    float want_out[23], want_phase[23];
    volatile float u = 0.0f;
    for (int k = 1; k <= 3; k++) want_out[k] = 1, want_phase[k] = k == 3 ? 1 : 0;
    for (int k = 4; k <= 9; k++) {
        u = u + step;
        want_out[k] = 1.0f - u / 1.0f;
        want_phase[k] = 1;
    }
    assert_true(u / 1.0f >= 1.0f); /* tick 9 enters closed */
    want_phase[9] = 2;
    u = 0.0f;
    for (int k = 10; k <= 12; k++) {
        u = u + step;
        want_out[k] = 0;
        want_phase[k] = 2;
    }
    assert_true(u / 0.5f >= 1.0f); /* tick 12 enters opening */
    want_phase[12] = 3;
    u = 0.0f;
    for (int k = 13; k <= 22; k++) {
        u = u + step;
        volatile float t = u / 1.5f;
        want_out[k] = t;
        want_phase[k] = 3;
        if (t >= 1.0f) want_out[k] = 1, want_phase[k] = 0;
    }
    assert_true(want_phase[22] == 0 && want_phase[21] == 3);
    /* the SPEC's printed numbers */
    static const float printed[] = {0, 1, 1, 1, 0.833333313f, 0.666666627f, 0.5f, 0.333333313f, 0.166666627f};
    for (int k = 1; k <= 8; k++) EXPECT_BITS(want_out[k], printed[k], "the float recomputation at tick %d vs SPEC", k);
    EXPECT_BITS(want_out[13], 0.111111112f, "SPEC tick 13");
    EXPECT_BITS(want_out[14], 0.222222224f, "SPEC tick 14");
    EXPECT_BITS(want_out[21], 0.99999994f, "SPEC tick 21");

    for (int k = 1; k <= 22; k++) {
        tick(e, DT60);
        for (int i = 0; i < NREF; i++) {
            float open = get1(e, h[i], CROWD_FIELD_BLINK_OPENING, 0);
            float out = get1(e, h[i], CROWD_FIELD_OUTPUT, 0);
            EXPECT_BITS(open, want_out[k], "tick %d instance %d eye_opening", k, i);
            EXPECT_BITS(out, multiply_onto_one(want_out[k]), "tick %d instance %d output", k, i);
            if (k >= 9 && k <= 12) EXPECT_BITS(out, 0.0f, "tick %d output 0", k);
            EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_PHASE, 0), want_phase[k], "tick %d instance %d phase", k, i);
            if (k == 22)
                EXPECT_BITS(get1(e, h[i], CROWD_FIELD_BLINK_CLOCK, 0),
                            spec_wait(2.5f, 2.0f, crowdi_draw(instance_key(e, seed, h[i]), 1)),
                            "tick 22 instance %d next wait (draw 1)", i);
        }
    }
    free(h);
    crowd_engine_destroy(e);
}

/* "blink now" starts a blink on the next tick; the manual override pauses the automatic one. */
static void test_blink_now_and_manual(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(7);
    crowd_rig sine = blink_rig(e, CROWD_BLINK_SINE, CROWD_BLEND_DEFAULT, 0);
    crowd_rig timed = blink_rig(e, CROWD_BLINK_TIMED, CROWD_BLEND_DEFAULT, 0);
    crowd_instance *hs = add_n(e, sine, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    crowd_instance *ht = add_n(e, timed, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    set_all1(e, hs, NREF, CROWD_FIELD_BLINK_CLOCK, 0, 100.0f);
    set_all1(e, ht, NREF, CROWD_FIELD_BLINK_CLOCK, 0, 100.0f);
    tick(e, DT60);
    OK(e, crowd_blink_now(e, hs, NREF));
    OK(e, crowd_blink_now(e, ht, NREF));
    for (int i = 0; i < NREF; i++) {
        EXPECT_BITS(get1(e, hs[i], CROWD_FIELD_BLINK_CLOCK, 0), 0.0f, "blink now: sine wait 0");
        EXPECT_BITS(get1(e, ht[i], CROWD_FIELD_BLINK_CLOCK, 0), 0.0f, "blink now: timed wait 0");
    }
    tick(e, DT60);
    for (int i = 0; i < NREF; i++) {
        EXPECT_BITS(get1(e, hs[i], CROWD_FIELD_BLINK_PHASE, 0), 1.0f, "sine closing after blink now");
        EXPECT_BITS(get1(e, ht[i], CROWD_FIELD_BLINK_PHASE, 0), 1.0f, "timed closing after blink now");
    }
    /* manual: eye_opening = the value, the state stands still, the output follows */
    float before[3];
    before[0] = get1(e, hs[0], CROWD_FIELD_BLINK_CLOCK, 0);
    before[1] = get1(e, hs[0], CROWD_FIELD_BLINK_PHASE, 0);
    before[2] = get1(e, hs[0], CROWD_FIELD_BLINK_LAST, 0);
    set_all1(e, hs, NREF, CROWD_FIELD_BLINK_MANUAL, 0, 0.25f);
    for (int k = 0; k < 30; k++) tick(e, DT60);
    EXPECT_BITS(get1(e, hs[0], CROWD_FIELD_BLINK_CLOCK, 0), before[0], "manual pauses the clock");
    EXPECT_BITS(get1(e, hs[0], CROWD_FIELD_BLINK_PHASE, 0), before[1], "manual pauses the phase");
    EXPECT_BITS(get1(e, hs[0], CROWD_FIELD_BLINK_LAST, 0), before[2], "manual pauses last");
    for (int i = 0; i < NREF; i++) {
        EXPECT_BITS(get1(e, hs[i], CROWD_FIELD_BLINK_OPENING, 0), 0.25f, "manual eye_opening");
        EXPECT_BITS(get1(e, hs[i], CROWD_FIELD_OUTPUT, 0), multiply_onto_one(0.25f), "manual output");
    }
    free(hs), free(ht);
    crowd_engine_destroy(e);
}

/* ------------------------------------------------------------------------------------------
 * 2. Blends
 * ---------------------------------------------------------------------------------------- */
static float spec_clamp(float x, float min, float max) { return x < min ? min : (x > max ? max : x); }
static float spec_wrap(float x, float min, float max) {
    volatile float size = max - min;
    if (x > max) x = min + fmodf(x - max, size);
    if (x < min) x = max - fmodf(min - x, size);
    return x;
}
static float spec_blend(int mode, float P, float v, float w) {
    volatile float r;
    if (mode == CROWD_BLEND_OVERRIDE) {
        volatile float a = 1.0f - w, b = P * a, c = v * w;
        r = b + c;
    } else if (mode == CROWD_BLEND_ADDITIVE) {
        volatile float c = v * w;
        r = P + c;
    } else {
        volatile float a = v - 1.0f, b = a * w, c = 1.0f + b;
        r = P * c;
    }
    return r;
}

typedef struct blend_case {
    int mode;     /* crowd_blend */
    bool repeat;  /* parameter [-180, 180] repeat, else [-10, 10] */
    float base, v, w;
} blend_case;

/* Each case: a rig whose single look entry (axis x, factor 1) drives the parameter; the look
 * state is frozen exactly on the goal (pos = target), so the blended value is pos.x. */
static void test_blends(void **state) {
    (void)state;
    static const blend_case cases[] = {
        {CROWD_BLEND_ADDITIVE, false, 2, 3, 0.5f},   {CROWD_BLEND_ADDITIVE, false, 2, 30, 1},
        {CROWD_BLEND_ADDITIVE, false, 2, -30, 1},    {CROWD_BLEND_ADDITIVE, false, 2, 30, 0},
        {CROWD_BLEND_ADDITIVE, false, 0.1f, 0.2f, 0.7f},
        {CROWD_BLEND_OVERRIDE, false, 2, 7, 0.25f},  {CROWD_BLEND_OVERRIDE, false, 2, 7, 0},
        {CROWD_BLEND_OVERRIDE, false, 2, 7, 1},      {CROWD_BLEND_OVERRIDE, false, 2, 70, 0.5f},
        {CROWD_BLEND_OVERRIDE, false, 0.3f, 0.7f, 0.1f},
        {CROWD_BLEND_MULTIPLY, false, 3, 0.5f, 0.5f}, {CROWD_BLEND_MULTIPLY, false, 3, 0.5f, 1},
        {CROWD_BLEND_MULTIPLY, false, 3, 9, 1},      {CROWD_BLEND_MULTIPLY, false, 1, 0.1f, 1},
        {CROWD_BLEND_MULTIPLY, false, 7, 0.3f, 1},   {CROWD_BLEND_MULTIPLY, false, -4, 0.01f, 0.9f},
        /* repeat: wraps with fmodf, above and below, by one turn and by several */
        {CROWD_BLEND_ADDITIVE, true, 170, 50, 1},    {CROWD_BLEND_ADDITIVE, true, -170, -50, 1},
        {CROWD_BLEND_ADDITIVE, true, 170, 1000, 1},  {CROWD_BLEND_ADDITIVE, true, -170, -1000, 1},
        {CROWD_BLEND_ADDITIVE, true, 170, 10, 1},    {CROWD_BLEND_ADDITIVE, true, 0, 180, 1},
        {CROWD_BLEND_ADDITIVE, true, 0, -180, 1},    {CROWD_BLEND_ADDITIVE, true, 100, 123456.7f, 0.5f},
        {CROWD_BLEND_OVERRIDE, true, 0, 725, 1},     {CROWD_BLEND_MULTIPLY, true, 100, 2.5f, 1},
        {CROWD_BLEND_MULTIPLY, true, -100, 2.5f, 1},
    };
    const int ncase = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < ncase; c++) {
        const blend_case *bc = &cases[c];
        crowd_engine *e = crowd_test_engine(8);
        float min = bc->repeat ? -180.0f : -10.0f, max = -min;
        crowd_parameter_desc p = {"P", min, max, 0, bc->repeat};
        crowd_look_parameter_desc lp = {"P", CROWD_AXIS_X, 1.0f};
        crowd_look_desc look = crowd_look_defaults();
        look.parameters = &lp;
        look.parameter_count = 1;
        look.blend = (crowd_blend)bc->mode;
        crowd_rig_desc rd = {.name = "blend", .parameters = &p, .parameter_count = 1, .look = &look};
        crowd_rig rig = make_rig(e, &rd);
        crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
        const float pos[3] = {bc->v, 0, 0};
        for (int i = 0; i < NREF; i++) {
            OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, pos));
            OK(e, crowd_set_look_target(e, h[i], bc->v, 0, 0, true));
            set1(e, h[i], CROWD_FIELD_LOOK_WEIGHT, 0, bc->w);
            set1(e, h[i], CROWD_FIELD_BASE, 0, bc->base);
        }
        tick(e, DT60);
        float raw = spec_blend(bc->mode, bc->base, bc->v, bc->w);
        float want = bc->repeat ? spec_wrap(raw, min, max) : spec_clamp(raw, min, max);
        for (int i = 0; i < NREF; i++) {
            EXPECT_BITS(get1(e, h[i], CROWD_FIELD_LOOK_POSITION, 0), bc->v, "case %d: frozen look", c);
            EXPECT_BITS(get1(e, h[i], CROWD_FIELD_OUTPUT, 0), want, "case %d (mode %d%s, P %g, v %g, w %g) instance %d", c,
                        bc->mode, bc->repeat ? " repeat" : "", (double)bc->base, (double)bc->v, (double)bc->w, i);
        }
        free(h);
        crowd_engine_destroy(e);
    }
    /* spot values, so that the float reimplementation above cannot hide a shared mistake */
    assert_true(spec_wrap(220, -180, 180) == -140.0f);
    assert_true(spec_wrap(-220, -180, 180) == 140.0f);
    assert_true(spec_wrap(1170, -180, 180) == 90.0f);
    assert_true(spec_wrap(-1170, -180, 180) == -90.0f);
    assert_true(spec_wrap(180, -180, 180) == 180.0f && spec_wrap(-180, -180, 180) == -180.0f);
    /* the literal multiply differs from P*v for v = 0.1 */
    assert_true(spec_blend(CROWD_BLEND_MULTIPLY, 1, 0.1f, 1) != 0.1f);
}

/* Blink (400) then harmonic (600) then look (700), into one parameter. */
static void test_blend_order(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(9);
    crowd_parameter_desc p = {"P", 0, 10, 4, false};
    crowd_look_parameter_desc lp = {"P", CROWD_AXIS_Y, 1.0f};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = &lp;
    look.parameter_count = 1;
    look.blend = CROWD_BLEND_OVERRIDE;
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("P");
    hp.origin = 0.3f;
    crowd_harmonic_desc hd = crowd_harmonic_defaults();
    hd.parameters = &hp;
    hd.parameter_count = 1;
    const char *ids[] = {"P"};
    crowd_blink_desc bd = crowd_blink_defaults();
    bd.parameters = ids;
    bd.parameter_count = 1;
    crowd_rig_desc rd = {.name = "order", .parameters = &p, .parameter_count = 1, .look = &look, .harmonic = &hd, .blink = &bd};
    crowd_rig rig = make_rig(e, &rd);
    crowd_instance *h = add_n(e, rig, NREF, CROWD_BLINK_START_RANDOM, CROWD_HARMONIC_PHASE_ZERO);
    const float pos[3] = {0, 9, 0};
    for (int i = 0; i < NREF; i++) {
        OK(e, crowd_set(e, h[i], CROWD_FIELD_LOOK_POSITION, 0, pos));
        OK(e, crowd_set_look_target(e, h[i], 0, 9, 0, true));
        set1(e, h[i], CROWD_FIELD_LOOK_WEIGHT, 0, 0.5f);
        set1(e, h[i], CROWD_FIELD_BLINK_MANUAL, 0, 0.5f);
        set1(e, h[i], CROWD_FIELD_HARMONIC_WEIGHT, 0, 0.5f);
    }
    tick(e, 0.0f); /* T stays 0: the harmonic value is its origin, 3 */
    /* blink: 4*(1 + (0.5-1)*1) = 2; harmonic: 2 + 3*0.5 = 3.5; look: 3.5*0.5 + 9*0.5 = 6.25 */
    for (int i = 0; i < NREF; i++) EXPECT_BITS(get1(e, h[i], CROWD_FIELD_OUTPUT, 0), 6.25f, "blink, harmonic, look order");
    free(h);
    crowd_engine_destroy(e);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest reference[] = {
        cmocka_unit_test(test_gaze_reference),
        cmocka_unit_test(test_harmonic_reference),
        cmocka_unit_test(test_harmonic_directions),
        cmocka_unit_test(test_harmonic_wrap_many_periods),
        cmocka_unit_test(test_blink_sine_reference),
        cmocka_unit_test(test_blink_timed_reference),
        cmocka_unit_test(test_blink_now_and_manual),
        cmocka_unit_test(test_blends),
        cmocka_unit_test(test_blend_order),
    };
    return CROWD_TEST_GROUP("reference", reference) ? 1 : 0;
}
