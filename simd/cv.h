/* cv.h — crowd's vector layer: W float / uint32 lanes over SIMDe, static inline only.
 *
 * The target is fixed at include time by one macro on the compile line (each kernel file is
 * compiled once per target with that target's flags and -ffp-contract=off):
 *   CV_TARGET_SCALAR (default)  W=1   plain C
 *   CV_TARGET_SSE2              W=4   -msse2
 *   CV_TARGET_AVX2              W=8   -mavx2 (no -mfma)
 *   CV_TARGET_AVX512            W=16  -mavx512f -mavx2
 *   CV_TARGET_WASM128           W=4   -msimd128 (WebAssembly SIMD128 through SIMDe's wasm API;
 *                                     emulated on other hosts)
 * Every op gives bit-identical lanes on every target (the scalar section is the definition),
 * so kernels written on cv_ ops produce the same bits at every width. (One gap: when both
 * operands of add/sub/mul/div are NaN, which payload survives is the compiler's choice.)
 *
 * Index (f = cv_f, i = cv_i, m = cv_m; W lanes each)
 *   CV_W CV_TARGET_NAME           lane count, "scalar" | "sse2" | "avx2" | "avx512" | "wasm128"
 *   cv_load  cv_loadu             f <- const float*        (load: aligned to W*4 bytes)
 *   cv_store cv_storeu            float* <- f
 *   cv_iload cv_iloadu            i <- const uint32_t*     (iload: aligned to W*4 bytes)
 *   cv_istore cv_istoreu          uint32_t* <- i
 *   cv_stream cv_stream_fence     float* <- f past the caches (aligned to W*4 bytes; x86:
 *                                 a non-temporal store, no read of the line first), and the
 *                                 fence that orders such stores before later ones (x86 sfence)
 *   cv_set1 cv_zero cv_iset1      broadcast
 *   cv_add cv_sub cv_mul cv_div   correctly rounded, never fused
 *   cv_sqrt                       correctly rounded (negative -> NaN)
 *   cv_min(a,b) = a < b ? a : b   cv_max(a,b) = a > b ? a : b   (x86: a NaN in either gives b)
 *   cv_abs cv_neg                 clear / flip the sign bit (also of NaN)
 *   cv_round                      nearest even; |x| >= 2^23, inf, NaN: x itself (same bits)
 *   cv_floor                      exact for all finite x; |x| >= 2^23, inf, NaN: x itself
 *   cv_lt cv_le cv_gt cv_ge cv_eq f,f -> m, ordered: false if either is NaN
 *   cv_neq                        f,f -> m, unordered: true if either is NaN (C's !=)
 *   cv_mand cv_mor cv_mxor cv_mnot cv_mandnot(a,b) = a & ~b     m -> m
 *   cv_mtrue cv_mfalse            all lanes on / off
 *   cv_any cv_all                 m -> int (0/1)
 *   cv_select(m, t, f)            f lanes: m ? t : f
 *   cv_iselect(m, t, f)           i lanes: m ? t : f
 *   cv_iadd cv_isub cv_imul       wrapping; imul = low 32 bits of the product
 *   cv_iand cv_ior cv_ixor        bitwise
 *   cv_isrl(x,n) cv_isll(x,n)     logical shifts; n a constant in [0,31] (macros: NEON and
 *                                 some compilers need an immediate count)
 *   cv_ieq cv_igt_s               i,i -> m (igt_s: as signed int32)
 *   cv_i2f                        int32 lanes -> float, round to nearest even (exact < 2^24)
 *   cv_f2i_trunc                  float -> int32 toward zero; NaN / out of int32: 0x80000000
 *   cv_as_i cv_as_f               bit casts
 *
 * Not here on purpose: FMA, rcp/rsqrt estimates, horizontal sums (they differ across widths).
 */
#ifndef CROWD_CV_H
#define CROWD_CV_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if (defined(CV_TARGET_SCALAR) + defined(CV_TARGET_SSE2) + defined(CV_TARGET_AVX2) + \
     defined(CV_TARGET_AVX512) + defined(CV_TARGET_WASM128)) > 1
#error "cv.h: define at most one CV_TARGET_* macro"
#endif
#if !defined(CV_TARGET_SSE2) && !defined(CV_TARGET_AVX2) && !defined(CV_TARGET_AVX512) && \
    !defined(CV_TARGET_WASM128) && !defined(CV_TARGET_SCALAR)
#define CV_TARGET_SCALAR
#endif
/* Determinism needs IEEE float ops with no excess precision and no value-changing shortcuts
 * (-ffp-contract=off cannot be detected here; test_cv.c checks it). */
#if defined(__FAST_MATH__) || defined(__ASSOCIATIVE_MATH__) || defined(__RECIPROCAL_MATH__) || \
    defined(__NO_SIGNED_ZEROS__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__) || \
    defined(SIMDE_FAST_MATH) || defined(SIMDE_FAST_NANS) || defined(SIMDE_FAST_CONVERSION_RANGE) || \
    defined(SIMDE_FAST_ROUND_MODE) || defined(SIMDE_FAST_ROUND_TIES) || defined(SIMDE_FAST_EXCEPTIONS)
#error "cv.h: -ffast-math (or its parts) / SIMDE_FAST_* change results across widths"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "cv.h: float arithmetic must not use excess precision (FLT_EVAL_METHOD != 0)"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CV__INLINE static inline __attribute__((always_inline))
#else
#define CV__INLINE static inline
#endif

/* ======================================================================== scalar (W = 1) */
#if defined(CV_TARGET_SCALAR)
#include <math.h>
#define CV_W 1
#define CV_TARGET_NAME "scalar"
typedef float cv_f;
typedef uint32_t cv_i;
typedef uint32_t cv_m; /* 0 or 0xFFFFFFFF */

CV__INLINE cv_i cv_as_i(cv_f x) { uint32_t u; memcpy(&u, &x, 4); return u; }
CV__INLINE cv_f cv_as_f(cv_i u) { float x; memcpy(&x, &u, 4); return x; }
CV__INLINE cv_m cv__m(int b) { return b ? 0xFFFFFFFFu : 0u; }

CV__INLINE cv_f cv_load(const float *p) { return *p; }
CV__INLINE cv_f cv_loadu(const float *p) { return *p; }
CV__INLINE void cv_store(float *p, cv_f x) { *p = x; }
CV__INLINE void cv_storeu(float *p, cv_f x) { *p = x; }
CV__INLINE void cv_stream(float *p, cv_f x) { *p = x; }
CV__INLINE void cv_stream_fence(void) {}
CV__INLINE cv_i cv_iload(const uint32_t *p) { return *p; }
CV__INLINE cv_i cv_iloadu(const uint32_t *p) { return *p; }
CV__INLINE void cv_istore(uint32_t *p, cv_i x) { *p = x; }
CV__INLINE void cv_istoreu(uint32_t *p, cv_i x) { *p = x; }
CV__INLINE cv_f cv_set1(float v) { return v; }
CV__INLINE cv_f cv_zero(void) { return 0.0f; }
CV__INLINE cv_i cv_iset1(uint32_t v) { return v; }

CV__INLINE cv_f cv_add(cv_f a, cv_f b) { return a + b; }
CV__INLINE cv_f cv_sub(cv_f a, cv_f b) { return a - b; }
CV__INLINE cv_f cv_mul(cv_f a, cv_f b) { return a * b; }
CV__INLINE cv_f cv_div(cv_f a, cv_f b) { return a / b; }
CV__INLINE cv_f cv_sqrt(cv_f a) { return sqrtf(a); }
CV__INLINE cv_f cv_min(cv_f a, cv_f b) { return a < b ? a : b; }
CV__INLINE cv_f cv_max(cv_f a, cv_f b) { return a > b ? a : b; }
CV__INLINE cv_f cv_abs(cv_f a) { return cv_as_f(cv_as_i(a) & 0x7FFFFFFFu); }
CV__INLINE cv_f cv_neg(cv_f a) { return cv_as_f(cv_as_i(a) ^ 0x80000000u); }

CV__INLINE cv_m cv_lt(cv_f a, cv_f b) { return cv__m(a < b); }
CV__INLINE cv_m cv_le(cv_f a, cv_f b) { return cv__m(a <= b); }
CV__INLINE cv_m cv_gt(cv_f a, cv_f b) { return cv__m(a > b); }
CV__INLINE cv_m cv_ge(cv_f a, cv_f b) { return cv__m(a >= b); }
CV__INLINE cv_m cv_eq(cv_f a, cv_f b) { return cv__m(a == b); }
CV__INLINE cv_m cv_neq(cv_f a, cv_f b) { return cv__m(a != b); }

CV__INLINE cv_m cv_mand(cv_m a, cv_m b) { return a & b; }
CV__INLINE cv_m cv_mor(cv_m a, cv_m b) { return a | b; }
CV__INLINE cv_m cv_mxor(cv_m a, cv_m b) { return a ^ b; }
CV__INLINE cv_m cv_mnot(cv_m a) { return ~a; }
CV__INLINE cv_m cv_mandnot(cv_m a, cv_m b) { return a & ~b; }
CV__INLINE cv_m cv_mtrue(void) { return 0xFFFFFFFFu; }
CV__INLINE cv_m cv_mfalse(void) { return 0u; }
CV__INLINE int cv_any(cv_m m) { return m != 0; }
CV__INLINE int cv_all(cv_m m) { return m == 0xFFFFFFFFu; }
CV__INLINE cv_f cv_select(cv_m m, cv_f t, cv_f f) { return m ? t : f; }
CV__INLINE cv_i cv_iselect(cv_m m, cv_i t, cv_i f) { return m ? t : f; }

CV__INLINE cv_i cv_iadd(cv_i a, cv_i b) { return a + b; }
CV__INLINE cv_i cv_isub(cv_i a, cv_i b) { return a - b; }
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) { return (uint32_t)((uint64_t)a * b); }
CV__INLINE cv_i cv_iand(cv_i a, cv_i b) { return a & b; }
CV__INLINE cv_i cv_ior(cv_i a, cv_i b) { return a | b; }
CV__INLINE cv_i cv_ixor(cv_i a, cv_i b) { return a ^ b; }
#define cv_isrl(x, n) ((cv_i)(x) >> (n))
#define cv_isll(x, n) ((cv_i)(x) << (n))
CV__INLINE cv_m cv_ieq(cv_i a, cv_i b) { return cv__m(a == b); }
CV__INLINE cv_m cv_igt_s(cv_i a, cv_i b) { return cv__m((int32_t)a > (int32_t)b); }
CV__INLINE cv_f cv_i2f(cv_i a) { return (float)(int32_t)a; }
/* x86 cvttps2dq: lanes outside (-2^31-1, 2^31) and NaN give 0x80000000 (C leaves them UB). */
CV__INLINE cv_i cv_f2i_trunc(cv_f a) {
  return (a > -2147483904.0f && a < 2147483648.0f) ? (uint32_t)(int32_t)a : 0x80000000u;
}

/* ======================================================================== SSE2 (W = 4) */
#elif defined(CV_TARGET_SSE2)
#include <simde/x86/sse2.h>
#define CV_W 4
#define CV_TARGET_NAME "sse2"
typedef simde__m128 cv_f;
typedef simde__m128i cv_i;
typedef simde__m128 cv_m; /* lanes all-ones or zero */

CV__INLINE cv_i cv_as_i(cv_f x) { return simde_mm_castps_si128(x); }
CV__INLINE cv_f cv_as_f(cv_i x) { return simde_mm_castsi128_ps(x); }

CV__INLINE cv_f cv_load(const float *p) { return simde_mm_load_ps(p); }
CV__INLINE cv_f cv_loadu(const float *p) { return simde_mm_loadu_ps(p); }
CV__INLINE void cv_store(float *p, cv_f x) { simde_mm_store_ps(p, x); }
CV__INLINE void cv_storeu(float *p, cv_f x) { simde_mm_storeu_ps(p, x); }
CV__INLINE void cv_stream(float *p, cv_f x) { simde_mm_stream_ps(p, x); }
CV__INLINE void cv_stream_fence(void) { simde_mm_sfence(); }
CV__INLINE cv_i cv_iload(const uint32_t *p) { return simde_mm_load_si128((const simde__m128i *)(const void *)p); }
CV__INLINE cv_i cv_iloadu(const uint32_t *p) { return simde_mm_loadu_si128((const simde__m128i *)(const void *)p); }
CV__INLINE void cv_istore(uint32_t *p, cv_i x) { simde_mm_store_si128((simde__m128i *)(void *)p, x); }
CV__INLINE void cv_istoreu(uint32_t *p, cv_i x) { simde_mm_storeu_si128((simde__m128i *)(void *)p, x); }
CV__INLINE cv_f cv_set1(float v) { return simde_mm_set1_ps(v); }
CV__INLINE cv_f cv_zero(void) { return simde_mm_setzero_ps(); }
CV__INLINE cv_i cv_iset1(uint32_t v) { return simde_mm_set1_epi32((int32_t)v); }

CV__INLINE cv_f cv_add(cv_f a, cv_f b) { return simde_mm_add_ps(a, b); }
CV__INLINE cv_f cv_sub(cv_f a, cv_f b) { return simde_mm_sub_ps(a, b); }
CV__INLINE cv_f cv_mul(cv_f a, cv_f b) { return simde_mm_mul_ps(a, b); }
CV__INLINE cv_f cv_div(cv_f a, cv_f b) { return simde_mm_div_ps(a, b); }
CV__INLINE cv_f cv_sqrt(cv_f a) { return simde_mm_sqrt_ps(a); }
CV__INLINE cv_f cv_min(cv_f a, cv_f b) { return simde_mm_min_ps(a, b); }
CV__INLINE cv_f cv_max(cv_f a, cv_f b) { return simde_mm_max_ps(a, b); }
CV__INLINE cv_f cv_abs(cv_f a) { return simde_mm_and_ps(a, cv_as_f(simde_mm_set1_epi32(0x7FFFFFFF))); }
CV__INLINE cv_f cv_neg(cv_f a) { return simde_mm_xor_ps(a, cv_as_f(simde_mm_set1_epi32(INT32_MIN))); }

CV__INLINE cv_m cv_lt(cv_f a, cv_f b) { return simde_mm_cmplt_ps(a, b); }
CV__INLINE cv_m cv_le(cv_f a, cv_f b) { return simde_mm_cmple_ps(a, b); }
CV__INLINE cv_m cv_gt(cv_f a, cv_f b) { return simde_mm_cmpgt_ps(a, b); }
CV__INLINE cv_m cv_ge(cv_f a, cv_f b) { return simde_mm_cmpge_ps(a, b); }
CV__INLINE cv_m cv_eq(cv_f a, cv_f b) { return simde_mm_cmpeq_ps(a, b); }
CV__INLINE cv_m cv_neq(cv_f a, cv_f b) { return simde_mm_cmpneq_ps(a, b); }

CV__INLINE cv_m cv_mand(cv_m a, cv_m b) { return simde_mm_and_ps(a, b); }
CV__INLINE cv_m cv_mor(cv_m a, cv_m b) { return simde_mm_or_ps(a, b); }
CV__INLINE cv_m cv_mxor(cv_m a, cv_m b) { return simde_mm_xor_ps(a, b); }
CV__INLINE cv_m cv_mtrue(void) { return cv_as_f(simde_mm_set1_epi32(-1)); }
CV__INLINE cv_m cv_mfalse(void) { return simde_mm_setzero_ps(); }
CV__INLINE cv_m cv_mnot(cv_m a) { return simde_mm_xor_ps(a, cv_mtrue()); }
CV__INLINE cv_m cv_mandnot(cv_m a, cv_m b) { return simde_mm_andnot_ps(b, a); }
CV__INLINE int cv_any(cv_m m) { return simde_mm_movemask_ps(m) != 0; }
CV__INLINE int cv_all(cv_m m) { return simde_mm_movemask_ps(m) == 0xF; }
/* No blendv before SSE4.1: and/andnot/or (masks are whole lanes, so it equals a blend). */
CV__INLINE cv_f cv_select(cv_m m, cv_f t, cv_f f) { return simde_mm_or_ps(simde_mm_and_ps(m, t), simde_mm_andnot_ps(m, f)); }
CV__INLINE cv_i cv_iselect(cv_m m, cv_i t, cv_i f) { return cv_as_i(cv_select(m, cv_as_f(t), cv_as_f(f))); }

CV__INLINE cv_i cv_iadd(cv_i a, cv_i b) { return simde_mm_add_epi32(a, b); }
CV__INLINE cv_i cv_isub(cv_i a, cv_i b) { return simde_mm_sub_epi32(a, b); }
/* SSE2 has no pmulld: two 32x32->64 multiplies (lanes 0,2 and 1,3), low halves interleaved. */
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) {
  simde__m128i e = simde_mm_mul_epu32(a, b);
  simde__m128i o = simde_mm_mul_epu32(simde_mm_srli_epi64(a, 32), simde_mm_srli_epi64(b, 32));
  return simde_mm_unpacklo_epi32(simde_mm_shuffle_epi32(e, SIMDE_MM_SHUFFLE(0, 0, 2, 0)),
                                 simde_mm_shuffle_epi32(o, SIMDE_MM_SHUFFLE(0, 0, 2, 0)));
}
CV__INLINE cv_i cv_iand(cv_i a, cv_i b) { return simde_mm_and_si128(a, b); }
CV__INLINE cv_i cv_ior(cv_i a, cv_i b) { return simde_mm_or_si128(a, b); }
CV__INLINE cv_i cv_ixor(cv_i a, cv_i b) { return simde_mm_xor_si128(a, b); }
#define cv_isrl(x, n) simde_mm_srli_epi32((x), (n))
#define cv_isll(x, n) simde_mm_slli_epi32((x), (n))
CV__INLINE cv_m cv_ieq(cv_i a, cv_i b) { return cv_as_f(simde_mm_cmpeq_epi32(a, b)); }
CV__INLINE cv_m cv_igt_s(cv_i a, cv_i b) { return cv_as_f(simde_mm_cmpgt_epi32(a, b)); }
CV__INLINE cv_f cv_i2f(cv_i a) { return simde_mm_cvtepi32_ps(a); }
CV__INLINE cv_i cv_f2i_trunc(cv_f a) { return simde_mm_cvttps_epi32(a); }

/* ======================================================================== AVX2 (W = 8) */
#elif defined(CV_TARGET_AVX2)
#include <simde/x86/avx2.h>
#define CV_W 8
#define CV_TARGET_NAME "avx2"
typedef simde__m256 cv_f;
typedef simde__m256i cv_i;
typedef simde__m256 cv_m; /* lanes all-ones or zero */

CV__INLINE cv_i cv_as_i(cv_f x) { return simde_mm256_castps_si256(x); }
CV__INLINE cv_f cv_as_f(cv_i x) { return simde_mm256_castsi256_ps(x); }

CV__INLINE cv_f cv_load(const float *p) { return simde_mm256_load_ps(p); }
CV__INLINE cv_f cv_loadu(const float *p) { return simde_mm256_loadu_ps(p); }
CV__INLINE void cv_store(float *p, cv_f x) { simde_mm256_store_ps(p, x); }
CV__INLINE void cv_storeu(float *p, cv_f x) { simde_mm256_storeu_ps(p, x); }
CV__INLINE void cv_stream(float *p, cv_f x) { simde_mm256_stream_ps(p, x); }
CV__INLINE void cv_stream_fence(void) { simde_mm_sfence(); }
CV__INLINE cv_i cv_iload(const uint32_t *p) { return simde_mm256_load_si256((const simde__m256i *)(const void *)p); }
CV__INLINE cv_i cv_iloadu(const uint32_t *p) { return simde_mm256_loadu_si256((const simde__m256i *)(const void *)p); }
CV__INLINE void cv_istore(uint32_t *p, cv_i x) { simde_mm256_store_si256((simde__m256i *)(void *)p, x); }
CV__INLINE void cv_istoreu(uint32_t *p, cv_i x) { simde_mm256_storeu_si256((simde__m256i *)(void *)p, x); }
CV__INLINE cv_f cv_set1(float v) { return simde_mm256_set1_ps(v); }
CV__INLINE cv_f cv_zero(void) { return simde_mm256_setzero_ps(); }
CV__INLINE cv_i cv_iset1(uint32_t v) { return simde_mm256_set1_epi32((int32_t)v); }

CV__INLINE cv_f cv_add(cv_f a, cv_f b) { return simde_mm256_add_ps(a, b); }
CV__INLINE cv_f cv_sub(cv_f a, cv_f b) { return simde_mm256_sub_ps(a, b); }
CV__INLINE cv_f cv_mul(cv_f a, cv_f b) { return simde_mm256_mul_ps(a, b); }
CV__INLINE cv_f cv_div(cv_f a, cv_f b) { return simde_mm256_div_ps(a, b); }
CV__INLINE cv_f cv_sqrt(cv_f a) { return simde_mm256_sqrt_ps(a); }
CV__INLINE cv_f cv_min(cv_f a, cv_f b) { return simde_mm256_min_ps(a, b); }
CV__INLINE cv_f cv_max(cv_f a, cv_f b) { return simde_mm256_max_ps(a, b); }
CV__INLINE cv_f cv_abs(cv_f a) { return simde_mm256_and_ps(a, cv_as_f(simde_mm256_set1_epi32(0x7FFFFFFF))); }
CV__INLINE cv_f cv_neg(cv_f a) { return simde_mm256_xor_ps(a, cv_as_f(simde_mm256_set1_epi32(INT32_MIN))); }

CV__INLINE cv_m cv_lt(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LT_OQ); }
CV__INLINE cv_m cv_le(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_LE_OQ); }
CV__INLINE cv_m cv_gt(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GT_OQ); }
CV__INLINE cv_m cv_ge(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_GE_OQ); }
CV__INLINE cv_m cv_eq(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_EQ_OQ); }
CV__INLINE cv_m cv_neq(cv_f a, cv_f b) { return simde_mm256_cmp_ps(a, b, SIMDE_CMP_NEQ_UQ); }

CV__INLINE cv_m cv_mand(cv_m a, cv_m b) { return simde_mm256_and_ps(a, b); }
CV__INLINE cv_m cv_mor(cv_m a, cv_m b) { return simde_mm256_or_ps(a, b); }
CV__INLINE cv_m cv_mxor(cv_m a, cv_m b) { return simde_mm256_xor_ps(a, b); }
CV__INLINE cv_m cv_mtrue(void) { return cv_as_f(simde_mm256_set1_epi32(-1)); }
CV__INLINE cv_m cv_mfalse(void) { return simde_mm256_setzero_ps(); }
CV__INLINE cv_m cv_mnot(cv_m a) { return simde_mm256_xor_ps(a, cv_mtrue()); }
CV__INLINE cv_m cv_mandnot(cv_m a, cv_m b) { return simde_mm256_andnot_ps(b, a); }
CV__INLINE int cv_any(cv_m m) { return simde_mm256_movemask_ps(m) != 0; }
CV__INLINE int cv_all(cv_m m) { return simde_mm256_movemask_ps(m) == 0xFF; }
CV__INLINE cv_f cv_select(cv_m m, cv_f t, cv_f f) { return simde_mm256_blendv_ps(f, t, m); }
CV__INLINE cv_i cv_iselect(cv_m m, cv_i t, cv_i f) { return cv_as_i(simde_mm256_blendv_ps(cv_as_f(f), cv_as_f(t), m)); }

CV__INLINE cv_i cv_iadd(cv_i a, cv_i b) { return simde_mm256_add_epi32(a, b); }
CV__INLINE cv_i cv_isub(cv_i a, cv_i b) { return simde_mm256_sub_epi32(a, b); }
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) { return simde_mm256_mullo_epi32(a, b); }
CV__INLINE cv_i cv_iand(cv_i a, cv_i b) { return simde_mm256_and_si256(a, b); }
CV__INLINE cv_i cv_ior(cv_i a, cv_i b) { return simde_mm256_or_si256(a, b); }
CV__INLINE cv_i cv_ixor(cv_i a, cv_i b) { return simde_mm256_xor_si256(a, b); }
#define cv_isrl(x, n) simde_mm256_srli_epi32((x), (n))
#define cv_isll(x, n) simde_mm256_slli_epi32((x), (n))
CV__INLINE cv_m cv_ieq(cv_i a, cv_i b) { return cv_as_f(simde_mm256_cmpeq_epi32(a, b)); }
CV__INLINE cv_m cv_igt_s(cv_i a, cv_i b) { return cv_as_f(simde_mm256_cmpgt_epi32(a, b)); }
CV__INLINE cv_f cv_i2f(cv_i a) { return simde_mm256_cvtepi32_ps(a); }
CV__INLINE cv_i cv_f2i_trunc(cv_f a) { return simde_mm256_cvttps_epi32(a); }

/* ======================================================================== AVX-512 (W = 16) */
#elif defined(CV_TARGET_AVX512)
#include <simde/x86/avx512.h>
#if defined(SIMDE_X86_AVX512F_NATIVE)
#include <immintrin.h>
#endif
#define CV_W 16
#define CV_TARGET_NAME "avx512"
typedef simde__m512 cv_f;
typedef simde__m512i cv_i;
typedef simde__mmask16 cv_m; /* one bit per lane */

CV__INLINE cv_i cv_as_i(cv_f x) { return simde_mm512_castps_si512(x); }
CV__INLINE cv_f cv_as_f(cv_i x) { return simde_mm512_castsi512_ps(x); }

CV__INLINE cv_f cv_load(const float *p) { return simde_mm512_load_ps(p); }
CV__INLINE cv_f cv_loadu(const float *p) { return simde_mm512_loadu_ps(p); }
CV__INLINE void cv_store(float *p, cv_f x) { simde_mm512_store_ps(p, x); }
CV__INLINE void cv_storeu(float *p, cv_f x) { simde_mm512_storeu_ps(p, x); }
#if defined(SIMDE_X86_AVX512F_NATIVE)
CV__INLINE void cv_stream(float *p, cv_f x) { _mm512_stream_ps(p, x); }
#else /* SIMDe has no 512-bit stream: emulated AVX-512 stores as usual */
CV__INLINE void cv_stream(float *p, cv_f x) { simde_mm512_storeu_ps(p, x); }
#endif
CV__INLINE void cv_stream_fence(void) { simde_mm_sfence(); }
CV__INLINE cv_i cv_iload(const uint32_t *p) { return simde_mm512_load_si512((const void *)p); }
CV__INLINE cv_i cv_iloadu(const uint32_t *p) { return simde_mm512_loadu_si512((const void *)p); }
CV__INLINE void cv_istore(uint32_t *p, cv_i x) { simde_mm512_store_si512((void *)p, x); }
CV__INLINE void cv_istoreu(uint32_t *p, cv_i x) { simde_mm512_storeu_si512((void *)p, x); }
CV__INLINE cv_f cv_set1(float v) { return simde_mm512_set1_ps(v); }
CV__INLINE cv_f cv_zero(void) { return simde_mm512_setzero_ps(); }
CV__INLINE cv_i cv_iset1(uint32_t v) { return simde_mm512_set1_epi32((int32_t)v); }

CV__INLINE cv_i cv_iand(cv_i a, cv_i b) { return simde_mm512_and_si512(a, b); }
CV__INLINE cv_i cv_ior(cv_i a, cv_i b) { return simde_mm512_or_si512(a, b); }
CV__INLINE cv_i cv_ixor(cv_i a, cv_i b) { return simde_mm512_xor_si512(a, b); }

CV__INLINE cv_f cv_add(cv_f a, cv_f b) { return simde_mm512_add_ps(a, b); }
CV__INLINE cv_f cv_sub(cv_f a, cv_f b) { return simde_mm512_sub_ps(a, b); }
CV__INLINE cv_f cv_mul(cv_f a, cv_f b) { return simde_mm512_mul_ps(a, b); }
CV__INLINE cv_f cv_div(cv_f a, cv_f b) { return simde_mm512_div_ps(a, b); }
CV__INLINE cv_f cv_sqrt(cv_f a) { return simde_mm512_sqrt_ps(a); }
CV__INLINE cv_f cv_min(cv_f a, cv_f b) { return simde_mm512_min_ps(a, b); }
CV__INLINE cv_f cv_max(cv_f a, cv_f b) { return simde_mm512_max_ps(a, b); }
/* Float and/xor are AVX512DQ; the integer forms are AVX512F. */
CV__INLINE cv_f cv_abs(cv_f a) { return cv_as_f(cv_iand(cv_as_i(a), cv_iset1(0x7FFFFFFFu))); }
CV__INLINE cv_f cv_neg(cv_f a) { return cv_as_f(cv_ixor(cv_as_i(a), cv_iset1(0x80000000u))); }

CV__INLINE cv_m cv_lt(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LT_OQ); }
CV__INLINE cv_m cv_le(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_LE_OQ); }
CV__INLINE cv_m cv_gt(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GT_OQ); }
CV__INLINE cv_m cv_ge(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_GE_OQ); }
CV__INLINE cv_m cv_eq(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_EQ_OQ); }
CV__INLINE cv_m cv_neq(cv_f a, cv_f b) { return simde_mm512_cmp_ps_mask(a, b, SIMDE_CMP_NEQ_UQ); }

CV__INLINE cv_m cv_mand(cv_m a, cv_m b) { return (cv_m)(a & b); }
CV__INLINE cv_m cv_mor(cv_m a, cv_m b) { return (cv_m)(a | b); }
CV__INLINE cv_m cv_mxor(cv_m a, cv_m b) { return (cv_m)(a ^ b); }
CV__INLINE cv_m cv_mnot(cv_m a) { return (cv_m)(~a & 0xFFFF); }
CV__INLINE cv_m cv_mandnot(cv_m a, cv_m b) { return (cv_m)(a & ~b & 0xFFFF); }
CV__INLINE cv_m cv_mtrue(void) { return (cv_m)0xFFFF; }
CV__INLINE cv_m cv_mfalse(void) { return (cv_m)0; }
CV__INLINE int cv_any(cv_m m) { return m != 0; }
CV__INLINE int cv_all(cv_m m) { return m == 0xFFFF; }
CV__INLINE cv_f cv_select(cv_m m, cv_f t, cv_f f) { return simde_mm512_mask_blend_ps(m, f, t); }
CV__INLINE cv_i cv_iselect(cv_m m, cv_i t, cv_i f) { return simde_mm512_mask_blend_epi32(m, f, t); }

CV__INLINE cv_i cv_iadd(cv_i a, cv_i b) { return simde_mm512_add_epi32(a, b); }
CV__INLINE cv_i cv_isub(cv_i a, cv_i b) { return simde_mm512_sub_epi32(a, b); }
#if defined(SIMDE_X86_AVX512F_NATIVE)
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) { return simde_mm512_mullo_epi32(a, b); }
#else
/* SIMDe 0.7.4's portable 512-bit mullo multiplies as signed int (overflow is undefined, and
 * UBSan says so): two 256-bit halves instead, whose mullo is exact */
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) {
  simde__m256i lo = simde_mm256_mullo_epi32(simde_mm512_castsi512_si256(a), simde_mm512_castsi512_si256(b));
  simde__m256i hi = simde_mm256_mullo_epi32(simde_mm512_extracti64x4_epi64(a, 1), simde_mm512_extracti64x4_epi64(b, 1));
  return simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), hi, 1);
}
#endif
#define cv_isrl(x, n) simde_mm512_srli_epi32((x), (n))
#define cv_isll(x, n) simde_mm512_slli_epi32((x), (n))
CV__INLINE cv_m cv_ieq(cv_i a, cv_i b) { return simde_mm512_cmpeq_epi32_mask(a, b); }
CV__INLINE cv_m cv_igt_s(cv_i a, cv_i b) { return simde_mm512_cmpgt_epi32_mask(a, b); }
/* SIMDe 0.7.4 lacks the 512-bit conversions: native intrinsic, else the scalar definition. */
#if defined(SIMDE_X86_AVX512F_NATIVE)
CV__INLINE cv_f cv_i2f(cv_i a) { return _mm512_cvtepi32_ps(a); }
CV__INLINE cv_i cv_f2i_trunc(cv_f a) { return _mm512_cvttps_epi32(a); }
#else
CV__INLINE cv_f cv_i2f(cv_i a) {
  int32_t v[16]; float r[16];
  memcpy(v, &a, sizeof v);
  for (int j = 0; j < 16; j++) r[j] = (float)v[j];
  return simde_mm512_loadu_ps(r);
}
CV__INLINE cv_i cv_f2i_trunc(cv_f a) {
  float v[16]; uint32_t r[16];
  memcpy(v, &a, sizeof v);
  for (int j = 0; j < 16; j++)
    r[j] = (v[j] > -2147483904.0f && v[j] < 2147483648.0f) ? (uint32_t)(int32_t)v[j] : 0x80000000u;
  return simde_mm512_loadu_si512((const void *)r);
}
#endif
/* ======================================================================== WASM SIMD128 (W = 4) */
#elif defined(CV_TARGET_WASM128)
#include <simde/wasm/simd128.h>
#define CV_W 4
#define CV_TARGET_NAME "wasm128"
typedef simde_v128_t cv_f;
typedef simde_v128_t cv_i;
typedef simde_v128_t cv_m; /* lanes all-ones or zero */

/* One 128-bit type holds floats, integers and masks: the casts are no-ops. */
CV__INLINE cv_i cv_as_i(cv_f x) { return x; }
CV__INLINE cv_f cv_as_f(cv_i x) { return x; }

/* v128.load/store take any alignment. */
CV__INLINE cv_f cv_load(const float *p) { return simde_wasm_v128_load(p); }
CV__INLINE cv_f cv_loadu(const float *p) { return simde_wasm_v128_load(p); }
CV__INLINE void cv_store(float *p, cv_f x) { simde_wasm_v128_store(p, x); }
CV__INLINE void cv_storeu(float *p, cv_f x) { simde_wasm_v128_store(p, x); }
CV__INLINE void cv_stream(float *p, cv_f x) { simde_wasm_v128_store(p, x); }
CV__INLINE void cv_stream_fence(void) {}
CV__INLINE cv_i cv_iload(const uint32_t *p) { return simde_wasm_v128_load(p); }
CV__INLINE cv_i cv_iloadu(const uint32_t *p) { return simde_wasm_v128_load(p); }
CV__INLINE void cv_istore(uint32_t *p, cv_i x) { simde_wasm_v128_store(p, x); }
CV__INLINE void cv_istoreu(uint32_t *p, cv_i x) { simde_wasm_v128_store(p, x); }
CV__INLINE cv_f cv_set1(float v) { return simde_wasm_f32x4_splat(v); }
CV__INLINE cv_f cv_zero(void) { return simde_wasm_f32x4_splat(0.0f); }
CV__INLINE cv_i cv_iset1(uint32_t v) { return simde_wasm_i32x4_splat((int32_t)v); }

CV__INLINE cv_f cv_add(cv_f a, cv_f b) { return simde_wasm_f32x4_add(a, b); }
CV__INLINE cv_f cv_sub(cv_f a, cv_f b) { return simde_wasm_f32x4_sub(a, b); }
CV__INLINE cv_f cv_mul(cv_f a, cv_f b) { return simde_wasm_f32x4_mul(a, b); }
CV__INLINE cv_f cv_div(cv_f a, cv_f b) { return simde_wasm_f32x4_div(a, b); }
CV__INLINE cv_f cv_sqrt(cv_f a) { return simde_wasm_f32x4_sqrt(a); }
/* f32x4.min/max propagate NaN and order -0 below +0, unlike the definition; the "pseudo"
 * forms are exactly a comparison and a select: pmin(x, y) = y < x ? y : x. */
CV__INLINE cv_f cv_min(cv_f a, cv_f b) { return simde_wasm_f32x4_pmin(b, a); }
CV__INLINE cv_f cv_max(cv_f a, cv_f b) { return simde_wasm_f32x4_pmax(b, a); }
CV__INLINE cv_f cv_abs(cv_f a) { return simde_wasm_v128_and(a, simde_wasm_i32x4_splat(0x7FFFFFFF)); }
CV__INLINE cv_f cv_neg(cv_f a) { return simde_wasm_v128_xor(a, simde_wasm_i32x4_splat(INT32_MIN)); }

CV__INLINE cv_m cv_lt(cv_f a, cv_f b) { return simde_wasm_f32x4_lt(a, b); }
CV__INLINE cv_m cv_le(cv_f a, cv_f b) { return simde_wasm_f32x4_le(a, b); }
CV__INLINE cv_m cv_gt(cv_f a, cv_f b) { return simde_wasm_f32x4_gt(a, b); }
CV__INLINE cv_m cv_ge(cv_f a, cv_f b) { return simde_wasm_f32x4_ge(a, b); }
CV__INLINE cv_m cv_eq(cv_f a, cv_f b) { return simde_wasm_f32x4_eq(a, b); }
CV__INLINE cv_m cv_neq(cv_f a, cv_f b) { return simde_wasm_f32x4_ne(a, b); }

CV__INLINE cv_m cv_mand(cv_m a, cv_m b) { return simde_wasm_v128_and(a, b); }
CV__INLINE cv_m cv_mor(cv_m a, cv_m b) { return simde_wasm_v128_or(a, b); }
CV__INLINE cv_m cv_mxor(cv_m a, cv_m b) { return simde_wasm_v128_xor(a, b); }
CV__INLINE cv_m cv_mtrue(void) { return simde_wasm_i32x4_splat(-1); }
CV__INLINE cv_m cv_mfalse(void) { return simde_wasm_i32x4_splat(0); }
CV__INLINE cv_m cv_mnot(cv_m a) { return simde_wasm_v128_not(a); }
CV__INLINE cv_m cv_mandnot(cv_m a, cv_m b) { return simde_wasm_v128_andnot(a, b); }
CV__INLINE int cv_any(cv_m m) { return simde_wasm_v128_any_true(m); }
CV__INLINE int cv_all(cv_m m) { return simde_wasm_i32x4_all_true(m); }
CV__INLINE cv_f cv_select(cv_m m, cv_f t, cv_f f) { return simde_wasm_v128_bitselect(t, f, m); }
CV__INLINE cv_i cv_iselect(cv_m m, cv_i t, cv_i f) { return simde_wasm_v128_bitselect(t, f, m); }

CV__INLINE cv_i cv_iadd(cv_i a, cv_i b) { return simde_wasm_i32x4_add(a, b); }
CV__INLINE cv_i cv_isub(cv_i a, cv_i b) { return simde_wasm_i32x4_sub(a, b); }
CV__INLINE cv_i cv_imul(cv_i a, cv_i b) { return simde_wasm_i32x4_mul(a, b); }
CV__INLINE cv_i cv_iand(cv_i a, cv_i b) { return simde_wasm_v128_and(a, b); }
CV__INLINE cv_i cv_ior(cv_i a, cv_i b) { return simde_wasm_v128_or(a, b); }
CV__INLINE cv_i cv_ixor(cv_i a, cv_i b) { return simde_wasm_v128_xor(a, b); }
#define cv_isrl(x, n) simde_wasm_u32x4_shr((x), (n))
#define cv_isll(x, n) simde_wasm_i32x4_shl((x), (n))
CV__INLINE cv_m cv_ieq(cv_i a, cv_i b) { return simde_wasm_i32x4_eq(a, b); }
CV__INLINE cv_m cv_igt_s(cv_i a, cv_i b) { return simde_wasm_i32x4_gt(a, b); }
CV__INLINE cv_f cv_i2f(cv_i a) { return simde_wasm_f32x4_convert_i32x4(a); }
/* i32x4.trunc_sat saturates (and gives 0 for NaN); the definition gives 0x80000000 there. */
CV__INLINE cv_i cv_f2i_trunc(cv_f a) {
  cv_m in_range = cv_mand(cv_gt(a, cv_set1(-2147483904.0f)), cv_lt(a, cv_set1(2147483648.0f)));
  return cv_iselect(in_range, simde_wasm_i32x4_trunc_sat_f32x4(a), cv_iset1(0x80000000u));
}
#endif /* targets */

/* ======================================================================== all targets */
/* Built from the ops above, so they are the same code at every width. The compiler may not
 * fold (a + 2^23) - 2^23 into a: that needs -fassociative-math, which we never enable. */
CV__INLINE cv_f cv_round(cv_f x) {
  const cv_f two23 = cv_set1(8388608.0f);
  cv_f a = cv_abs(x);
  cv_f r = cv_sub(cv_add(a, two23), two23); /* exact RNE for a < 2^23 */
  r = cv_as_f(cv_ior(cv_as_i(r), cv_iand(cv_as_i(x), cv_iset1(0x80000000u)))); /* -0.3 -> -0 */
  return cv_select(cv_lt(a, two23), r, x);
}
CV__INLINE cv_f cv_floor(cv_f x) {
  cv_f r = cv_round(x);
  return cv_select(cv_gt(r, x), cv_sub(r, cv_set1(1.0f)), r);
}

#endif /* CROWD_CV_H */
