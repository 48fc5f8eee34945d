#include "limbs_suite.h"
#include "snapshot_checksum.h"

#include <errno.h>

/* ------------------------------------------------------------------------------------------
 * outputs: crowd_limbs_desc.outputs (both, world only, local only)
 * ---------------------------------------------------------------------------------------- */
#define KINDS 3
static const crowd_limb_outputs kinds[KINDS] = {CROWD_LIMB_OUTPUTS_BOTH, CROWD_LIMB_OUTPUTS_WORLD,
                                                CROWD_LIMB_OUTPUTS_LOCAL};
static const char *const kind_names[KINDS] = {"both", "world", "local"};

static crowd_limbs_desc with_outputs(crowd_limbs_desc d, crowd_limb_outputs o) {
    d.outputs = o;
    return d;
}

static size_t bytes_per_instance(crowd_engine *e, crowd_rig rig) {
    size_t n = 0;
    OK(e, crowd_rig_bytes_per_instance(e, rig, &n));
    return n;
}

/* The default is both, a zero value is both, and the columns left out are 15 bones x 4 floats
 * each: 240 bytes per instance (world only keeps the local columns where bones can be
 * untrusted: they are the state an untrusted bone eases from). */
static void test_default_and_storage(void **state) {
    (void)state;
    if (crowd_limbs_defaults().outputs != CROWD_LIMB_OUTPUTS_BOTH) FAILF("crowd_limbs_defaults().outputs is not both");
    if (CROWD_LIMB_OUTPUTS_BOTH != 0) FAILF("both is not the zero value");
    crowd_engine *e = crowd_test_engine(1);
    crowd_limbs_desc tracked = crowd_limbs_defaults(), untracked = crowd_limbs_defaults();
    untracked.visibility_threshold = 0.0f;
    size_t bytes[2][KINDS];
    char name[32];
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < KINDS; k++) {
            snprintf(name, sizeof name, "%s_%s", t ? "untracked" : "tracked", kind_names[k]);
            crowd_limbs_desc d = with_outputs(t ? untracked : tracked, kinds[k]);
            bytes[t][k] = bytes_per_instance(e, limbs_rig(e, &d, name));
        }
    const size_t columns = (size_t)NB * 4 * sizeof(float);
    if (columns != 240) FAILF("15 bones x 4 floats is %zu bytes", columns);
    for (int t = 0; t < 2; t++)
        if (bytes[t][0] - bytes[t][2] != columns)
            FAILF("ENGINE BUG: %s: local only saves %zu bytes per instance, want %zu", t ? "threshold 0" : "threshold 0.5",
                  bytes[t][0] - bytes[t][2], columns);
    if (bytes[1][0] - bytes[1][1] != columns)
        FAILF("ENGINE BUG: threshold 0: world only saves %zu bytes per instance, want %zu", bytes[1][0] - bytes[1][1], columns);
    if (bytes[0][1] != bytes[0][0])
        FAILF("ENGINE BUG: threshold 0.5: world only takes %zu bytes per instance, both %zu (the local rotations are "
              "the ease state)", bytes[0][1], bytes[0][0]);
    /* outputs 0 (what a desc filled field by field without it holds) reads both kinds */
    crowd_limbs_desc z = crowd_limbs_defaults();
    z.outputs = (crowd_limb_outputs)0;
    crowd_instance h = add1(e, limbs_rig(e, &z, "zero"));
    float q[4];
    OK(e, crowd_get(e, h, CROWD_FIELD_BONE_WORLD, 0, q));
    OK(e, crowd_get(e, h, CROWD_FIELD_BONE_LOCAL, 0, q));
    /* the rest pose is the rig's whatever it stores */
    crowd_quat rw[KINDS][NB], rl[KINDS][NB];
    for (int k = 0; k < KINDS; k++) {
        crowd_limbs_desc d = with_outputs(tracked, kinds[k]);
        snprintf(name, sizeof name, "rest_%s", kind_names[k]);
        OK(e, crowd_rig_rest_pose(e, limbs_rig(e, &d, name), rw[k], rl[k]));
        if (k && (memcmp(rw[k], rw[0], sizeof rw[0]) != 0 || memcmp(rl[k], rl[0], sizeof rl[0]) != 0))
            FAILF("ENGINE BUG: crowd_rig_rest_pose of outputs %s differs from both's", kind_names[k]);
    }
    crowd_engine_destroy(e);
}

/* ---- the long run: the same input into both, world and local rigs ---- */
#define RUN_CONFIGS 4
#define RUN_N 77 /* two 32-row passes and a tail on every width */
#define RUN_TICKS 300
#define RUN_ENGINES 3

typedef struct run_engine {
    crowd_engine *e;
    crowd_rig rig[KINDS];
    crowd_instance h[KINDS][RUN_N];
    bool ranges; /* ticked by random crowd_tick_range splits */
} run_engine;

typedef struct run_inputs {
    float pose[RUN_N][POSE_FLOATS];
    float root[RUN_N][4];
    int dropout[RUN_N];     /* ticks left of the instance's dropout */
    int dropout_part[RUN_N];
} run_inputs;

/* Config c: the default tracked crowd with smoothing (mediapipe frame, stable side), a
 * calibrated one with fallback root and its own threshold and half-lives, a custom fix with
 * previous at threshold 0 (no tracking: world only keeps no local column) and smoothing, and
 * z_along_bone with stable at threshold 0. */
static crowd_limbs_desc run_config(int c, rng *r, float bind_pose[POSE_FLOATS], crowd_quat binds[NB], crowd_quat custom[NB]) {
    qd tmp[NB];
    crowd_limbs_desc d;
    switch (c) {
    case 0:
        d = crowd_limbs_defaults();
        d.smoothing = true;
        return d;
    case 1:
        a_pose(bind_pose);
        random_binds(r, binds, tmp);
        d = engine_limbs(CROWD_AXIS_FIX_CALIBRATED);
        d.bind_landmarks = bind_pose;
        d.bind_rotations = binds;
        d.visibility_threshold = 0.3f;
        d.hold_half_life = 0.2f;
        d.reacquire_half_life = 0.15f;
        return d;
    case 2:
        random_binds(r, custom, tmp);
        d = engine_limbs(CROWD_AXIS_FIX_CUSTOM);
        d.custom_fix = custom;
        d.fallback = CROWD_FALLBACK_PREVIOUS;
        d.visibility_threshold = 0.0f;
        d.smoothing = true;
        d.min_cutoff = 1.0f;
        return d;
    default:
        d = crowd_limbs_defaults();
        d.frame = CROWD_FRAME_ENGINE;
        d.axis_fix = CROWD_AXIS_FIX_Z_ALONG_BONE;
        d.visibility_threshold = 0.0f;
        return d;
    }
}

static void run_engine_create(run_engine *re, crowd_simd simd, uint32_t threads, bool ranges, const crowd_limbs_desc *d) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.seed = 91, ed.simd = simd, ed.threads = threads;
    re->e = NULL;
    crowd_result res = crowd_engine_create(&ed, &re->e);
    if (res != CROWD_OK) FAILF("crowd_engine_create (%u threads): %s", threads, rname(res));
    re->ranges = ranges;
    for (int k = 0; k < KINDS; k++) {
        crowd_limbs_desc dk = with_outputs(*d, kinds[k]);
        re->rig[k] = limbs_rig(re->e, &dk, kind_names[k]);
        add_n(re->e, re->rig[k], RUN_N, re->h[k]);
    }
}

/* The landmarks a dropout hides: a limb's joints, a hand's points, the head's, the torso's,
 * or everything. */
static void hide(float *pose, int part) {
    static const int parts[][8] = {{11, 13, 15, -1}, {12, 14, 16, -1}, {23, 25, 27, -1}, {24, 26, 28, -1},
                                   {15, 17, 19, -1}, {28, 30, 32, -1}, {0, 7, 8, -1},     {11, 12, 23, 24, -1}};
    if (part >= (int)(sizeof parts / sizeof parts[0])) {
        for (int k = 0; k < NL; k++) pose[4 * k + 3] = 0.1f;
        return;
    }
    for (int m = 0; parts[part][m] >= 0; m++) pose[4 * parts[part][m] + 3] = 0.1f;
}

/* One tick's inputs: noise on every coordinate, now and then a new pose (bent, with
 * degeneracies and random visibilities: det_pose), dropouts of a part for 1 to 40 ticks and
 * then seen again (re-acquisition), new roots. The pose sent is the kept one with the
 * dropout applied. */
static void run_step(rng *r, run_inputs *in, float sent[RUN_N][POSE_FLOATS]) {
    for (int i = 0; i < RUN_N; i++) {
        float *p = in->pose[i];
        if (rng_chance(r, 0.03)) {
            det_pose(r, p);
        } else {
            for (int k = 0; k < POSE_FLOATS; k++)
                if (k % 4 != 3) p[k] += (float)rng_range(r, -0.005, 0.005);
        }
        if (in->dropout[i] == 0 && rng_chance(r, 0.04))
            in->dropout[i] = 1 + (int)rng_below(r, 40), in->dropout_part[i] = (int)rng_below(r, 9);
        memcpy(sent[i], p, sizeof sent[i]);
        if (in->dropout[i] > 0) {
            hide(sent[i], in->dropout_part[i]);
            in->dropout[i]--;
        }
        if (rng_chance(r, 0.05)) q_store(q_random(r), in->root[i]);
    }
}

static float run_dt(rng *r) {
    double u = rng_unit(r);
    return u < 0.05 ? 0.0f : u < 0.08 ? 1.0f : u < 0.3 ? (float)rng_range(r, 1e-4, 0.1) : 1.0f / 30.0f;
}

static void run_tick(run_engine *re, rng *split, float dt) {
    if (!re->ranges) {
        OK(re->e, crowd_tick(re->e, dt));
        return;
    }
    for (int k = 0; k < KINDS; k++) { /* random lengths, in a random order */
        uint32_t starts[RUN_N], lens[RUN_N], nr = 0, first = 0;
        while (first < RUN_N) {
            uint32_t len = 1 + rng_below(split, RUN_N - first < 40 ? RUN_N - first : 40);
            starts[nr] = first, lens[nr] = len, nr++;
            first += len;
        }
        for (uint32_t i = nr; i > 1; i--) {
            uint32_t j = rng_below(split, i), a = starts[i - 1], b = lens[i - 1];
            starts[i - 1] = starts[j], lens[i - 1] = lens[j], starts[j] = a, lens[j] = b;
        }
        for (uint32_t i = 0; i < nr; i++) OK(re->e, crowd_tick_range(re->e, dt, re->rig[k], starts[i], lens[i]));
    }
}

/* The kept kind of rig k of engine x against both of engine 0, bit for bit. */
static void compare_kept(run_engine *all, int x, int k, int tick, const char *ctx) {
    static float got[RUN_N * 4], want[RUN_N * 4];
    for (int f = 0; f < 2; f++) {
        if ((f == 0 && kinds[k] == CROWD_LIMB_OUTPUTS_LOCAL) || (f == 1 && kinds[k] == CROWD_LIMB_OUTPUTS_WORLD)) continue;
        crowd_field field = f ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
        for (int b = 0; b < NB; b++) {
            OK(all[x].e, crowd_instances_get(all[x].e, field, (uint32_t)b, all[x].h[k], RUN_N, got));
            OK(all[0].e, crowd_instances_get(all[0].e, field, (uint32_t)b, all[0].h[0], RUN_N, want));
            if (memcmp(got, want, sizeof got) == 0) continue;
            for (int i = 0; i < RUN_N; i++)
                if (memcmp(got + 4 * i, want + 4 * i, 4 * sizeof(float)) != 0)
                    FAILF("ENGINE BUG: %s tick %d: engine %d outputs %s instance %d %s %s: (%.9g, %.9g, %.9g, %.9g), "
                          "both on %s: (%.9g, %.9g, %.9g, %.9g)",
                          ctx, tick, x, kind_names[k], i, f ? "local" : "world", crowd_bone_name((crowd_bone)b),
                          got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3], crowd_simd_name(crowd_test_simd),
                          want[4 * i], want[4 * i + 1], want[4 * i + 2], want[4 * i + 3]);
        }
    }
}

/* How many bones of engine 0's both rig are untrusted (r = -1) and easing in (0 < r < 1):
 * the run must exercise them. */
static void count_tracking(run_engine *re, long *untrusted, long *easing) {
    const crowdi_rig *r = crowdi_rig_get(re->e, re->rig[0]);
    const crowdi_limbs_view *l = CROWDI_PART(r, LIMBS, const crowdi_limbs_view);
    if (!crowdi_limbs_track(l)) return;
    for (int b = 0; b < NB; b++)
        for (uint32_t row = 0; row < r->count; row++) {
            float v = l->limb_track[(size_t)b * l->limb_stride + row];
            *untrusted += v == -1.0f;
            *easing += v > 0.0f && v < 1.0f;
        }
}

/* World only and local only store, bit for bit, what both stores, over a long run of real
 * tracker trouble (dropouts and re-acquisition, degenerate and coincident landmarks, visibility
 * at the threshold, dt 0 and 1), on the target under test with one thread, with a pool of two,
 * and on the scalar target ticked by random range splits. */
static void test_same_bits(void **state) {
    (void)state;
    rng r = {4242};
    static float bind_pose[POSE_FLOATS];
    static crowd_quat binds[NB], custom[NB];
    static run_inputs in;
    static float sent[RUN_N][POSE_FLOATS];
    char ctx[64];
    for (int c = 0; c < RUN_CONFIGS; c++) {
        crowd_limbs_desc d = run_config(c, &r, bind_pose, binds, custom);
        static run_engine all[RUN_ENGINES];
        run_engine_create(&all[0], crowd_test_simd, 1, false, &d);
        run_engine_create(&all[1], crowd_test_simd, 2, false, &d);
        run_engine_create(&all[2], CROWD_SIMD_SCALAR, 1, true, &d);
        memset(&in, 0, sizeof in);
        for (int i = 0; i < RUN_N; i++) {
            det_pose(&r, in.pose[i]);
            q_store(q_random(&r), in.root[i]);
        }
        rng split = {c + 1u};
        long untrusted = 0, easing = 0;
        for (int tick = 1; tick <= RUN_TICKS; tick++) {
            run_step(&r, &in, sent);
            float dt = run_dt(&r);
            for (int x = 0; x < RUN_ENGINES; x++) {
                for (int k = 0; k < KINDS; k++) {
                    OK(all[x].e, crowd_instances_set(all[x].e, CROWD_FIELD_POSE, 0, all[x].h[k], RUN_N, &sent[0][0]));
                    OK(all[x].e, crowd_instances_set(all[x].e, CROWD_FIELD_ROOT, 0, all[x].h[k], RUN_N, &in.root[0][0]));
                }
                run_tick(&all[x], &split, dt);
            }
            snprintf(ctx, sizeof ctx, "config %d", c);
            for (int x = 0; x < RUN_ENGINES; x++)
                for (int k = 0; k < KINDS; k++) compare_kept(all, x, k, tick, ctx);
            count_tracking(&all[0], &untrusted, &easing);
        }
        if (crowdi_limbs_track(CROWDI_PART(crowdi_rig_get(all[0].e, all[0].rig[0]), LIMBS, const crowdi_limbs_view)) &&
            (untrusted < 1000 || easing < 1000))
            FAILF("config %d: the run left only %ld untrusted and %ld easing bone-ticks: it tests too little", c, untrusted,
                  easing);
        for (int x = 0; x < RUN_ENGINES; x++) crowd_engine_destroy(all[x].e);
    }
}

/* ---- unchecked columns beyond the field rules ---- */
/* Writes raw values into the pose or root columns of instance i of every kind's rig. */
static void write_raw(run_engine *re, crowd_field field, int i, const float *values) {
    for (int k = 0; k < KINDS; k++) {
        uint32_t row, count;
        float *cols[POSE_FLOATS];
        OK(re->e, crowd_instance_info(re->e, re->h[k][i], NULL, NULL, &row));
        OK(re->e, crowd_rig_columns(re->e, re->rig[k], field, 0, cols, &count));
        for (uint32_t c = 0; c < crowd_field_width(field); c++) cols[c][row] = values[c];
    }
}

static void expect_canonical_kept(run_engine *re, int k, const char *ctx) {
    float q[4];
    char what[128];
    for (int i = 0; i < RUN_N; i++)
        for (int b = 0; b < NB; b++)
            for (int f = 0; f < 2; f++) {
                crowd_field field = f ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
                if ((f == 0 && kinds[k] == CROWD_LIMB_OUTPUTS_LOCAL) || (f == 1 && kinds[k] == CROWD_LIMB_OUTPUTS_WORLD))
                    continue;
                OK(re->e, crowd_get(re->e, re->h[k][i], field, (uint32_t)b, q));
                snprintf(what, sizeof what, "%s: outputs %s instance %d %s %s", ctx, kind_names[k], i, f ? "local" : "world",
                         crowd_bone_name((crowd_bone)b));
                check_canonical(q, what);
            }
}

/* Values no crowd_set accepts, written through the columns (a non-unit or zero root, NaN or
 * enormous landmarks): world only still stores what both stores, bit for bit (it keeps the
 * last world such a bone holds); local only never makes a NaN, and the tick after, on clean
 * input, stores what both stores again (crowd.h: only the children of a bone that cannot be
 * solved can differ, on that tick). */
static void test_unchecked_columns(void **state) {
    (void)state;
    rng r = {77};
    static float bind_pose[POSE_FLOATS];
    static crowd_quat binds[NB], custom[NB];
    const int configs[2] = {1, 3}; /* tracked, and threshold 0; no smoothing (NaN would stay in its state) */
    for (int ci = 0; ci < 2; ci++) {
        crowd_limbs_desc d = run_config(configs[ci], &r, bind_pose, binds, custom);
        static run_engine all[1];
        run_engine_create(&all[0], crowd_test_simd, 1, false, &d);
        static float poses[RUN_N][POSE_FLOATS], roots[RUN_N][4];
        for (int i = 0; i < RUN_N; i++) {
            qd root;
            random_bent_pose(&r, poses[i], &root);
            q_store(root, roots[i]);
        }
        const float bad_roots[][4] = {{2, 2, 2, 2}, {0, 0, 0, 0}, {3e38f, 3e38f, 3e38f, 3e38f}, {NAN, 0, 0, 1}};
        char ctx[96];
        for (int tick = 1; tick <= 40; tick++) {
            for (int i = 0; i < RUN_N; i++)
                for (int k = 0; k < POSE_FLOATS; k++)
                    if (k % 4 != 3) poses[i][k] += (float)rng_range(&r, -0.003, 0.003);
            for (int k = 0; k < KINDS; k++) {
                OK(all[0].e, crowd_instances_set(all[0].e, CROWD_FIELD_POSE, 0, all[0].h[k], RUN_N, &poses[0][0]));
                OK(all[0].e, crowd_instances_set(all[0].e, CROWD_FIELD_ROOT, 0, all[0].h[k], RUN_N, &roots[0][0]));
            }
            const bool bad = tick % 2 == 0;
            if (bad) { /* a few instances get values outside the rules */
                for (int n = 0; n < 6; n++) {
                    int i = (int)rng_below(&r, RUN_N);
                    float p[POSE_FLOATS];
                    memcpy(p, poses[i], sizeof p);
                    switch (rng_below(&r, 4)) {
                    case 0: write_raw(&all[0], CROWD_FIELD_ROOT, i, bad_roots[rng_below(&r, 4)]); break;
                    case 1: p[4 * (int)rng_below(&r, NL) + (int)rng_below(&r, 3)] = NAN; write_raw(&all[0], CROWD_FIELD_POSE, i, p); break;
                    case 2:
                        for (int k = 0; k < POSE_FLOATS; k++)
                            if (k % 4 != 3) p[k] *= 1e30f;
                        write_raw(&all[0], CROWD_FIELD_POSE, i, p);
                        break;
                    default: p[4 * CROWDI_LM_LEFT_WRIST] = INFINITY; write_raw(&all[0], CROWD_FIELD_POSE, i, p); break;
                    }
                }
            }
            OK(all[0].e, crowd_tick(all[0].e, 1.0f / 30.0f));
            snprintf(ctx, sizeof ctx, "config %d%s", configs[ci], bad ? " (values outside the rules)" : "");
            compare_kept(all, 0, 1, tick, ctx); /* world only: always */
            if (!bad) compare_kept(all, 0, 2, tick, ctx);
            for (int k = 0; k < KINDS; k++) expect_canonical_kept(&all[0], k, ctx);
        }
        crowd_engine_destroy(all[0].e);
    }
}

/* ---- refusals ---- */
typedef struct blob_bytes {
    unsigned char *p;
    size_t n;
} blob_bytes;

static void snapshot_bytes(crowd_engine *e, blob_bytes *out) {
    OK(e, crowd_snapshot_size(e, &out->n));
    out->p = malloc(out->n);
    assert_non_null(out->p);
    OK(e, crowd_snapshot_save(e, out->p, out->n, &out->n));
}

static void expect_refused(crowd_engine *e, crowd_result got, crowd_result want, const char *what, const char *const *words) {
    if (got != want) FAILF("ENGINE BUG: %s -> %s, want %s (%s)", what, rname(got), rname(want), crowd_last_error(e));
    for (int k = 0; words[k]; k++)
        if (!strstr(crowd_last_error(e), words[k]))
            FAILF("ENGINE BUG: %s: the message \"%s\" does not say \"%s\"", what, crowd_last_error(e), words[k]);
}

/* Reading the kind a rig does not store is refused with CROWD_ERR_NOT_STORED and a message
 * naming the field, the rig and the setting, by every reading call; nothing is written to the
 * caller's buffers and nothing stored changes. */
static void test_refusals(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(5);
    crowd_limbs_desc d = crowd_limbs_defaults();
    crowd_rig rigs[KINDS];
    crowd_instance h[KINDS][2];
    for (int k = 0; k < KINDS; k++) {
        crowd_limbs_desc dk = with_outputs(d, kinds[k]);
        rigs[k] = limbs_rig(e, &dk, kind_names[k]);
        add_n(e, rigs[k], 2, h[k]);
    }
    float pose[POSE_FLOATS];
    standing_pose(pose);
    for (int k = 0; k < KINDS; k++)
        for (int i = 0; i < 2; i++) set_pose(e, h[k][i], pose);
    OK(e, crowd_tick(e, 1.0f / 30.0f));
    blob_bytes before, after;
    snapshot_bytes(e, &before);
    char what[128];
    for (int k = 1; k < KINDS; k++) {
        const crowd_field missing = kinds[k] == CROWD_LIMB_OUTPUTS_WORLD ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
        char rig_named[32];
        snprintf(rig_named, sizeof rig_named, "rig \"%s\"", kind_names[k]);
        const char *const words[] = {crowd_field_name(missing), rig_named, "limbs outputs",
                                     kinds[k] == CROWD_LIMB_OUTPUTS_WORLD ? "stores world rotations only"
                                                                          : "stores local rotations only",
                                     NULL};
        for (uint32_t b = 0; b < NB; b += 7) {
            float v[16];
            for (int c = 0; c < 16; c++) v[c] = -7.0f;
            snprintf(what, sizeof what, "crowd_get %s bone %u of outputs %s", crowd_field_name(missing), b, kind_names[k]);
            expect_refused(e, crowd_get(e, h[k][0], missing, b, v), CROWD_ERR_NOT_STORED, what, words);
            if (!strstr(crowd_last_error(e), "crowd_get")) FAILF("ENGINE BUG: %s: the message names no function", what);
            /* a call mixing a rig that stores it with one that does not: refused whole */
            const crowd_instance mixed[2] = {h[0][0], h[k][1]};
            snprintf(what, sizeof what, "crowd_instances_get %s of both and %s", crowd_field_name(missing), kind_names[k]);
            expect_refused(e, crowd_instances_get(e, missing, b, mixed, 2, v), CROWD_ERR_NOT_STORED, what, words);
            if (!strstr(crowd_last_error(e), "crowd_instances_get")) FAILF("ENGINE BUG: %s: the message names no function", what);
            for (int c = 0; c < 16; c++)
                if (v[c] != -7.0f) FAILF("ENGINE BUG: a refused read wrote values[%d]", c);
            float *col = (float *)&v[0], *cols[4] = {col, col, col, col};
            uint32_t count = 12345;
            snprintf(what, sizeof what, "crowd_rig_column %s of %s", crowd_field_name(missing), kind_names[k]);
            expect_refused(e, crowd_rig_column(e, rigs[k], missing, b, 0, &col, &count), CROWD_ERR_NOT_STORED, what, words);
            snprintf(what, sizeof what, "crowd_rig_columns %s of %s", crowd_field_name(missing), kind_names[k]);
            expect_refused(e, crowd_rig_columns(e, rigs[k], missing, b, cols, &count), CROWD_ERR_NOT_STORED, what, words);
            if (col != &v[0] || count != 12345 || cols[3] != &v[0]) FAILF("ENGINE BUG: a refused column call set its outputs");
            /* writing stays read only, as for every rig */
            const float unit[4] = {0, 0, 0, 1};
            if (crowd_set(e, h[k][0], missing, b, unit) != CROWD_ERR_READ_ONLY) FAILF("ENGINE BUG: %s accepted a write", what);
        }
        /* the kind kept reads */
        const crowd_field kept = missing == CROWD_FIELD_BONE_LOCAL ? CROWD_FIELD_BONE_WORLD : CROWD_FIELD_BONE_LOCAL;
        float q[4], *col;
        uint32_t count;
        OK(e, crowd_get(e, h[k][0], kept, 3, q));
        OK(e, crowd_rig_column(e, rigs[k], kept, 3, 2, &col, &count));
        assert_int_equal(count, 2);
    }
    snapshot_bytes(e, &after);
    if (before.n != after.n || memcmp(before.p, after.p, before.n) != 0) FAILF("ENGINE BUG: a refused read changed the state");
    free(before.p);
    free(after.p);
    crowd_engine_destroy(e);
}

/* An outputs value that is not a crowd_limb_outputs is refused, naming the field. */
static void test_bad_desc(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(6);
    const int bad[] = {CROWD_LIMB_OUTPUTS_COUNT, -1, 1000, 0x7fffffff};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        crowd_limbs_desc d = crowd_limbs_defaults();
        d.outputs = (crowd_limb_outputs)bad[k];
        char what[64];
        snprintf(what, sizeof what, "outputs %d", bad[k]);
        expect_rig_error(e, &d, CROWD_ERR_BAD_ENUM, "desc->limbs->outputs", NULL, what);
    }
    /* nothing was created: the next rig is the first */
    crowd_limbs_desc ok = crowd_limbs_defaults();
    crowd_rig rig = limbs_rig(e, &ok, "first");
    if (crowdi_rig_index(e, rig) != 0) FAILF("ENGINE BUG: refused rigs took a place");
    crowd_engine_destroy(e);
}

/* ---- snapshots ---- */
static crowd_engine *load_blob(const blob_bytes *b) {
    crowd_engine *e = crowd_test_engine(0);
    OK(e, crowd_snapshot_load(e, b->p, b->n));
    return e;
}

static crowd_result try_load(const unsigned char *p, size_t n, char *message, size_t cap) {
    crowd_engine *e = crowd_test_engine(0);
    crowd_result res = crowd_snapshot_load(e, p, n);
    snprintf(message, cap, "%s", crowd_last_error(e));
    crowd_engine_destroy(e);
    return res;
}

static void wr32(unsigned char *p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static uint32_t rd32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void reseal(unsigned char *p, size_t n) { /* the payload checksum of crowd.h section 10 */
    uint64_t sum = snapshot_checksum(p + 32, n - 32);
    for (int k = 0; k < 8; k++) p[24 + k] = (unsigned char)(sum >> (8 * k));
}

/* The setting round trips: a loaded engine stores and refuses the same kinds, has the same
 * storage and settings digests, and continues bit for bit. Rigs of different outputs have
 * different digests. */
static void test_snapshot_round_trip(void **state) {
    (void)state;
    rng r = {31};
    crowd_limbs_desc tracked = crowd_limbs_defaults(), untracked = crowd_limbs_defaults();
    untracked.visibility_threshold = 0.0f;
    const crowd_limbs_desc descs[4] = {with_outputs(tracked, CROWD_LIMB_OUTPUTS_BOTH), with_outputs(tracked, CROWD_LIMB_OUTPUTS_WORLD),
                                       with_outputs(untracked, CROWD_LIMB_OUTPUTS_WORLD),
                                       with_outputs(tracked, CROWD_LIMB_OUTPUTS_LOCAL)};
    crowd_engine *a = crowd_test_engine(8);
    crowd_rig rigs[4];
    crowd_instance h[4][10];
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "rig%d", k);
        rigs[k] = limbs_rig(a, &descs[k], name);
        add_n(a, rigs[k], 10, h[k]);
    }
    uint64_t digest[4];
    for (int k = 0; k < 4; k++) OK(a, crowd_rig_settings_digest(a, rigs[k], &digest[k]));
    for (int k = 0; k < 4; k++)
        for (int m = k + 1; m < 4; m++)
            if (digest[k] == digest[m]) FAILF("ENGINE BUG: rigs %d and %d (other outputs) have one settings digest", k, m);
    static float poses[10][POSE_FLOATS];
    for (int i = 0; i < 10; i++) det_pose(&r, poses[i]);
    crowd_engine *b = NULL;
    for (int tick = 0; tick < 40; tick++) {
        if (tick == 20) { /* save, load, and run both on */
            blob_bytes s;
            snapshot_bytes(a, &s);
            if (rd32(s.p + 8) != 6) FAILF("ENGINE BUG: the snapshot is version %u, want 6", rd32(s.p + 8));
            b = load_blob(&s);
            free(s.p);
            for (int k = 0; k < 4; k++) {
                uint64_t dg;
                OK(b, crowd_rig_settings_digest(b, rigs[k], &dg));
                if (dg != digest[k]) FAILF("ENGINE BUG: rig %d's digest changed in the load", k);
                if (bytes_per_instance(a, rigs[k]) != bytes_per_instance(b, rigs[k]))
                    FAILF("ENGINE BUG: rig %d's storage changed in the load", k);
                float q[4];
                crowd_result w = crowd_get(b, h[k][0], CROWD_FIELD_BONE_WORLD, 0, q),
                             l = crowd_get(b, h[k][0], CROWD_FIELD_BONE_LOCAL, 0, q);
                const bool want_w = descs[k].outputs != CROWD_LIMB_OUTPUTS_LOCAL, want_l = descs[k].outputs != CROWD_LIMB_OUTPUTS_WORLD;
                if ((w == CROWD_OK) != want_w || (w != CROWD_OK && w != CROWD_ERR_NOT_STORED) || (l == CROWD_OK) != want_l ||
                    (l != CROWD_OK && l != CROWD_ERR_NOT_STORED))
                    FAILF("ENGINE BUG: loaded rig %d (outputs %d) reads world -> %s, local -> %s", k, (int)descs[k].outputs,
                          rname(w), rname(l));
            }
        }
        for (int i = 0; i < 10; i++) {
            for (int c = 0; c < POSE_FLOATS; c++)
                if (c % 4 != 3) poses[i][c] += (float)rng_range(&r, -0.01, 0.01);
                else if (rng_chance(&r, 0.05)) poses[i][c] = rng_chance(&r, 0.5) ? 0.1f : 1.0f;
        }
        float dt = run_dt(&r);
        crowd_engine *both[2] = {a, b};
        for (int x = 0; x < (b ? 2 : 1); x++) {
            for (int k = 0; k < 4; k++) OK(both[x], crowd_instances_set(both[x], CROWD_FIELD_POSE, 0, h[k], 10, &poses[0][0]));
            OK(both[x], crowd_tick(both[x], dt));
        }
    }
    blob_bytes sa, sb;
    snapshot_bytes(a, &sa);
    snapshot_bytes(b, &sb);
    if (sa.n != sb.n || memcmp(sa.p, sb.p, sa.n) != 0) FAILF("ENGINE BUG: the loaded engine did not continue bit for bit");
    /* the outputs bits of a limbs rig: payload seed 8, next id 8, tag 4, rig count 4; rig "rig0":
     * name 4 + 4, parameter count 4, controller flags 4; limbs: frame, axis_fix, fallback 4 each,
     * signs 16, threshold, half-lives, bend_min, bend_full 20; then smoothing | outputs << 1 */
    const size_t word = 32 + 24 + 8 + 4 + 4 + 12 + 16 + 20;
    if (rd32(sa.p + word) != 0) FAILF("the limbs word of rig0 (both, no smoothing) is %u, not 0: the offset is wrong", rd32(sa.p + word));
    char msg[512];
    unsigned char *c = malloc(sa.n);
    assert_non_null(c);
    /* one word of the snapshot changed (the payload checksum recomputed): refused, the message
     * naming the fault where `names` is given */
    const struct {
        size_t at;
        uint32_t value;
        const char *names, *what;
    } refusals[] = {
        {word, 3u << 1, "outputs", "a snapshot with limbs outputs 3 was not refused naming outputs"},
        /* outputs local on rows saved with both: the columns do not match (world only at this
         * threshold has both's columns: the local ones are its ease state) */
        {word, 2u << 1, "columns", "rows of both loaded as outputs local"},
        /* version 2 knows no outputs: a rig saved with outputs world reads there as smoothing
         * on, whose columns do not match either (the version is in the header: the checksum
         * stays) */
        {8, 2, NULL, "a version 4 blob with outputs world loaded as version 2"},
    };
    for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++) {
        memcpy(c, sa.p, sa.n);
        wr32(c + refusals[k].at, refusals[k].value);
        reseal(c, sa.n);
        if (try_load(c, sa.n, msg, sizeof msg) != CROWD_ERR_BAD_SNAPSHOT || (refusals[k].names && !strstr(msg, refusals[k].names)))
            FAILF("ENGINE BUG: %s (%s)", refusals[k].what, msg);
    }
    free(c);
    /* a non-unit held local rotation (outputs world, tracked) is refused: the tick eases from it */
    crowdi_rig *wr = crowdi_rig_get(a, rigs[1]);
    const crowdi_limbs_view *wl = CROWDI_PART(wr, LIMBS, const crowdi_limbs_view);
    wl->limb_local[(4 * CROWD_BONE_LEFT_FOOT) * wl->limb_stride + 3] = 2.0f; /* the group: stride rows per column */
    blob_bytes bad;
    snapshot_bytes(a, &bad);
    if (try_load(bad.p, bad.n, msg, sizeof msg) != CROWD_ERR_BAD_SNAPSHOT || !strstr(msg, "held local rotation") ||
        !strstr(msg, "left_foot"))
        FAILF("ENGINE BUG: a non-unit held local rotation was not refused (%s)", msg);
    free(bad.p);
    free(sa.p);
    free(sb.p);
    crowd_engine_destroy(a);
    crowd_engine_destroy(b);
}

/* The scenario of tests/fixtures/limbs_v2.snapshot, which the library wrote before outputs
 * existed (format version 2, commit acdfb05) from exactly this code: two limbs rigs (one
 * tracked and smoothed in the mediapipe frame, one at threshold 0 with fallback previous in
 * the engine frame), a few instances each, poses with dropouts, 12 ticks. */
static int v2_scenario(crowd_engine **out) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.seed = 5;
    ed.simd = CROWD_SIMD_SCALAR;
    crowd_engine *e = NULL;
    if (crowd_engine_create(&ed, &e) != CROWD_OK) return -1;
    crowd_limbs_desc tracked = crowd_limbs_defaults();
    tracked.smoothing = true;
    crowd_limbs_desc plain = crowd_limbs_defaults();
    plain.frame = CROWD_FRAME_ENGINE;
    plain.axis_fix = CROWD_AXIS_FIX_Z_ALONG_BONE;
    plain.fallback = CROWD_FALLBACK_PREVIOUS;
    plain.visibility_threshold = 0.0f;
    const crowd_limbs_desc *descs[2] = {&tracked, &plain};
    const char *names[2] = {"tracked", "plain"};
    const uint32_t counts[2] = {4, 3};
    crowd_rig rigs[2];
    crowd_instance h[2][4];
    for (int r = 0; r < 2; r++) {
        crowd_rig_desc rd = crowd_rig_defaults();
        rd.name = names[r];
        rd.limbs = descs[r];
        crowd_add_desc ad;
        if (crowd_rig_create(e, &rd, &rigs[r]) != CROWD_OK) return -1;
        ad = crowd_add_defaults(rigs[r], counts[r]);
        if (crowd_instances_add(e, &ad, h[r]) != CROWD_OK) return -1;
    }
    for (int k = 0; k < 12; k++) {
        for (int r = 0; r < 2; r++)
            for (uint32_t i = 0; i < counts[r]; i++) {
                float lm[CROWD_LANDMARK_COUNT * 4];
                crowd_rest_landmarks(descs[r]->frame, lm);
                for (int m = 0; m < CROWD_LANDMARK_COUNT; m++) {
                    lm[4 * m] += 0.01f * (float)((m * 7 + k * 3 + (int)i) % 11 - 5);
                    lm[4 * m + 2] += 0.02f * (float)((m * 5 + k * 2 + (int)i * 3) % 7 - 3);
                    /* dropouts: some landmarks unseen on some ticks */
                    lm[4 * m + 3] = (m + k + (int)i) % 9 == 0 ? 0.1f : 0.9f;
                }
                if (crowd_set(e, h[r][i], CROWD_FIELD_POSE, 0, lm) != CROWD_OK) return -1;
            }
        if (crowd_tick(e, 1.0f / 30.0f) != CROWD_OK) return -1;
    }
    *out = e;
    return 0;
}

static void read_file(const char *path, blob_bytes *out) {
    FILE *f = fopen(path, "rb");
    if (!f) FAILF("cannot open %s: %s", path, strerror(errno));
    out->p = malloc(1 << 20);
    assert_non_null(out->p);
    out->n = fread(out->p, 1, 1 << 20, f);
    fclose(f);
}

/* A version 2 snapshot (written before outputs existed, under SPEC 5.1 revision 1): its tracked
 * rig's state held the rotation a re-acquired bone eased from, which revision 2 has no place
 * for, so the load is refused naming the rig, the limbs and the version, and the engine keeps
 * what it had. Its rig at threshold 0 alone, as version 3 writes it (the settings without
 * arm_image_bend), loads with arm_image_bend 15 and continues bit for bit with the engine it
 * was saved from: the side state means the same in both revisions. */
static void test_v2_snapshot(void **state) {
    (void)state;
    blob_bytes old;
    read_file(CROWD_TEST_FIXTURES "/limbs_v2.snapshot", &old);
    if (old.n < 32 || memcmp(old.p, "CROWDSNP", 8) != 0 || rd32(old.p + 8) != 2) FAILF("the fixture is not a version 2 snapshot");
    crowd_engine *s = NULL;
    if (v2_scenario(&s) != 0) FAILF("the scenario failed: %s", s ? crowd_last_error(s) : "");
    blob_bytes before, after;
    snapshot_bytes(s, &before);
    crowd_result res = crowd_snapshot_load(s, old.p, old.n);
    const char *msg = crowd_last_error(s);
    if (res != CROWD_ERR_BAD_SNAPSHOT || !strstr(msg, "rigs[0].limbs") || !strstr(msg, "version 2") || !strstr(msg, "revision"))
        FAILF("ENGINE BUG: the version 2 snapshot of a tracked rig gave %s (%s), want a refusal naming rigs[0].limbs, the "
              "version and the revision", rname(res), msg);
    snapshot_bytes(s, &after);
    if (after.n != before.n || memcmp(after.p, before.p, after.n) != 0) FAILF("ENGINE BUG: the refused load changed the engine");
    free(before.p);
    free(after.p);
    crowd_engine_destroy(s);
    free(old.p);

    /* version 3 of an untracked rig: a version 5 snapshot less arm_image_bend (the float after
     * d_cutoff, which the rig sets to a value found once in the blob) and less level of detail
     * (version 5: its settings, the 12 bytes after arm_image_bend, and its 3 columns, the rig's
     * last) */
    crowd_engine *a = crowd_test_engine(9);
    crowd_limbs_desc plain = crowd_limbs_defaults();
    plain.frame = CROWD_FRAME_ENGINE;
    plain.fallback = CROWD_FALLBACK_PREVIOUS;
    plain.visibility_threshold = 0.0f;
    plain.d_cutoff = 2.7182817f;
    crowd_rig rig = limbs_rig(a, &plain, "plain");
    crowd_instance h[5];
    add_n(a, rig, 5, h);
    rng r = {41};
    static float poses[5][POSE_FLOATS];
    for (int i = 0; i < 5; i++) det_pose(&r, poses[i]);
    for (int tick = 0; tick < 30; tick++) {
        static float bl[5 * 4], ba[5 * 4];
        crowd_engine *l = NULL;
        if (tick == 15) {
            blob_bytes v4;
            snapshot_bytes(a, &v4);
            size_t at = 0, hits = 0;
            const float mark = plain.d_cutoff, fifteen = 15.0f;
            for (size_t k = 32; k + 8 <= v4.n; k++)
                if (memcmp(v4.p + k, &mark, 4) == 0 && memcmp(v4.p + k + 4, &fifteen, 4) == 0) at = k + 4, hits++;
            if (hits != 1) FAILF("d_cutoff then arm_image_bend 15 occur %zu times in the snapshot", hits);
            const size_t rows_at = at + 4 + 12; /* u32 rows, u32 running, u32 columns, the columns */
            const uint32_t rows = rd32(v4.p + rows_at), columns = rd32(v4.p + rows_at + 8);
            const size_t lod_at = rows_at + 12 + (size_t)(columns - 3) * rows * 4, lod_bytes = (size_t)3 * rows * 4;
            const size_t n3 = v4.n - 4 - 12 - lod_bytes;
            unsigned char *old3 = malloc(n3);
            assert_non_null(old3);
            memcpy(old3, v4.p, at);
            memcpy(old3 + at, v4.p + at + 4 + 12, lod_at - (at + 4 + 12));
            memcpy(old3 + at + (lod_at - (at + 16)), v4.p + lod_at + lod_bytes, v4.n - lod_at - lod_bytes);
            wr32(old3 + at + (rows_at - (at + 16)) + 8, columns - 3);
            wr32(old3 + 8, 3);
            const uint64_t payload = n3 - 32;
            for (int k = 0; k < 8; k++) old3[16 + k] = (unsigned char)(payload >> (8 * k));
            reseal(old3, n3);
            l = crowd_test_engine(0);
            OK(l, crowd_snapshot_load(l, old3, n3));
            /* the tick reads arm_image_bend as its sine (the limbs' view) */
            const float sin15 = (float)sin(15.0 * (3.14159265358979323846 / 180.0)),
                        loaded = CROWDI_PART(crowdi_rig_get(l, crowdi_rig_handle(l, 0)), LIMBS, const crowdi_limbs_view)
                                     ->limb_arm_image_sin;
            if (loaded != sin15)
                FAILF("ENGINE BUG: a version 3 rig loaded with sin(arm_image_bend) %.9g, want sin(15 degrees) %.9g",
                      (double)loaded, (double)sin15);
            /* it continues as the engine it came from */
            for (int k = 0; k < 15; k++) {
                crowd_engine *both[2] = {a, l};
                for (int i = 0; i < 5; i++)
                    for (int c = 0; c < POSE_FLOATS; c++)
                        if (c % 4 != 3) poses[i][c] += (float)rng_range(&r, -0.02, 0.02);
                for (int x = 0; x < 2; x++) {
                    OK(both[x], crowd_instances_set(both[x], CROWD_FIELD_POSE, 0, h, 5, &poses[0][0]));
                    OK(both[x], crowd_tick(both[x], 1.0f / 30.0f));
                }
                for (int b = 0; b < NB; b++) {
                    OK(a, crowd_instances_get(a, CROWD_FIELD_BONE_LOCAL, (uint32_t)b, h, 5, ba));
                    OK(l, crowd_instances_get(l, CROWD_FIELD_BONE_LOCAL, (uint32_t)b, h, 5, bl));
                    if (memcmp(ba, bl, sizeof ba) != 0)
                        FAILF("ENGINE BUG: %d ticks after loading the version 3 snapshot: %s differs", k + 1,
                              crowd_bone_name((crowd_bone)b));
                }
            }
            free(old3);
            free(v4.p);
            crowd_engine_destroy(l);
            break;
        }
        for (int i = 0; i < 5; i++)
            for (int c = 0; c < POSE_FLOATS; c++)
                if (c % 4 != 3) poses[i][c] += (float)rng_range(&r, -0.02, 0.02);
        OK(a, crowd_instances_set(a, CROWD_FIELD_POSE, 0, h, 5, &poses[0][0]));
        OK(a, crowd_tick(a, 1.0f / 30.0f));
    }
    crowd_engine_destroy(a);
}

/* ------------------------------------------------------------------------------------------ */
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest outputs[] = {
        cmocka_unit_test(test_default_and_storage), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_bad_desc),            cmocka_unit_test(test_same_bits),
        cmocka_unit_test(test_unchecked_columns),   cmocka_unit_test(test_snapshot_round_trip),
        cmocka_unit_test(test_v2_snapshot),
    };
    return CROWD_TEST_GROUP("outputs", outputs) ? 1 : 0;
}
