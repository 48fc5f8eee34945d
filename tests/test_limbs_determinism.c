#include "limbs_suite.h"
#include "internal.h"
#include "kernels/limbs.h"


/* ------------------------------------------------------------------------------------------
 * determinism
 * ---------------------------------------------------------------------------------------- */
#define DET_RIGS 3
static const uint32_t det_count[DET_RIGS] = {1000, 37, 23};
#define DET_TICKS 50

typedef struct det_engine {
    crowd_engine *e;
    crowd_rig rig[DET_RIGS];
    crowd_instance *h[DET_RIGS];
} det_engine;

/* threads 0: the engine the tests use by default (crowd_test_engine_on); else that many
 * threads of the engine's pool tick it */
static void det_create_threads(det_engine *d, crowd_simd simd, uint32_t threads, const crowd_limbs_desc descs[DET_RIGS]) {
    if (threads == 0) {
        d->e = crowd_test_engine_on(77, simd);
    } else {
        crowd_engine_desc ed = crowd_engine_defaults();
        ed.seed = 77, ed.simd = simd, ed.threads = threads;
        d->e = NULL;
        crowd_result res = crowd_engine_create(&ed, &d->e);
        if (res != CROWD_OK) FAILF("crowd_engine_create (%u threads): %s", threads, rname(res));
    }
    for (int i = 0; i < DET_RIGS; i++) {
        d->rig[i] = limbs_rig(d->e, &descs[i], i == 0 ? "crowd" : i == 1 ? "calibrated" : "custom");
        d->h[i] = calloc(det_count[i], sizeof *d->h[i]);
        assert_non_null(d->h[i]);
        add_n(d->e, d->rig[i], det_count[i], d->h[i]);
    }
}

static void det_create(det_engine *d, crowd_simd simd, const crowd_limbs_desc descs[DET_RIGS]) {
    det_create_threads(d, simd, 0, descs);
}

static void det_destroy(det_engine *d) {
    for (int i = 0; i < DET_RIGS; i++) free(d->h[i]);
    crowd_engine_destroy(d->e);
}

/* The calibrated rig's bind pose and rotations, and the custom rig's fix. */
typedef struct det_binds {
    float bind_pose[POSE_FLOATS];
    crowd_quat binds[NB], custom[NB];
} det_binds;

static void det_binds_init(det_binds *c, rng *r) {
    qd tmp[NB];
    a_pose(c->bind_pose);
    random_binds(r, c->binds, tmp);
    random_binds(r, c->custom, tmp);
}

/* Random bent poses with degenerate limbs: keep, jitter (noise and visibility flicker), or a
 * new pose each tick; now and then a new root. */
static void det_random_inputs(rng *r, int tick, uint32_t i, float *p, float *root) {
    (void)i;
    if (tick < 0) {
        det_pose(r, p);
        q_store(q_random(r), root);
        return;
    }
    double u = rng_unit(r);
    if (u < 0.4) {
        for (int k = 0; k < POSE_FLOATS; k++) {
            if (k % 4 != 3) p[k] += (float)rng_range(r, -0.02, 0.02);
            else if (rng_chance(r, 0.05)) p[k] = rng_chance(r, 0.5) ? 0.2f : 1.0f;
        }
    } else if (u < 0.6) {
        det_pose(r, p);
    }
    if (rng_chance(r, 0.1)) q_store(q_random(r), root);
}

/* Runs the three rigs on the target, on scalar and on the target by random range splits for
 * DET_TICKS ticks of random dt (0 and 1 s among them) with the inputs `inputs` gives (tick -1:
 * the first; instance i counts over the rigs in order), comparing every bone bit for bit. */
typedef void (*det_inputs_fn)(rng *r, int tick, uint32_t i, float *pose, float *root);

static void det_run(rng *r, const crowd_limbs_desc descs[DET_RIGS], det_inputs_fn inputs) {
    det_engine t, s, g; /* target, scalar, target by ranges */
    det_create(&t, crowd_test_simd, descs);
    det_create(&s, CROWD_SIMD_SCALAR, descs);
    det_create(&g, crowd_test_simd, descs);

    uint32_t total = 0;
    for (int i = 0; i < DET_RIGS; i++) total += det_count[i];
    float *poses = malloc(sizeof(float) * POSE_FLOATS * total);
    float *roots = malloc(sizeof(float) * 4 * total);
    float *out[3];
    for (int i = 0; i < 3; i++) out[i] = malloc(sizeof(float) * 4 * det_count[0]);
    assert_true(poses && roots && out[0] && out[1] && out[2]);
    for (uint32_t i = 0; i < total; i++) inputs(r, -1, i, poses + (size_t)i * POSE_FLOATS, roots + 4 * i);
    det_engine *all[3] = {&t, &s, &g};
    for (int tick = 0; tick < DET_TICKS; tick++) {
        for (uint32_t i = 0; i < total; i++) inputs(r, tick, i, poses + (size_t)i * POSE_FLOATS, roots + 4 * i);
        double du = rng_unit(r);
        float dt = du < 0.1 ? 0.0f : du < 0.15 ? 1.0f : (float)rng_range(r, 1e-4, 0.05);
        uint32_t off = 0;
        for (int rg = 0; rg < DET_RIGS; rg++) {
            for (int k = 0; k < 3; k++) {
                OK(all[k]->e, crowd_instances_set(all[k]->e, CROWD_FIELD_POSE, 0, all[k]->h[rg], det_count[rg],
                                                  poses + (size_t)off * POSE_FLOATS));
                OK(all[k]->e, crowd_instances_set(all[k]->e, CROWD_FIELD_ROOT, 0, all[k]->h[rg], det_count[rg],
                                                  roots + (size_t)off * 4));
            }
            off += det_count[rg];
        }
        OK(t.e, crowd_tick(t.e, dt));
        OK(s.e, crowd_tick(s.e, dt));
        for (int rg = 0; rg < DET_RIGS; rg++) {
            /* random ranges, run in a random order */
            uint32_t starts[1100], lens[1100], nr = 0, first = 0, n = det_count[rg];
            while (first < n) {
                uint32_t len = 1 + rng_below(r, n - first < 70 ? n - first : 70);
                starts[nr] = first, lens[nr] = len, nr++;
                first += len;
            }
            for (uint32_t i = nr; i > 1; i--) {
                uint32_t j = rng_below(r, i), a = starts[i - 1], b = lens[i - 1];
                starts[i - 1] = starts[j], lens[i - 1] = lens[j], starts[j] = a, lens[j] = b;
            }
            for (uint32_t i = 0; i < nr; i++) OK(g.e, crowd_tick_range(g.e, dt, g.rig[rg], starts[i], lens[i]));
        }
        for (int rg = 0; rg < DET_RIGS; rg++)
            for (int f = 0; f < 2; f++)
                for (int b = 0; b < NB; b++) {
                    crowd_field field = f ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
                    for (int k = 0; k < 3; k++)
                        OK(all[k]->e, crowd_instances_get(all[k]->e, field, (uint32_t)b, all[k]->h[rg], det_count[rg], out[k]));
                    for (int k = 1; k < 3; k++) {
                        if (memcmp(out[0], out[k], sizeof(float) * 4 * det_count[rg]) == 0) continue;
                        for (uint32_t i = 0; i < det_count[rg]; i++)
                            if (memcmp(out[0] + 4 * i, out[k] + 4 * i, sizeof(float) * 4) != 0) {
                                const float *a = out[0] + 4 * i, *c = out[k] + 4 * i;
                                FAILF("ENGINE BUG: tick %d dt %g rig %d instance %u %s %s: %s (%.9g, %.9g, %.9g, %.9g) vs %s "
                                      "(%.9g, %.9g, %.9g, %.9g)",
                                      tick, (double)dt, rg, i, f ? "local" : "world", crowd_bone_name((crowd_bone)b),
                                      crowd_simd_name(crowd_test_simd), a[0], a[1], a[2], a[3],
                                      k == 1 ? "scalar" : "range splits", c[0], c[1], c[2], c[3]);
                            }
                    }
                    /* accepted input never makes NaN or Inf, and every output is unit with w >= 0 */
                    for (uint32_t i = 0; i < det_count[rg]; i++) {
                        char what[96];
                        snprintf(what, sizeof what, "tick %d rig %d instance %u %s %s", tick, rg, i, f ? "local" : "world",
                                 crowd_bone_name((crowd_bone)b));
                        check_canonical(out[0] + 4 * i, what);
                    }
                }
    }
    for (int i = 0; i < 3; i++) free(out[i]);
    free(poses);
    free(roots);
    det_destroy(&t);
    det_destroy(&s);
    det_destroy(&g);
}

static void test_determinism(void **state) {
    (void)state;
    rng r = {1000};
    det_binds cal;
    det_binds_init(&cal, &r);
    crowd_limbs_desc descs[DET_RIGS];
    /* the crowd: MediaPipe frame, smoothing, the default (stable) side axis, hold and
     * re-acquisition */
    descs[0] = crowd_limbs_defaults();
    descs[0].smoothing = true;
    /* calibrated, root fallback with other signs, another threshold and half-life */
    descs[1] = engine_limbs(CROWD_AXIS_FIX_CALIBRATED);
    descs[1].bind_landmarks = cal.bind_pose;
    descs[1].bind_rotations = cal.binds;
    descs[1].fallback_sign[0] = 1.0f;
    descs[1].fallback_sign[3] = -1.0f;
    descs[1].visibility_threshold = 0.3f;
    descs[1].hold_half_life = 0.2f;
    /* custom fix, smoothing with other cutoffs, previous */
    descs[2] = engine_limbs(CROWD_AXIS_FIX_CUSTOM);
    descs[2].custom_fix = cal.custom;
    descs[2].smoothing = true;
    descs[2].min_cutoff = 1.0f;
    descs[2].beta = 0.5f;
    descs[2].d_cutoff = 2.0f;
    descs[2].fallback = CROWD_FALLBACK_PREVIOUS;

    det_run(&r, descs, det_random_inputs);
}



/* The same inputs ticked by 1, 2 and 3 threads of the engine's pool (crowd_tick splits every
 * rig's rows between them): every bone's bytes equal to one thread's, tick by tick. */
#define DET_THREADS 3
static void det_run_threads(rng *r, const crowd_limbs_desc descs[DET_RIGS], det_inputs_fn inputs) {
    det_engine d[DET_THREADS];
    for (uint32_t k = 0; k < DET_THREADS; k++) det_create_threads(&d[k], crowd_test_simd, k + 1, descs);
    uint32_t total = 0;
    for (int i = 0; i < DET_RIGS; i++) total += det_count[i];
    float *poses = malloc(sizeof(float) * POSE_FLOATS * total);
    float *roots = malloc(sizeof(float) * 4 * total);
    float *out[DET_THREADS];
    for (int k = 0; k < DET_THREADS; k++) out[k] = malloc(sizeof(float) * 4 * det_count[0]);
    assert_true(poses && roots && out[0] && out[1] && out[2]);
    for (uint32_t i = 0; i < total; i++) inputs(r, -1, i, poses + (size_t)i * POSE_FLOATS, roots + 4 * i);
    for (int tick = 0; tick < DET_TICKS; tick++) {
        for (uint32_t i = 0; i < total; i++) inputs(r, tick, i, poses + (size_t)i * POSE_FLOATS, roots + 4 * i);
        double du = rng_unit(r);
        float dt = du < 0.1 ? 0.0f : du < 0.15 ? 1.0f : (float)rng_range(r, 1e-4, 0.05);
        for (int k = 0; k < DET_THREADS; k++) {
            uint32_t off = 0;
            for (int rg = 0; rg < DET_RIGS; rg++) {
                OK(d[k].e, crowd_instances_set(d[k].e, CROWD_FIELD_POSE, 0, d[k].h[rg], det_count[rg],
                                               poses + (size_t)off * POSE_FLOATS));
                OK(d[k].e, crowd_instances_set(d[k].e, CROWD_FIELD_ROOT, 0, d[k].h[rg], det_count[rg], roots + (size_t)off * 4));
                off += det_count[rg];
            }
            OK(d[k].e, crowd_tick(d[k].e, dt));
        }
        for (int rg = 0; rg < DET_RIGS; rg++)
            for (int f = 0; f < 2; f++)
                for (int b = 0; b < NB; b++) {
                    crowd_field field = f ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
                    for (int k = 0; k < DET_THREADS; k++)
                        OK(d[k].e, crowd_instances_get(d[k].e, field, (uint32_t)b, d[k].h[rg], det_count[rg], out[k]));
                    for (int k = 1; k < DET_THREADS; k++)
                        for (uint32_t i = 0; i < det_count[rg]; i++)
                            if (memcmp(out[0] + 4 * i, out[k] + 4 * i, sizeof(float) * 4) != 0) {
                                const float *a = out[0] + 4 * i, *c = out[k] + 4 * i;
                                FAILF("ENGINE BUG: tick %d dt %g rig %d instance %u %s %s: 1 thread (%.9g, %.9g, %.9g, "
                                      "%.9g) vs %d threads (%.9g, %.9g, %.9g, %.9g)",
                                      tick, (double)dt, rg, i, f ? "local" : "world", crowd_bone_name((crowd_bone)b), a[0],
                                      a[1], a[2], a[3], k + 1, c[0], c[1], c[2], c[3]);
                            }
                }
    }
    for (int k = 0; k < DET_THREADS; k++) free(out[k]);
    free(poses);
    free(roots);
    for (int k = 0; k < DET_THREADS; k++) det_destroy(&d[k]);
}

/* SPEC 5.1 revision 2's cases (issue: dropouts while turning, arms bent in the image plane and in
 * depth, a subject facing -z straightening its limbs), per instance i from i's own numbers: the
 * canonical rest pose (facing -z) turning about y at a rate of its own (some turn around),
 * knees and elbows straightening to exactly straight and bending again, arms raised sideways
 * with the forearm bent up in the image plane or hanging with it bent forward in depth, depth
 * jitter, and the whole body or one limb unseen for a few ticks. */
static void det_revision2_inputs(rng *r, int tick, uint32_t i, float *p, float *root) {
    (void)r;
    crowd_rest_landmarks(CROWD_FRAME_ENGINE, p);
    if (tick < 0) tick = 0;
    const double yaw = (double)(i % 13) * 0.5 + tick * (0.05 + 0.02 * (double)(i % 7)); /* radians */
    const double straighten = fmin(1.0, fabs(sin(0.15 * tick + (double)i))) * ((i / 3) % 2 ? 1.0 : 0.0);
    const int arm_kind = (int)((i + (uint32_t)tick / 10) % 3); /* 0 rest, 1 image plane, 2 depth */
    const double jitter = ((tick + (int)i) % 2 ? 1.0 : -1.0) * 0.02 * (double)(i % 4);
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
        int a = limb_joints[l][0], b = limb_joints[l][1], c = limb_joints[l][2];
        v3 pa = lm_get(p, a, false), pb = lm_get(p, b, false), pc = lm_get(p, c, false);
        if (l < 2 && arm_kind) {
            double sx = l == 0 ? 1.0 : -1.0, bend = (20.0 + 5.0 * (double)(i % 9)) * DEG;
            if (arm_kind == 1) { /* raised sideways, the forearm up in the image plane */
                pb = v_add(pa, (v3){sx * 0.28, 0, 0});
                pc = v_add(pb, (v3){sx * 0.25 * cos(bend), 0.25 * sin(bend), jitter});
            } else { /* hanging, the forearm forward in depth */
                pb = v_add(pa, (v3){sx * 0.02, -0.28, 0});
                pc = v_add(pb, (v3){jitter * 0.5, -0.25 * cos(bend), -0.25 * sin(bend)});
            }
        }
        /* toward straight: the distal joint onto the upper bone's line */
        v3 line = v_add(pb, v_scale(v_sub(pb, pa), v_len(v_sub(pc, pb)) / v_len(v_sub(pb, pa))));
        pc = v_add(pc, v_scale(v_sub(line, pc), straighten));
        lm_put(p, b, pb);
        lm_put(p, c, pc);
    }
    qd turn = q_axis_angle((v3){0, 1, 0}, yaw);
    for (int k = 0; k < NL; k++) lm_put(p, k, q_rot(turn, lm_get(p, k, false)));
    /* dropouts: the whole body for ticks 10-17 of every third instance, a limb for others */
    if (i % 3 == 0 && tick >= 10 && tick < 18)
        for (int k = 0; k < NL; k++) p[4 * k + 3] = 0.1f;
    if (i % 3 == 1 && (tick / 6) % 3 == 1)
        for (int k = 0; k < 3; k++) p[4 * limb_joints[i % 4][k] + 3] = 0.2f;
    q_store(i % 5 == 0 ? q_axis_angle((v3){0, 1, 0}, 0.3 * (double)(i % 11)) : Q_ID, root);
}

/* Revision 2's first set of rigs: stable in the engine frame, a calibrated rig with the root
 * fallback, and previous (cal: the calibrated rig's bind pose and rotations). */
static void det_revision2_descs(crowd_limbs_desc descs[DET_RIGS], const det_binds *cal) {
    descs[0] = crowd_limbs_defaults(); /* stable, the engine frame */
    descs[0].frame = CROWD_FRAME_ENGINE;
    descs[1] = engine_limbs(CROWD_AXIS_FIX_CALIBRATED); /* root fallback, tracked */
    descs[1].bind_landmarks = cal->bind_pose;
    descs[1].bind_rotations = cal->binds;
    descs[1].visibility_threshold = 0.5f;
    descs[1].reacquire_half_life = 0.2f;
    descs[2] = crowd_limbs_defaults(); /* previous; then stable arms with other image-plane bounds */
    descs[2].frame = CROWD_FRAME_ENGINE;
    descs[2].fallback = CROWD_FALLBACK_PREVIOUS;
    descs[2].reacquire_half_life = 0.1f;
}

/* revision 2's second set: stable arms with other image-plane bounds, one smoothed */
static void det_revision2_arm_descs(crowd_limbs_desc descs[DET_RIGS]) {
    descs[1] = descs[0];
    descs[1].arm_image_bend = 0.0f;
    descs[2] = descs[0];
    descs[2].arm_image_bend = 90.0f;
    descs[2].smoothing = true;
}

/* revision 2's scenario, one row per comparison: det_run (the scalar target and range
 * splits) and det_run_threads (1, 2 and 3 threads give the same bytes) */
typedef struct revision2_row {
    uint64_t seed;
    void (*run)(rng *r, const crowd_limbs_desc descs[DET_RIGS], det_inputs_fn inputs);
} revision2_row;
static const revision2_row revision2_targets = {1001, det_run}, revision2_threads = {1002, det_run_threads};

static void test_determinism_revision2(void **state) {
    const revision2_row *row = *state;
    rng r = {row->seed};
    det_binds cal;
    det_binds_init(&cal, &r);
    crowd_limbs_desc descs[DET_RIGS];
    det_revision2_descs(descs, &cal);
    row->run(&r, descs, det_revision2_inputs);
    det_revision2_arm_descs(descs);
    row->run(&r, descs, det_revision2_inputs);
}

/* A root nobody wrote is one value for the rig (the tick reads no root column): the same bits
 * as root columns read row by row, before and after one instance gets a root of its own. */
static const float *det_root_columns(const det_engine *d, int rig) {
    return CROWDI_PART(crowdi_rig_get(d->e, d->rig[rig]), LIMBS, const crowdi_limbs_view)->limb_root;
}

static void test_uniform_root(void **state) {
    (void)state;
    rng r = {2024};
    crowd_limbs_desc descs[DET_RIGS];
    det_binds cal;
    det_binds_init(&cal, &r);
    descs[0] = crowd_limbs_defaults();
    descs[1] = engine_limbs(CROWD_AXIS_FIX_CALIBRATED);
    descs[1].bind_landmarks = cal.bind_pose;
    descs[1].bind_rotations = cal.binds;
    descs[1].fallback = CROWD_FALLBACK_ROOT; /* reads the root's right axis too */
    descs[2] = engine_limbs(CROWD_AXIS_FIX_CUSTOM);
    descs[2].custom_fix = cal.custom;
    descs[2].fallback = CROWD_FALLBACK_PREVIOUS;
    det_engine a, b; /* a: the root as the rig left it; b: the root columns handed out */
    det_create(&a, crowd_test_simd, descs);
    det_create(&b, crowd_test_simd, descs);
    for (int rg = 0; rg < DET_RIGS; rg++) {
        float *cols[4];
        uint32_t count;
        OK(b.e, crowd_rig_columns(b.e, b.rig[rg], CROWD_FIELD_ROOT, 0, cols, &count));
        if (det_root_columns(&a, rg) != NULL || det_root_columns(&b, rg) == NULL)
            FAILF("rig %d: the root is read as columns %s, want only in the engine that handed them out", rg,
                  det_root_columns(&a, rg) ? "in both" : "in neither");
    }
    float *pose = malloc(sizeof(float) * POSE_FLOATS);
    float *out[2] = {malloc(sizeof(float) * 4 * det_count[0]), malloc(sizeof(float) * 4 * det_count[0])};
    assert_true(pose && out[0] && out[1]);
    det_engine *both[2] = {&a, &b};
    for (int tick = 0; tick < 40; tick++) {
        if (tick == 20) /* one instance of each rig turns: from then on its rig reads root columns */
            for (int rg = 0; rg < DET_RIGS; rg++) {
                const float identity[4] = {0, 0, 0, 1}, turned[4] = {0, 0.6f, 0, 0.8f};
                OK(a.e, crowd_set(a.e, a.h[rg][3], CROWD_FIELD_ROOT, 0, identity));
                if (det_root_columns(&a, rg) != NULL) FAILF("rig %d: writing the identity root made it vary", rg);
                for (int k = 0; k < 2; k++) OK(both[k]->e, crowd_set(both[k]->e, both[k]->h[rg][3], CROWD_FIELD_ROOT, 0, turned));
                if (det_root_columns(&a, rg) == NULL) FAILF("rig %d: a written root is not read", rg);
            }
        for (int rg = 0; rg < DET_RIGS; rg++)
            for (uint32_t i = 0; i < det_count[rg]; i++) {
                det_pose(&r, pose);
                for (int k = 0; k < 2; k++) OK(both[k]->e, crowd_set(both[k]->e, both[k]->h[rg][i], CROWD_FIELD_POSE, 0, pose));
            }
        float dt = tick % 7 == 3 ? 0.0f : 1.0f / 30.0f;
        for (int k = 0; k < 2; k++) OK(both[k]->e, crowd_tick(both[k]->e, dt));
        for (int rg = 0; rg < DET_RIGS; rg++)
            for (int f = 0; f < 2; f++)
                for (int bone = 0; bone < NB; bone++) {
                    crowd_field field = f ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
                    for (int k = 0; k < 2; k++)
                        OK(both[k]->e, crowd_instances_get(both[k]->e, field, (uint32_t)bone, both[k]->h[rg], det_count[rg], out[k]));
                    for (uint32_t i = 0; i < det_count[rg]; i++)
                        if (memcmp(out[0] + 4 * i, out[1] + 4 * i, sizeof(float) * 4) != 0)
                            FAILF("tick %d rig %d instance %u %s %s: the rig's one root and root columns differ", tick, rg, i,
                                  f ? "local" : "world", crowd_bone_name((crowd_bone)bone));
                }
    }
    free(pose), free(out[0]), free(out[1]);
    det_destroy(&a);
    det_destroy(&b);
}

/* ------------------------------------------------------------------------------------------ */
int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest determinism[] = {
        cmocka_unit_test(test_determinism),
        CROWD_TEST_ROW("test_determinism_revision2", test_determinism_revision2, &revision2_targets),
        CROWD_TEST_ROW("test_determinism_revision2_threads", test_determinism_revision2, &revision2_threads),
        cmocka_unit_test(test_uniform_root),
    };
    return CROWD_TEST_GROUP("determinism", determinism) ? 1 : 0;
}
