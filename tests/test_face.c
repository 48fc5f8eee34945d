/* Face tracking (crowd.h section 11), on the target named by argv[1]:
 *   head_pose        yaw/pitch/roll from random and gimbal-near rotations against a double
 *                    oracle; the rotation rebuilt from the angles matches the input
 *   matrix           crowd_face_rotation_from_matrix against double quaternions (scaled,
 *                    translated matrices), its refusals, and matrix -> angles end to end
 *   curves_blends    every curve x blend mode against double formulas, entries summing
 *   one_euro         a smoothed source against the One Euro filter in double
 *   handoff          presence toggling mid-blink: eye values between the blink's and the
 *                    face's, steps within what the half-life allows, no blink at control 1
 *   bad_desc         every field of crowd_face_desc refused by name, nothing created
 *   bad_fields       every per-instance field refused by name, nothing stored changes
 *   determinism      bytes equal to scalar, to range splits and to a 3-thread pool
 *   snapshot         a round trip mid hand-off continues bit for bit
 * The inputs are synthetic (random scores and rotations), made here. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "kernels/face.h"
#include "test_support.h"

static const double PI = 3.14159265358979323846, DEG = 180.0 / 3.14159265358979323846;

/* ---- a rig with one wide parameter per source of interest ---- */
typedef struct face_rig {
    crowd_engine *e;
    crowd_rig rig;
    crowd_instance *h;
    uint32_t n;
} face_rig;

static crowd_parameter_desc wide(const char *id) { return (crowd_parameter_desc){id, -1000.0f, 1000.0f, 0.0f, false}; }

static void add_instances(face_rig *f, uint32_t n) {
    f->n = n;
    f->h = calloc(n, sizeof *f->h);
    crowd_add_desc add = {.rig = f->rig, .count = n};
    OK(f->e, crowd_instances_add(f->e, &add, f->h));
}

static void set_all(face_rig *f, crowd_field field, uint32_t index, float v) {
    float *vals = malloc(sizeof *vals * f->n);
    for (uint32_t i = 0; i < f->n; i++) vals[i] = v;
    OK(f->e, crowd_instances_set(f->e, field, index, f->h, f->n, vals));
    free(vals);
}

/* the face fully in control: presence 1 and control 1, so w = weight */
static void take_over(face_rig *f) {
    set_all(f, CROWD_FIELD_FACE_PRESENCE, 0, 1.0f);
    set_all(f, CROWD_FIELD_FACE_CONTROL, 0, 1.0f);
}

static face_rig head_rig(void) {
    face_rig f = {.e = crowd_test_engine(1)};
    crowd_parameter_desc params[3] = {wide("Yaw"), wide("Pitch"), wide("Roll")};
    crowd_face_mapping_desc map[3] = {{CROWD_FACE_HEAD_YAW, "Yaw", 1, 0, CROWD_FACE_CURVE_LINEAR},
                                      {CROWD_FACE_HEAD_PITCH, "Pitch", 1, 0, CROWD_FACE_CURVE_LINEAR},
                                      {CROWD_FACE_HEAD_ROLL, "Roll", 1, 0, CROWD_FACE_CURVE_LINEAR}};
    crowd_face_desc face = crowd_face_defaults();
    face.mapping = map, face.mapping_count = 3;
    crowd_rig_desc rd = {.name = "head", .parameters = params, .parameter_count = 3, .face = &face};
    OK(f.e, crowd_rig_create(f.e, &rd, &f.rig));
    return f;
}

/* ---- double-precision head pose: R = Ry(yaw) Rx(pitch) Rz(roll) ---- */
static void rot_of_angles(double yaw, double pitch, double roll, double R[3][3]) {
    double cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll);
    double Ry[3][3] = {{cy, 0, sy}, {0, 1, 0}, {-sy, 0, cy}}, Rx[3][3] = {{1, 0, 0}, {0, cp, -sp}, {0, sp, cp}},
           Rz[3][3] = {{cr, -sr, 0}, {sr, cr, 0}, {0, 0, 1}}, T[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            T[i][j] = 0;
            for (int k = 0; k < 3; k++) T[i][j] += Ry[i][k] * Rx[k][j];
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            R[i][j] = 0;
            for (int k = 0; k < 3; k++) R[i][j] += T[i][k] * Rz[k][j];
        }
}

static void rot_of_quat(const double q[4], double R[3][3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0][0] = 1 - 2 * (y * y + z * z), R[0][1] = 2 * (x * y - w * z), R[0][2] = 2 * (x * z + w * y);
    R[1][0] = 2 * (x * y + w * z), R[1][1] = 1 - 2 * (x * x + z * z), R[1][2] = 2 * (y * z - w * x);
    R[2][0] = 2 * (x * z - w * y), R[2][1] = 2 * (y * z + w * x), R[2][2] = 1 - 2 * (x * x + y * y);
}

/* the oracle: angles in degrees from a quaternion, in double, with crowd.h's gimbal rule */
static void oracle_angles(const float qf[4], double out[3], double *c_out) {
    double q[4] = {qf[0], qf[1], qf[2], qf[3]}, R[3][3];
    rot_of_quat(q, R);
    double c = sqrt(R[0][2] * R[0][2] + R[2][2] * R[2][2]);
    out[1] = atan2(-R[1][2], c) * DEG;
    if (c >= 0x1p-10) {
        out[0] = atan2(R[0][2], R[2][2]) * DEG;
        out[2] = atan2(R[1][0], R[1][1]) * DEG;
    } else {
        out[0] = atan2(-R[2][0], R[0][0]) * DEG;
        out[2] = 0;
    }
    *c_out = c;
}


/* the angle (radians) between two rotations, from |A - B| (Frobenius) = 2*sqrt(2)*sin(angle/2):
 * well-conditioned for small angles, where acos of the trace is not */
static double rot_distance(double A[3][3], double B[3][3]) {
    double f = 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) f += (A[i][k] - B[i][k]) * (A[i][k] - B[i][k]);
    double s = sqrt(f) / (2 * sqrt(2.0));
    return 2 * asin(s > 1 ? 1 : s);
}

static void quat_of_angles(double yaw, double pitch, double roll, float q[4]) {
    /* q = qy * qx * qz */
    double a[4] = {0, sin(yaw / 2), 0, cos(yaw / 2)}, b[4] = {sin(pitch / 2), 0, 0, cos(pitch / 2)},
           c[4] = {0, 0, sin(roll / 2), cos(roll / 2)}, t[4], r[4];
#define QMUL(o, p, s)                                                 \
    o[0] = p[3] * s[0] + p[0] * s[3] + p[1] * s[2] - p[2] * s[1];    \
    o[1] = p[3] * s[1] - p[0] * s[2] + p[1] * s[3] + p[2] * s[0];    \
    o[2] = p[3] * s[2] + p[0] * s[1] - p[1] * s[0] + p[2] * s[3];    \
    o[3] = p[3] * s[3] - p[0] * s[0] - p[1] * s[1] - p[2] * s[2]
    QMUL(t, a, b);
    QMUL(r, t, c);
#undef QMUL
    double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = (float)(r[k] / n);
}

/* Feeds quaternions, ticks once and checks every instance against the oracle: yaw and roll
 * where c is clear of the gimbal switch (float and double may fall on either side of it),
 * pitch always, and the rotation rebuilt from the engine's angles against the input. */
static void check_head(face_rig *f, const float *quats, const char *what, double *max_err_rad) {
    OK(f->e, crowd_instances_set(f->e, CROWD_FIELD_FACE_ROTATION, 0, f->h, f->n, quats));
    OK(f->e, crowd_tick(f->e, 1.0f / 60.0f));
    for (uint32_t i = 0; i < f->n; i++) {
        float out[3];
        OK(f->e, crowd_get_outputs(f->e, f->h[i], out, 3));
        double want[3], c;
        oracle_angles(quats + 4 * i, want, &c);
        /* float R entries are off by a few 1e-7 absolute; atan2 then errs by that over the
         * length of its argument, plus its own 2.5e-7 */
        double tol_pitch = (1e-6) * DEG, tol_yr = (1e-6 + 1e-6 / c) * DEG;
        double ep = fabs(out[1] - want[1]);
        if (ep > tol_pitch) FAILF("%s %u: pitch %.9g, oracle %.9g", what, i, (double)out[1], want[1]);
        bool clear = c > 2 * 0x1p-10 || c < 0.5 * 0x1p-10;
        if (clear) {
            double ey = fabs(remainder(out[0] - want[0], 360.0)), er = fabs(remainder(out[2] - want[2], 360.0));
            if (c < 0x1p-10) {
                if (out[2] != 0.0f) FAILF("%s %u: gimbal-locked roll %.9g, must be 0", what, i, (double)out[2]);
                tol_yr = 2e-6 * DEG;
            }
            if (ey > tol_yr) FAILF("%s %u: yaw %.9g, oracle %.9g (c %g)", what, i, (double)out[0], want[0], c);
            if (er > tol_yr) FAILF("%s %u: roll %.9g, oracle %.9g (c %g)", what, i, (double)out[2], want[2], c);
            if (c > 0.1) {
                double err = fmax(ey, fmax(er, ep)) / DEG;
                if (err > *max_err_rad) *max_err_rad = err;
            }
        }
        double Rin[3][3], Rout[3][3], q[4] = {quats[4 * i], quats[4 * i + 1], quats[4 * i + 2], quats[4 * i + 3]};
        rot_of_quat(q, Rin);
        rot_of_angles(out[0] / DEG, out[1] / DEG, out[2] / DEG, Rout);
        /* locked, the angles drop a rotation of at most 2c radians (Rx(c) and Rz(roll) do not
         * commute); else only rounding */
        double d = rot_distance(Rin, Rout) * DEG, allowed = (c < 0x1p-10 ? 2 * c * DEG : 0) + 0.02;
        if (d > allowed) FAILF("%s %u: angles (%g, %g, %g) rebuild a rotation %g degrees off", what, i, (double)out[0],
                           (double)out[1], (double)out[2], d);
    }
}

static void test_head_pose(void **state) {
    (void)state;
    face_rig f = head_rig();
    const uint32_t N = 4099; /* a tail on every width */
    add_instances(&f, N);
    take_over(&f);
    float *q = malloc(sizeof *q * 4 * N);
    rng r = {42};
    double max_err = 0;
    for (int round = 0; round < 4; round++) {
        /* uniform random rotations (Shoemake) */
        for (uint32_t i = 0; i < N; i++) {
            double u1 = rng_unit(&r), u2 = rng_unit(&r) * 2 * PI, u3 = rng_unit(&r) * 2 * PI;
            double a = sqrt(1 - u1), b = sqrt(u1), v[4] = {a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)};
            double s = v[3] < 0 ? -1 : 1;
            for (int k = 0; k < 4; k++) q[4 * i + k] = (float)(s * v[k]);
        }
        check_head(&f, q, "random", &max_err);
    }
    /* gimbal-near: pitch within 2 degrees of +-90, down to exactly 90 */
    const double eps_deg[] = {2, 1, 0.3, 0.1, 0.03, 0.01, 0.001, 0};
    for (uint32_t i = 0; i < N; i++) {
        double eps = eps_deg[i % 8] * (0.5 + rng_unit(&r));
        double pitch = ((i / 8) % 2 ? -1 : 1) * (90 - eps) / DEG;
        quat_of_angles((rng_unit(&r) * 2 - 1) * PI, pitch, (rng_unit(&r) * 2 - 1) * PI, q + 4 * i);
    }
    check_head(&f, q, "gimbal-near", &max_err);
    /* identity and plain turns: exact known angles */
    float plain[4][4], want[4][3] = {{0, 0, 0}, {30, 0, 0}, {0, -20, 0}, {0, 0, 45}};
    quat_of_angles(0, 0, 0, plain[0]);
    quat_of_angles(30 / DEG, 0, 0, plain[1]);
    quat_of_angles(0, -20 / DEG, 0, plain[2]);
    quat_of_angles(0, 0, 45 / DEG, plain[3]);
    OK(f.e, crowd_instances_set(f.e, CROWD_FIELD_FACE_ROTATION, 0, f.h, 4, &plain[0][0]));
    OK(f.e, crowd_tick(f.e, 1.0f / 60.0f));
    for (int k = 0; k < 4; k++) {
        float out[3];
        OK(f.e, crowd_get_outputs(f.e, f.h[k], out, 3));
        for (int a = 0; a < 3; a++)
            if (fabs(out[a] - want[k][a]) > 2e-4) FAILF("plain %d: angle %d is %.9g, want %g", k, a, (double)out[a], (double)want[k][a]);
    }
    printf("head pose: max angle error vs double %.3g rad (c > 0.1)\n", max_err);
    free(q);
    free(f.h);
    crowd_engine_destroy(f.e);
}

/* ---- matrices ---- */
static void matrix_of(double yaw, double pitch, double roll, double scale, float m[16]) {
    double R[3][3];
    rot_of_angles(yaw, pitch, roll, R);
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < 3; r++) m[4 * c + r] = (float)(scale * R[r][c]);
        m[4 * c + 3] = 0;
    }
    m[12] = 1.5f, m[13] = -2.0f, m[14] = -40.0f, m[15] = 1.0f; /* translation, as the tracker gives */
}

static void test_matrix(void **state) {
    (void)state;
    rng r = {7};
    face_rig f = head_rig();
    const uint32_t N = 512;
    add_instances(&f, N);
    take_over(&f);
    float *q = malloc(sizeof *q * 4 * N);
    double (*angles)[3] = malloc(sizeof *angles * N);
    for (uint32_t i = 0; i < N; i++) {
        double yaw = (rng_unit(&r) * 2 - 1) * 60 / DEG, pitch = (rng_unit(&r) * 2 - 1) * 45 / DEG,
               roll = (rng_unit(&r) * 2 - 1) * 40 / DEG, scale = 0.5 + 2 * rng_unit(&r);
        float m[16], want[4];
        matrix_of(yaw, pitch, roll, scale, m);
        crowd_quat got;
        assert_int_equal(crowd_face_rotation_from_matrix(m, &got), CROWD_OK);
        quat_of_angles(yaw, pitch, roll, want);
        if (want[3] < 0)
            for (int k = 0; k < 4; k++) want[k] = -want[k];
        const float g[4] = {got.x, got.y, got.z, got.w};
        for (int k = 0; k < 4; k++)
            if (fabsf(g[k] - want[k]) > 2e-6f) FAILF("matrix %u: q[%d] %.9g, double %.9g", i, k, (double)g[k], (double)want[k]);
        if (!(got.w >= 0)) FAILF("matrix %u: w < 0", i);
        memcpy(q + 4 * i, g, sizeof g);
        angles[i][0] = yaw * DEG, angles[i][1] = pitch * DEG, angles[i][2] = roll * DEG;
    }
    /* end to end: the matrix's angles back from the engine */
    OK(f.e, crowd_instances_set(f.e, CROWD_FIELD_FACE_ROTATION, 0, f.h, N, q));
    OK(f.e, crowd_tick(f.e, 0.0f));
    for (uint32_t i = 0; i < N; i++) {
        float out[3];
        OK(f.e, crowd_get_outputs(f.e, f.h[i], out, 3));
        for (int a = 0; a < 3; a++)
            if (fabs(out[a] - angles[i][a]) > 5e-4) FAILF("matrix %u: angle %d %.9g, built from %.9g", i, a, (double)out[a], angles[i][a]);
    }
    /* refusals */
    float m[16];
    crowd_quat out = {9, 9, 9, 9};
    matrix_of(0.3, 0.2, 0.1, 1, m);
    assert_int_equal(crowd_face_rotation_from_matrix(NULL, &out), CROWD_ERR_NULL);
    assert_int_equal(crowd_face_rotation_from_matrix(m, NULL), CROWD_ERR_NULL);
    float bad[16];
    memcpy(bad, m, sizeof bad), bad[5] = NAN;
    assert_int_equal(crowd_face_rotation_from_matrix(bad, &out), CROWD_ERR_NOT_FINITE);
    memcpy(bad, m, sizeof bad), bad[0] = bad[1] = bad[2] = 0;
    assert_int_equal(crowd_face_rotation_from_matrix(bad, &out), CROWD_ERR_RANGE); /* a zero column */
    memcpy(bad, m, sizeof bad);
    for (int k = 0; k < 3; k++) bad[k] *= 1.1f; /* unequal scale */
    assert_int_equal(crowd_face_rotation_from_matrix(bad, &out), CROWD_ERR_RANGE);
    memcpy(bad, m, sizeof bad);
    for (int k = 0; k < 3; k++) bad[8 + k] = -bad[8 + k]; /* a reflection */
    assert_int_equal(crowd_face_rotation_from_matrix(bad, &out), CROWD_ERR_RANGE);
    memcpy(bad, m, sizeof bad), bad[4] += 0.2f; /* sheared */
    assert_int_equal(crowd_face_rotation_from_matrix(bad, &out), CROWD_ERR_RANGE);
    if (out.x != 9 || out.w != 9) FAILF("a refused matrix wrote the quaternion");
    free(q);
    free(angles);
    free(f.h);
    crowd_engine_destroy(f.e);
}

/* ---- curves and blend modes ---- */
static double clampd(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

static void test_curves_blends(void **state) {
    (void)state;
    const crowd_blend modes[3] = {CROWD_BLEND_OVERRIDE, CROWD_BLEND_ADDITIVE, CROWD_BLEND_MULTIPLY};
    const float scores[] = {0, 0.1f, 0.25f, 0.3333f, 0.5f, 0.75f, 0.9f, 1};
    const uint32_t S = sizeof scores / sizeof scores[0];
    for (int mi = 0; mi < 3; mi++)
        for (int curve = 0; curve < CROWD_FACE_CURVE_COUNT; curve++) {
            crowd_engine *e = crowd_test_engine(3);
            crowd_parameter_desc params[2] = {{"A", -2, 3, 0.5f, false}, {"B", -10, 10, 0, false}};
            /* A: one entry; B: two entries that add up */
            crowd_face_mapping_desc map[3] = {{CROWD_FACE_JAW_OPEN, "A", 2.5f, -0.75f, (crowd_face_curve)curve},
                                              {CROWD_FACE_MOUTH_SMILE_LEFT, "B", 3.0f, 1.0f, (crowd_face_curve)curve},
                                              {CROWD_FACE_JAW_OPEN, "B", -4.0f, 0.5f, (crowd_face_curve)curve}};
            crowd_face_desc face = crowd_face_defaults();
            face.mapping = map, face.mapping_count = 3, face.blend = modes[mi];
            crowd_rig_desc rd = {.name = "curves", .parameters = params, .parameter_count = 2, .face = &face};
            crowd_rig rig;
            OK(e, crowd_rig_create(e, &rd, &rig));
            face_rig f = {.e = e, .rig = rig};
            add_instances(&f, S * S);
            take_over(&f);
            set_all(&f, CROWD_FIELD_FACE_WEIGHT, 0, 0.3f);
            float *sc = calloc((size_t)f.n * CROWD_FACE_SCORE_COUNT, sizeof *sc);
            float *base = malloc(sizeof *base * f.n);
            for (uint32_t i = 0; i < f.n; i++) {
                sc[i * CROWD_FACE_SCORE_COUNT + CROWD_FACE_JAW_OPEN] = scores[i % S];
                sc[i * CROWD_FACE_SCORE_COUNT + CROWD_FACE_MOUTH_SMILE_LEFT] = scores[i / S];
                base[i] = -1.5f + 0.37f * (float)(i % 7);
            }
            OK(e, crowd_instances_set(e, CROWD_FIELD_FACE_SCORES, 0, f.h, f.n, sc));
            OK(e, crowd_instances_set(e, CROWD_FIELD_BASE, 0, f.h, f.n, base));
            OK(e, crowd_instances_set(e, CROWD_FIELD_BASE, 1, f.h, f.n, base));
            OK(e, crowd_tick(e, 1.0f / 30.0f));
            for (uint32_t i = 0; i < f.n; i++) {
                double c[2];
                for (int k = 0; k < 2; k++) {
                    double s = k == 0 ? scores[i % S] : scores[i / S];
                    double t = clampd(s, 0, 1);
                    c[k] = curve == CROWD_FACE_CURVE_LINEAR ? s : t * t * (3 - 2 * t);
                }
                double vA = -0.75 + 2.5 * c[0], vB = (1.0 + 3.0 * c[1]) + (0.5 - 4.0 * c[0]);
                double P = base[i], w = 0.3f, want[2];
                const double v[2] = {vA, vB}, lo[2] = {-2, -10}, hi[2] = {3, 10};
                for (int p = 0; p < 2; p++) {
                    double x = modes[mi] == CROWD_BLEND_OVERRIDE ? P * (1 - w) + v[p] * w
                               : modes[mi] == CROWD_BLEND_ADDITIVE ? P + v[p] * w
                                                                    : P * (1 + (v[p] - 1) * w);
                    want[p] = clampd(x, lo[p], hi[p]);
                }
                float out[2];
                OK(e, crowd_get_outputs(e, f.h[i], out, 2));
                for (int p = 0; p < 2; p++)
                    if (fabs(out[p] - want[p]) > 4e-6 * fmax(1, fabs(want[p])))
                        FAILF("blend %d curve %d instance %u parameter %d: %.9g, double %.9g", (int)modes[mi], curve, i, p,
                              (double)out[p], want[p]);
            }
            free(sc), free(base), free(f.h);
            crowd_engine_destroy(e);
        }
}

/* ---- One Euro on a source ---- */
static void test_one_euro(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(5);
    crowd_parameter_desc params[1] = {wide("Jaw")};
    crowd_face_mapping_desc map[1] = {{CROWD_FACE_JAW_OPEN, "Jaw", 1, 0, CROWD_FACE_CURVE_LINEAR}};
    crowd_face_desc face = crowd_face_defaults();
    face.mapping = map, face.mapping_count = 1;
    face.smoothed_sources = CROWD_FACE_SOURCE_BIT(CROWD_FACE_JAW_OPEN);
    face.min_cutoff = 1.5f, face.beta = 0.8f, face.d_cutoff = 2.0f;
    crowd_rig_desc rd = {.name = "euro", .parameters = params, .parameter_count = 1, .face = &face};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    face_rig f = {.e = e, .rig = rig};
    add_instances(&f, 1);
    take_over(&f);
    const float dt = 1.0f / 30.0f;
    double x_hat = 0, dx_hat = 0, raw = 0;
    bool first = true;
    float sc[CROWD_FACE_SCORE_COUNT] = {0};
    for (int t = 0; t < 90; t++) {
        double x = t < 10 ? 0.1 : (t < 40 ? 0.9 : 0.4 + 0.3 * sin(t * 0.4));
        sc[CROWD_FACE_JAW_OPEN] = (float)x;
        x = sc[CROWD_FACE_JAW_OPEN];
        OK(e, crowd_set(e, f.h[0], CROWD_FIELD_FACE_SCORES, 0, sc));
        float step = t % 17 == 5 ? 0.0f : dt; /* dt = 0 keeps the filtered value */
        OK(e, crowd_tick(e, step));
        if (first) {
            x_hat = raw = x, dx_hat = 0, first = false;
        } else if (step > 0) {
            double te = 1.0 / (2 * PI * 2.0), ad = 1 / (1 + te / step);
            double dx = (x - raw) / step;
            dx_hat = ad * dx + (1 - ad) * dx_hat;
            double cutoff = 1.5 + 0.8 * fabs(dx_hat), a = 1 / (1 + (1 / (2 * PI * cutoff)) / step);
            x_hat = a * x + (1 - a) * x_hat;
            raw = x;
        }
        float out;
        OK(e, crowd_get_outputs(e, f.h[0], &out, 1));
        if (fabs(out - x_hat) > 2e-5) FAILF("tick %d: smoothed %.9g, One Euro in double %.9g", t, (double)out, x_hat);
    }
    free(f.h);
    crowd_engine_destroy(e);
}

/* ---- the hand-off with auto-blink ---- */
static crowd_rig eye_rig(crowd_engine *e, bool with_face, float half_life) {
    static crowd_parameter_desc params[2] = {{"ParamEyeLOpen", 0, 1, 1, false}, {"ParamEyeROpen", 0, 1, 1, false}};
    static const char *blink_ids[2] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = blink_ids, blink.parameter_count = 2, blink.mean = 0.6f, blink.max_deviation = 0.4f;
    crowd_face_desc face = crowd_face_defaults();
    face.mapping = crowd_face_standard_mapping() + 3, face.mapping_count = 2; /* the two eyes */
    face.handoff_half_life = half_life;
    face.blend = CROWD_BLEND_ADDITIVE; /* blink parameters take override whatever this says */
    crowd_rig_desc rd = {.name = "eyes", .parameters = params, .parameter_count = 2, .blink = &blink,
                         .face = with_face ? &face : NULL};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

static void test_handoff(void **state) {
    (void)state;
    const float half_life = 0.15f, dt = 1.0f / 60.0f;
    crowd_engine *ef = crowd_test_engine(11), *eb = crowd_test_engine(11);
    face_rig f = {.e = ef, .rig = eye_rig(ef, true, half_life)}, b = {.e = eb, .rig = eye_rig(eb, false, half_life)};
    const uint32_t N = 37;
    add_instances(&f, N);
    add_instances(&b, N);
    float *sc = calloc((size_t)N * CROWD_FACE_SCORE_COUNT, sizeof *sc);
    double *F = malloc(sizeof *F * N);
    for (uint32_t i = 0; i < N; i++) {
        sc[i * CROWD_FACE_SCORE_COUNT + CROWD_FACE_EYE_BLINK_LEFT] = (float)(0.05 + 0.9 * i / N);
        F[i] = 1.0 - (double)sc[i * CROWD_FACE_SCORE_COUNT + CROWD_FACE_EYE_BLINK_LEFT];
    }
    OK(ef, crowd_instances_set(ef, CROWD_FIELD_FACE_SCORES, 0, f.h, N, sc));
    const double k = exp2(-(double)dt / half_life), allowed = (1 - k) + 0x1p-10 + 1e-6;
    rng r = {99};
    float *pres = malloc(sizeof *pres * N), *prev_out = malloc(sizeof *prev_out * N), *prev_c = calloc(N, sizeof *prev_c);
    double *prev_B = malloc(sizeof *prev_B * N);
    int full_control_ticks = 0, blinking_under_face = 0, mid_handoff_in_blink = 0;
    for (uint32_t i = 0; i < N; i++) pres[i] = 0;
    for (int t = 0; t < 1500; t++) {
        /* presence toggles at random moments, often while a blink runs */
        for (uint32_t i = 0; i < N; i++)
            if (rng_unit(&r) < 0.03) pres[i] = pres[i] > 0.5f ? (float)(0.5 * rng_unit(&r)) : (float)(0.51 + 0.49 * rng_unit(&r));
        OK(ef, crowd_instances_set(ef, CROWD_FIELD_FACE_PRESENCE, 0, f.h, N, pres));
        OK(ef, crowd_tick(ef, dt));
        OK(eb, crowd_tick(eb, dt));
        for (uint32_t i = 0; i < N; i++) {
            float out[2], bout[2], c;
            OK(ef, crowd_get_outputs(ef, f.h[i], out, 2));
            OK(eb, crowd_get_outputs(eb, b.h[i], bout, 2));
            OK(ef, crowd_get(ef, f.h[i], CROWD_FIELD_FACE_CONTROL, 0, &c));
            double B = bout[0], lo = fmin(B, F[i]), hi = fmax(B, F[i]);
            if (out[0] < lo - 1e-6 || out[0] > hi + 1e-6)
                FAILF("tick %d instance %u: eye %.9g outside blink %.9g .. face %.9g (control %g)", t, i, (double)out[0], B,
                      F[i], (double)c);
            /* the right eye has no score (0): the face opens it fully at control 1 */
            double wantR = (double)bout[1] * (1 - (double)c) + 1.0 * c;
            if (fabs(out[1] - wantR) > 2e-6) FAILF("tick %d instance %u: right eye %.9g, want %.9g", t, i, (double)out[1], wantR);
            if (t > 0) {
                double dc = fabs((double)c - prev_c[i]);
                if (dc > allowed) FAILF("tick %d instance %u: control moved %g, the half-life allows %g", t, i, dc, allowed);
                double jump = fabs((double)out[0] - prev_out[i]), limit = fabs(B - prev_B[i]) + allowed * fabs(F[i] - prev_B[i]) + 1e-6;
                if (jump > limit)
                    FAILF("tick %d instance %u: eye jumped %g, blink moved %g, hand-off allows %g", t, i, jump,
                          fabs(B - prev_B[i]), allowed * fabs(F[i] - prev_B[i]));
            }
            if (c == 1.0f) {
                full_control_ticks++;
                if (out[0] != (float)F[i]) FAILF("tick %d instance %u: at control 1 the eye is %.9g, the face says %.9g", t, i, (double)out[0], F[i]);
                if (B < 0.99) blinking_under_face++;
            }
            if (c > 0.05f && c < 0.95f && B < 0.9) mid_handoff_in_blink++;
            prev_out[i] = out[0], prev_c[i] = c, prev_B[i] = B;
        }
    }
    /* the test saw what it is about */
    if (full_control_ticks < 1000 || blinking_under_face < 50 || mid_handoff_in_blink < 20)
        FAILF("too few interesting ticks: %d at control 1, %d blink ticks under the face, %d hand-off ticks mid-blink",
              full_control_ticks, blinking_under_face, mid_handoff_in_blink);
    printf("hand-off: %d ticks at control 1 (%d of them while auto-blink closed the eyes), %d mid hand-off mid-blink\n",
           full_control_ticks, blinking_under_face, mid_handoff_in_blink);
    free(sc), free(F), free(pres), free(prev_out), free(prev_c), free(prev_B), free(f.h), free(b.h);
    crowd_engine_destroy(ef);
    crowd_engine_destroy(eb);
}

/* ---- bad descs ---- */
static void test_bad_desc(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    crowd_parameter_desc params[2] = {wide("A"), wide("B")};
    crowd_face_mapping_desc good_map[2] = {{CROWD_FACE_JAW_OPEN, "A", 1, 0, CROWD_FACE_CURVE_LINEAR},
                                           {CROWD_FACE_HEAD_YAW, "B", 1, 0, CROWD_FACE_CURVE_SMOOTHSTEP}};
    struct {
        const char *field;
        crowd_result code;
        int which;
    } cases[] = {
        {"mapping_count", CROWD_ERR_CAPACITY, 0}, {"mapping is NULL", CROWD_ERR_NULL, 1},
        {"blend", CROWD_ERR_BAD_ENUM, 2},         {"presence_threshold", CROWD_ERR_RANGE, 3},
        {"presence_threshold", CROWD_ERR_NOT_FINITE, 4}, {"handoff_half_life", CROWD_ERR_RANGE, 5},
        {"handoff_half_life", CROWD_ERR_RANGE, 6}, {"min_cutoff", CROWD_ERR_RANGE, 7},
        {"beta", CROWD_ERR_RANGE, 8},             {"d_cutoff", CROWD_ERR_NOT_FINITE, 9},
        {"smoothed_sources", CROWD_ERR_RANGE, 10}, {"mapping[1].source", CROWD_ERR_BAD_ENUM, 11},
        {"mapping[1].id is NULL", CROWD_ERR_NULL, 12}, {"mapping[1].id \"C\"", CROWD_ERR_UNKNOWN_ID, 13},
        {"mapping[1].gain", CROWD_ERR_NOT_FINITE, 14}, {"mapping[1].gain", CROWD_ERR_RANGE, 15},
        {"mapping[1].offset", CROWD_ERR_RANGE, 16}, {"mapping[1].curve", CROWD_ERR_BAD_ENUM, 17},
        {"d_cutoff", CROWD_ERR_RANGE, 18},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        crowd_face_mapping_desc map[2];
        memcpy(map, good_map, sizeof map);
        crowd_face_desc face = crowd_face_defaults();
        face.mapping = map, face.mapping_count = 2;
        switch (cases[c].which) {
        case 0: face.mapping_count = CROWD_MAX_ENTRIES + 1; break;
        case 1: face.mapping = NULL; break;
        case 2: face.blend = CROWD_BLEND_COUNT; break;
        case 3: face.presence_threshold = 1.5f; break;
        case 4: face.presence_threshold = NAN; break;
        case 5: face.handoff_half_life = 0; break;
        case 6: face.handoff_half_life = 4000; break;
        case 7: face.min_cutoff = -1; break;
        case 8: face.beta = 2e6f; break;
        case 9: face.d_cutoff = INFINITY; break;
        case 10: face.smoothed_sources = CROWD_FACE_SOURCE_BIT(CROWD_FACE_SOURCE_COUNT); break;
        case 11: map[1].source = CROWD_FACE_SOURCE_COUNT; break;
        case 12: map[1].id = NULL; break;
        case 13: map[1].id = "C"; break;
        case 14: map[1].gain = NAN; break;
        case 15: map[1].gain = 2e6f; break;
        case 16: map[1].offset = -2e6f; break;
        case 17: map[1].curve = CROWD_FACE_CURVE_COUNT; break;
        case 18: face.d_cutoff = 0; break;
        }
        crowd_rig_desc rd = {.name = "bad", .parameters = params, .parameter_count = 2, .face = &face};
        crowd_rig rig = {12345};
        crowd_result res = crowd_rig_create(e, &rd, &rig);
        if (res != cases[c].code) FAILF("case %zu (%s): %s, want %s (%s)", c, cases[c].field, rname(res), rname(cases[c].code), crowd_last_error(e));
        if (!strstr(crowd_last_error(e), cases[c].field) || !strstr(crowd_last_error(e), "desc->face"))
            FAILF("case %zu: the message \"%s\" does not name desc->face...%s", c, crowd_last_error(e), cases[c].field);
        if (rig.id != 12345) FAILF("case %zu: a refused desc wrote out_rig", c);
    }
    /* nothing was created: the first good rig is the engine's first */
    crowd_face_desc face = crowd_face_defaults();
    face.mapping = good_map, face.mapping_count = 2;
    crowd_rig_desc rd = {.name = "good", .parameters = params, .parameter_count = 2, .face = &face};
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    assert_int_equal(rig.id & 0xffffu, 1);
    /* the standard mapping against a rig without its parameters: refused by name */
    crowd_face_desc std = crowd_face_defaults();
    rd.face = &std;
    assert_int_equal(crowd_rig_create(e, &rd, &rig), CROWD_ERR_UNKNOWN_ID);
    if (!strstr(crowd_last_error(e), "ParamAngleX")) FAILF("message: %s", crowd_last_error(e));
    crowd_engine_destroy(e);
}

/* ---- bad per-instance values ---- */
static void test_bad_fields(void **state) {
    (void)state;
    face_rig f = head_rig();
    add_instances(&f, 3);
    float snap_before[64], snap_after[64];
    struct {
        crowd_field field;
        uint32_t comp;
        float value;
        crowd_result code;
    } cases[] = {
        {CROWD_FIELD_FACE_SCORES, 0, -0.01f, CROWD_ERR_RANGE},   {CROWD_FIELD_FACE_SCORES, 51, 1.01f, CROWD_ERR_RANGE},
        {CROWD_FIELD_FACE_SCORES, 25, NAN, CROWD_ERR_NOT_FINITE}, {CROWD_FIELD_FACE_ROTATION, 3, 0.5f, CROWD_ERR_RANGE},
        {CROWD_FIELD_FACE_ROTATION, 1, INFINITY, CROWD_ERR_NOT_FINITE}, {CROWD_FIELD_FACE_PRESENCE, 0, 1.5f, CROWD_ERR_RANGE},
        {CROWD_FIELD_FACE_PRESENCE, 0, NAN, CROWD_ERR_NOT_FINITE}, {CROWD_FIELD_FACE_WEIGHT, 0, -1.0f, CROWD_ERR_RANGE},
        {CROWD_FIELD_FACE_CONTROL, 0, 2.0f, CROWD_ERR_RANGE},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        crowd_field fl = cases[c].field;
        uint32_t w = crowd_field_width(fl);
        /* a good value for every instance, the bad one in the last instance's component */
        float vals[3 * 64];
        for (uint32_t i = 0; i < 3; i++)
            for (uint32_t k = 0; k < w; k++) vals[i * w + k] = fl == CROWD_FIELD_FACE_ROTATION ? (k == 3 ? 1.0f : 0.0f) : 0.25f;
        vals[2 * w + cases[c].comp] = cases[c].value;
        OK(f.e, crowd_get(f.e, f.h[0], fl, 0, snap_before));
        crowd_result res = crowd_instances_set(f.e, fl, 0, f.h, 3, vals);
        if (res != cases[c].code) FAILF("case %zu: %s, want %s (%s)", c, rname(res), rname(cases[c].code), crowd_last_error(f.e));
        if (!strstr(crowd_last_error(f.e), crowd_field_name(fl)))
            FAILF("case %zu: \"%s\" does not name %s", c, crowd_last_error(f.e), crowd_field_name(fl));
        OK(f.e, crowd_get(f.e, f.h[0], fl, 0, snap_after));
        if (memcmp(snap_before, snap_after, w * sizeof(float)) != 0) FAILF("case %zu: instance 0 changed", c);
    }
    /* a rig without face tracking has none of the fields */
    crowd_parameter_desc params[1] = {wide("A")};
    crowd_rig_desc rd = {.name = "plain", .parameters = params, .parameter_count = 1};
    crowd_rig plain;
    OK(f.e, crowd_rig_create(f.e, &rd, &plain));
    crowd_instance h;
    crowd_add_desc add = {.rig = plain, .count = 1};
    OK(f.e, crowd_instances_add(f.e, &add, &h));
    float v = 0.5f;
    assert_int_equal(crowd_set(f.e, h, CROWD_FIELD_FACE_PRESENCE, 0, &v), CROWD_ERR_NO_CONTROLLER);
    assert_string_equal(crowd_field_name(CROWD_FIELD_FACE_SCORES), "face_scores");
    assert_int_equal(crowd_field_width(CROWD_FIELD_FACE_SCORES), 52);
    assert_string_equal(crowd_face_source_name(CROWD_FACE_JAW_OPEN), "jawOpen");
    assert_string_equal(crowd_face_source_name(CROWD_FACE_NOSE_SNEER_RIGHT), "noseSneerRight");
    assert_null(crowd_face_source_name(CROWD_FACE_SOURCE_COUNT));
    /* the documented defaults */
    crowd_face_mapping_desc md = crowd_face_mapping_defaults(CROWD_FACE_JAW_OPEN, "A");
    assert_true(md.source == CROWD_FACE_JAW_OPEN && strcmp(md.id, "A") == 0 && md.gain == 1.0f && md.offset == 0.0f &&
                md.curve == CROWD_FACE_CURVE_LINEAR);
    crowd_face_desc fd = crowd_face_defaults();
    assert_true(fd.mapping == crowd_face_standard_mapping() && fd.mapping_count == CROWD_FACE_STANDARD_MAPPING_COUNT &&
                fd.blend == CROWD_BLEND_OVERRIDE && fd.presence_threshold == 0.5f && fd.handoff_half_life == 0.1f &&
                fd.smoothed_sources == 0 && fd.min_cutoff == 1.0f && fd.beta == 0.0f && fd.d_cutoff == 1.0f);
    free(f.h);
    crowd_engine_destroy(f.e);
}

/* ---- a full crowd for determinism and snapshots ---- */
typedef struct world {
    crowd_engine *e;
    crowd_rig rig;
    crowd_instance *h;
    uint32_t n;
    rng r;
} world;

static const crowd_parameter_desc std_params[] = {
    {"ParamAngleX", -30, 30, 0, false},  {"ParamAngleY", -30, 30, 0, false},   {"ParamAngleZ", -30, 30, 0, false},
    {"ParamEyeLOpen", 0, 1, 1, false},   {"ParamEyeROpen", 0, 1, 1, false},    {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},  {"ParamMouthOpenY", 0, 1, 0, false},  {"ParamMouthForm", -1, 1, 0, false},
    {"ParamBrowLY", -1, 1, 0, false},    {"ParamBrowRY", -1, 1, 0, false},     {"ParamBreath", 0, 1, 0, false}};
#define STD_PARAMS (uint32_t)(sizeof std_params / sizeof std_params[0])

static world world_make(crowd_simd simd, uint32_t threads, uint32_t n) {
    world w = {.n = n, .r = {2024}};
    crowd_engine_desc ed = {.seed = 77, .simd = simd, .threads = threads};
    OK(NULL, crowd_engine_create(&ed, &w.e));
    static const char *blink_ids[2] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = blink_ids, blink.parameter_count = 2, blink.mean = 0.8f;
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("ParamBreath");
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = &hp, harm.parameter_count = 1;
    crowd_face_desc face = crowd_face_defaults();
    face.smoothed_sources = CROWD_FACE_SOURCE_BIT(CROWD_FACE_HEAD_YAW) | CROWD_FACE_SOURCE_BIT(CROWD_FACE_JAW_OPEN) |
                            CROWD_FACE_SOURCE_BIT(CROWD_FACE_EYE_BLINK_LEFT) | CROWD_FACE_SOURCE_BIT(CROWD_FACE_CHEEK_PUFF);
    face.beta = 0.5f;
    crowd_rig_desc rd = {.name = "std", .parameters = std_params, .parameter_count = STD_PARAMS, .blink = &blink,
                         .harmonic = &harm, .face = &face};
    OK(w.e, crowd_rig_create(w.e, &rd, &w.rig));
    w.h = calloc(n, sizeof *w.h);
    crowd_add_desc add = {.rig = w.rig, .count = n, .harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM};
    OK(w.e, crowd_instances_add(w.e, &add, w.h));
    return w;
}

/* fresh tracker input: random scores and rotations, presence toggling */
static void world_feed(world *w) {
    float *sc = malloc(sizeof *sc * w->n * CROWD_FACE_SCORE_COUNT), *q = malloc(sizeof *q * w->n * 4),
          *p = malloc(sizeof *p * w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        for (int k = 0; k < CROWD_FACE_SCORE_COUNT; k++) sc[i * CROWD_FACE_SCORE_COUNT + k] = (float)rng_unit(&w->r);
        quat_of_angles((rng_unit(&w->r) - 0.5) * 1.2, (rng_unit(&w->r) - 0.5) * 0.8, (rng_unit(&w->r) - 0.5) * 0.6, q + 4 * i);
        p[i] = rng_unit(&w->r) < 0.7 ? 0.9f : 0.2f;
    }
    OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_FACE_SCORES, 0, w->h, w->n, sc));
    OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_FACE_ROTATION, 0, w->h, w->n, q));
    OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_FACE_PRESENCE, 0, w->h, w->n, p));
    free(sc), free(q), free(p);
}

static unsigned char *world_bytes(world *w, size_t *size) {
    OK(w->e, crowd_snapshot_size(w->e, size));
    unsigned char *buf = malloc(*size);
    size_t written;
    OK(w->e, crowd_snapshot_save(w->e, buf, *size, &written));
    return buf;
}

static void world_free(world *w) {
    free(w->h);
    crowd_engine_destroy(w->e);
}

/* every column of the rig, row by row (outputs, controller state, the One Euro state):
 * snapshots differ in handle tags, so the columns are compared directly */
static void expect_same(world *a, world *b, const char *what, int tick) {
    const crowdi_rig *x = crowdi_rig_get(a->e, a->rig), *y = crowdi_rig_get(b->e, b->rig);
    if (x->column_count != y->column_count || x->count != y->count) FAILF("%s: rigs differ in shape", what);
    for (uint32_t c = 0; c < x->column_count; c++)
        if (memcmp(x->columns[c], y->columns[c], sizeof(float) * x->count) != 0)
            FAILF("%s: column %u differs at tick %d", what, c, tick);
}

static void test_determinism(void **state) {
    (void)state;
    const uint32_t N = 1003;
    world t = world_make(crowd_test_simd, 1, N), s = world_make(CROWD_SIMD_SCALAR, 1, N),
          pool = world_make(crowd_test_simd, 3, N), split = world_make(crowd_test_simd, 1, N);
    rng cuts = {5};
    for (int tick = 0; tick < 120; tick++) {
        const float dt = tick % 23 == 7 ? 0.0f : 1.0f / (30.0f + (float)(tick % 5));
        if (tick % 3 == 0) {
            world_feed(&t), world_feed(&s), world_feed(&pool), world_feed(&split);
        }
        OK(t.e, crowd_tick(t.e, dt));
        OK(s.e, crowd_tick(s.e, dt));
        OK(pool.e, crowd_tick(pool.e, dt));
        for (uint32_t first = 0; first < N;) { /* ranges of random lengths, aligned or not */
            uint32_t len = 1 + (uint32_t)(rng_next(&cuts) % 300);
            if (len > N - first) len = N - first;
            OK(split.e, crowd_tick_range(split.e, dt, split.rig, first, len));
            first += len;
        }
        if (tick % 10 == 9) {
            expect_same(&t, &s, "target vs scalar", tick);
            expect_same(&t, &pool, "1 thread vs 3", tick);
            expect_same(&t, &split, "crowd_tick vs ranges", tick);
        }
    }
    world_free(&t), world_free(&s), world_free(&pool), world_free(&split);
}

static void test_snapshot(void **state) {
    (void)state;
    const uint32_t N = 300;
    world a = world_make(crowd_test_simd, 1, N);
    const float dt = 1.0f / 60.0f;
    world_feed(&a);
    for (int k = 0; k < 40; k++) OK(a.e, crowd_tick(a.e, dt));
    /* drop every face: control eases back; save mid hand-off */
    float *p = calloc(N, sizeof *p);
    OK(a.e, crowd_instances_set(a.e, CROWD_FIELD_FACE_PRESENCE, 0, a.h, N, p));
    for (int k = 0; k < 4; k++) OK(a.e, crowd_tick(a.e, dt));
    float c;
    OK(a.e, crowd_get(a.e, a.h[0], CROWD_FIELD_FACE_CONTROL, 0, &c));
    if (!(c > 0.05f && c < 0.95f)) FAILF("not mid hand-off: control %g", (double)c);
    size_t size;
    unsigned char *blob = world_bytes(&a, &size);
    world b = {.e = crowd_test_engine(0), .n = N, .r = a.r};
    OK(b.e, crowd_snapshot_load(b.e, blob, size));
    b.h = malloc(sizeof *b.h * N);
    memcpy(b.h, a.h, sizeof *b.h * N);
    b.rig = a.rig;
    expect_same(&a, &b, "right after loading", 0);
    for (int k = 0; k < 60; k++) {
        if (k == 20) {
            world_feed(&a), world_feed(&b);
        }
        OK(a.e, crowd_tick(a.e, dt));
        OK(b.e, crowd_tick(b.e, dt));
    }
    expect_same(&a, &b, "60 ticks after the round trip", 60);
    /* a snapshot of rows that break the rules is refused, and the loading engine keeps its
     * state: a control above 1 written through a column (unchecked), then a NaN in the One Euro
     * state */
    unsigned char *before_bad = world_bytes(&b, &size);
    for (int bad = 0; bad < 2; bad++) {
        float *col;
        uint32_t count;
        float keep;
        const crowdi_rig *r = crowdi_rig_get(a.e, a.rig);
        if (bad == 0) {
            OK(a.e, crowd_rig_column(a.e, a.rig, CROWD_FIELD_FACE_CONTROL, 0, 0, &col, &count));
        } else {
            col = crowdi_ctl_column(r, CROWDI_CTL_FACE, CROWDI_FACE_COL_FILTER + 1); /* a derivative */
        }
        keep = col[7];
        col[7] = bad == 0 ? 2.0f : NAN;
        size_t bad_size;
        unsigned char *bad_blob = world_bytes(&a, &bad_size);
        col[7] = keep;
        assert_int_equal(crowd_snapshot_load(b.e, bad_blob, bad_size), CROWD_ERR_BAD_SNAPSHOT);
        if (!strstr(crowd_last_error(b.e), bad == 0 ? "face_control" : "face filter"))
            FAILF("bad snapshot %d: message \"%s\"", bad, crowd_last_error(b.e));
        size_t after_size;
        unsigned char *after = world_bytes(&b, &after_size);
        if (after_size != size || memcmp(after, before_bad, size) != 0) FAILF("bad snapshot %d changed the engine", bad);
        free(after);
        free(bad_blob);
    }
    free(before_bad);
    free(blob);
    free(p);
    world_free(&a), world_free(&b);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_pose),   cmocka_unit_test(test_matrix),      cmocka_unit_test(test_curves_blends),
        cmocka_unit_test(test_one_euro),    cmocka_unit_test(test_handoff),     cmocka_unit_test(test_bad_desc),
        cmocka_unit_test(test_bad_fields),  cmocka_unit_test(test_determinism), cmocka_unit_test(test_snapshot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
