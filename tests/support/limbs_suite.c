/* The limbs suites' shared helpers (limbs_suite.h), compiled once. */
#include "limbs_suite.h"

const int bone_parent[NB] = {-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13};

const int limb_joints[CROWD_LIMB_COUNT][3] = {{11, 13, 15}, {12, 14, 16}, {23, 25, 27}, {24, 26, 28}};

const int limb_upper[CROWD_LIMB_COUNT] = {CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_RIGHT_UPPER_ARM,
                                                CROWD_BONE_LEFT_UPPER_LEG, CROWD_BONE_RIGHT_UPPER_LEG};

const int bone_deps[NB][4] = {
    {11, 12, 23, 24}, {11, 12, 23, 24}, {0, 7, 8, -1},
    {11, 13, 15, -1}, {11, 13, 15, -1}, {15, 17, 19, -1},
    {12, 14, 16, -1}, {12, 14, 16, -1}, {16, 18, 20, -1},
    {23, 25, 27, -1}, {23, 25, 27, -1}, {27, 29, 31, -1},
    {24, 26, 28, -1}, {24, 26, 28, -1}, {28, 30, 32, -1}};

bool is_limb_bone(int b) {
    return b == 3 || b == 4 || b == 6 || b == 7 || b == 9 || b == 10 || b == 12 || b == 13;
}

v3 v_add(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }

v3 v_sub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }

v3 v_scale(v3 a, double s) { return (v3){a.x * s, a.y * s, a.z * s}; }

v3 v_mid(v3 a, v3 b) { return v_scale(v_add(a, b), 0.5); }

double v_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

double v_len(v3 a) { return sqrt(v_dot(a, a)); }

v3 v_cross(v3 l, v3 r) {
    return (v3){l.y * r.z - l.z * r.y, l.z * r.x - l.x * r.z, l.x * r.y - l.y * r.x};
}

v3 v_norm0(v3 a) {
    double l = v_len(a);
    return l > 1e-5 ? v_scale(a, 1.0 / l) : (v3){0, 0, 0};
}

double v_maxdiff(v3 a, v3 b) {
    return fmax(fabs(a.x - b.x), fmax(fabs(a.y - b.y), fabs(a.z - b.z)));
}

qd q_mul(qd a, qd b) {
    return (qd){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

qd q_conj(qd a) { return (qd){-a.x, -a.y, -a.z, a.w}; }

double q_dot(qd a, qd b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

qd q_canon(qd q) {
    double n = sqrt(q_dot(q, q));
    if (q.w < 0) n = -n;
    return (qd){q.x / n, q.y / n, q.z / n, q.w / n};
}

v3 q_rot(qd q, v3 v) {
    qd p = q_mul(q_mul(q, (qd){v.x, v.y, v.z, 0}), q_conj(q));
    return (v3){p.x, p.y, p.z};
}

qd q_axis_angle(v3 axis, double angle) {
    v3 a = v_scale(axis, sin(angle / 2) / v_len(axis));
    return (qd){a.x, a.y, a.z, cos(angle / 2)};
}

double q_angle_deg(qd a, qd b) {
    qd d = q_mul(a, q_conj(b));
    return 2.0 * atan2(sqrt(d.x * d.x + d.y * d.y + d.z * d.z), fabs(d.w)) / DEG;
}

double q_dist(qd q, qd r) {
    double p = fmax(fmax(fabs(q.x - r.x), fabs(q.y - r.y)), fmax(fabs(q.z - r.z), fabs(q.w - r.w)));
    double m = fmax(fmax(fabs(q.x + r.x), fabs(q.y + r.y)), fmax(fabs(q.z + r.z), fabs(q.w + r.w)));
    return fmin(p, m);
}

qd qf(const float q[4]) { return (qd){q[0], q[1], q[2], q[3]}; }

void q_store(qd q, float out[4]) {
    out[0] = (float)q.x, out[1] = (float)q.y, out[2] = (float)q.z, out[3] = (float)q.w;
}

qd q_random(rng *r) { /* uniform (Shoemake) */
    double u1 = rng_unit(r), u2 = rng_range(r, 0, 2 * PI), u3 = rng_range(r, 0, 2 * PI);
    double a = sqrt(1 - u1), b = sqrt(u1);
    return q_canon((qd){a * sin(u2), a * cos(u2), b * sin(u3), b * cos(u3)});
}

static v3 v_random_unit(rng *r) {
    double z = rng_range(r, -1, 1), t = rng_range(r, 0, 2 * PI), s = sqrt(1 - z * z);
    return (v3){s * cos(t), s * sin(t), z};
}

/* a unit vector at `angle` from unit d, in a random direction around it */
static v3 v_at_angle(rng *r, v3 d, double angle) {
    if (v_len(d) < 0.5) return v_random_unit(r); /* no direction to start from */
    v3 p;
    do p = v_cross(d, v_random_unit(r));
    while (v_len(p) < 0.1);
    p = v_scale(p, 1.0 / v_len(p));
    return v_add(v_scale(d, cos(angle)), v_scale(p, sin(angle)));
}

/* The rotation whose matrix columns are x, y, z (orthonormal). */
static qd q_from_cols(v3 x, v3 y, v3 z) {
    double m00 = x.x, m10 = x.y, m20 = x.z, m01 = y.x, m11 = y.y, m21 = y.z, m02 = z.x, m12 = z.y, m22 = z.z;
    double tr = m00 + m11 + m22, s;
    qd q;
    if (tr > 0) {
        s = sqrt(tr + 1) * 2;
        q = (qd){(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s};
    } else if (m00 > m11 && m00 > m22) {
        s = sqrt(1 + m00 - m11 - m22) * 2;
        q = (qd){0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
    } else if (m11 > m22) {
        s = sqrt(1 + m11 - m00 - m22) * 2;
        q = (qd){(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s};
    } else {
        s = sqrt(1 + m22 - m00 - m11) * 2;
        q = (qd){(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s};
    }
    return q_canon(q);
}

qd ref_look(v3 forward, v3 up) {
    double fl = v_len(forward);
    if (fl < 1e-5) return Q_ID;
    v3 z = v_scale(forward, 1.0 / fl);
    v3 x = v_cross(up, z);
    double xl = v_len(x);
    if (xl < 1e-5) {
        if (1.0 + z.z < 1e-6) return (qd){1, 0, 0, 0};
        return q_canon((qd){-z.y, z.x, 0, 1.0 + z.z});
    }
    x = v_scale(x, 1.0 / xl);
    return q_from_cols(x, v_cross(z, x), z);
}

void lm_put(float *pose, int k, v3 p) {
    pose[4 * k] = (float)p.x, pose[4 * k + 1] = (float)p.y, pose[4 * k + 2] = (float)p.z, pose[4 * k + 3] = 1.0f;
}

v3 lm_get(const float *pose, int k, bool flip_y) {
    double y = pose[4 * k + 1];
    return (v3){pose[4 * k], flip_y ? -y : y, pose[4 * k + 2]};
}

static const float standing_xyz[NL][3] = {
    {0.00f, 1.60f, 0.10f},                                                 /* 0 nose */
    {-0.03f, 1.64f, 0.08f}, {-0.04f, 1.64f, 0.08f}, {-0.05f, 1.64f, 0.07f}, /* 1-3 left eye */
    {0.03f, 1.64f, 0.08f}, {0.04f, 1.64f, 0.08f}, {0.05f, 1.64f, 0.07f},    /* 4-6 right eye */
    {-0.075f, 1.62f, 0.0f}, {0.075f, 1.62f, 0.0f},                          /* 7, 8 ears */
    {-0.02f, 1.55f, 0.09f}, {0.02f, 1.55f, 0.09f},                          /* 9, 10 mouth */
    {-0.18f, 1.45f, 0.0f}, {0.18f, 1.45f, 0.0f},                            /* 11, 12 shoulders */
    {-0.22f, 1.18f, -0.02f}, {0.22f, 1.18f, -0.02f},                        /* 13, 14 elbows */
    {-0.23f, 0.93f, 0.06f}, {0.23f, 0.93f, 0.06f},                          /* 15, 16 wrists */
    {-0.25f, 0.85f, 0.07f}, {0.25f, 0.85f, 0.07f},                          /* 17, 18 pinkies */
    {-0.21f, 0.84f, 0.09f}, {0.21f, 0.84f, 0.09f},                          /* 19, 20 index */
    {-0.20f, 0.90f, 0.09f}, {0.20f, 0.90f, 0.09f},                          /* 21, 22 thumbs */
    {-0.10f, 0.95f, 0.0f}, {0.10f, 0.95f, 0.0f},                            /* 23, 24 hips */
    {-0.10f, 0.52f, 0.04f}, {0.10f, 0.52f, 0.04f},                          /* 25, 26 knees */
    {-0.10f, 0.10f, 0.0f}, {0.10f, 0.10f, 0.0f},                            /* 27, 28 ankles */
    {-0.10f, 0.05f, -0.05f}, {0.10f, 0.05f, -0.05f},                        /* 29, 30 heels */
    {-0.10f, 0.02f, 0.15f}, {0.10f, 0.02f, 0.15f},                          /* 31, 32 foot index */
};

void standing_pose(float *pose) {
    for (int k = 0; k < NL; k++) lm_put(pose, k, (v3){standing_xyz[k][0], standing_xyz[k][1], standing_xyz[k][2]});
}

void a_pose(float *pose) {
    standing_pose(pose);
    for (int side = 0; side < 2; side++) {
        double sx = side ? 1.0 : -1.0;
        int sh = 11 + side, el = 13 + side, wr = 15 + side;
        v3 s = lm_get(pose, sh, false);
        v3 e = v_add(s, (v3){sx * 0.19, -0.19, -0.01});
        v3 w = v_add(e, (v3){sx * 0.16, -0.17, 0.05});
        lm_put(pose, el, e);
        lm_put(pose, wr, w);
        lm_put(pose, 17 + side, v_add(w, (v3){sx * 0.06, -0.06, -0.01}));
        lm_put(pose, 19 + side, v_add(w, (v3){sx * 0.05, -0.07, 0.03}));
        lm_put(pose, 21 + side, v_add(w, (v3){sx * 0.02, -0.03, 0.04}));
    }
}

void random_bent_pose(rng *r, float *pose, qd *root_out) {
    qd body = q_mul(q_axis_angle((v3){0, 1, 0}, rng_range(r, -PI, PI)),
                    q_axis_angle(v_random_unit(r), rng_range(r, 0, 25 * DEG)));
    v3 c = {rng_range(r, -1, 1), rng_range(r, -0.2, 0.2), rng_range(r, -1, 1)};
    float base[POSE_FLOATS];
    standing_pose(base);
    /* torso and face: the standing pose turned by `body`, jittered by up to 2 cm */
    for (int k = 0; k < NL; k++) {
        v3 p = lm_get(base, k, false);
        v3 j = {rng_range(r, -0.02, 0.02), rng_range(r, -0.02, 0.02), rng_range(r, -0.02, 0.02)};
        lm_put(pose, k, v_add(c, q_rot(body, v_add(p, j))));
    }
    /* head: a random turn of up to 40 degrees about the head centre */
    qd head = q_mul(body, q_axis_angle(v_random_unit(r), rng_range(r, 0, 40 * DEG)));
    v3 hc = v_add(c, q_rot(body, (v3){0, 1.62, 0.02}));
    lm_put(pose, 7, v_add(hc, q_rot(head, (v3){-0.075, 0, 0})));
    lm_put(pose, 8, v_add(hc, q_rot(head, (v3){0.075, 0, 0})));
    lm_put(pose, 0, v_add(hc, q_rot(head, (v3){0, -0.02, 0.1})));
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
        v3 a = lm_get(pose, limb_joints[l][0], false);
        v3 u = v_random_unit(r);
        v3 d = v_at_angle(r, u, rng_range(r, 25 * DEG, 155 * DEG));
        v3 b = v_add(a, v_scale(u, rng_range(r, 0.2, 0.45)));
        v3 e = v_add(b, v_scale(d, rng_range(r, 0.2, 0.45)));
        lm_put(pose, limb_joints[l][1], b);
        lm_put(pose, limb_joints[l][2], e);
    }
    for (int side = 0; side < 2; side++) {
        /* hand: forward f, across s (perpendicular) */
        v3 w = lm_get(pose, 15 + side, false), f = v_random_unit(r), s = v_at_angle(r, f, PI / 2);
        lm_put(pose, 19 + side, v_add(w, v_add(v_scale(f, 0.08), v_scale(s, -0.02)))); /* index */
        lm_put(pose, 17 + side, v_add(w, v_add(v_scale(f, 0.08), v_scale(s, 0.02))));  /* pinky */
        lm_put(pose, 21 + side, v_add(w, v_add(v_scale(f, 0.03), v_scale(s, -0.04)))); /* thumb */
        /* foot: a random frame */
        qd fr = q_random(r);
        v3 an = lm_get(pose, 27 + side, false);
        lm_put(pose, 29 + side, v_add(an, q_rot(fr, (v3){0, -0.06, -0.05})));
        lm_put(pose, 31 + side, v_add(an, q_rot(fr, (v3){0, -0.08, 0.15})));
    }
    *root_out = body;
}

void det_pose(rng *r, float *pose) {
    qd root;
    random_bent_pose(r, pose, &root);
    int n = rng_chance(r, 0.5) ? (int)rng_below(r, 4) : 0;
    for (int i = 0; i < n; i++) {
        int l = (int)rng_below(r, CROWD_LIMB_COUNT);
        int a = limb_joints[l][0], b = limb_joints[l][1], c = limb_joints[l][2];
        v3 pa = lm_get(pose, a, false), pb = lm_get(pose, b, false);
        switch (rng_below(r, 12)) {
        case 0: lm_put(pose, b, pa); break;                                   /* zero upper bone */
        case 1: lm_put(pose, c, pb); break;                                   /* zero lower bone */
        case 2: lm_put(pose, c, v_add(pb, v_scale(v_sub(pb, pa), 0.9))); break; /* straight */
        case 3: { /* bent right at the straight threshold, |side|^2 = 1e-4 * (1 +- 1e-2 .. 1e-7) */
            v3 u = v_norm0(v_sub(pb, pa));
            double rel = pow(10.0, -rng_range(r, 2, 7)) * (rng_chance(r, 0.5) ? 1 : -1);
            v3 d = v_at_angle(r, u, asin(0.01 * sqrt(1 + rel)));
            lm_put(pose, c, v_add(pb, v_scale(d, 0.3)));
            break;
        }
        case 10: { /* an upper bone right at the zero-length threshold, |b - a| = 1e-5 * (1 +- tiny) */
            double rel = pow(10.0, -rng_range(r, 2, 7)) * (rng_chance(r, 0.5) ? 1 : -1);
            lm_put(pose, b, v_add(pa, v_scale(v_random_unit(r), 1e-5 * (1 + rel))));
            break;
        }
        case 4: { /* foot forward parallel to up */
            int h = (int)rng_below(r, 2);
            v3 heel = lm_get(pose, 29 + h, false), toe = lm_get(pose, 31 + h, false);
            lm_put(pose, 27 + h, v_add(heel, v_scale(v_sub(toe, heel), rng_range(r, -1, 1))));
            break;
        }
        case 5: lm_put(pose, 0, v_mid(lm_get(pose, 7, false), lm_get(pose, 8, false))); break; /* zero head forward */
        case 6: lm_put(pose, 24, lm_get(pose, 23, false)); break;                                /* no hip right */
        case 7: { /* everything on one point */
            v3 p = lm_get(pose, 0, false);
            for (int k = 0; k < NL; k++) lm_put(pose, k, p);
            break;
        }
        case 8: { /* limb along the root's right and straight (a T-pose arm) */
            v3 x = {rng_chance(r, 0.5) ? 1 : -1, 0, 0};
            lm_put(pose, b, v_add(pa, v_scale(x, 0.25)));
            lm_put(pose, c, v_add(pa, v_scale(x, 0.5)));
            break;
        }
        case 11: { /* the largest coordinates crowd_set accepts (1e6 .. 1e9): no overflow, no NaN */
            double m = 1e-30;
            for (int k = 0; k < POSE_FLOATS; k++)
                if (k % 4 != 3) m = fmax(m, fabs(pose[k]));
            double scale = pow(10.0, rng_range(r, 6, 9)) / m; /* the largest coordinate 1e6 .. 1e9 */
            for (int k = 0; k < NL; k++) lm_put(pose, k, v_scale(lm_get(pose, k, false), scale));
            break;
        }
        case 9:
        default: { /* foot forward (0,0,-1) exactly */
            int h = (int)rng_below(r, 2);
            v3 heel = lm_get(pose, 29 + h, false);
            lm_put(pose, 31 + h, v_add(heel, (v3){0, 0, -0.2}));
            lm_put(pose, 27 + h, v_add(heel, (v3){0, 0, rng_chance(r, 0.5) ? 0.1 : -0.1}));
            break;
        }
        }
    }
    if (rng_chance(r, 0.3)) {
        const float special[] = {0.0f, 0.5f, 0.49999997f, 0.50000006f, 1.0f};
        for (int k = 0; k < NL; k++) {
            float v = rng_chance(r, 0.5) ? special[rng_below(r, 5)] : (float)rng_unit(r);
            pose[4 * k + 3] = v;
        }
    }
}

ref_state ref_init(const crowd_limbs_desc *d) {
    ref_state s;
    memset(&s, 0, sizeof s);
    s.previous = d->fallback == CROWD_FALLBACK_PREVIOUS;
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) s.sign[l] = d->fallback_sign[l];
    return s;
}

void preset_fix(crowd_axis_fix fix, qd out[NB]) {
    for (int b = 0; b < NB; b++)
        out[b] = fix == CROWD_AXIS_FIX_Y_ALONG_BONE && is_limb_bone(b) ? (qd){sqrt(0.5), 0, 0, sqrt(0.5)} : Q_ID;
}

void ref_bases(ref_state *st, const float *pose, bool flip, qd root, qd basis[NB]) {
    v3 p[NL];
    for (int k = 0; k < NL; k++) p[k] = lm_get(pose, k, flip);
    v3 right = q_rot(root, (v3){1, 0, 0});
    v3 up = v_sub(v_mid(p[11], p[12]), v_mid(p[23], p[24]));
    v3 hr = v_sub(p[24], p[23]), cr = v_sub(p[12], p[11]);
    basis[0] = ref_look(v_cross(hr, up), up);
    basis[1] = ref_look(v_cross(cr, up), up);
    v3 head_right = v_sub(p[8], p[7]), head_fwd = v_sub(p[0], v_mid(p[7], p[8]));
    basis[2] = ref_look(head_fwd, v_cross(head_fwd, head_right));
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
        v3 a = p[limb_joints[l][0]], b = p[limb_joints[l][1]], c = p[limb_joints[l][2]];
        v3 ud = v_norm0(v_sub(b, a)), ld = v_norm0(v_sub(c, b));
        v3 side = v_cross(ud, ld);
        bool straight = v_dot(side, side) < 1e-4;
        /* the root's right on the subject's side: negated against the x column of the hips'
         * (legs) or the chest's (arms) LookRotation (SPEC 5, revision 2) */
        v3 torso_x = q_rot(basis[l >= 2 ? 0 : 1], (v3){1, 0, 0});
        v3 fallback = v_scale(right, v_dot(right, torso_x) < 0 ? -st->sign[l] : st->sign[l]);
        if (st->previous) {
            bool has = v_dot(st->side[l], st->side[l]) > 0;
            if (has) fallback = st->side[l];
            /* previous mode keeps the bend on the side it had: past straight the side axis
             * would reverse and turn both bones 180 degrees */
            if (!straight && has && v_dot(side, st->side[l]) < 0) side = v_scale(side, -1);
            if (!straight) st->side[l] = v_norm0(side);
        }
        if (straight) side = fallback;
        basis[limb_upper[l]] = ref_look(ud, v_cross(ud, side));
        basis[limb_upper[l] + 1] = ref_look(ld, v_cross(ld, side));
    }
    for (int h = 0; h < 2; h++) {
        v3 w = p[15 + h], index = p[19 + h], pinky = p[17 + h];
        v3 dir = v_norm0(v_sub(v_mid(index, pinky), w));
        basis[h ? 8 : 5] = ref_look(dir, v_cross(dir, v_sub(pinky, index)));
        basis[h ? 14 : 11] = ref_look(v_sub(p[31 + h], p[29 + h]), v_sub(p[27 + h], p[29 + h]));
    }
}

void ref_solve(ref_state *st, const float *pose, bool flip, qd root, const qd fix[NB], qd world[NB], qd local[NB]) {
    qd basis[NB];
    ref_bases(st, pose, flip, root, basis);
    for (int b = 0; b < NB; b++) {
        world[b] = q_canon(q_mul(basis[b], fix[b]));
        qd parent = bone_parent[b] < 0 ? root : world[bone_parent[b]];
        local[b] = q_canon(q_mul(q_conj(parent), world[b]));
    }
}

crowd_limbs_desc engine_limbs(crowd_axis_fix fix) {
    crowd_limbs_desc d = crowd_limbs_defaults();
    d.fallback = CROWD_FALLBACK_ROOT;
    d.reacquire_half_life = 1e-6f;
    d.frame = CROWD_FRAME_ENGINE;
    d.axis_fix = fix;
    return d;
}

crowd_rig limbs_rig(crowd_engine *e, const crowd_limbs_desc *ld, const char *name) {
    crowd_rig_desc rd = {.name = name, .limbs = ld};
    crowd_rig rig = {0};
    OK(e, crowd_rig_create(e, &rd, &rig));
    return rig;
}

void add_n(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_instance *out) {
    crowd_add_desc ad = {.rig = rig, .count = n};
    OK(e, crowd_instances_add(e, &ad, out));
}

crowd_instance add1(crowd_engine *e, crowd_rig rig) {
    crowd_instance h;
    add_n(e, rig, 1, &h);
    return h;
}

void set_pose(crowd_engine *e, crowd_instance h, const float *pose) {
    OK(e, crowd_set(e, h, CROWD_FIELD_POSE, 0, pose));
}

void set_root(crowd_engine *e, crowd_instance h, qd root) {
    float q[4];
    q_store(root, q);
    OK(e, crowd_set(e, h, CROWD_FIELD_ROOT, 0, q));
}

void read_bones(crowd_engine *e, crowd_instance h, bones *b) {
    for (int k = 0; k < NB; k++) {
        OK(e, crowd_get(e, h, CROWD_FIELD_BONE_WORLD, (uint32_t)k, b->wf[k]));
        OK(e, crowd_get(e, h, CROWD_FIELD_BONE_LOCAL, (uint32_t)k, b->lf[k]));
        b->world[k] = qf(b->wf[k]);
        b->local[k] = qf(b->lf[k]);
    }
}

void solve(crowd_engine *e, crowd_instance h, const float *pose, float dt, bones *b) {
    set_pose(e, h, pose);
    OK(e, crowd_tick(e, dt));
    read_bones(e, h, b);
}

void expect_q(qd got, qd want, double tol, const char *what) {
    double d = q_dist(got, want);
    if (!(d <= tol))
        FAILF("%s: got (%.9g, %.9g, %.9g, %.9g), want (%.9g, %.9g, %.9g, %.9g) up to sign within %.3g (off by %.3g)",
              what, got.x, got.y, got.z, got.w, want.x, want.y, want.z, want.w, tol, d);
}

void check_canonical(const float q[4], const char *what) {
    for (int c = 0; c < 4; c++)
        if (!isfinite(q[c])) FAILF("ENGINE BUG: %s = (%g, %g, %g, %g) is not finite", what, q[0], q[1], q[2], q[3]);
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    if (!(fabs(n - 1.0) < 1e-6)) FAILF("ENGINE BUG: %s = (%.9g, %.9g, %.9g, %.9g) has length %.9g", what, q[0], q[1], q[2], q[3], n);
    if (!(q[3] >= 0.0f)) FAILF("ENGINE BUG: %s = (%.9g, %.9g, %.9g, %.9g) has w < 0", what, q[0], q[1], q[2], q[3]);
}

void check_all_canonical(const bones *b, const char *ctx) {
    char what[256];
    for (int k = 0; k < NB; k++) {
        snprintf(what, sizeof what, "%s: world %s", ctx, crowd_bone_name((crowd_bone)k));
        check_canonical(b->wf[k], what);
        snprintf(what, sizeof what, "%s: local %s", ctx, crowd_bone_name((crowd_bone)k));
        check_canonical(b->lf[k], what);
    }
}

void check_hierarchy(const bones *b, qd root, double tol, const char *ctx) {
    char what[256];
    for (int k = 0; k < NB; k++) {
        qd parent = bone_parent[k] < 0 ? root : b->world[bone_parent[k]];
        snprintf(what, sizeof what, "%s: world[%s] vs world[%s] * local", ctx, crowd_bone_name((crowd_bone)k),
                 bone_parent[k] < 0 ? "root" : crowd_bone_name((crowd_bone)bone_parent[k]));
        expect_q(q_mul(parent, b->local[k]), b->world[k], tol, what);
    }
}

void check_directions(const bones *b, const float *pose, bool flip, double tol, const char *ctx) {
    for (int l = 0; l < CROWD_LIMB_COUNT; l++) {
        v3 a = lm_get(pose, limb_joints[l][0], flip), m = lm_get(pose, limb_joints[l][1], flip),
           c = lm_get(pose, limb_joints[l][2], flip);
        v3 want[2] = {v_norm0(v_sub(m, a)), v_norm0(v_sub(c, m))};
        for (int s = 0; s < 2; s++) {
            int bone = limb_upper[l] + s;
            v3 got = q_rot(b->world[bone], (v3){0, 1, 0});
            double d = v_maxdiff(got, want[s]);
            if (!(d <= tol))
                FAILF("%s: %s +y = (%.7f, %.7f, %.7f), landmark direction (%.7f, %.7f, %.7f), off by %.3g > %.3g", ctx,
                      crowd_bone_name((crowd_bone)bone), got.x, got.y, got.z, want[s].x, want[s].y, want[s].z, d, tol);
        }
    }
    for (int h = 0; h < 2; h++) {
        v3 w = lm_get(pose, 15 + h, flip);
        v3 dirs[2] = {v_norm0(v_sub(v_mid(lm_get(pose, 19 + h, flip), lm_get(pose, 17 + h, flip)), w)),
                      v_norm0(v_sub(lm_get(pose, 31 + h, flip), lm_get(pose, 29 + h, flip)))};
        int bb[2] = {h ? 8 : 5, h ? 14 : 11};
        for (int s = 0; s < 2; s++) {
            v3 got = q_rot(b->world[bb[s]], (v3){0, 0, 1});
            double d = v_maxdiff(got, dirs[s]);
            if (!(d <= tol))
                FAILF("%s: %s +z = (%.7f, %.7f, %.7f), landmark direction (%.7f, %.7f, %.7f), off by %.3g > %.3g", ctx,
                      crowd_bone_name((crowd_bone)bb[s]), got.x, got.y, got.z, dirs[s].x, dirs[s].y, dirs[s].z, d, tol);
        }
    }
}

void random_binds(rng *r, crowd_quat out[NB], qd outd[NB]) {
    for (int b = 0; b < NB; b++) {
        float q[4];
        q_store(q_random(r), q);
        out[b] = (crowd_quat){q[0], q[1], q[2], q[3]};
        outd[b] = qf(q);
    }
}

void expect_rig_error(crowd_engine *e, const crowd_limbs_desc *ld, crowd_result code, const char *field,
                      const char *alt_field, const char *what) {
    crowd_rig_desc rd = {.name = "bad", .limbs = ld};
    crowd_rig rig = {0};
    crowd_result res = crowd_rig_create(e, &rd, &rig);
    const char *msg = crowd_last_error(e);
    if (res != code) FAILF("ENGINE BUG: %s: crowd_rig_create -> %s, want %s (%s)", what, rname(res), rname(code), msg);
    if (!strstr(msg, field) && !(alt_field && strstr(msg, alt_field)))
        FAILF("ENGINE BUG: %s: message \"%s\" does not name %s", what, msg, field);
}

void clip_free(clip *c) {
    free(c->t);
    free(c->pose);
    memset(c, 0, sizeof *c);
}

/* Reads a SPEC §7 pose clip; fails the test on a malformed file. */
static void clip_load(const char *path, clip *c) {
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f) FAILF("cannot open %s", path);
    static char line[16384];
    if (!fgets(line, sizeof line, f) || strncmp(line, "frame,t_s,lm0_x,lm0_y,lm0_z,lm0_vis,", 36) != 0)
        FAILF("%s: unexpected header", path);
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n' || line[0] == 0) continue;
        if (c->n == cap) {
            cap = cap ? 2 * cap : 256;
            c->t = realloc(c->t, sizeof *c->t * (size_t)cap);
            c->pose = realloc(c->pose, sizeof *c->pose * (size_t)cap * POSE_FLOATS);
            assert_non_null(c->t);
            assert_non_null(c->pose);
        }
        char *p = line, *end;
        double v[2 + POSE_FLOATS];
        for (int i = 0; i < 2 + POSE_FLOATS; i++) {
            v[i] = strtod(p, &end);
            if (end == p) FAILF("%s: row %d: field %d does not parse", path, c->n + 1, i);
            p = end;
            if (i + 1 < 2 + POSE_FLOATS) {
                if (*p != ',') FAILF("%s: row %d: missing field %d", path, c->n + 1, i + 1);
                p++;
            }
        }
        c->t[c->n] = v[1];
        for (int i = 0; i < POSE_FLOATS; i++) c->pose[(size_t)c->n * POSE_FLOATS + i] = (float)v[2 + i];
        c->n++;
    }
    fclose(f);
    if (c->n < 10) FAILF("%s: only %d rows", path, c->n);
}

bool load_data(const char *rel, clip *c) {
    const char *p = crowd_test_data(rel);
    if (!p) return false;
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    clip_load(path, c);
    return true;
}

float clip_dt(const clip *c, int k) { return k ? (float)(c->t[k] - c->t[k - 1]) : 0.0f; }

const float *clip_row(const clip *c, int k) { return c->pose + (size_t)k * POSE_FLOATS; }

void run_clips(const clip *const *clips, const crowd_limbs_desc *const *descs, int count, clip_out *out) {
    crowd_engine *e = crowd_test_engine(900);
    crowd_instance h[8];
    char name[16];
    for (int i = 0; i < count; i++) {
        snprintf(name, sizeof name, "rig%d", i);
        h[i] = add1(e, limbs_rig(e, descs[i], name));
        out[i].world = calloc((size_t)clips[i]->n * NB, sizeof(qd));
        out[i].local = calloc((size_t)clips[i]->n * NB, sizeof(qd));
        assert_true(out[i].world && out[i].local);
    }
    int n = clips[0]->n;
    bones b;
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < count; i++) set_pose(e, h[i], clip_row(clips[i], k));
        OK(e, crowd_tick(e, clip_dt(clips[0], k)));
        for (int i = 0; i < count; i++) {
            read_bones(e, h[i], &b);
            char ctx[64];
            snprintf(ctx, sizeof ctx, "run %d frame %d", i, k + 1);
            check_all_canonical(&b, ctx);
            memcpy(out[i].world + (size_t)k * NB, b.world, sizeof b.world);
            memcpy(out[i].local + (size_t)k * NB, b.local, sizeof b.local);
        }
    }
    crowd_engine_destroy(e);
}
