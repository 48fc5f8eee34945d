/* math_kernels.h — sin/cos over arrays, for the per-target kernel file (cv.h's target).
 * Full W-blocks go straight through; the last n % W elements are copied into a zero-padded
 * W-lane buffer so the tail runs the same vector code (lanes are independent, so the
 * results match a full-array call bit for bit). in and out may be the same array. */
#ifndef CROWD_MATH_KERNELS_H
#define CROWD_MATH_KERNELS_H

#include <stddef.h>
#include <string.h>

#include "cv_math.h"

static void cvk_sin_array(const float *in, float *out, size_t n) {
  size_t i = 0;
  for (; n - i >= CV_W; i += CV_W) cv_storeu(out + i, cv_sin(cv_loadu(in + i)));
  if (i < n) {
    float buf[CV_W] = {0};
    memcpy(buf, in + i, (n - i) * sizeof(float));
    cv_storeu(buf, cv_sin(cv_loadu(buf)));
    memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}

static void cvk_cos_array(const float *in, float *out, size_t n) {
  size_t i = 0;
  for (; n - i >= CV_W; i += CV_W) cv_storeu(out + i, cv_cos(cv_loadu(in + i)));
  if (i < n) {
    float buf[CV_W] = {0};
    memcpy(buf, in + i, (n - i) * sizeof(float));
    cv_storeu(buf, cv_cos(cv_loadu(buf)));
    memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}

#endif /* CROWD_MATH_KERNELS_H */
