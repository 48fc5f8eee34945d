#include "limbs_suite.h"


/* ------------------------------------------------------------------------------------------
 * bad input
 * ---------------------------------------------------------------------------------------- */
typedef struct stored {
    float pose[2][POSE_FLOATS], root[2][4];
} stored;

static void read_stored(crowd_engine *e, const crowd_instance h[2], stored *s) {
    OK(e, crowd_instances_get(e, CROWD_FIELD_POSE, 0, h, 2, &s->pose[0][0]));
    OK(e, crowd_instances_get(e, CROWD_FIELD_ROOT, 0, h, 2, &s->root[0][0]));
}

static void expect_set_error(crowd_engine *e, const crowd_instance h[2], crowd_field f, const float *values, bool both,
                             crowd_result code, const char *const *names, const char *what) {
    stored before, after;
    read_stored(e, h, &before);
    crowd_result res = both ? crowd_instances_set(e, f, 0, h, 2, values) : crowd_set(e, h[1], f, 0, values);
    const char *msg = crowd_last_error(e);
    if (res != code) FAILF("ENGINE BUG: %s -> %s, want %s (%s)", what, rname(res), rname(code), msg);
    for (const char *const *n = names; *n; n++)
        if (!strstr(msg, *n)) FAILF("ENGINE BUG: %s: message \"%s\" does not name \"%s\"", what, msg, *n);
    read_stored(e, h, &after);
    if (memcmp(&before, &after, sizeof before) != 0) FAILF("ENGINE BUG: %s: stored pose/root changed on error", what);
}

static void test_bad_pose_and_root(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(700);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_rig rig = limbs_rig(e, &ld, "limbs");
    crowd_instance h[2];
    add_n(e, rig, 2, h);
    float pose[2][POSE_FLOATS];
    rng r = {701};
    qd root;
    random_bent_pose(&r, pose[0], &root);
    set_root(e, h[0], root);
    random_bent_pose(&r, pose[1], &root);
    set_root(e, h[1], root);
    OK(e, crowd_instances_set(e, CROWD_FIELD_POSE, 0, h, 2, &pose[0][0]));
    OK(e, crowd_tick(e, 1.0f / 30.0f));
    bones b0, b1;
    read_bones(e, h[1], &b0);

    float bad[2][POSE_FLOATS];
    const char *const nf[] = {"pose", "values[22]", NULL};
    /* single: values[k]; bulk: the second instance's values[132 + k] */
    const char *const nf_bulk[] = {"pose", "values[154]", NULL};
    const float nonfinite[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        memcpy(bad, pose, sizeof bad);
        bad[0][22] = nonfinite[i]; /* landmark 5's z */
        expect_set_error(e, h, CROWD_FIELD_POSE, bad[0], false, CROWD_ERR_NOT_FINITE, nf, "crowd_set pose, non-finite z");
        memcpy(bad, pose, sizeof bad);
        bad[1][22] = nonfinite[i];
        expect_set_error(e, h, CROWD_FIELD_POSE, bad[0], true, CROWD_ERR_NOT_FINITE, nf_bulk,
                         "crowd_instances_set pose, second instance non-finite");
    }
    const char *const vis[] = {"pose", "visibility", "values[55]", NULL};
    const char *const vis_bulk[] = {"pose", "visibility", "values[187]", NULL};
    const float bad_vis[] = {1.0000001f, 1.5f, -0.0001f, -1.0f};
    for (int i = 0; i < 4; i++) {
        memcpy(bad, pose, sizeof bad);
        bad[0][55] = bad_vis[i]; /* landmark 13's visibility */
        expect_set_error(e, h, CROWD_FIELD_POSE, bad[0], false, CROWD_ERR_RANGE, vis, "crowd_set pose, visibility out of [0, 1]");
        memcpy(bad, pose, sizeof bad);
        bad[1][55] = bad_vis[i];
        expect_set_error(e, h, CROWD_FIELD_POSE, bad[0], true, CROWD_ERR_RANGE, vis_bulk,
                         "crowd_instances_set pose, second instance's visibility out of [0, 1]");
    }
    memcpy(bad, pose, sizeof bad);
    bad[1][4 * 7 + 3] = NAN;
    const char *const vis_nan[] = {"pose", NULL};
    expect_set_error(e, h, CROWD_FIELD_POSE, bad[0], true, CROWD_ERR_NOT_FINITE, vis_nan, "visibility NaN");

    const char *const rootn[] = {"root", NULL};
    const float bad_roots[][4] = {{0, 0, 0, 2}, {0, 0, 0, 0}, {0.1f, 0, 0, 1}, {0.5f, 0.5f, 0.5f, 0.4f}};
    for (int i = 0; i < 4; i++) {
        float two[8] = {0, 0, 0, 1};
        memcpy(two + 4, bad_roots[i], sizeof bad_roots[i]);
        expect_set_error(e, h, CROWD_FIELD_ROOT, bad_roots[i], false, CROWD_ERR_RANGE, rootn, "crowd_set root, not unit");
        expect_set_error(e, h, CROWD_FIELD_ROOT, two, true, CROWD_ERR_RANGE, rootn, "crowd_instances_set root, second not unit");
    }
    const float nf_roots[][4] = {{NAN, 0, 0, 1}, {0, 0, 0, INFINITY}, {0, -INFINITY, 0, 1}};
    for (int i = 0; i < 3; i++) {
        float two[8] = {0, 0, 0, 1};
        memcpy(two + 4, nf_roots[i], sizeof nf_roots[i]);
        expect_set_error(e, h, CROWD_FIELD_ROOT, nf_roots[i], false, CROWD_ERR_NOT_FINITE, rootn, "crowd_set root, non-finite");
        expect_set_error(e, h, CROWD_FIELD_ROOT, two, true, CROWD_ERR_NOT_FINITE, rootn, "crowd_instances_set root, non-finite");
    }
    /* outputs are read only */
    float q[4] = {0, 0, 0, 1};
    if (crowd_set(e, h[0], CROWD_FIELD_BONE_WORLD, 0, q) != CROWD_ERR_READ_ONLY) FAILF("ENGINE BUG: bone_world accepted a write");
    if (crowd_set(e, h[0], CROWD_FIELD_BONE_LOCAL, 0, q) != CROWD_ERR_READ_ONLY) FAILF("ENGINE BUG: bone_local accepted a write");
    if (crowd_get(e, h[0], CROWD_FIELD_BONE_WORLD, NB, q) != CROWD_ERR_RANGE) FAILF("ENGINE BUG: bone index %d accepted", NB);
    /* and after all that, the same tick gives the same bones */
    OK(e, crowd_tick(e, 1.0f / 30.0f));
    read_bones(e, h[1], &b1);
    if (memcmp(&b0, &b1, sizeof b0) != 0) FAILF("ENGINE BUG: rejected writes changed the solution");
    crowd_engine_destroy(e);
}

static void test_bad_limbs_desc(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(750);
    crowd_limbs_desc good = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_rig rig = limbs_rig(e, &good, "good");
    crowd_instance h = add1(e, rig);
    crowd_quat custom[NB];
    for (int b = 0; b < NB; b++) custom[b] = (crowd_quat){0, 0, 0, 1};
    float bind_pose[POSE_FLOATS];
    a_pose(bind_pose);
    crowd_quat binds[NB];
    for (int b = 0; b < NB; b++) binds[b] = (crowd_quat){0, 0, 0, 1};

    crowd_limbs_desc d;
#define LIMBS_ROW_CHECK(what, code, field) expect_rig_error(e, &d, code, field, NULL, what)
#define ROW(n, change, code, field) VALIDITY_ROWS(n, d = good, change, LIMBS_ROW_CHECK, code, field)
    ROW(1, d.fallback_sign[2] = 0.5f, CROWD_ERR_RANGE, "fallback_sign[2]");
    ROW(1, d.fallback_sign[0] = 0.0f, CROWD_ERR_RANGE, "fallback_sign[0]");
    ROW(1, d.fallback_sign[3] = -2.0f, CROWD_ERR_RANGE, "fallback_sign[3]");
    ROW(1, d.fallback_sign[1] = NAN, CROWD_ERR_RANGE, "fallback_sign[1]");
    ROW(1, d.visibility_threshold = 1.5f, CROWD_ERR_RANGE, "visibility_threshold");
    ROW(1, d.visibility_threshold = -0.01f, CROWD_ERR_RANGE, "visibility_threshold");
    ROW(1, d.visibility_threshold = NAN, CROWD_ERR_NOT_FINITE, "visibility_threshold");
    ROW(1, d.hold_half_life = 0.0f, CROWD_ERR_RANGE, "hold_half_life");
    ROW(1, d.hold_half_life = -1.0f, CROWD_ERR_RANGE, "hold_half_life");
    ROW(1, d.hold_half_life = INFINITY, CROWD_ERR_NOT_FINITE, "hold_half_life");
    ROW(1, d.frame = CROWD_FRAME_COUNT, CROWD_ERR_BAD_ENUM, "frame");
    ROW(1, d.frame = (crowd_pose_frame)-1, CROWD_ERR_BAD_ENUM, "frame");
    ROW(1, d.axis_fix = CROWD_AXIS_FIX_COUNT, CROWD_ERR_BAD_ENUM, "axis_fix");
    ROW(1, d.fallback = CROWD_FALLBACK_COUNT, CROWD_ERR_BAD_ENUM, "fallback");
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CUSTOM, d.custom_fix = NULL), CROWD_ERR_NULL, "custom_fix");
    custom[7] = (crowd_quat){0, 0, 0, 2};
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CUSTOM, d.custom_fix = custom), CROWD_ERR_RANGE, "custom_fix[7]");
    custom[7] = (crowd_quat){0.1f, 0, 0, 1};
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CUSTOM, d.custom_fix = custom), CROWD_ERR_RANGE, "custom_fix[7]");
    custom[7] = (crowd_quat){0, 0, 0, 1};
    custom[14] = (crowd_quat){NAN, 0, 0, 1};
    {
        d = good;
        d.axis_fix = CROWD_AXIS_FIX_CUSTOM;
        d.custom_fix = custom;
        crowd_rig_desc rd = {.name = "bad", .limbs = &d};
        crowd_rig out;
        crowd_result res = crowd_rig_create(e, &rd, &out);
        if (res != CROWD_ERR_RANGE && res != CROWD_ERR_NOT_FINITE)
            FAILF("ENGINE BUG: custom_fix[14] NaN -> %s (%s)", rname(res), crowd_last_error(e));
        if (!strstr(crowd_last_error(e), "custom_fix[14]")) FAILF("ENGINE BUG: message \"%s\" does not name custom_fix[14]", crowd_last_error(e));
    }
    custom[14] = (crowd_quat){0, 0, 0, 1};
    ROW(1, (d.smoothing = true, d.min_cutoff = 0.0f), CROWD_ERR_RANGE, "min_cutoff");
    ROW(1, (d.smoothing = true, d.beta = -1.0f), CROWD_ERR_RANGE, "beta");
    ROW(1, (d.smoothing = true, d.d_cutoff = 0.0f), CROWD_ERR_RANGE, "d_cutoff");
    ROW(1, (d.smoothing = true, d.d_cutoff = NAN), CROWD_ERR_NOT_FINITE, "d_cutoff");
    /* SPEC 5.1's settings, checked whether smoothing is on or not */
    ROW(1, d.min_cutoff = -0.5f, CROWD_ERR_RANGE, "min_cutoff");
    ROW(1, d.min_cutoff = 2e6f, CROWD_ERR_RANGE, "min_cutoff");
    ROW(1, d.min_cutoff = INFINITY, CROWD_ERR_NOT_FINITE, "min_cutoff");
    ROW(1, d.beta = 1.5e6f, CROWD_ERR_RANGE, "beta");
    ROW(1, d.beta = NAN, CROWD_ERR_NOT_FINITE, "beta");
    ROW(1, d.d_cutoff = -1.0f, CROWD_ERR_RANGE, "d_cutoff");
    ROW(1, d.d_cutoff = 1e7f, CROWD_ERR_RANGE, "d_cutoff");
    ROW(1, d.hold_half_life = 3600.5f, CROWD_ERR_RANGE, "hold_half_life");
    ROW(1, d.hold_half_life = NAN, CROWD_ERR_NOT_FINITE, "hold_half_life");
    ROW(1, d.reacquire_half_life = 0.0f, CROWD_ERR_RANGE, "reacquire_half_life");
    ROW(1, d.reacquire_half_life = -0.3f, CROWD_ERR_RANGE, "reacquire_half_life");
    ROW(1, d.reacquire_half_life = 3601.0f, CROWD_ERR_RANGE, "reacquire_half_life");
    ROW(1, d.reacquire_half_life = -INFINITY, CROWD_ERR_NOT_FINITE, "reacquire_half_life");
    ROW(1, d.bend_min = -1.0f, CROWD_ERR_RANGE, "bend_min");
    ROW(1, d.bend_min = 45.0f, CROWD_ERR_RANGE, "bend_min"); /* = bend_full */
    ROW(1, (d.bend_min = 50.0f, d.bend_full = 40.0f), CROWD_ERR_RANGE, "bend_full");
    ROW(1, d.bend_full = 90.5f, CROWD_ERR_RANGE, "bend_full");
    ROW(1, d.bend_min = NAN, CROWD_ERR_NOT_FINITE, "bend_min");
    ROW(1, d.bend_full = INFINITY, CROWD_ERR_NOT_FINITE, "bend_full");
    ROW(1, (d.bend_min = 89.9999f, d.bend_full = 90.0f), CROWD_ERR_RANGE, "bend_full"); /* equal sines */
    ROW(1, d.arm_image_bend = -0.5f, CROWD_ERR_RANGE, "arm_image_bend");
    ROW(1, d.arm_image_bend = 90.5f, CROWD_ERR_RANGE, "arm_image_bend");
    ROW(1, d.arm_image_bend = NAN, CROWD_ERR_NOT_FINITE, "arm_image_bend");
    ROW(1, d.arm_image_bend = INFINITY, CROWD_ERR_NOT_FINITE, "arm_image_bend");
    ROW(1, d.fallback = (crowd_limb_fallback)-1, CROWD_ERR_BAD_ENUM, "fallback");
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CALIBRATED, d.bind_landmarks = NULL, d.bind_rotations = binds), CROWD_ERR_NULL,
        "bind_landmarks");
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CALIBRATED, d.bind_landmarks = bind_pose, d.bind_rotations = NULL), CROWD_ERR_NULL,
        "bind_rotations");
    bind_pose[4 * 20 + 1] = NAN;
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CALIBRATED, d.bind_landmarks = bind_pose, d.bind_rotations = binds),
        CROWD_ERR_NOT_FINITE, "bind_landmarks");
    a_pose(bind_pose);
    binds[4] = (crowd_quat){0, 0, 0.5f, 0.5f};
    ROW(1, (d.axis_fix = CROWD_AXIS_FIX_CALIBRATED, d.bind_landmarks = bind_pose, d.bind_rotations = binds),
        CROWD_ERR_RANGE, "bind_rotations[4]");
#undef ROW
#undef LIMBS_ROW_CHECK
    /* nothing changed: the existing rig still has its one instance, and a good rig still goes in */
    if (crowd_rig_instance_count(e, rig) != 1) FAILF("ENGINE BUG: rejected rigs changed an existing rig");
    crowd_limbs_desc again = good;
    crowd_rig rig2 = limbs_rig(e, &again, "good2");
    crowd_instance h2 = add1(e, rig2);
    float pose[POSE_FLOATS];
    standing_pose(pose);
    bones b1, b2;
    set_pose(e, h, pose);
    set_pose(e, h2, pose);
    OK(e, crowd_tick(e, 0.0f));
    read_bones(e, h, &b1);
    read_bones(e, h2, &b2);
    if (memcmp(&b1, &b2, sizeof b1) != 0) FAILF("ENGINE BUG: a rig created after rejected ones solves differently");
    crowd_engine_destroy(e);
}

/* Finite landmarks of any size are accepted input, and SPEC §6 says the tick never makes NaN
 * or Inf from accepted input. */
/* Writes a pose through the zero-copy columns (unchecked), ticks, reads the bones. */
static void solve_raw(crowd_engine *e, crowd_instance h, const float *pose, float dt, bones *b) {
    crowd_rig rig;
    uint32_t row, count;
    float *cols[POSE_FLOATS];
    OK(e, crowd_instance_info(e, h, NULL, &rig, &row));
    OK(e, crowd_rig_columns(e, rig, CROWD_FIELD_POSE, 0, cols, &count));
    for (int k = 0; k < POSE_FLOATS; k++) cols[k][row] = pose[k];
    OK(e, crowd_tick(e, dt));
    read_bones(e, h, b);
}

/* Coordinates within +-1e9 are accepted and solved without overflow; beyond, crowd_set
 * refuses them, and written through the unchecked columns they still give finite unit
 * rotations (the bone holds). */
static void test_extreme_landmarks(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(780);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    ld.smoothing = true;
    ld.fallback = CROWD_FALLBACK_PREVIOUS;
    crowd_instance h = add1(e, limbs_rig(e, &ld, "extreme"));
    const double scales[] = {1e-30, 1e-6, 1e6, 5e8, 1e15, 1e18, 1e19, 1e20, 1e30, 1e37};
    float pose[POSE_FLOATS];
    bones b;
    char ctx[64];
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
        standing_pose(pose);
        float largest = 0;
        for (int k = 0; k < POSE_FLOATS; k++)
            if (k % 4 != 3) {
                pose[k] = (float)(pose[k] * scales[s]);
                largest = fmaxf(largest, fabsf(pose[k]));
            }
        snprintf(ctx, sizeof ctx, "standing pose scaled by %g", scales[s]);
        if (largest <= 1e9f) {
            solve(e, h, pose, 1.0f / 30.0f, &b);
        } else {
            if (crowd_set(e, h, CROWD_FIELD_POSE, 0, pose) != CROWD_ERR_RANGE)
                FAILF("%s: crowd_set accepted a coordinate of %g", ctx, (double)largest);
            if (!strstr(crowd_last_error(e), "within"))
                FAILF("%s: the message does not name the bound: %s", ctx, crowd_last_error(e));
            solve_raw(e, h, pose, 1.0f / 30.0f, &b);
        }
        check_all_canonical(&b, ctx);
    }
    /* FLT_MAX-sized coordinates of mixed sign, through the columns */
    standing_pose(pose);
    for (int k = 0; k < NL; k++)
        for (int c = 0; c < 3; c++) pose[4 * k + c] = ((k + c) % 3 == 0 ? -1.0f : 1.0f) * FLT_MAX * (float)(0.25 + 0.02 * k);
    solve_raw(e, h, pose, 1.0f / 30.0f, &b);
    check_all_canonical(&b, "landmarks near FLT_MAX");
    crowd_engine_destroy(e);
}

/* A root written through the unchecked column that is not unit (too long, too short, huge)
 * must not leak into the outputs: the hips, which read it, hold; and nothing stored turns
 * into NaN for the ticks after it (a dropout then eases from what was held). */
static void test_unchecked_root(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(783);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_rig rig = limbs_rig(e, &ld, "roots");
    crowd_instance h = add1(e, rig);
    float pose[POSE_FLOATS];
    standing_pose(pose);
    bones b;
    solve(e, h, pose, 1.0f / 30.0f, &b);
    uint32_t row, count;
    float *root[4];
    OK(e, crowd_instance_info(e, h, NULL, NULL, &row));
    OK(e, crowd_rig_columns(e, rig, CROWD_FIELD_ROOT, 0, root, &count));
    const float bad[][4] = {{2, 2, 2, 2}, {3e38f, 3e38f, 3e38f, 3e38f}, {1e-20f, 0, 0, 1e-20f}, {0, 0, 0, 0}};
    char ctx[96];
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        for (int c = 0; c < 4; c++) root[c][row] = bad[k][c];
        OK(e, crowd_tick(e, 1.0f / 30.0f));
        read_bones(e, h, &b);
        snprintf(ctx, sizeof ctx, "root (%g, %g, %g, %g) written through the column", (double)bad[k][0],
                 (double)bad[k][1], (double)bad[k][2], (double)bad[k][3]);
        check_all_canonical(&b, ctx);
        /* then a unit root again, with the left hip unseen: the hips ease from what they held */
        for (int c = 0; c < 4; c++) root[c][row] = c == 3 ? 1.0f : 0.0f;
        pose[4 * 23 + 3] = 0.1f;
        solve(e, h, pose, 1.0f / 30.0f, &b);
        snprintf(ctx, sizeof ctx, "after root (%g, ...), with a hip dropout", (double)bad[k][0]);
        check_all_canonical(&b, ctx);
        pose[4 * 23 + 3] = 1.0f;
    }
    crowd_engine_destroy(e);
}

/* One Euro settings at the top of what is accepted (beta, min_cutoff 1e6) open the filter
 * nearly completely: never a NaN or a non-unit rotation, and with min_cutoff 1e6 at dt >= 1/30 s
 * the bones are the unsmoothed ones within 1e-4 (alpha = c/(c + 1) with c >= 2*pi*1e6/30). */
static void test_huge_filter_settings(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(784);
    crowd_limbs_desc raw = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE), wide_beta = raw, wide_cutoff = raw;
    wide_beta.smoothing = wide_cutoff.smoothing = true;
    wide_beta.beta = 1e6f;
    wide_cutoff.min_cutoff = 1e6f;
    crowd_instance h[3] = {add1(e, limbs_rig(e, &raw, "raw")), add1(e, limbs_rig(e, &wide_beta, "beta")),
                           add1(e, limbs_rig(e, &wide_cutoff, "cutoff"))};
    rng r = {784};
    float pose[POSE_FLOATS];
    bones b[3];
    const float dts[] = {1.0f / 30.0f, 1.0f, 1e-6f};
    for (int k = 0; k < 40; k++) {
        qd root;
        random_bent_pose(&r, pose, &root);
        for (int s = 0; s < 3; s++) {
            set_pose(e, h[s], pose);
            set_root(e, h[s], root);
        }
        OK(e, crowd_tick(e, dts[k % 3]));
        for (int s = 0; s < 3; s++) read_bones(e, h[s], &b[s]);
        for (int s = 1; s < 3; s++) check_all_canonical(&b[s], s == 1 ? "beta 1e6" : "min_cutoff 1e6");
        if (dts[k % 3] < 1.0f / 30.0f) continue;
        for (int s = 2; s < 3; s++) /* beta 1e6 opens the filter only where landmarks move */
            for (int bone = 0; bone < NB; bone++)
                if (!(q_dist(b[s].world[bone], b[0].world[bone]) <= 1e-4))
                    FAILF("frame %d, %s 1e6: %s is (%g, %g, %g, %g), unsmoothed (%g, %g, %g, %g)", k,
                          s == 1 ? "beta" : "min_cutoff", crowd_bone_name((crowd_bone)bone), b[s].world[bone].x,
                          b[s].world[bone].y, b[s].world[bone].z, b[s].world[bone].w, b[0].world[bone].x,
                          b[0].world[bone].y, b[0].world[bone].z, b[0].world[bone].w);
    }
    crowd_engine_destroy(e);
}

/* LookRotation depends on directions only (its thresholds aside), so a pose scaled anywhere
 * from centimetres to the largest accepted coordinates (1e9, landmarks up to 2e9 apart) gives
 * the same rotations: no product on the way overflows or falls into the overflow hold. */
static void scale_invariance(crowd_limb_fallback mode) {
    crowd_engine *e = crowd_test_engine(782);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    ld.fallback = mode;
    crowd_rig rig = limbs_rig(e, &ld, "scales");
    float base[2][POSE_FLOATS], pose[POSE_FLOATS];
    standing_pose(base[0]);
    a_pose(base[1]);
    for (int p = 0; p < 2; p++) {
        /* centred on its bounding box, so that the largest scale puts landmarks 2e9 apart */
        for (int c = 0; c < 3; c++) {
            float lo = base[p][c], hi = base[p][c];
            for (int k = 0; k < NL; k++) lo = fminf(lo, base[p][4 * k + c]), hi = fmaxf(hi, base[p][4 * k + c]);
            for (int k = 0; k < NL; k++) base[p][4 * k + c] -= 0.5f * (lo + hi);
        }
        float largest = 0;
        for (int k = 0; k < POSE_FLOATS; k++)
            if (k % 4 != 3) largest = fmaxf(largest, fabsf(base[p][k]));
        const double scales[] = {1.0, 0.05, 30.0, 1e3, 1e6, 1e8, 1e9 / largest};
        bones ref, b;
        for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
            for (int k = 0; k < POSE_FLOATS; k++) pose[k] = k % 4 == 3 ? base[p][k] : (float)(base[p][k] * scales[i]);
            crowd_instance h = add1(e, rig);
            solve(e, h, pose, 1.0f / 30.0f, i == 0 ? &ref : &b);
            if (i == 0) continue;
            for (int bone = 0; bone < NB; bone++) {
                double d = q_dist(b.world[bone], ref.world[bone]);
                if (!(d <= 2e-5))
                    FAILF("%s pose scaled by %g: %s is %.3g off its rotation at scale 1", p ? "A" : "standing",
                          scales[i], crowd_bone_name((crowd_bone)bone), d);
            }
        }
    }
    crowd_engine_destroy(e);
}
/* (stable: the torso bases and the side's reference are directions too) */
static void test_scale_invariance(void **state) {
    (void)state;
    scale_invariance(CROWD_FALLBACK_ROOT);
    scale_invariance(CROWD_FALLBACK_STABLE);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest validity[] = {
        cmocka_unit_test(test_bad_pose_and_root),
        cmocka_unit_test(test_bad_limbs_desc),
        cmocka_unit_test(test_extreme_landmarks),
        cmocka_unit_test(test_scale_invariance),
        cmocka_unit_test(test_unchecked_root),
        cmocka_unit_test(test_huge_filter_settings),
    };
    return CROWD_TEST_GROUP("validity", validity) ? 1 : 0;
}
