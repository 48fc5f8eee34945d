#include "limbs_suite.h"


static void test_calibration_roundtrip(void **state) {
    (void)state;
    rng r = {600};
    for (int variant = 0; variant < 4; variant++) {
        bool mediapipe = variant & 1, extras = variant & 2;
        float bind_pose[POSE_FLOATS];
        a_pose(bind_pose);
        if (mediapipe)
            for (int k = 0; k < NL; k++) bind_pose[4 * k + 1] = -bind_pose[4 * k + 1];
        crowd_quat binds[NB];
        qd bindd[NB];
        random_binds(&r, binds, bindd);
        crowd_limbs_desc ld = crowd_limbs_defaults();
        ld.fallback = CROWD_FALLBACK_ROOT;
        ld.frame = mediapipe ? CROWD_FRAME_MEDIAPIPE_WORLD : CROWD_FRAME_ENGINE;
        ld.axis_fix = CROWD_AXIS_FIX_CALIBRATED;
        ld.bind_landmarks = bind_pose;
        ld.bind_rotations = binds;
        if (extras) { /* smoothing's first sample passes through; previous starts from root */
            ld.smoothing = true;
            ld.fallback = CROWD_FALLBACK_PREVIOUS;
        }
        crowd_engine *e = crowd_test_engine(600 + (uint64_t)variant);
        crowd_instance h = add1(e, limbs_rig(e, &ld, "calibrated"));
        bones b;
        solve(e, h, bind_pose, 1.0f / 30.0f, &b);
        char what[128];
        for (int k = 0; k < NB; k++) {
            snprintf(what, sizeof what, "variant %d: world %s vs bind rotation", variant, crowd_bone_name((crowd_bone)k));
            expect_q(b.world[k], bindd[k], 1e-5, what);
            qd parent = bone_parent[k] < 0 ? Q_ID : bindd[bone_parent[k]];
            snprintf(what, sizeof what, "variant %d: local %s vs bind local", variant, crowd_bone_name((crowd_bone)k));
            expect_q(b.local[k], q_mul(q_conj(parent), bindd[k]), 1e-5, what);
        }
        check_all_canonical(&b, "calibrated");
        /* a moved pose still satisfies the hierarchy, and the calibrated fix is the one the
         * bind pose implies: world = basis * inverse(bind basis) * bind */
        float moved[POSE_FLOATS];
        qd root;
        random_bent_pose(&r, moved, &root);
        if (mediapipe)
            for (int k = 0; k < NL; k++) moved[4 * k + 1] = -moved[4 * k + 1];
        solve(e, h, moved, 1.0f / 30.0f, &b);
        check_hierarchy(&b, Q_ID, 1e-5, "calibrated, moved pose");
        if (!extras) {
            crowd_limbs_desc idd = ld;
            idd.axis_fix = CROWD_AXIS_FIX_Z_ALONG_BONE;
            ref_state st0 = ref_init(&idd), st1 = ref_init(&idd);
            qd ident[NB], bind_basis[NB], basis[NB];
            preset_fix(CROWD_AXIS_FIX_Z_ALONG_BONE, ident);
            ref_bases(&st0, bind_pose, mediapipe, Q_ID, bind_basis);
            ref_bases(&st1, moved, mediapipe, Q_ID, basis);
            for (int k = 0; k < NB; k++) {
                qd want = q_mul(basis[k], q_mul(q_conj(bind_basis[k]), bindd[k]));
                snprintf(what, sizeof what, "variant %d: moved pose, world %s", variant, crowd_bone_name((crowd_bone)k));
                expect_q(b.world[k], want, 1e-5, what);
            }
        }
        crowd_engine_destroy(e);
    }
}

static void test_calibration_degenerate(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(650);
    /* a rig and instance made before: the failures must not touch them */
    crowd_limbs_desc good = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_rig rig = limbs_rig(e, &good, "good");
    crowd_instance h = add1(e, rig);
    float pose[POSE_FLOATS];
    standing_pose(pose);
    bones before, after;
    solve(e, h, pose, 0.0f, &before);

    rng r = {651};
    crowd_quat binds[NB];
    qd bindd[NB];
    random_binds(&r, binds, bindd);
    float bind_pose[POSE_FLOATS];
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_CALIBRATED);
    ld.bind_landmarks = bind_pose;
    ld.bind_rotations = binds;

    a_pose(bind_pose); /* coincident left shoulder and elbow */
    memcpy(&bind_pose[4 * 13], &bind_pose[4 * 11], 3 * sizeof(float));
    expect_rig_error(e, &ld, CROWD_ERR_RANGE, "left_upper_arm", NULL, "left elbow on the shoulder");

    a_pose(bind_pose); /* a straight T-pose right arm along +x (the root's right: no side) */
    lm_put(bind_pose, 14, (v3){0.45, 1.45, 0});
    lm_put(bind_pose, 16, (v3){0.70, 1.45, 0});
    lm_put(bind_pose, 18, (v3){0.78, 1.44, -0.02});
    lm_put(bind_pose, 20, (v3){0.78, 1.44, 0.02});
    lm_put(bind_pose, 22, (v3){0.74, 1.45, 0.04});
    expect_rig_error(e, &ld, CROWD_ERR_RANGE, "right_upper_arm", "right_lower_arm", "straight T-pose right arm along +x");

    a_pose(bind_pose); /* coincident knee and ankle */
    memcpy(&bind_pose[4 * 28], &bind_pose[4 * 26], 3 * sizeof(float));
    expect_rig_error(e, &ld, CROWD_ERR_RANGE, "right_lower_leg", NULL, "right ankle on the knee");

    a_pose(bind_pose); /* zero head forward: nose between the ears */
    lm_put(bind_pose, 0, v_mid(lm_get(bind_pose, 7, false), lm_get(bind_pose, 8, false)));
    expect_rig_error(e, &ld, CROWD_ERR_RANGE, "head", NULL, "nose between the ears");

    /* and the same A-pose is accepted */
    a_pose(bind_pose);
    crowd_rig ok_rig = limbs_rig(e, &ld, "calibrated");
    (void)ok_rig;

    read_bones(e, h, &after);
    if (memcmp(&before, &after, sizeof before) != 0) FAILF("ENGINE BUG: a rejected rig changed an existing instance's bones");
    if (crowd_rig_instance_count(e, rig) != 1) FAILF("ENGINE BUG: a rejected rig changed an existing rig's instance count");
    crowd_engine_destroy(e);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest calibration[] = {
        cmocka_unit_test(test_calibration_roundtrip),
        cmocka_unit_test(test_calibration_degenerate),
    };
    return CROWD_TEST_GROUP("calibration", calibration) ? 1 : 0;
}
