#include "limbs_suite.h"


/* ------------------------------------------------------------------------------------------
 * SPEC 5.1: real tracking input
 * ---------------------------------------------------------------------------------------- */
/* The rest pose: the documented landmarks (mirror symmetric, upright, facing -z), its solve by
 * the double model of SPEC 5, legs within 5 degrees of down and arms within 30 with every
 * preset, local rotations along the hierarchy, the bind rotations for a calibrated rig, and a
 * new instance showing it before its first tick. */
static void test_rest_pose(void **state) {
    (void)state;
    float eng[POSE_FLOATS], mp[POSE_FLOATS];
    crowd_rest_landmarks(CROWD_FRAME_ENGINE, eng);
    crowd_rest_landmarks(CROWD_FRAME_MEDIAPIPE_WORLD, mp);
    static const int pairs[][2] = {{1, 4}, {2, 5}, {3, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}, {17, 18},
                                   {19, 20}, {21, 22}, {23, 24}, {25, 26}, {27, 28}, {29, 30}, {31, 32}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const float *l = eng + 4 * pairs[k][0], *r = eng + 4 * pairs[k][1];
        if (!(l[0] > 0 && r[0] == -l[0] && r[1] == l[1] && r[2] == l[2]))
            FAILF("rest landmarks %d/%d are not mirror images with the left at +x", pairs[k][0], pairs[k][1]);
    }
    for (int k = 0; k < NL; k++) {
        if (eng[4 * k + 3] != 1.0f || mp[4 * k + 3] != 1.0f) FAILF("rest landmark %d: visibility is not 1", k);
        if (mp[4 * k] != eng[4 * k] || mp[4 * k + 1] != -eng[4 * k + 1] || mp[4 * k + 2] != eng[4 * k + 2])
            FAILF("rest landmark %d: the MediaPipe frame is not the engine frame with y negated", k);
    }
    if (!(eng[4 * 0 + 2] < eng[4 * 7 + 2] && eng[4 * 31 + 2] < eng[4 * 29 + 2] && eng[4 * 25 + 2] < 0))
        FAILF("the rest pose does not face -z (nose, toes and knees forward)");
    if (!(eng[4 * 0 + 1] > eng[4 * 11 + 1] && eng[4 * 11 + 1] > eng[4 * 23 + 1] && eng[4 * 23 + 1] > eng[4 * 25 + 1] &&
          eng[4 * 25 + 1] > eng[4 * 27 + 1] && eng[4 * 27 + 1] > eng[4 * 29 + 1]))
        FAILF("the rest pose is not upright");

    crowd_engine *e = crowd_test_engine(1500);
    const crowd_axis_fix presets[2] = {CROWD_AXIS_FIX_Y_ALONG_BONE, CROWD_AXIS_FIX_Z_ALONG_BONE};
    const crowd_limb_fallback modes[3] = {CROWD_FALLBACK_STABLE, CROWD_FALLBACK_ROOT, CROWD_FALLBACK_PREVIOUS};
    for (int f = 0; f < 2; f++)
        for (int m = 0; m < 3; m++) {
            crowd_limbs_desc ld = crowd_limbs_defaults();
            ld.axis_fix = presets[f];
            ld.fallback = modes[m];
            char name[32], ctx[96];
            snprintf(name, sizeof name, "rest%d%d", f, m);
            crowd_rig rig = limbs_rig(e, &ld, name);
            crowd_quat world[NB], local[NB];
            OK(e, crowd_rig_rest_pose(e, rig, world, local));
            qd fix[NB], rw[NB], rl[NB];
            preset_fix(presets[f], fix);
            ref_state rs = ref_init(&ld);
            ref_solve(&rs, eng, false, Q_ID, fix, rw, rl); /* the rest limbs are bent: any mode */
            const v3 axis = f == 0 ? (v3){0, 1, 0} : (v3){0, 0, 1};
            bones fresh;
            crowd_instance h = add1(e, rig);
            read_bones(e, h, &fresh);
            for (int b = 0; b < NB; b++) {
                qd w = {world[b].x, world[b].y, world[b].z, world[b].w}, l = {local[b].x, local[b].y, local[b].z, local[b].w};
                snprintf(ctx, sizeof ctx, "%s rest %s world", f ? "z_along_bone" : "y_along_bone", crowd_bone_name((crowd_bone)b));
                expect_q(w, rw[b], 1e-5, ctx);
                expect_q(l, q_canon(q_mul(q_conj(bone_parent[b] < 0 ? Q_ID : rw[bone_parent[b]]), rw[b])), 1e-5, ctx);
                expect_q(fresh.world[b], w, 0, "a new instance's world rotation is the rest pose");
                expect_q(fresh.local[b], l, 0, "a new instance's local rotation is the rest pose");
                if (is_limb_bone(b)) {
                    double off = acos(fmin(1.0, fmax(-1.0, -q_rot(w, axis).y))) / DEG;
                    double limit = b >= CROWD_BONE_LEFT_UPPER_LEG ? 5.0 : 30.0;
                    if (!(off < limit)) FAILF("%s: %.2f degrees from down (SPEC: < %g)", ctx, off, limit);
                }
            }
        }
    /* calibrated: the bind rotations */
    float bind_pose[POSE_FLOATS];
    a_pose(bind_pose);
    rng r = {1501};
    crowd_quat binds[NB], world[NB], local[NB];
    qd bindd[NB];
    random_binds(&r, binds, bindd);
    crowd_limbs_desc cal = engine_limbs(CROWD_AXIS_FIX_CALIBRATED);
    cal.bind_landmarks = bind_pose;
    cal.bind_rotations = binds;
    crowd_rig crig = limbs_rig(e, &cal, "calibrated");
    OK(e, crowd_rig_rest_pose(e, crig, world, local));
    for (int b = 0; b < NB; b++) {
        expect_q((qd){world[b].x, world[b].y, world[b].z, world[b].w}, bindd[b], 1e-6, "calibrated rest world = bind");
        expect_q((qd){local[b].x, local[b].y, local[b].z, local[b].w},
                 q_canon(q_mul(q_conj(bone_parent[b] < 0 ? Q_ID : bindd[bone_parent[b]]), bindd[b])), 1e-6,
                 "calibrated rest local");
    }
    /* errors */
    crowd_rig_desc face = {.name = "face"};
    crowd_rig nolimbs;
    OK(e, crowd_rig_create(e, &face, &nolimbs));
    if (crowd_rig_rest_pose(e, nolimbs, world, NULL) != CROWD_ERR_NO_CONTROLLER) FAILF("ENGINE BUG: rest pose of a rig without limbs");
    if (crowd_rig_rest_pose(e, (crowd_rig){0}, world, local) != CROWD_ERR_HANDLE) FAILF("ENGINE BUG: rest pose of rig 0");
    if (crowd_rig_rest_pose(NULL, crig, world, local) != CROWD_ERR_NULL) FAILF("ENGINE BUG: rest pose of a NULL engine");
    OK(e, crowd_rig_rest_pose(e, crig, NULL, NULL));
    crowd_engine_destroy(e);
}

/* A calibrated rig with the stable side (the default): the bind landmarks, held, reproduce the
 * bind rotations once the side has settled (at once where the limbs bend less than bend_min or
 * more than bend_full) for an A-pose, a T-pose (straight arms along the right axis: well
 * defined with stable) and the bent rest pose, in both frames. */
static void test_calibration_stable(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1540);
    rng r = {1541};
    for (int pose_kind = 0; pose_kind < 3; pose_kind++)
        for (int mediapipe = 0; mediapipe < 2; mediapipe++) {
            float bind_pose[POSE_FLOATS];
            if (pose_kind == 0) a_pose(bind_pose);
            if (pose_kind == 1) { /* T-pose: arms straight out along x */
                a_pose(bind_pose);
                for (int side = 0; side < 2; side++) {
                    double sx = side ? -1.0 : 1.0; /* the left side (+x) */
                    v3 sh = lm_get(bind_pose, 11 + side, false);
                    for (int j = 0; j < 5; j++) {
                        static const int pts[5] = {13, 15, 17, 19, 21};
                        static const double reach[5] = {0.28, 0.54, 0.62, 0.63, 0.58};
                        static const double dz[5] = {0, 0, 0.02, -0.02, -0.04};
                        lm_put(bind_pose, pts[j] + side, v_add(sh, (v3){sx * reach[j], j >= 2 ? -0.01 * j : 0, dz[j]}));
                    }
                }
            }
            if (pose_kind == 2) crowd_rest_landmarks(CROWD_FRAME_ENGINE, bind_pose);
            if (mediapipe)
                for (int k = 0; k < NL; k++) bind_pose[4 * k + 1] = -bind_pose[4 * k + 1];
            crowd_quat binds[NB];
            qd bindd[NB];
            random_binds(&r, binds, bindd);
            crowd_limbs_desc ld = crowd_limbs_defaults();
            ld.frame = mediapipe ? CROWD_FRAME_MEDIAPIPE_WORLD : CROWD_FRAME_ENGINE;
            ld.axis_fix = CROWD_AXIS_FIX_CALIBRATED;
            ld.bind_landmarks = bind_pose;
            ld.bind_rotations = binds;
            char name[32], ctx[96];
            snprintf(name, sizeof name, "cal%d%d", pose_kind, mediapipe);
            crowd_instance h = add1(e, limbs_rig(e, &ld, name));
            bones b;
            for (int k = 0; k < 400; k++) solve(e, h, bind_pose, 1.0f / 30.0f, &b);
            for (int bone = 0; bone < NB; bone++) {
                snprintf(ctx, sizeof ctx, "%s bind pose held, %s frame: %s vs its bind rotation",
                         pose_kind == 0 ? "A" : pose_kind == 1 ? "T" : "rest", mediapipe ? "MediaPipe" : "engine",
                         crowd_bone_name((crowd_bone)bone));
                expect_q(b.world[bone], bindd[bone], 1e-5, ctx);
            }
        }
    crowd_engine_destroy(e);
}

/* Unseen hips under a turned root ease to the rest pose in the tracker's frame (their rest
 * local rotation is relative to the root), as tracked hips are in it. */
static void test_unseen_hips_under_root(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1550);
    crowd_limbs_desc ld = crowd_limbs_defaults();
    ld.frame = CROWD_FRAME_ENGINE;
    crowd_rig rig = limbs_rig(e, &ld, "turned");
    crowd_quat rest[NB];
    OK(e, crowd_rig_rest_pose(e, rig, rest, NULL));
    crowd_instance h = add1(e, rig);
    qd root = q_axis_angle((v3){0, 1, 0}, 90 * DEG);
    set_root(e, h, root);
    float pose[POSE_FLOATS];
    standing_pose(pose);
    for (int k = 0; k < NL; k++) pose[4 * k + 3] = 0.0f; /* nothing seen */
    bones b;
    for (int k = 0; k < 300; k++) solve(e, h, pose, 1.0f / 30.0f, &b);
    qd want = {rest[0].x, rest[0].y, rest[0].z, rest[0].w};
    expect_q(b.world[CROWD_BONE_HIPS], want, 1e-4, "unseen hips under a root turned 90 degrees, after 10 s");
    expect_q(b.local[CROWD_BONE_HIPS], q_canon(q_mul(q_conj(root), want)), 1e-4, "their local rotation");
    crowd_engine_destroy(e);
}

/* The re-acquisition progress r of bone b (no field exposes it). */
static float track_r(crowd_engine *e, crowd_rig rig, uint32_t row, int b) {
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    assert_non_null(r);
    const crowdi_limbs_view *v = CROWDI_PART(r, LIMBS, const crowdi_limbs_view);
    assert_true(v->limb_visibility_threshold > 0.0f && v->limb_track);
    return v->limb_track[(size_t)b * v->limb_stride + row]; /* one column per bone, stride rows apart */
}

/* On noise-free input with visibility 1, stable gives the plain formulas' bone directions (to
 * 1e-5) and r stays exactly 1; only the roll about a straight limb may differ. */
static void stable_exact_clip(const char *rel) {
    clip c;
    if (!load_data(rel, &c)) { skip(); return; }
    crowd_engine *e = crowd_test_engine(1510);
    crowd_limbs_desc st = crowd_limbs_defaults(), rt = st;
    st.frame = rt.frame = CROWD_FRAME_ENGINE;
    rt.fallback = CROWD_FALLBACK_ROOT;
    crowd_rig srig = limbs_rig(e, &st, "stable");
    crowd_instance hs = add1(e, srig), hr = add1(e, limbs_rig(e, &rt, "root"));
    bones bs, br;
    double worst = 0, roll = 0;
    for (int k = 0; k < c.n; k++) {
        set_pose(e, hs, clip_row(&c, k));
        set_pose(e, hr, clip_row(&c, k));
        OK(e, crowd_tick(e, clip_dt(&c, k)));
        read_bones(e, hs, &bs);
        read_bones(e, hr, &br);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "%s frame %d, stable", rel, k + 1);
        check_all_canonical(&bs, ctx);
        check_hierarchy(&bs, Q_ID, 1e-5, ctx);
        for (int b = 0; b < NB; b++) {
            float rb = track_r(e, srig, 0, b);
            if (rb != 1.0f) FAILF("ENGINE BUG: %s: %s's r is %.9g, not exactly 1", ctx, crowd_bone_name((crowd_bone)b), (double)rb);
            v3 axis = is_limb_bone(b) ? (v3){0, 1, 0} : (v3){0, 0, 1};
            double dd = v_maxdiff(q_rot(bs.world[b], axis), q_rot(br.world[b], axis));
            worst = fmax(worst, dd);
            roll = fmax(roll, q_angle_deg(bs.world[b], br.world[b]));
            if (!(dd <= 1e-5)) FAILF("ENGINE BUG: %s: %s's direction is %.3g off the plain formulas'", ctx,
                                     crowd_bone_name((crowd_bone)b), dd);
            if (!is_limb_bone(b) && memcmp(&bs.world[b], &br.world[b], sizeof bs.world[b]) != 0)
                FAILF("ENGINE BUG: %s: %s (no side axis) differs from the plain formulas", ctx, crowd_bone_name((crowd_bone)b));
        }
    }
    print_message("%s: stable vs root: largest direction difference %.3g, largest roll difference %.1f deg\n", rel, worst, roll);
    crowd_engine_destroy(e);
    clip_free(&c);
}
static void test_stable_exact_walk(void **state) { (void)state; stable_exact_clip("pose/cmu_walk_30fps.csv"); }
static void test_stable_exact_hop(void **state) { (void)state; stable_exact_clip("pose/cmu_hop_30fps.csv"); }

/* An upper-body shot: legs out of frame (knees, ankles, heels and toes at visibility 0 with
 * drifting coordinates) under a walking torso. After 1 s unseen each leg bone is within 30
 * degrees of its rest direction under the hips, so within 30 degrees of down when the hips are
 * upright; the legs move with the hips. */
static void test_unseen_legs_hang_down(void **state) {
    (void)state;
    clip c;
    if (!load_data("pose/cmu_walk_30fps.csv", &c)) { skip(); return; }
    rng r = {1520};
    for (int k = 0; k < c.n; k++)
        for (int j = 25; j <= 32; j++) {
            float *lm = c.pose + (size_t)k * POSE_FLOATS + 4 * j;
            for (int q = 0; q < 3; q++) lm[q] += (float)(0.3 * sin(0.05 * k + j + q) + rng_range(&r, -0.05, 0.05));
            lm[3] = (float)rng_range(&r, 0.0, 0.4);
        }
    crowd_limbs_desc ld = crowd_limbs_defaults();
    ld.frame = CROWD_FRAME_ENGINE;
    const clip *clips[1] = {&c};
    const crowd_limbs_desc *descs[1] = {&ld};
    clip_out out;
    run_clips(clips, descs, 1, &out);
    double worst = 0, t = 0;
    int checked = 0;
    for (int k = 0; k < c.n; k++) {
        t += clip_dt(&c, k);
        if (t < 1.0) continue;
        const qd *w = out.world + (size_t)k * NB;
        qd hips = w[CROWD_BONE_HIPS];
        v3 down = q_rot(hips, (v3){0, -1, 0});
        for (int b = CROWD_BONE_LEFT_UPPER_LEG; b <= CROWD_BONE_RIGHT_LOWER_LEG; b++) {
            if (b == CROWD_BONE_LEFT_FOOT) continue;
            double a = acos(fmin(1.0, fmax(-1.0, v_dot(q_rot(w[b], (v3){0, 1, 0}), down)))) / DEG;
            worst = fmax(worst, a);
            checked++;
            if (!(a < 30.0))
                FAILF("ENGINE BUG: frame %d (%.2f s unseen): %s is %.1f degrees from the hips' down", k + 1, t,
                      crowd_bone_name((crowd_bone)b), a);
        }
    }
    print_message("upper-body walk: %d leg bone frames unseen for >= 1 s, at most %.1f degrees from the hips' down\n",
                  checked, worst);
    if (checked < 100) FAILF("only %d leg bone frames checked", checked);
    free(out.world);
    free(out.local);
    clip_free(&c);
}

/* A limb seen again eases in from where it was shown: r = 1 - k_in on the first trusted tick,
 * then r = 1 - (1 - r)*k_in (float32, as SPEC writes it), no bone moves more than 45 degrees in
 * a frame at 30 fps, and once r reaches 1 - 2^-10 the bones are the uninterrupted instance's
 * bit for bit (the side state saw the same landmarks). */
static void test_reacquire_eases_in(void **state) {
    (void)state;
    clip c;
    if (!load_data("pose/cmu_walk_30fps.csv", &c)) { skip(); return; }
    crowd_engine *e = crowd_test_engine(1530);
    crowd_limbs_desc ld = crowd_limbs_defaults();
    ld.frame = CROWD_FRAME_ENGINE;
    crowd_rig rig = limbs_rig(e, &ld, "walk");
    crowd_instance h[2];
    add_n(e, rig, 2, h);
    const int from = 30, to = 74; /* the right arm unseen for 1.5 s */
    float pose[POSE_FLOATS];
    bones b[2], prev = {0}, prev1 = {0};
    float r_want = 1.0f;
    int snapped_at = -1;
    double step_max = 0;
    for (int k = 0; k < c.n; k++) {
        memcpy(pose, clip_row(&c, k), sizeof pose);
        if (k >= from && k <= to)
            for (int j = 12; j <= 22; j += 2) pose[4 * j + 3] = 0.1f;
        set_pose(e, h[0], pose);
        set_pose(e, h[1], clip_row(&c, k));
        float dt = clip_dt(&c, k);
        OK(e, crowd_tick(e, dt));
        read_bones(e, h[0], &b[0]);
        read_bones(e, h[1], &b[1]);
        const float k_in = exp2f(-(dt / ld.reacquire_half_life));
        float r_got = track_r(e, rig, 0, CROWD_BONE_RIGHT_UPPER_ARM);
        if (k < from) {
            if (memcmp(&b[0], &b[1], sizeof b[0]) != 0) FAILF("ENGINE BUG: frame %d: the two instances differ before the dropout", k + 1);
        } else if (k <= to) {
            if (r_got != -1.0f) FAILF("ENGINE BUG: frame %d: an untrusted bone's r is %g, not -1", k + 1, (double)r_got);
        } else {
            r_want = k == to + 1 ? 1.0f - k_in : 1.0f - (1.0f - r_want) * k_in;
            if (r_want >= 1.0f - 0x1p-10f) r_want = 1.0f;
            if (r_got != r_want) FAILF("ENGINE BUG: frame %d: r is %.9g, SPEC's recurrence gives %.9g", k + 1, (double)r_got, (double)r_want);
            if (r_want == 1.0f && snapped_at < 0) snapped_at = k;
            for (int bone = 0; snapped_at < 0 || k == snapped_at; bone++) { /* while easing in */
                if (bone == NB) break;
                double step = q_angle_deg(b[0].world[bone], prev.world[bone]);
                double motion = q_angle_deg(b[1].world[bone], prev1.world[bone]); /* the walk's own */
                step_max = fmax(step_max, step);
                if (!(step <= fmax(45.0, motion + 1.0)))
                    FAILF("ENGINE BUG: frame %d: %s turns %.1f degrees on re-acquisition (the walk itself %.1f)", k + 1,
                          crowd_bone_name((crowd_bone)bone), step, motion);
            }
            bool same = memcmp(&b[0], &b[1], sizeof b[0]) == 0;
            if (r_want == 1.0f && !same) FAILF("ENGINE BUG: frame %d: eased in (r = 1) but not the plain rotation bit for bit", k + 1);
            if (r_want < 1.0f && k == to + 1 && same) FAILF("ENGINE BUG: frame %d: no ease-in at all", k + 1);
        }
        prev = b[0];
        prev1 = b[1];
    }
    if (snapped_at < 0) FAILF("the clip ended before the arm eased in");
    print_message("re-acquisition: eased in after %d frames (%.2f s), largest step %.1f degrees\n", snapped_at - to,
                  c.t[snapped_at] - c.t[to], step_max);
    crowd_engine_destroy(e);
    clip_free(&c);
}
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tracking[] = {
        cmocka_unit_test(test_rest_pose),
        cmocka_unit_test(test_calibration_stable),
        cmocka_unit_test(test_unseen_hips_under_root),
        cmocka_unit_test(test_stable_exact_walk),
        cmocka_unit_test(test_stable_exact_hop),
        cmocka_unit_test(test_unseen_legs_hang_down),
        cmocka_unit_test(test_reacquire_eases_in),
    };
    return CROWD_TEST_GROUP("tracking", tracking) ? 1 : 0;
}
