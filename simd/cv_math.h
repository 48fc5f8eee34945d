/* cv_math.h — vector sin / cos on cv_ ops only, so every width gives the same bits.
 *
 *   cv_sin(x)  cv_cos(x)  cv_sincos(x, *s, *c)   (sincos shares the work; same bits as sin, cos)
 *   cv_atan2(y, x)                                 (finite y, x; see its comment)
 *   cv_exp2(x)                                   2^x (below)
 *
 * Valid range |x| <= 8192 (2^13). Error against double sin/cos, measured over every float in
 * [-8192, 8192] (ulp = float spacing at the exact result, so it holds next to the zeros too):
 *   cv_sin: max 1.02 ulp, max abs error 6.08e-8     cv_cos: max 1.03 ulp, max abs 6.11e-8
 * tests/test_sin.c re-checks it on every target (<= 2^-22 abs, <= 1.5 ulp).
 * Outside: 8192 < |x| <= 2^17 still in [-1, 1] with abs error <= 1.9e-6 (measured over every
 * float); finite |x| > 2^17 gives sin = +-0 (sign of x), cos = 1; NaN and +-inf give NaN.
 * Exactly: sin(-x) = -sin(x), cos(-x) = cos(x), sin(+-0) = +-0.
 *
 * cv_exp2(x) = 2^x for x in [-126, 127] (clamped there; NaN gives 2^-126 on x86's min/max rule
 * and is not an input the kernels make): k = round(x), f = x - k exactly in [-1/2, 1/2], Cephes
 * exp2f's minimax polynomial for 2^f in plain mul/add (Horner, no FMA), times 2^k put into the
 * exponent bits. Relative error about 2e-7 (tests/test_sin.c checks it against double exp2).
 *
 * Method: k = round(|x|*2/pi); r + rl = |x| - k*pi/2 by Cody-Waite with pi/2 in four parts
 * (the first three of <= 11 bits, so k*C is exact for k < 2^13) and the one rounding step
 * recovered exactly (Fast2Sum) into rl. Cephes sinf/cosf minimax polynomials on [-pi/4, pi/4]
 * in plain mul/add (Estrin order, no FMA) plus rl's first-order term; the quadrant from the
 * low bits of k: sin uses quadrant k, cos quadrant k+1 of the same r. ~47 ops per vector.
 */
#ifndef CROWD_CV_MATH_H
#define CROWD_CV_MATH_H

#include "cv.h"

/* Reduction: r + rl = |x| - k*pi/2 with rl ~ ulp(r), q = k in its low bits; ax = |x|. */
CV__INLINE cv_f cv__trig_reduce(cv_f ax, cv_f *rl, cv_i *q) {
  /* k = round(ax*2/pi) by adding 1.5*2^23: the sum's low mantissa bits are k (the same k as
   * cv_round while ax*2/pi < 2^22). */
  const cv_f magic = cv_set1(12582912.0f);
  cv_f t = cv_add(cv_mul(ax, cv_set1(0x1.45f306p-1f)), magic);
  cv_f k = cv_sub(t, magic);
  *q = cv_as_i(t);
  /* pi/2 = C1 + C2 + C3 + C4; C1..C3 have <= 11 significant bits, so k*Ci is exact for
   * k < 2^13, and the first two steps are exact (Sterbenz; then |r2| < 1 on a 2^-24 grid). */
  cv_f r2 = cv_sub(cv_sub(ax, cv_mul(k, cv_set1(0x1.92p+0f))), cv_mul(k, cv_set1(0x1.fb4p-12f)));
  cv_f kc3 = cv_mul(k, cv_set1(0x1.444p-24f));
  cv_f r = cv_sub(r2, kc3); /* exact when it cancels (|r| < 2^-10), else rounded: */
  /* Fast2Sum recovers that rounding exactly (|r2| >= |kc3| whenever r is inexact); it and
   * the last part go to rl, so r + rl is good to a fraction of an ulp even next to a zero. */
  *rl = cv_sub(cv_sub(cv_sub(r2, r), kc3), cv_mul(k, cv_set1(0x1.68c234p-39f)));
  return r;
}

/* sin(r + rl), cos(r + rl) on [-pi/4, pi/4] (Cephes sinf / cosf coefficients, z = r*r),
 * with rl's first-order terms: sin += rl, cos -= r*rl. */
CV__INLINE cv_f cv__sin_poly(cv_f r, cv_f rl, cv_f z, cv_f z2) {
  cv_f p = cv_add(cv_add(cv_mul(cv_set1(8.3321608736e-3f), z), cv_set1(-1.6666654611e-1f)),
                  cv_mul(cv_set1(-1.9515295891e-4f), z2));
  return cv_add(cv_add(cv_mul(p, cv_mul(z, r)), rl), r);
}
CV__INLINE cv_f cv__cos_poly(cv_f r, cv_f rl, cv_f z, cv_f z2) {
  cv_f p = cv_add(cv_add(cv_mul(cv_set1(-1.388731625493765e-3f), z), cv_set1(4.166664568298827e-2f)),
                  cv_mul(cv_set1(2.443315711809948e-5f), z2));
  p = cv_sub(cv_sub(cv_mul(p, z2), cv_mul(r, rl)), cv_mul(cv_set1(0.5f), z));
  return cv_add(p, cv_set1(1.0f));
}

/* Quadrant q: odd q takes the cos polynomial; bit 1 of q (xor the sign in `sign`) negates. */
CV__INLINE cv_f cv__trig_pick(cv_i q, cv_f ps, cv_f pc, cv_i sign) {
  cv_m odd = cv_ieq(cv_iand(q, cv_iset1(1)), cv_iset1(1));
  cv_f v = cv_select(odd, pc, ps);
  sign = cv_iand(cv_ixor(cv_isll(q, 30), sign), cv_iset1(0x80000000u));
  return cv_as_f(cv_ixor(cv_as_i(v), sign));
}

/* Past 2^17 the reduction has lost its bits, so finite x there gives sin = +-0, cos = 1
 * (and x*0 makes +-inf give NaN). The mask is ready early: one blend at the end. */
CV__INLINE cv_m cv__trig_big(cv_f ax) { return cv_gt(ax, cv_set1(131072.0f)); }

CV__INLINE cv_f cv_sin(cv_f x) {
  cv_i q;
  cv_f rl, ax = cv_abs(x);
  cv_f r = cv__trig_reduce(ax, &rl, &q);
  cv_f z = cv_mul(r, r), z2 = cv_mul(z, z);
  cv_f s = cv__trig_pick(q, cv__sin_poly(r, rl, z, z2), cv__cos_poly(r, rl, z, z2), cv_as_i(x));
  return cv_select(cv__trig_big(ax), cv_mul(x, cv_zero()), s);
}

CV__INLINE cv_f cv_cos(cv_f x) {
  cv_i q;
  cv_f rl, ax = cv_abs(x);
  cv_f r = cv__trig_reduce(ax, &rl, &q);
  cv_f z = cv_mul(r, r), z2 = cv_mul(z, z);
  cv_f c = cv__trig_pick(cv_iadd(q, cv_iset1(1)), cv__sin_poly(r, rl, z, z2),
                         cv__cos_poly(r, rl, z, z2), cv_iset1(0));
  return cv_select(cv__trig_big(ax), cv_add(cv_mul(ax, cv_zero()), cv_set1(1.0f)), c);
}

CV__INLINE void cv_sincos(cv_f x, cv_f *s, cv_f *c) {
  cv_i q;
  cv_f rl, ax = cv_abs(x);
  cv_f r = cv__trig_reduce(ax, &rl, &q);
  cv_f z = cv_mul(r, r), z2 = cv_mul(z, z);
  cv_f ps = cv__sin_poly(r, rl, z, z2), pc = cv__cos_poly(r, rl, z, z2);
  cv_m big = cv__trig_big(ax);
  *s = cv_select(big, cv_mul(x, cv_zero()), cv__trig_pick(q, ps, pc, cv_as_i(x)));
  *c = cv_select(big, cv_add(cv_mul(ax, cv_zero()), cv_set1(1.0f)),
                 cv__trig_pick(cv_iadd(q, cv_iset1(1)), ps, pc, cv_iset1(0)));
}

/* atan2(y, x) for finite y, x, in [-pi, pi] (pi rounded to float). t = min/max of |x|, |y| in
 * [0, 1]; above tan(pi/8) reduced by atan(t) = pi/4 + atan((t - 1)/(t + 1)); Cephes atanf's odd
 * polynomial on |u| <= tan(pi/8) in plain mul/add; then the octant and the quadrant.
 * atan2(+-0, x >= 0) = +-0 (also for x = -0, where C gives +-pi), atan2(+-0, x < 0) = +-pi,
 * the sign of y kept.
 * The face stage (engine/kernels/face.h) takes the head pose angles with it.
 * tests/test_cv.c measures it against double atan2 on every target (<= 2.5e-7 absolute). */
CV__INLINE cv_f cv_atan2(cv_f y, cv_f x) {
    const cv_f one = cv_set1(1.0f);
    cv_f ax = cv_abs(x), ay = cv_abs(y);
    cv_f mx = cv_max(ax, ay), mn = cv_min(ax, ay);
    cv_m nonzero = cv_gt(mx, cv_zero());
    cv_f t = cv_select(nonzero, cv_div(mn, cv_select(nonzero, mx, one)), cv_zero());
    cv_m big = cv_gt(t, cv_set1(0.41421356f));
    cv_f u = cv_select(big, cv_div(cv_sub(t, one), cv_add(t, one)), t);
    cv_f z = cv_mul(u, u);
    cv_f p = cv_sub(cv_mul(cv_add(cv_mul(cv_sub(cv_mul(cv_set1(8.05374449538e-2f), z), cv_set1(1.38776856032e-1f)), z),
                                  cv_set1(1.99777106478e-1f)),
                           z),
                    cv_set1(3.33329491539e-1f));
    cv_f a = cv_add(cv_mul(cv_mul(p, z), u), u);
    a = cv_select(big, cv_add(cv_set1(0.78539816f), a), a);
    a = cv_select(cv_gt(ay, ax), cv_sub(cv_set1(1.57079637f), a), a);
    a = cv_select(cv_lt(x, cv_zero()), cv_sub(cv_set1(3.14159274f), a), a);
    return cv_as_f(cv_ior(cv_as_i(a), cv_iand(cv_as_i(y), cv_iset1(0x80000000u))));
}

CV__INLINE cv_f cv_exp2(cv_f x) {
  x = cv_min(cv_max(x, cv_set1(-126.0f)), cv_set1(127.0f));
  /* k = round(x) by adding 1.5*2^23: the sum's bits are the magic's plus k (any sign) */
  const cv_f magic = cv_set1(12582912.0f);
  cv_f t = cv_add(x, magic);
  cv_f f = cv_sub(x, cv_sub(t, magic));
  cv_f p = cv_add(cv_mul(cv_set1(1.535336188319500e-4f), f), cv_set1(1.339887440266574e-3f));
  p = cv_add(cv_mul(p, f), cv_set1(9.618437357674640e-3f));
  p = cv_add(cv_mul(p, f), cv_set1(5.550332471162809e-2f));
  p = cv_add(cv_mul(p, f), cv_set1(2.402264791363012e-1f));
  p = cv_add(cv_mul(p, f), cv_set1(6.931472028550421e-1f));
  p = cv_add(cv_mul(p, f), cv_set1(1.0f));
  cv_i k = cv_isub(cv_as_i(t), cv_as_i(magic));
  return cv_mul(p, cv_as_f(cv_isll(cv_iadd(k, cv_iset1(127)), 23)));
}

#endif /* CROWD_CV_MATH_H */
