/* The One Euro filter step the limbs (every used landmark coordinate) and face tracking (each
 * smoothed source) share, on cv_ types: one formula, so both filter alike bit for bit. */
#ifndef CROWDI_ONE_EURO_H
#define CROWDI_ONE_EURO_H

#include <stddef.h>

#include "cv.h"

/* One Euro filter (Casiez et al.) as MediaPipe's OneEuroFilter runs it, on one coordinate:
 * the derivative (x - last raw value) * frequency, alpha(cutoff) = 1/(1 + tau/dt) with
 * tau = 1/(2*pi*cutoff), written as c/(c + 1) with c = 2*pi*dt*cutoff (one division instead
 * of three: the limbs run it on 69 coordinates per instance), low passes
 * alpha*x + (1 - alpha)*previous; the first sample passes. `frequency` is 1/dt, at most 1e30
 * so that a vanishing dt cannot turn 0 * inf into NaN; `two_pi_dt` is 2*pi*dt. */
static inline cv_f cvk_one_euro(float min_cutoff, float beta, float frequency, float two_pi_dt, float alpha_d,
                                float *xhat_col, float *dxhat_col, float *raw_col, size_t i, cv_f x, cv_m first) {
    const cv_f one = cv_set1(1.0f);
    cv_f prev = cv_loadu(xhat_col + i), dprev = cv_loadu(dxhat_col + i), raw = cv_loadu(raw_col + i);
    cv_f dx = cv_min(cv_set1(1e30f), cv_max(cv_set1(-1e30f), cv_mul(cv_sub(x, raw), cv_set1(frequency))));
    cv_f ad = cv_set1(alpha_d);
    cv_f edx = cv_add(cv_mul(ad, dx), cv_mul(cv_sub(one, ad), dprev));
    cv_f cutoff = cv_add(cv_set1(min_cutoff), cv_mul(cv_set1(beta), cv_abs(edx)));
    /* at most 1e30 (alpha 1): a huge beta or min_cutoff must not make inf/inf */
    cv_f c = cv_min(cv_mul(cv_set1(two_pi_dt), cutoff), cv_set1(1e30f));
    cv_f a = cv_div(c, cv_add(c, one));
    cv_f xf = cv_add(cv_mul(a, x), cv_mul(cv_sub(one, a), prev));
    xf = cv_select(first, x, xf);
    edx = cv_select(first, cv_zero(), edx);
    cv_storeu(xhat_col + i, xf);
    cv_storeu(dxhat_col + i, edx);
    cv_storeu(raw_col + i, x);
    return xf;
}

#endif
