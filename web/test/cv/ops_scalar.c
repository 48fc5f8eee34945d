#define CV_TARGET_SCALAR 1
#define CV_OPS_NAME cv_ops_scalar_impl
#include "ops.h"
void cv_ops_scalar(const uint32_t *a, const uint32_t *b, size_t n, uint32_t *out) { cv_ops_scalar_impl(a, b, n, out); }
