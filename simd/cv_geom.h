/* cv_geom.h — SoA 3-vectors and quaternions on cv_ lanes (W of each), static inline only.
 * Every function is a fixed sequence of cv.h ops (never fused), so it gives the same bits
 * at every width. Quaternions are (x, y, z, w), w the real part.
 *
 * Index (v = cv_v3, q = cv_q, f = cv_f, m = cv_m)
 *   cv_v3_add cv_v3_sub cv_v3_neg        v, v -> v
 *   cv_v3_scale(v, f)                     v times f per lane
 *   cv_v3_mid(a, b)                       (a + b) * 0.5
 *   cv_v3_dot cv_v3_cross                 cross(l, r) = (l.y*r.z - l.z*r.y, l.z*r.x - l.x*r.z, l.x*r.y - l.y*r.x)
 *   cv_v3_select(m, a, b)                 lanes m ? a : b
 *   cv_v3_normalized(v)                   v * (1/|v|), or zero when |v| <= 1e-5
 *   cv_q_set1(const float[4])             broadcast
 *   cv_q_select(m, a, b)
 *   cv_q_mul(a, b)                        Hamilton product (applies b first)
 *   cv_q_norm2 cv_q_conj
 *   cv_q_canonical_n(q, &norm2)           unit, w >= 0 (one division); norm2 = |q|^2
 *   cv_q_canonical(q)
 *   cv_q_positive(q)                      w >= 0 only (sign flip)
 *   cv_q_rotate(q, v)                     v rotated by unit q
 *   cv_q_nlerp(a, b, t)                   normalise(a*(1 - t) + b'*t), b' = -b when dot(a, b) < 0
 *   cv_q_loadu_cols cv_q_storeu_cols      four columns `stride` floats apart, row i
 */
#ifndef CROWD_CV_GEOM_H
#define CROWD_CV_GEOM_H

#include "cv.h"

typedef struct { cv_f x, y, z; } cv_v3;
typedef struct { cv_f x, y, z, w; } cv_q;

static inline cv_v3 cv_v3_add(cv_v3 a, cv_v3 b) { return (cv_v3){cv_add(a.x, b.x), cv_add(a.y, b.y), cv_add(a.z, b.z)}; }
static inline cv_v3 cv_v3_sub(cv_v3 a, cv_v3 b) { return (cv_v3){cv_sub(a.x, b.x), cv_sub(a.y, b.y), cv_sub(a.z, b.z)}; }
static inline cv_v3 cv_v3_neg(cv_v3 a) { return (cv_v3){cv_neg(a.x), cv_neg(a.y), cv_neg(a.z)}; }
static inline cv_v3 cv_v3_scale(cv_v3 a, cv_f s) { return (cv_v3){cv_mul(a.x, s), cv_mul(a.y, s), cv_mul(a.z, s)}; }
static inline cv_v3 cv_v3_mid(cv_v3 a, cv_v3 b) {
    const cv_f h = cv_set1(0.5f);
    return (cv_v3){cv_mul(cv_add(a.x, b.x), h), cv_mul(cv_add(a.y, b.y), h), cv_mul(cv_add(a.z, b.z), h)};
}
static inline cv_f cv_v3_dot(cv_v3 a, cv_v3 b) {
    return cv_add(cv_add(cv_mul(a.x, b.x), cv_mul(a.y, b.y)), cv_mul(a.z, b.z));
}
static inline cv_v3 cv_v3_cross(cv_v3 l, cv_v3 r) {
    return (cv_v3){cv_sub(cv_mul(l.y, r.z), cv_mul(l.z, r.y)), cv_sub(cv_mul(l.z, r.x), cv_mul(l.x, r.z)),
                   cv_sub(cv_mul(l.x, r.y), cv_mul(l.y, r.x))};
}
static inline cv_v3 cv_v3_select(cv_m m, cv_v3 a, cv_v3 b) {
    return (cv_v3){cv_select(m, a.x, b.x), cv_select(m, a.y, b.y), cv_select(m, a.z, b.z)};
}
static inline cv_v3 cv_v3_normalized(cv_v3 v) {
    cv_f len = cv_sqrt(cv_v3_dot(v, v));
    cv_m ok = cv_gt(len, cv_set1(1e-5f));
    cv_f inv = cv_div(cv_set1(1.0f), cv_select(ok, len, cv_set1(1.0f)));
    return cv_v3_select(ok, cv_v3_scale(v, inv), (cv_v3){cv_zero(), cv_zero(), cv_zero()});
}

static inline cv_q cv_q_set1(const float q[4]) {
    return (cv_q){cv_set1(q[0]), cv_set1(q[1]), cv_set1(q[2]), cv_set1(q[3])};
}
static inline cv_q cv_q_select(cv_m m, cv_q a, cv_q b) {
    return (cv_q){cv_select(m, a.x, b.x), cv_select(m, a.y, b.y), cv_select(m, a.z, b.z), cv_select(m, a.w, b.w)};
}
static inline cv_q cv_q_mul(cv_q a, cv_q b) {
    cv_q r;
    r.x = cv_sub(cv_add(cv_add(cv_mul(a.w, b.x), cv_mul(a.x, b.w)), cv_mul(a.y, b.z)), cv_mul(a.z, b.y));
    r.y = cv_add(cv_add(cv_sub(cv_mul(a.w, b.y), cv_mul(a.x, b.z)), cv_mul(a.y, b.w)), cv_mul(a.z, b.x));
    r.z = cv_add(cv_sub(cv_add(cv_mul(a.w, b.z), cv_mul(a.x, b.y)), cv_mul(a.y, b.x)), cv_mul(a.z, b.w));
    r.w = cv_sub(cv_sub(cv_sub(cv_mul(a.w, b.w), cv_mul(a.x, b.x)), cv_mul(a.y, b.y)), cv_mul(a.z, b.z));
    return r;
}
static inline cv_f cv_q_norm2(cv_q q) {
    return cv_add(cv_add(cv_add(cv_mul(q.x, q.x), cv_mul(q.y, q.y)), cv_mul(q.z, q.z)), cv_mul(q.w, q.w));
}
static inline cv_q cv_q_conj(cv_q a) { return (cv_q){cv_neg(a.x), cv_neg(a.y), cv_neg(a.z), a.w}; }
/* When *norm2 is finite and not tiny, the result is a unit quaternion. */
static inline cv_q cv_q_canonical_n(cv_q q, cv_f *norm2) {
    *norm2 = cv_q_norm2(q);
    cv_f n = cv_sqrt(*norm2);
    cv_f inv = cv_div(cv_set1(1.0f), cv_select(cv_lt(q.w, cv_zero()), cv_neg(n), n));
    return (cv_q){cv_mul(q.x, inv), cv_mul(q.y, inv), cv_mul(q.z, inv), cv_mul(q.w, inv)};
}
static inline cv_q cv_q_canonical(cv_q q) {
    cv_f n2;
    return cv_q_canonical_n(q, &n2);
}
/* for products of unit quaternions, already unit to a few ulp */
static inline cv_q cv_q_positive(cv_q q) {
    cv_m neg = cv_lt(q.w, cv_zero());
    return (cv_q){cv_select(neg, cv_neg(q.x), q.x), cv_select(neg, cv_neg(q.y), q.y), cv_select(neg, cv_neg(q.z), q.z),
                  cv_select(neg, cv_neg(q.w), q.w)};
}
static inline cv_v3 cv_q_rotate(cv_q q, cv_v3 v) {
    cv_v3 u = {q.x, q.y, q.z};
    cv_v3 t = cv_v3_cross(u, v);
    t = (cv_v3){cv_add(t.x, t.x), cv_add(t.y, t.y), cv_add(t.z, t.z)};
    cv_v3 c = cv_v3_cross(u, t);
    return (cv_v3){cv_add(cv_add(v.x, cv_mul(q.w, t.x)), c.x), cv_add(cv_add(v.y, cv_mul(q.w, t.y)), c.y),
                   cv_add(cv_add(v.z, cv_mul(q.w, t.z)), c.z)};
}
static inline cv_q cv_q_nlerp(cv_q a, cv_q b, cv_f t) {
    const cv_f one = cv_set1(1.0f);
    cv_f dot = cv_add(cv_add(cv_add(cv_mul(a.x, b.x), cv_mul(a.y, b.y)), cv_mul(a.z, b.z)), cv_mul(a.w, b.w));
    cv_f tb = cv_select(cv_lt(dot, cv_zero()), cv_neg(t), t), ta = cv_sub(one, t);
    return cv_q_canonical((cv_q){cv_add(cv_mul(a.x, ta), cv_mul(b.x, tb)), cv_add(cv_mul(a.y, ta), cv_mul(b.y, tb)),
                                 cv_add(cv_mul(a.z, ta), cv_mul(b.z, tb)), cv_add(cv_mul(a.w, ta), cv_mul(b.w, tb))});
}

static inline cv_q cv_q_loadu_cols(const float *col0, size_t stride, size_t i) {
    return (cv_q){cv_loadu(col0 + i), cv_loadu(col0 + stride + i), cv_loadu(col0 + 2 * stride + i),
                  cv_loadu(col0 + 3 * stride + i)};
}
static inline void cv_q_storeu_cols(float *col0, size_t stride, size_t i, cv_q q) {
    cv_storeu(col0 + i, q.x);
    cv_storeu(col0 + stride + i, q.y);
    cv_storeu(col0 + 2 * stride + i, q.z);
    cv_storeu(col0 + 3 * stride + i, q.w);
}

#endif /* CROWD_CV_GEOM_H */
