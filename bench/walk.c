/* The built-in walk cycle (see walk.h). */
#include "walk.h"

#include <math.h>
#include <stddef.h>

#define PI 3.14159265358979323846

typedef struct v3 {
    double x, y, z;
} v3;

static v3 v(double x, double y, double z) { return (v3){x, y, z}; }
static v3 add(v3 a, v3 b) { return v(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 mul(v3 a, double s) { return v(a.x * s, a.y * s, a.z * s); }
/* about +y by angle a (radians) */
static v3 rot_y(v3 p, double a) { return v(p.x * cos(a) + p.z * sin(a), p.y, -p.x * sin(a) + p.z * cos(a)); }
/* a direction in the sagittal plane, angle a from straight down toward +z (forward) */
static v3 swing(double a) { return v(0, -cos(a), sin(a)); }
/* perpendicular to swing(a), pointing forward-up */
static v3 swing_front(double a) { return v(0, sin(a), cos(a)); }

static void put(float *row, int landmark, v3 p) {
    row[landmark * 4 + 0] = (float)p.x;
    row[landmark * 4 + 1] = (float)p.y;
    row[landmark * 4 + 2] = (float)p.z;
    row[landmark * 4 + 3] = 1.0f;
}

/* hip, knee, ankle, heel, foot index; ph: the leg's phase angle (0: thigh passing vertical going forward) */
static void leg(float *row, v3 hip, double ph, int knee_i, int ankle_i, int heel_i, int toe_i) {
    double thigh = 0.42 * sin(ph);                             /* + forward */
    double knee = 0.12 + 0.55 * pow(0.5 + 0.5 * sin(ph + 1.2), 2.0); /* bends most in the swing */
    v3 k = add(hip, mul(swing(thigh), 0.42));
    v3 a = add(k, mul(swing(thigh - knee), 0.42));
    double pitch = 0.35 * (thigh - knee); /* the foot follows the shin a little */
    v3 heel = add(a, v(0, -0.055 * cos(pitch) - 0.05 * sin(pitch), -0.05 * cos(pitch) + 0.055 * sin(pitch)));
    v3 toe = add(a, v(0, -0.07 * cos(pitch) + 0.15 * sin(pitch), 0.15 * cos(pitch) + 0.07 * sin(pitch)));
    put(row, knee_i, k);
    put(row, ankle_i, a);
    put(row, heel_i, heel);
    put(row, toe_i, toe);
}

/* shoulder, elbow, wrist and the hand points; out: +1 right (+x), -1 left */
static void arm(float *row, v3 shoulder, double ph, double out, int elbow_i, int wrist_i, int pinky_i, int index_i,
                int thumb_i) {
    double upper = 0.32 * sin(ph), bend = 0.3 + 0.25 * (0.5 + 0.5 * sin(ph));
    v3 ud = add(swing(upper), v(0.12 * out, 0, 0));
    double n = sqrt(ud.x * ud.x + ud.y * ud.y + ud.z * ud.z);
    v3 e = add(shoulder, mul(ud, 0.29 / n));
    v3 ld = swing(upper + bend), front = swing_front(upper + bend);
    v3 w = add(e, mul(ld, 0.26));
    put(row, elbow_i, e);
    put(row, wrist_i, w);
    put(row, index_i, add(add(w, mul(ld, 0.085)), mul(front, 0.025)));
    put(row, pinky_i, add(add(w, mul(ld, 0.075)), mul(front, -0.025)));
    put(row, thumb_i, add(add(w, mul(ld, 0.04)), add(mul(front, 0.04), v(-0.01 * out, 0, 0))));
}

static void walk_row(double phase, float *row) {
    double w = 2.0 * PI * phase;
    double bob = 0.018 * cos(2.0 * w);
    double hip_twist = -0.07 * sin(w), chest_twist = 0.09 * sin(w);
    /* torso: hips around the origin, shoulders above, turned against each other */
    v3 hip_l = rot_y(v(-0.1, bob, 0), hip_twist), hip_r = rot_y(v(0.1, bob, 0), hip_twist);
    v3 sh_l = rot_y(v(-0.18, 0.5 + bob, 0), chest_twist), sh_r = rot_y(v(0.18, 0.5 + bob, 0), chest_twist);
    put(row, 23, hip_l);
    put(row, 24, hip_r);
    put(row, 11, sh_l);
    put(row, 12, sh_r);
    /* head: the face points +z; a little nod with the steps */
    v3 hc = v(0, 0.69 + bob, 0.02);
    double turn = 0.3 * chest_twist;
    static const struct {
        int landmark;
        double x, y, z;
    } face[] = {
        {0, 0, -0.01, 0.10},       {1, -0.015, 0.03, 0.085}, {2, -0.035, 0.03, 0.08},
        {3, -0.055, 0.03, 0.07},   {4, 0.015, 0.03, 0.085},  {5, 0.035, 0.03, 0.08},
        {6, 0.055, 0.03, 0.07},    {7, -0.075, 0.01, 0.0},   {8, 0.075, 0.01, 0.0},
        {9, -0.025, -0.05, 0.085}, {10, 0.025, -0.05, 0.085},
    };
    for (size_t k = 0; k < sizeof face / sizeof face[0]; k++)
        put(row, face[k].landmark, add(hc, rot_y(v(face[k].x, face[k].y, face[k].z), turn)));
    /* legs in antiphase; each arm swings with the opposite leg */
    leg(row, hip_l, w, 25, 27, 29, 31);
    leg(row, hip_r, w + PI, 26, 28, 30, 32);
    arm(row, sh_l, w + PI, -1.0, 13, 15, 17, 19, 21);
    arm(row, sh_r, w, 1.0, 14, 16, 18, 20, 22);
}

void bench_walk_rows(float rows[BENCH_WALK_ROWS * BENCH_WALK_FLOATS]) {
    for (int k = 0; k < BENCH_WALK_ROWS; k++)
        walk_row((double)k / BENCH_WALK_ROWS, &rows[(size_t)k * BENCH_WALK_FLOATS]);
}
