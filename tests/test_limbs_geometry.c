#include "limbs_suite.h"


/* ------------------------------------------------------------------------------------------
 * geometry over random bent poses
 * ---------------------------------------------------------------------------------------- */
#define GEO_POSES 300

typedef struct geo_run {
    float pose[GEO_POSES][POSE_FLOATS];
    qd root[GEO_POSES];
    bones out[GEO_POSES];
} geo_run;

/* Solves GEO_POSES random bent poses (random roots) in one tick of GEO_POSES instances. */
static geo_run *geo_solve(uint64_t seed, const crowd_limbs_desc *ld) {
    geo_run *g = calloc(1, sizeof *g);
    assert_non_null(g);
    crowd_engine *e = crowd_test_engine(seed);
    crowd_rig rig = limbs_rig(e, ld, "geo");
    crowd_instance h[GEO_POSES];
    add_n(e, rig, GEO_POSES, h);
    rng r = {seed};
    for (int i = 0; i < GEO_POSES; i++) {
        random_bent_pose(&r, g->pose[i], &g->root[i]);
        /* half the roots unrelated to the body: the root only feeds straight limbs and hips' local */
        if (i % 2) g->root[i] = q_random(&r);
        float q[4];
        q_store(g->root[i], q);
        g->root[i] = qf(q);
        set_root(e, h[i], g->root[i]);
        set_pose(e, h[i], g->pose[i]);
    }
    OK(e, crowd_tick(e, 1.0f / 30.0f));
    for (int i = 0; i < GEO_POSES; i++) read_bones(e, h[i], &g->out[i]);
    crowd_engine_destroy(e);
    return g;
}

static void test_unit_and_w(void **state) {
    (void)state;
    const crowd_axis_fix fixes[] = {CROWD_AXIS_FIX_Y_ALONG_BONE, CROWD_AXIS_FIX_Z_ALONG_BONE};
    for (int f = 0; f < 2; f++) {
        crowd_limbs_desc ld = engine_limbs(fixes[f]);
        geo_run *g = geo_solve(100 + (uint64_t)f, &ld);
        char ctx[64];
        for (int i = 0; i < GEO_POSES; i++) {
            snprintf(ctx, sizeof ctx, "fix %d pose %d", f, i);
            check_all_canonical(&g->out[i], ctx);
        }
        free(g);
    }
}

static void test_y_along_bone_directions(void **state) {
    (void)state;
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    geo_run *g = geo_solve(200, &ld);
    char ctx[64];
    for (int i = 0; i < GEO_POSES; i++) {
        snprintf(ctx, sizeof ctx, "pose %d", i);
        check_directions(&g->out[i], g->pose[i], false, 1e-5, ctx);
    }
    free(g);
}

static void test_z_along_bone_directions(void **state) {
    (void)state;
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Z_ALONG_BONE);
    geo_run *g = geo_solve(250, &ld);
    char ctx[128];
    for (int i = 0; i < GEO_POSES; i++)
        for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
            v3 a = lm_get(g->pose[i], limb_joints[l][0], false), m = lm_get(g->pose[i], limb_joints[l][1], false);
            v3 got = q_rot(g->out[i].world[limb_upper[l]], (v3){0, 0, 1}), want = v_norm0(v_sub(m, a));
            snprintf(ctx, sizeof ctx, "pose %d: %s +z on the bone", i, crowd_bone_name((crowd_bone)limb_upper[l]));
            if (!(v_maxdiff(got, want) <= 1e-5))
                FAILF("%s: (%g, %g, %g) vs (%g, %g, %g)", ctx, got.x, got.y, got.z, want.x, want.y, want.z);
        }
    free(g);
}

static void test_local_hierarchy(void **state) {
    (void)state;
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    geo_run *g = geo_solve(300, &ld);
    char ctx[64];
    for (int i = 0; i < GEO_POSES; i++) {
        snprintf(ctx, sizeof ctx, "pose %d", i);
        check_hierarchy(&g->out[i], g->root[i], 1e-5, ctx);
    }
    free(g);
}

/* Every bone, world and local, against the double reading of SPEC §5, for the presets and a
 * custom fix, in both frames. */
static void test_matches_reference(void **state) {
    (void)state;
    rng r = {400};
    crowd_quat custom[NB];
    qd custom_d[NB];
    for (int b = 0; b < NB; b++) {
        float q[4];
        q_store(q_random(&r), q);
        custom[b] = (crowd_quat){q[0], q[1], q[2], q[3]};
        custom_d[b] = qf(q);
    }
    for (int variant = 0; variant < 4; variant++) {
        crowd_limbs_desc ld = engine_limbs(variant == 1 ? CROWD_AXIS_FIX_Z_ALONG_BONE
                                           : variant == 2 ? CROWD_AXIS_FIX_CUSTOM
                                                          : CROWD_AXIS_FIX_Y_ALONG_BONE);
        ld.custom_fix = custom;
        bool flip = variant == 3;
        if (flip) ld.frame = CROWD_FRAME_MEDIAPIPE_WORLD;
        qd fix[NB];
        if (variant == 2) memcpy(fix, custom_d, sizeof fix);
        else preset_fix(ld.axis_fix, fix);
        geo_run *g = geo_solve(410 + (uint64_t)variant, &ld);
        /* geo_solve built engine-frame poses; for the MediaPipe frame the engine negated y, so
         * the reference reads them negated too */
        char what[128];
        for (int i = 0; i < GEO_POSES; i++) {
            ref_state st = ref_init(&ld);
            qd world[NB], local[NB];
            ref_solve(&st, g->pose[i], flip, g->root[i], fix, world, local);
            for (int b = 0; b < NB; b++) {
                snprintf(what, sizeof what, "variant %d pose %d world %s", variant, i, crowd_bone_name((crowd_bone)b));
                expect_q(g->out[i].world[b], world[b], 1e-5, what);
                snprintf(what, sizeof what, "variant %d pose %d local %s", variant, i, crowd_bone_name((crowd_bone)b));
                expect_q(g->out[i].local[b], local[b], 1e-5, what);
            }
        }
        free(g);
    }
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest geometry[] = {
        cmocka_unit_test(test_unit_and_w),
        cmocka_unit_test(test_y_along_bone_directions),
        cmocka_unit_test(test_z_along_bone_directions),
        cmocka_unit_test(test_local_hierarchy),
        cmocka_unit_test(test_matches_reference),
    };
    return CROWD_TEST_GROUP("geometry", geometry) ? 1 : 0;
}
