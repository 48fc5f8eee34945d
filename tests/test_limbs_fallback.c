#include "limbs_suite.h"


/* ------------------------------------------------------------------------------------------
 * fallback: straight limbs
 * ---------------------------------------------------------------------------------------- */
/* Sweep frame k of SWEEP_FRAMES: bending angle 40 - 0.25k degrees (40 .. -20, exactly 0 at
 * k = 160). The left knee bends in the sagittal plane the normal way (shin back: side =
 * cross(upperDir, lowerDir) = +x = s_leg * right); the left elbow with the forearm forward
 * (side = -x = s_arm * right). |side|^2 < 1e-4 (straight) for |angle| < 0.573 deg: frames with
 * angle 0.5 .. -0.5; angle -0.75 is bent the other way (|side|^2 = 1.7e-4). */
#define SWEEP_FRAMES 241
static double sweep_angle(int k) { return 40.0 - 0.25 * k; }

static void sweep_pose(float *pose, double angle_deg) {
    double t = angle_deg * DEG;
    standing_pose(pose);
    v3 hip = lm_get(pose, 23, false), sh = lm_get(pose, 11, false);
    v3 knee = v_add(hip, (v3){0, -0.42, 0}), elbow = v_add(sh, (v3){0, -0.27, 0});
    lm_put(pose, 25, knee);
    lm_put(pose, 27, v_add(knee, v_scale((v3){0, -cos(t), -sin(t)}, 0.40)));
    lm_put(pose, 13, elbow);
    lm_put(pose, 15, v_add(elbow, v_scale((v3){0, -cos(t), sin(t)}, 0.25)));
}

/* A sideways elbow: the forearm swings toward the body's midline (side = (0,0,s)), so the
 * root fallback (-right = -x) is 90 degrees off: 40 -> 0 in 0.5 degree steps, 20 frames
 * straight, back to 40. */
#define SIDE_FRAMES 183
static double side_angle(int k) { return k <= 80 ? 40.0 - 0.5 * k : k <= 100 ? 0.0 : 0.5 * (k - 100); }

static void side_pose(float *pose, double angle_deg) {
    double t = angle_deg * DEG;
    standing_pose(pose);
    v3 elbow = v_add(lm_get(pose, 11, false), (v3){0, -0.27, 0});
    lm_put(pose, 13, elbow);
    lm_put(pose, 15, v_add(elbow, v_scale((v3){sin(t), -cos(t), 0}, 0.25)));
}

/* Runs a sweep under one fallback mode; compares every frame to the reference, returns the
 * largest frame-to-frame change of the given bones over frames [from, to]. */
typedef struct sweep_result {
    bones b[SWEEP_FRAMES];
} sweep_result;

static sweep_result *run_sweep(crowd_limb_fallback mode, pose_fn fn, double (*angle)(int), int frames, const char *name) {
    sweep_result *res = calloc(1, sizeof *res);
    assert_non_null(res);
    crowd_engine *e = crowd_test_engine(500);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    ld.fallback = mode;
    crowd_instance h = add1(e, limbs_rig(e, &ld, name));
    ref_state st = ref_init(&ld);
    qd fix[NB];
    preset_fix(ld.axis_fix, fix);
    float pose[POSE_FLOATS];
    char what[160];
    for (int k = 0; k < frames; k++) {
        fn(pose, angle(k));
        solve(e, h, pose, 1.0f / 30.0f, &res->b[k]);
        qd world[NB], local[NB];
        ref_solve(&st, pose, false, Q_ID, fix, world, local);
        for (int b = 0; b < NB; b++) {
            snprintf(what, sizeof what, "%s, fallback %s, frame %d (angle %.2f deg): world %s", name,
                     mode == CROWD_FALLBACK_ROOT ? "root" : "previous", k, angle(k), crowd_bone_name((crowd_bone)b));
            expect_q(res->b[k].world[b], world[b], 1e-5, what);
        }
    }
    crowd_engine_destroy(e);
    return res;
}

static double max_step(const sweep_result *s, int bone, int from, int to, int *at) {
    double m = 0;
    for (int k = from + 1; k <= to; k++) {
        double a = q_angle_deg(s->b[k].world[bone], s->b[k - 1].world[bone]);
        if (a > m) m = a, *at = k;
    }
    return m;
}

/* world * (+x) for y_along_bone is the side axis (its part perpendicular to the bone) */
static void expect_side(const bones *b, int bone, v3 side, const char *what) {
    v3 dir = q_rot(b->world[bone], (v3){0, 1, 0});
    v3 perp = v_norm0(v_sub(side, v_scale(dir, v_dot(side, dir))));
    v3 got = q_rot(b->world[bone], (v3){1, 0, 0});
    if (!(v_maxdiff(got, perp) < 1e-5))
        FAILF("%s: %s side axis (+x) = (%.7f, %.7f, %.7f), want (%.7f, %.7f, %.7f)", what,
              crowd_bone_name((crowd_bone)bone), got.x, got.y, got.z, perp.x, perp.y, perp.z);
}

static void test_fallback_root_sweep(void **state) {
    (void)state;
    sweep_result *s = run_sweep(CROWD_FALLBACK_ROOT, sweep_pose, sweep_angle, SWEEP_FRAMES, "knee/elbow sweep");
    char what[128];
    for (int k = 0; k < SWEEP_FRAMES; k++) {
        if (fabs(sweep_angle(k)) > 0.5) continue;
        /* straight: side = s_limb * right, right = (1,0,0) (root identity) */
        snprintf(what, sizeof what, "straight frame %d (angle %.2f)", k, sweep_angle(k));
        for (int bone = CROWD_BONE_LEFT_UPPER_LEG; bone <= CROWD_BONE_LEFT_LOWER_LEG; bone++)
            expect_side(&s->b[k], bone, (v3){1, 0, 0}, what);
        for (int bone = CROWD_BONE_LEFT_UPPER_ARM; bone <= CROWD_BONE_LEFT_LOWER_ARM; bone++)
            expect_side(&s->b[k], bone, (v3){-1, 0, 0}, what);
    }
    /* the default signs match a normally bent knee and a forward-bent elbow: no pop while the
     * limb straightens (angle 40 .. -0.5, frames 0 .. 162) */
    const int bones_[] = {CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_LEFT_LOWER_ARM, CROWD_BONE_LEFT_UPPER_LEG,
                          CROWD_BONE_LEFT_LOWER_LEG};
    for (int i = 0; i < 4; i++) {
        int at = 0;
        double m = max_step(s, bones_[i], 0, 162, &at);
        if (m > 1.0) FAILF("ENGINE BUG: root fallback: %s jumps %.3f deg at frame %d", crowd_bone_name((crowd_bone)bones_[i]), m, at);
    }
    free(s);
}

static void test_fallback_previous_sweep(void **state) {
    (void)state;
    sweep_result *s = run_sweep(CROWD_FALLBACK_PREVIOUS, sweep_pose, sweep_angle, SWEEP_FRAMES, "knee/elbow sweep");
    const int bones_[] = {CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_LEFT_LOWER_ARM, CROWD_BONE_LEFT_UPPER_LEG,
                          CROWD_BONE_LEFT_LOWER_LEG};
    /* Bent -> straight -> beyond: never more than 1 degree between frames. Beyond straight
     * SPEC §5's side = cross(upperDir, lowerDir) points the other way; `previous` keeps the
     * side it had (run_sweep checked every frame against that reference). */
    for (int i = 0; i < 4; i++) {
        int at = 0;
        double m = max_step(s, bones_[i], 0, SWEEP_FRAMES - 1, &at);
        if (m > 1.0) FAILF("ENGINE BUG: previous fallback: %s jumps %.3f deg at frame %d", crowd_bone_name((crowd_bone)bones_[i]), m, at);
    }
    free(s);

    /* the sideways elbow: `previous` keeps the last bent side (+z) through 20 straight frames
     * and back; `root` swings to -right (90 degrees) */
    sweep_result *p = run_sweep(CROWD_FALLBACK_PREVIOUS, side_pose, side_angle, SIDE_FRAMES, "sideways elbow");
    sweep_result *r = run_sweep(CROWD_FALLBACK_ROOT, side_pose, side_angle, SIDE_FRAMES, "sideways elbow");
    for (int bone = CROWD_BONE_LEFT_UPPER_ARM; bone <= CROWD_BONE_LEFT_LOWER_ARM; bone++) {
        int at = 0;
        double m = max_step(p, bone, 0, SIDE_FRAMES - 1, &at);
        if (m > 1.0) FAILF("ENGINE BUG: previous fallback, sideways elbow: %s jumps %.3f deg at frame %d", crowd_bone_name((crowd_bone)bone), m, at);
        double mr = max_step(r, bone, 0, SIDE_FRAMES - 1, &at);
        if (mr < 80.0) FAILF("root fallback, sideways elbow: %s's largest step is %.3f deg, the SPEC's root fallback turns it 90 deg",
                             crowd_bone_name((crowd_bone)bone), mr);
    }
    for (int k = 80; k <= 100; k++) {
        char what[64];
        snprintf(what, sizeof what, "sideways elbow, straight frame %d", k);
        expect_side(&p->b[k], CROWD_BONE_LEFT_UPPER_ARM, (v3){0, 0, 1}, what);
        expect_side(&r->b[k], CROWD_BONE_LEFT_UPPER_ARM, (v3){-1, 0, 0}, what);
    }
    free(p);
    free(r);
}
/* The subject turned by `deg` about +y (root identity): the standing pose faces +z. */
static void yaw_pose(float *pose, double deg) {
    qd yaw = q_axis_angle((v3){0, 1, 0}, deg * DEG);
    for (int k = 0; k < NL; k++) lm_put(pose, k, q_rot(yaw, lm_get(pose, k, false)));
}

static double turned_deg; /* the sweeps below turned by this */
static void sweep_pose_turned(float *pose, double angle_deg) {
    sweep_pose(pose, angle_deg);
    yaw_pose(pose, turned_deg);
}

/* SPEC 5 revision 2: the straight-limb fallback of root and previous is the root's right turned
 * to the subject's side, so a subject facing -z (a webcam's, with the default root) solves as
 * the one facing +z turned half a turn: every bone of every frame of the sweep is the yaw of
 * the +z subject's (revision 1 turned its straight knees and elbows 180 degrees about the bone,
 * a pop as they straighten). Turned by 30 or 210 degrees: the same up to the turn of the
 * straight frames' roll (the root's axis stays; only its sign follows the torso). */
static void test_fallback_facing_minus_z(void **state) {
    (void)state;
    const crowd_limb_fallback modes[2] = {CROWD_FALLBACK_ROOT, CROWD_FALLBACK_PREVIOUS};
    for (int m = 0; m < 2; m++) {
        sweep_result *front = run_sweep(modes[m], sweep_pose, sweep_angle, SWEEP_FRAMES, "knee/elbow sweep");
        turned_deg = 180.0;
        sweep_result *back = run_sweep(modes[m], sweep_pose_turned, sweep_angle, SWEEP_FRAMES, "facing -z sweep");
        const qd yaw = q_axis_angle((v3){0, 1, 0}, PI);
        char what[128];
        for (int k = 0; k < SWEEP_FRAMES; k++)
            for (int b = 0; b < NB; b++) {
                snprintf(what, sizeof what, "fallback %s, facing -z, frame %d (angle %.2f): %s", m ? "previous" : "root", k,
                         sweep_angle(k), crowd_bone_name((crowd_bone)b));
                qd f = front->b[k].world[b];
                expect_q(back->b[k].world[b], q_canon(q_mul(yaw, f)), 1e-5, what);
            }
        const int bones_[] = {CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_LEFT_LOWER_ARM, CROWD_BONE_LEFT_UPPER_LEG,
                              CROWD_BONE_LEFT_LOWER_LEG};
        for (int t = 0; t < 2; t++) { /* 30 and 210 degrees off the root's facing: no pop either */
            turned_deg = t ? 210.0 : 30.0;
            sweep_result *off = run_sweep(modes[m], sweep_pose_turned, sweep_angle, SWEEP_FRAMES, "turned sweep");
            for (int i = 0; i < 4; i++) {
                int at = 0;
                double st = max_step(off, bones_[i], 0, 162, &at);
                if (st > 40.0)
                    FAILF("ENGINE BUG: fallback %s, turned %.0f deg: %s steps %.1f deg at frame %d as it straightens",
                          m ? "previous" : "root", turned_deg, crowd_bone_name((crowd_bone)bones_[i]), st, at);
            }
            free(off);
        }
        free(front);
        free(back);
    }
}

/* Straight limbs while the subject turns around (root identity, fallback root): the side axis
 * is s_limb * (+-x), + where the torso's x column points along +x (the subject within 90 degrees
 * of facing +z), - past that; never anything else. */
static void test_fallback_turning_around(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(501);
    crowd_limbs_desc ld = engine_limbs(CROWD_AXIS_FIX_Y_ALONG_BONE);
    crowd_instance h = add1(e, limbs_rig(e, &ld, "turning"));
    ref_state st = ref_init(&ld);
    qd fix[NB];
    preset_fix(ld.axis_fix, fix);
    float pose[POSE_FLOATS];
    bones b;
    char what[128];
    for (int k = 0; k < 72; k++) {
        const double deg = 2.5 + 5.0 * k; /* never exactly side-on */
        sweep_pose(pose, 0.0);             /* knee and elbow exactly straight */
        yaw_pose(pose, deg);
        solve(e, h, pose, 1.0f / 30.0f, &b);
        const double s = cos(deg * DEG) > 0 ? 1.0 : -1.0;
        snprintf(what, sizeof what, "straight, turned %.1f deg", deg);
        for (int bone = CROWD_BONE_LEFT_UPPER_LEG; bone <= CROWD_BONE_LEFT_LOWER_LEG; bone++)
            expect_side(&b, bone, (v3){s, 0, 0}, what);
        for (int bone = CROWD_BONE_LEFT_UPPER_ARM; bone <= CROWD_BONE_LEFT_LOWER_ARM; bone++)
            expect_side(&b, bone, (v3){-s, 0, 0}, what);
        qd world[NB], local[NB];
        ref_solve(&st, pose, false, Q_ID, fix, world, local);
        for (int bone = 0; bone < NB; bone++) expect_q(b.world[bone], world[bone], 1e-5, what);
    }
    crowd_engine_destroy(e);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest fallback[] = {
        cmocka_unit_test(test_fallback_root_sweep),
        cmocka_unit_test(test_fallback_previous_sweep),
        cmocka_unit_test(test_fallback_facing_minus_z),
        cmocka_unit_test(test_fallback_turning_around),
    };
    return CROWD_TEST_GROUP("fallback", fallback) ? 1 : 0;
}
