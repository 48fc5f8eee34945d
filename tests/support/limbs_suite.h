/* limbs_suite.h — what the limbs suites share (test_limbs_GROUP.c, one ctest suite limbs_GROUP
 * per group): limb bases from pose landmarks (SPEC §5, bad input §6) on the SIMD target named
 * by argv[1].
 *
 * Groups (files)
 *   reference    SPEC §5's printed numbers (legs bent and straight, LookRotation((1,2,3),
 *                (0,1,0)) through the foot and the head), LookRotation's degenerate cases
 *   geometry     random bent poses: unit outputs with w >= 0, +y (y_along_bone) / +z
 *                (z_along_bone) on the landmark directions, world = parent world * local,
 *                every bone against an independent double-precision reading of SPEC §5
 *   fallback     knee and elbow sweeps through straight: `root` uses s_limb * right (on the
 *                subject's side: facing -z and turning around too); neither
 *                pops while the limb straightens; a sideways bend where only `previous` stays
 *                continuous (beyond straight SPEC §5's side flips in both modes: see the sweep)
 *   calibration  bind landmarks reproduce the bind rotations; degenerate bind poses rejected
 *   validity     bad landmarks / root rotations / limbs settings: exact code, a message naming
 *                the field, nothing stored changed; huge finite landmarks give no NaN
 *   clips        the CMU walk and hop (skipped without ../shared/data): directions every
 *                frame; smoothing cuts jitter on the noisy walk; dropouts hold and ease;
 *                and (no data needed) One Euro cuts a still subject's jitter 3x per limb bone
 *   tracking     SPEC 5.1's real tracker input: the rest pose, calibrated rigs under stable,
 *                unseen hips and legs easing to rest, exact steady tracking, re-acquisition
 *   determinism  1000+ instances with random, degenerate and low-visibility poses: the same
 *                bytes as the scalar target and as random crowd_tick_range splits
 *   outputs      crowd_limbs_desc.outputs: world and local only store both's bits over long
 *                runs (dropouts, re-acquisition, degenerate poses; a pool, range splits), the
 *                storage they save, refused reads of the kind not kept, bad values, values
 *                beyond the rules through the columns, snapshots (round trip, version 2)
 *
 * Expected values are computed in double from the float landmarks the engine receives (the
 * engine works in float32, so tolerances are 1e-6 for the SPEC's printed numbers and 1e-5 for
 * rotations computed from random poses, well above float rounding and well below any real
 * error). Failures that are engine bugs (not test bugs) are marked "ENGINE BUG".
 *
 * The helpers are defined once in limbs_suite.c (tests/support, the library
 * crowd_test_limbs_suite, linked into each limbs suite).
 */
#ifndef CROWD_LIMBS_SUITE_H
#define CROWD_LIMBS_SUITE_H
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the re-acquisition progress r, which no field exposes */
#include "kernels/limbs.h"
#include "test_support.h"

/* ------------------------------------------------------------------------------------------
 * results, failures
 * ---------------------------------------------------------------------------------------- */
#define NB CROWD_BONE_COUNT
#define NL CROWD_LANDMARK_COUNT
#define POSE_FLOATS (4 * NL)
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

/* SPEC §5's hierarchy: hips -> chest -> (head, upper arms), hips -> upper legs,
 * upper -> lower -> hand/foot; -1 is the root. */
extern const int bone_parent[NB];
/* limb l (crowd_limb order): joints a (shoulder/hip), b (elbow/knee), c (wrist/ankle) */
extern const int limb_joints[CROWD_LIMB_COUNT][3];
extern const int limb_upper[CROWD_LIMB_COUNT];
/* the landmarks each bone reads (SPEC §5), -1 ends */
extern const int bone_deps[NB][4];
/* upper and lower arms and legs */
bool is_limb_bone(int b);

/* ------------------------------------------------------------------------------------------
 * double-precision vectors and quaternions (x, y, z, w), Hamilton product
 * ---------------------------------------------------------------------------------------- */
typedef struct { double x, y, z; } v3;
typedef struct { double x, y, z, w; } qd;

v3 v_add(v3 a, v3 b);
v3 v_sub(v3 a, v3 b);
v3 v_scale(v3 a, double s);
v3 v_mid(v3 a, v3 b);
double v_dot(v3 a, v3 b);
double v_len(v3 a);
v3 v_cross(v3 l, v3 r);
/* v/|v|, or zero when |v| <= 1e-5 (SPEC §5) */
v3 v_norm0(v3 a);
double v_maxdiff(v3 a, v3 b);

static const qd Q_ID = {0, 0, 0, 1};

qd q_mul(qd a, qd b);
qd q_conj(qd a);
double q_dot(qd a, qd b);
qd q_canon(qd q);
v3 q_rot(qd q, v3 v);
qd q_axis_angle(v3 axis, double angle);
/* The rotation angle from a to b, degrees (q and -q the same rotation). */
double q_angle_deg(qd a, qd b);
/* componentwise distance of q to r or to -r, whichever is closer */
double q_dist(qd q, qd r);
qd qf(const float q[4]);
void q_store(qd q, float out[4]);
/* uniform (Shoemake) */
qd q_random(rng *r);

/* SPEC §5's LookRotation (Unity semantics) with its degenerate cases. */
qd ref_look(v3 forward, v3 up);

/* ------------------------------------------------------------------------------------------
 * poses (engine frame: +y up; a subject facing +z has its right at +x)
 * ---------------------------------------------------------------------------------------- */
void lm_put(float *pose, int k, v3 p);
v3 lm_get(const float *pose, int k, bool flip_y);

/* A plausible standing pose: elbows bent with the forearms forward, knees slightly bent. */
void standing_pose(float *pose);

/* An A-pose for calibration: arms 45 degrees down and out with slightly bent elbows (forearm
 * forward), knees slightly bent; hands and feet as the standing pose. */
void a_pose(float *pose);

/* A random pose with every limb clearly bent (25..155 degrees) and every LookRotation well
 * defined; the body turned by a random rotation, which is also returned as the root. */
void random_bent_pose(rng *r, float *pose, qd *root_out);

/* A random pose for the determinism and outputs crowds: bent, with 0..3 degeneracies and
 * random visibilities. */
void det_pose(rng *r, float *pose);

/* ------------------------------------------------------------------------------------------
 * the reference: SPEC §5 in double (no visibility hold, no smoothing)
 * ---------------------------------------------------------------------------------------- */
typedef struct ref_state {
    bool previous;
    double sign[CROWD_LIMB_COUNT];
    v3 side[CROWD_LIMB_COUNT]; /* previous mode: last bent side, zero = none yet */
} ref_state;

ref_state ref_init(const crowd_limbs_desc *d);
/* the axis fix of a preset, per bone */
void preset_fix(crowd_axis_fix fix, qd out[NB]);

/* the bases before the fix, crowd_bone order */
void ref_bases(ref_state *st, const float *pose, bool flip, qd root, qd basis[NB]);

/* world and local rotations: bases times the fix, local against the parent (the root for the hips) */
void ref_solve(ref_state *st, const float *pose, bool flip, qd root, const qd fix[NB], qd world[NB], qd local[NB]);

/* ------------------------------------------------------------------------------------------
 * engine calls
 * ---------------------------------------------------------------------------------------- */
/* SPEC 5's plain formulas: fallback root, and a bone seen again is tracked at once (a
 * re-acquisition half-life so short that r reaches 1 on the first trusted tick); stable and
 * the ease-in are tested on their own */
crowd_limbs_desc engine_limbs(crowd_axis_fix fix);
/* The engine calls below assert success (OK), failing the test with the engine's message. */
crowd_rig limbs_rig(crowd_engine *e, const crowd_limbs_desc *ld, const char *name);
void add_n(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_instance *out);
crowd_instance add1(crowd_engine *e, crowd_rig rig);
void set_pose(crowd_engine *e, crowd_instance h, const float *pose);
void set_root(crowd_engine *e, crowd_instance h, qd root);

typedef struct bones {
    float wf[NB][4], lf[NB][4]; /* as the engine wrote them */
    qd world[NB], local[NB];
} bones;

void read_bones(crowd_engine *e, crowd_instance h, bones *b);
/* set the pose, tick dt, read the bones */
void solve(crowd_engine *e, crowd_instance h, const float *pose, float dt, bones *b);
/* fails unless got is want or -want within tol, componentwise */
void expect_q(qd got, qd want, double tol, const char *what);

/* unit length to 1e-6, w >= 0, finite */
void check_canonical(const float q[4], const char *what);
/* the same for every world and local rotation */
void check_all_canonical(const bones *b, const char *ctx);

/* world[child] == world[parent] * local[child]; hips: root * local */
void check_hierarchy(const bones *b, qd root, double tol, const char *ctx);

/* y_along_bone: limb bones carry +y on their landmark direction; hands and feet (identity
 * fix) carry +z on theirs. */
void check_directions(const bones *b, const float *pose, bool flip, double tol, const char *ctx);

typedef void (*pose_fn)(float *pose, double angle_deg);

/* ------------------------------------------------------------------------------------------
 * calibration
 * ---------------------------------------------------------------------------------------- */
/* random bind rotations, as the engine gets them and in double */
void random_binds(rng *r, crowd_quat out[NB], qd outd[NB]);
/* crowd_rig_create must fail with code and a message naming field (or alt_field, if given) */
void expect_rig_error(crowd_engine *e, const crowd_limbs_desc *ld, crowd_result code, const char *field,
                      const char *alt_field, const char *what);

/* ------------------------------------------------------------------------------------------
 * the CMU clips
 * ---------------------------------------------------------------------------------------- */
typedef struct clip {
    int n;
    double *t;
    float *pose; /* n * POSE_FLOATS */
} clip;

void clip_free(clip *c);
/* Reads the SPEC §7 pose clip at ../shared/data/rel (false, with a printed skip reason, when
 * it is absent); fails the test on a malformed file. */
bool load_data(const char *rel, clip *c);
/* row k's time step (0 for the first) and landmarks */
float clip_dt(const clip *c, int k);
const float *clip_row(const clip *c, int k);

/* Runs clips through one rig each (all in one engine, one tick per row); world and local
 * rotations per frame and bone. */
typedef struct clip_out {
    qd *world, *local; /* [n * NB] */
} clip_out;

void run_clips(const clip *const *clips, const crowd_limbs_desc *const *descs, int count, clip_out *out);

#endif
