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

static void det_create(det_engine *d, crowd_simd simd, const crowd_limbs_desc descs[DET_RIGS]) {
    d->e = crowd_test_engine_on(77, simd);
    for (int i = 0; i < DET_RIGS; i++) {
        d->rig[i] = limbs_rig(d->e, &descs[i], i == 0 ? "crowd" : i == 1 ? "calibrated" : "custom");
        d->h[i] = calloc(det_count[i], sizeof *d->h[i]);
        assert_non_null(d->h[i]);
        add_n(d->e, d->rig[i], det_count[i], d->h[i]);
    }
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
    for (uint32_t i = 0; i < total; i++) {
        det_pose(&r, poses + (size_t)i * POSE_FLOATS);
        q_store(q_random(&r), roots + 4 * i);
    }
    det_engine *all[3] = {&t, &s, &g};
    for (int tick = 0; tick < DET_TICKS; tick++) {
        /* new inputs: keep, jitter (noise and visibility flicker), or a new pose; new roots */
        for (uint32_t i = 0; i < total; i++) {
            float *p = poses + (size_t)i * POSE_FLOATS;
            double u = rng_unit(&r);
            if (u < 0.4) {
                for (int k = 0; k < POSE_FLOATS; k++) {
                    if (k % 4 != 3) p[k] += (float)rng_range(&r, -0.02, 0.02);
                    else if (rng_chance(&r, 0.05)) p[k] = rng_chance(&r, 0.5) ? 0.2f : 1.0f;
                }
            } else if (u < 0.6) {
                det_pose(&r, p);
            }
            if (rng_chance(&r, 0.1)) q_store(q_random(&r), roots + 4 * i);
        }
        double du = rng_unit(&r);
        float dt = du < 0.1 ? 0.0f : du < 0.15 ? 1.0f : (float)rng_range(&r, 1e-4, 0.05);
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
                uint32_t len = 1 + rng_below(&r, n - first < 70 ? n - first : 70);
                starts[nr] = first, lens[nr] = len, nr++;
                first += len;
            }
            for (uint32_t i = nr; i > 1; i--) {
                uint32_t j = rng_below(&r, i), a = starts[i - 1], b = lens[i - 1];
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
        cmocka_unit_test(test_uniform_root),
    };
    return CROWD_TEST_GROUP("determinism", determinism) ? 1 : 0;
}
