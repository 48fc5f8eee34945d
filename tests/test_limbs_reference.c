#include "limbs_suite.h"


/* ------------------------------------------------------------------------------------------
 * reference: SPEC §5's printed numbers
 * ---------------------------------------------------------------------------------------- */

/* The left leg as the SPEC gives it (hip (0,1,0), ankle (0,0,0)), the left foot with
 * toe - heel = (1,2,3)/8 and ankle - heel = (0,1,0)/8 (dyadic, so exact in float), the head
 * with fwd = (1,2,3)/8 and right = (3,0,-1)/16: cross(fwd, right) = (-2,10,-6)/128 =
 * (14*(0,1,0) - 2*(1,2,3))/128. A head "up" exactly parallel to (0,1,0) cannot be built
 * (cross(fwd, right) is always perpendicular to fwd = (1,2,3), and (0,1,0) is not), but
 * LookRotation only reads up's part perpendicular to forward, scaled by a positive factor, so
 * this head reaches LookRotation((1,2,3), (0,1,0)) too. */
static void reference_pose(float *pose, float knee_z) {
    standing_pose(pose);
    lm_put(pose, 23, (v3){0, 1, 0});
    lm_put(pose, 25, (v3){0, 0.5, knee_z});
    lm_put(pose, 27, (v3){0, 0, 0});
    lm_put(pose, 29, (v3){0, -0.125, 0});
    lm_put(pose, 31, (v3){0.125, 0.125, 0.375});
    lm_put(pose, 7, (v3){-0.09375, 1.5, 0.03125});
    lm_put(pose, 8, (v3){0.09375, 1.5, -0.03125});
    lm_put(pose, 0, (v3){0.125, 1.75, 0.375});
}

static const qd LOOK_123 = {-0.2746567, 0.1538565, 0.04457066, 0.9481062};

static void test_reference_legs(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_instance h = add1(e, limbs_rig(e, &ld, "legs"));
    float pose[POSE_FLOATS];
    bones b;

    reference_pose(pose, 0.1f);
    solve(e, h, pose, 0.0f, &b);
    expect_q(b.world[CROWD_BONE_LEFT_UPPER_LEG], (qd){0.9951333, 0, 0, 0.09853762}, 1e-6, "bent knee: left upper leg");
    expect_q(b.world[CROWD_BONE_LEFT_LOWER_LEG], (qd){0.9951333, 0, 0, -0.09853762}, 1e-6, "bent knee: left lower leg");
    expect_q(b.world[CROWD_BONE_LEFT_FOOT], LOOK_123, 1e-6, "left foot = LookRotation((1,2,3), (0,1,0)) (y_along_bone: identity fix)");
    check_all_canonical(&b, "bent knee");

    reference_pose(pose, 0.0f);
    solve(e, h, pose, 0.0f, &b);
    expect_q(b.world[CROWD_BONE_LEFT_UPPER_LEG], (qd){1, 0, 0, 0}, 1e-6, "straight knee: left upper leg");
    expect_q(b.world[CROWD_BONE_LEFT_LOWER_LEG], (qd){1, 0, 0, 0}, 1e-6, "straight knee: left lower leg");
    check_all_canonical(&b, "straight knee");
    crowd_engine_destroy(e);
}

static void test_reference_look_rotation(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(2);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Z_ALONG_BONE);
    crowd_instance h = add1(e, limbs_rig(e, &ld, "z"));
    float pose[POSE_FLOATS];
    bones b;
    reference_pose(pose, 0.1f);
    solve(e, h, pose, 0.0f, &b);
    expect_q(b.world[CROWD_BONE_LEFT_FOOT], LOOK_123, 1e-6, "left foot: LookRotation(toe - heel = (1,2,3)/8, ankle - heel = (0,1,0)/8)");
    expect_q(b.world[CROWD_BONE_HEAD], LOOK_123, 1e-6,
             "head: fwd = (1,2,3)/8, right = (3,0,-1)/16 (up's perpendicular part along (0,1,0))");
    /* the double reading of SPEC agrees with the printed number */
    expect_q(ref_look((v3){1, 2, 3}, (v3){0, 1, 0}), LOOK_123, 1e-7, "test's own LookRotation (test bug if this fails)");
    check_all_canonical(&b, "look rotation");
    crowd_engine_destroy(e);
}

/* LookRotation's degenerate cases through the left foot, LookRotation(toe - heel, ankle -
 * heel) with z_along_bone (identity fix): the expected rotations are built from axis and
 * angle, not from the SPEC's formula. */
static void test_look_rotation_degenerate(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(3);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Z_ALONG_BONE);
    crowd_instance h = add1(e, limbs_rig(e, &ld, "z"));
    const v3 heel = {-0.1, 0.05, -0.05};
    struct {
        const char *name;
        v3 fwd, up; /* toe - heel, ankle - heel */
        qd want;
    } cases[] = {
        {"zero forward -> identity", {0, 0, 0}, {0, 0.05, 0.05}, Q_ID},
        {"zero forward and zero up -> identity", {0, 0, 0}, {0, 0, 0}, Q_ID},
        {"forward (0,0.6,0.8) parallel to up -> 36.87 deg about -x", {0, 0.15, 0.2}, {0, 0.06, 0.08},
         q_axis_angle((v3){-1, 0, 0}, acos(0.8))},
        {"forward (1,2,3) antiparallel to up -> shortest arc", {0.1, 0.2, 0.3}, {-0.05, -0.1, -0.15},
         q_axis_angle(v_cross((v3){0, 0, 1}, (v3){1, 2, 3}), acos(3 / sqrt(14.0)))},
        {"forward (1,2,3), zero up -> shortest arc", {0.1, 0.2, 0.3}, {0, 0, 0},
         q_axis_angle(v_cross((v3){0, 0, 1}, (v3){1, 2, 3}), acos(3 / sqrt(14.0)))},
        {"forward (0,0,1) parallel to up -> identity", {0, 0, 0.25}, {0, 0, 0.125}, Q_ID},
        {"forward (0,0,-1) parallel to up -> (1,0,0,0)", {0, 0, -0.25}, {0, 0, -0.125}, {1, 0, 0, 0}},
        {"forward (0,0,-1) antiparallel to up -> (1,0,0,0)", {0, 0, -0.25}, {0, 0, 0.125}, {1, 0, 0, 0}},
    };
    float pose[POSE_FLOATS];
    bones b;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        standing_pose(pose);
        lm_put(pose, 29, heel);
        lm_put(pose, 31, v_add(heel, cases[c].fwd));
        lm_put(pose, 27, v_add(heel, cases[c].up));
        solve(e, h, pose, 0.0f, &b);
        char what[256];
        snprintf(what, sizeof what, "left foot, %s", cases[c].name);
        expect_q(b.world[CROWD_BONE_LEFT_FOOT], cases[c].want, 1e-6, what);
        check_canonical(b.wf[CROWD_BONE_LEFT_FOOT], what);
        /* where forward is defined the foot's +z lies on it */
        if (v_len(cases[c].fwd) > 0) {
            v3 z = q_rot(b.world[CROWD_BONE_LEFT_FOOT], (v3){0, 0, 1});
            v3 want = v_norm0(v_sub(lm_get(pose, 31, false), lm_get(pose, 29, false)));
            if (!(v_maxdiff(z, want) < 1e-6)) FAILF("%s: +z (%g, %g, %g) is not on forward", what, z.x, z.y, z.z);
        }
    }
    crowd_engine_destroy(e);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest reference[] = {
        cmocka_unit_test(test_reference_legs),
        cmocka_unit_test(test_reference_look_rotation),
        cmocka_unit_test(test_look_rotation_degenerate),
    };
    return CROWD_TEST_GROUP("reference", reference) ? 1 : 0;
}
