/* test_cv.c — every cv_ op against its scalar definition, on the target this file is
 * compiled for (once per target, with that target's flags and CV_TARGET_* macro). Lanes are
 * compared bit for bit; arithmetic results that are NaN only need to be NaN (which NaN a
 * compiler keeps when both operands are NaN is not ours to fix). No main() here: see
 * test_cv_main.c, which checks the CPU first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cv.h"
#include "cv_math.h"

int crowd_test_cv_run(void);

/* ---------------------------------------------------------------- data */
#define NV 4099 /* lanes per input array: odd, so every offset ends in a tail */
_Alignas(64) static float FA[NV + 64], FB[NV + 64];
_Alignas(64) static uint32_t IA[NV + 64], IB[NV + 64];

static uint32_t rng_state = 0x9E3779B9u;
static uint32_t rnd(void) { /* xorshift32: fixed sequence, same on every target */
  uint32_t x = rng_state;
  x ^= x << 13; x ^= x >> 17; x ^= x << 5;
  return rng_state = x;
}
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static int isnan_bits(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

static const uint32_t F_SPECIAL[] = {
  0x00000000, 0x80000000,             /* +-0 */
  0x3F800000, 0xBF800000, 0x3F000000, 0xBF000000, 0x3FC00000, 0xBFC00000, 0x40200000,
  0xC0200000, 0x40400000, 0x3EFFFFFF, 0xBEFFFFFF, /* +-1, +-0.5, +-1.5, +-2.5, 3, 0.5-ulp */
  0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000, /* subnormals */
  0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, /* +-FLT_MIN, +-FLT_MAX */
  0x7F800000, 0xFF800000,             /* +-inf */
  0x7FC00000, 0xFFC00000, 0x7FC12345, 0x7F800001, 0xFFA00000, /* qNaN, -qNaN, payload, sNaN */
  0x4A7FFFFE, 0x4A800001, 0x4AFFFFFF, 0x4B000000, 0x4B000001, 0xCAFFFFFF, 0xCB000000,
  0x4B400000, 0x4B800000,             /* 2^22-1/2, 2^22+1/2, 2^23-1/2, 2^23, 2^23+1, 1.5*2^23 */
  0x4EFFFFFF, 0x4F000000, 0xCF000000, 0xCF000001, /* around +-2^31 */
  0x501502F9, 0xD01502F9, 0x3DCCCCCD, 0x40490FDB, 0xC0490FDB, /* +-1e10, 0.1, +-pi */
};
#define N_FSPECIAL (sizeof F_SPECIAL / sizeof F_SPECIAL[0])

static const uint32_t I_SPECIAL[] = {
  0, 1, 2, 3, 31, 32, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0x0000FFFF,
  0x00010000, 0x00FFFFFF, 0x01000000, 0x01000001, 0x12345678, 0x9ABCDEF0, 0xDEADBEEF,
  0x55555555, 0xAAAAAAAA, 0x3F800000, 0x7F800000,
};
#define N_ISPECIAL (sizeof I_SPECIAL / sizeof I_SPECIAL[0])
_Static_assert(N_FSPECIAL * N_FSPECIAL < NV && N_ISPECIAL * N_ISPECIAL < NV, "NV holds every pair");

static float rnd_float(void) {
  uint32_t kind = rnd() % 6, r = rnd();
  switch (kind) {
  case 0: return bitsf(r);                                           /* any bits, NaN too */
  case 1: return ((float)(int32_t)(r >> 8) - 8388608.0f) / 1048576.0f; /* [-8, 8) */
  case 2: return (float)(int32_t)r / 4.0f;                           /* quarters, to 2^29 */
  case 3: return ((float)(r >> 8) / 16777216.0f - 0.5f) * 20000.0f;  /* [-1e4, 1e4) */
  case 4: return bitsf((r & 0x807FFFFFu) | ((0x7Fu + (r >> 23) % 40u - 20u) << 23)); /* 2^-20..2^19 */
  default: return bitsf(r & 0x80FFFFFFu);                            /* tiny and subnormal */
  }
}

static int setup(void **state) {
  (void)state;
  size_t n = 0;
  for (size_t i = 0; i < N_FSPECIAL; i++) /* every pair of specials */
    for (size_t j = 0; j < N_FSPECIAL; j++, n++) { FA[n] = bitsf(F_SPECIAL[i]); FB[n] = bitsf(F_SPECIAL[j]); }
  for (; n < NV; n++) { FA[n] = rnd_float(); FB[n] = (rnd() & 3) ? rnd_float() : FA[n]; }
  n = 0;
  for (size_t i = 0; i < N_ISPECIAL; i++)
    for (size_t j = 0; j < N_ISPECIAL; j++, n++) { IA[n] = I_SPECIAL[i]; IB[n] = I_SPECIAL[j]; }
  for (; n < NV; n++) {
    IA[n] = rnd();
    IB[n] = (rnd() & 7) ? rnd() : (rnd() & 1) ? IA[n] : I_SPECIAL[rnd() % N_ISPECIAL];
  }
  return 0;
}

/* ---------------------------------------------------------------- references (one lane) */
static float ref_min(float a, float b) { return a < b ? a : b; }
static float ref_max(float a, float b) { return a > b ? a : b; }
static float ref_abs(float a) { return bitsf(fbits(a) & 0x7FFFFFFFu); }
static float ref_neg(float a) { return bitsf(fbits(a) ^ 0x80000000u); }
static float ref_round(float a) { return isnan(a) ? a : rintf(a); } /* default mode: RNE */
static float ref_floor(float a) { return isnan(a) ? a : floorf(a); }
static uint32_t ref_f2i(float a) {
  return (a > -2147483904.0f && a < 2147483648.0f) ? (uint32_t)(int32_t)a : 0x80000000u;
}
static uint32_t m_bits(int b) { return b ? 0xFFFFFFFFu : 0u; }

/* ---------------------------------------------------------------- harness */
enum { EXACT, NAN_OK };

static void check_lane(const char *op, int int_in, size_t at, uint32_t got, uint32_t want, int cmp) {
  if (got == want || (cmp == NAN_OK && isnan_bits(got) && isnan_bits(want))) return;
  uint32_t a = int_in ? IA[at] : fbits(FA[at]), b = int_in ? IB[at] : fbits(FB[at]);
  fail_msg("%s input %zu: a=%08x b=%08x (as float %.9g, %.9g): got %08x want %08x", op, at,
           (unsigned)a, (unsigned)b, (double)bitsf(a), (double)bitsf(b), (unsigned)got, (unsigned)want);
}

/* Kinds: F = float lanes, I = uint32 lanes, M = mask (observed as 0 / 0xFFFFFFFF lanes). */
#define TYPE_F cv_f
#define TYPE_I cv_i
#define STYPE_F float
#define STYPE_I uint32_t
#define INT_IN_F 0
#define INT_IN_I 1
#define ARR_A_F FA
#define ARR_B_F FB
#define ARR_A_I IA
#define ARR_B_I IB
#define LOADU_F(p) cv_loadu(p)
#define LOADU_I(p) cv_iloadu(p)
#define STORE_F(p, v) cv_storeu((float *)(void *)(p), (v))
#define STORE_I(p, v) cv_istoreu((p), (v))
#define STORE_M(p, v) cv_istoreu((p), cv_iselect((v), cv_iset1(0xFFFFFFFFu), cv_iset1(0)))
#define WANT_F(x) fbits(x)
#define WANT_I(x) ((uint32_t)(x))
#define WANT_M(x) m_bits(x)

/* Runs VEXPR (on vectors a, b) over lanes [off, off+n) of the inputs for every start offset
 * 0..W-1: full blocks load straight from the (unaligned) array, the tail from a zero-padded
 * buffer. SEXPR (on scalars sa, sb) is the lane's definition. */
#define LANES_TEST(NAME, IN, OUT, VEXPR, SEXPR, CMP)                                        \
  static void test_##NAME(void **state) {                                                   \
    (void)state;                                                                            \
    for (size_t off = 0; off < CV_W; off++) {                                               \
      size_t n = NV - off;                                                                  \
      for (size_t i = off; i < off + n; i += CV_W) {                                        \
        size_t len = off + n - i < CV_W ? off + n - i : CV_W;                               \
        STYPE_##IN pa[CV_W] = {0}, pb[CV_W] = {0};                                          \
        uint32_t got[CV_W];                                                                 \
        TYPE_##IN a, b;                                                                     \
        if (len == CV_W) {                                                                  \
          a = LOADU_##IN(ARR_A_##IN + i); b = LOADU_##IN(ARR_B_##IN + i);                   \
        } else {                                                                            \
          memcpy(pa, ARR_A_##IN + i, len * 4); memcpy(pb, ARR_B_##IN + i, len * 4);         \
          a = LOADU_##IN(pa); b = LOADU_##IN(pb);                                           \
        }                                                                                   \
        (void)a; (void)b;                                                                   \
        STORE_##OUT(got, (VEXPR));                                                          \
        for (size_t j = 0; j < len; j++) {                                                  \
          STYPE_##IN sa = ARR_A_##IN[i + j], sb = ARR_B_##IN[i + j];                        \
          (void)sa; (void)sb;                                                               \
          check_lane(#NAME, INT_IN_##IN, i + j, got[j], WANT_##OUT(SEXPR), CMP);            \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

LANES_TEST(add, F, F, cv_add(a, b), sa + sb, NAN_OK)
LANES_TEST(sub, F, F, cv_sub(a, b), sa - sb, NAN_OK)
LANES_TEST(mul, F, F, cv_mul(a, b), sa * sb, NAN_OK)
LANES_TEST(div, F, F, cv_div(a, b), sa / sb, NAN_OK)
LANES_TEST(sqrt, F, F, cv_sqrt(a), sqrtf(sa), NAN_OK)
LANES_TEST(min, F, F, cv_min(a, b), ref_min(sa, sb), EXACT)
LANES_TEST(max, F, F, cv_max(a, b), ref_max(sa, sb), EXACT)
LANES_TEST(abs, F, F, cv_abs(a), ref_abs(sa), EXACT)
LANES_TEST(neg, F, F, cv_neg(a), ref_neg(sa), EXACT)
LANES_TEST(round, F, F, cv_round(a), ref_round(sa), EXACT)
LANES_TEST(floor, F, F, cv_floor(a), ref_floor(sa), EXACT)
LANES_TEST(lt, F, M, cv_lt(a, b), sa < sb, EXACT)
LANES_TEST(le, F, M, cv_le(a, b), sa <= sb, EXACT)
LANES_TEST(gt, F, M, cv_gt(a, b), sa > sb, EXACT)
LANES_TEST(ge, F, M, cv_ge(a, b), sa >= sb, EXACT)
LANES_TEST(eq, F, M, cv_eq(a, b), sa == sb, EXACT)
LANES_TEST(neq, F, M, cv_neq(a, b), sa != sb, EXACT)
LANES_TEST(mand, F, M, cv_mand(cv_lt(a, b), cv_ge(a, cv_zero())), sa < sb && sa >= 0, EXACT)
LANES_TEST(mor, F, M, cv_mor(cv_lt(a, b), cv_ge(a, cv_zero())), sa < sb || sa >= 0, EXACT)
LANES_TEST(mxor, F, M, cv_mxor(cv_lt(a, b), cv_ge(a, cv_zero())), (sa < sb) != (sa >= 0), EXACT)
LANES_TEST(mnot, F, M, cv_mnot(cv_lt(a, b)), !(sa < sb), EXACT)
LANES_TEST(mandnot, F, M, cv_mandnot(cv_lt(a, b), cv_ge(a, cv_zero())), sa < sb && !(sa >= 0), EXACT)
LANES_TEST(select, F, F, cv_select(cv_lt(a, b), a, b), sa < sb ? sa : sb, EXACT)
LANES_TEST(select_nan, F, F, cv_select(cv_neq(a, a), a, b), sa != sa ? sa : sb, EXACT)
LANES_TEST(iselect, I, I, cv_iselect(cv_igt_s(a, b), a, b), (int32_t)sa > (int32_t)sb ? sa : sb, EXACT)
LANES_TEST(as_i, F, I, cv_as_i(a), fbits(sa), EXACT)
LANES_TEST(as_f, I, F, cv_as_f(a), bitsf(sa), EXACT)
LANES_TEST(f2i_trunc, F, I, cv_f2i_trunc(a), ref_f2i(sa), EXACT)
LANES_TEST(i2f, I, F, cv_i2f(a), (float)(int32_t)sa, EXACT)
LANES_TEST(i2f_small, I, F, cv_i2f(cv_isrl(a, 7)), (float)(int32_t)(sa >> 7), EXACT)
LANES_TEST(iadd, I, I, cv_iadd(a, b), sa + sb, EXACT)
LANES_TEST(isub, I, I, cv_isub(a, b), sa - sb, EXACT)
LANES_TEST(imul, I, I, cv_imul(a, b), (uint32_t)((uint64_t)sa * sb), EXACT)
LANES_TEST(iand, I, I, cv_iand(a, b), sa & sb, EXACT)
LANES_TEST(ior, I, I, cv_ior(a, b), sa | sb, EXACT)
LANES_TEST(ixor, I, I, cv_ixor(a, b), sa ^ sb, EXACT)
LANES_TEST(ieq, I, M, cv_ieq(a, b), sa == sb, EXACT)
LANES_TEST(igt_s, I, M, cv_igt_s(a, b), (int32_t)sa > (int32_t)sb, EXACT)

/* Shift counts must be constants: one check per count 0..31. */
#define SHIFT_CHECK(N)                                                                      \
  LANES_TEST(isrl_##N, I, I, cv_isrl(a, N), sa >> N, EXACT)                                 \
  LANES_TEST(isll_##N, I, I, cv_isll(a, N), sa << N, EXACT)
#define SHIFT_CHECK8(N0, N1, N2, N3, N4, N5, N6, N7)                                        \
  SHIFT_CHECK(N0) SHIFT_CHECK(N1) SHIFT_CHECK(N2) SHIFT_CHECK(N3)                           \
  SHIFT_CHECK(N4) SHIFT_CHECK(N5) SHIFT_CHECK(N6) SHIFT_CHECK(N7)
SHIFT_CHECK8(0, 1, 2, 3, 4, 5, 6, 7)
SHIFT_CHECK8(8, 9, 10, 11, 12, 13, 14, 15)
SHIFT_CHECK8(16, 17, 18, 19, 20, 21, 22, 23)
SHIFT_CHECK8(24, 25, 26, 27, 28, 29, 30, 31)
#define SHIFT_RUN(N) test_isrl_##N(state); test_isll_##N(state);
static void test_shifts(void **state) {
  SHIFT_RUN(0) SHIFT_RUN(1) SHIFT_RUN(2) SHIFT_RUN(3) SHIFT_RUN(4) SHIFT_RUN(5) SHIFT_RUN(6)
  SHIFT_RUN(7) SHIFT_RUN(8) SHIFT_RUN(9) SHIFT_RUN(10) SHIFT_RUN(11) SHIFT_RUN(12)
  SHIFT_RUN(13) SHIFT_RUN(14) SHIFT_RUN(15) SHIFT_RUN(16) SHIFT_RUN(17) SHIFT_RUN(18)
  SHIFT_RUN(19) SHIFT_RUN(20) SHIFT_RUN(21) SHIFT_RUN(22) SHIFT_RUN(23) SHIFT_RUN(24)
  SHIFT_RUN(25) SHIFT_RUN(26) SHIFT_RUN(27) SHIFT_RUN(28) SHIFT_RUN(29) SHIFT_RUN(30)
  SHIFT_RUN(31)
}

/* ---------------------------------------------------------------- loads, stores, constants */
static void test_load_store(void **state) {
  (void)state;
  _Alignas(64) float src[4 * CV_W], dst[4 * CV_W];
  _Alignas(64) uint32_t isrc[4 * CV_W], idst[4 * CV_W];
  for (size_t i = 0; i < 4 * CV_W; i++) { src[i] = (float)i + 0.25f; isrc[i] = 0xA5000000u + (uint32_t)i; }
  /* aligned */
  memset(dst, 0xEE, sizeof dst); memset(idst, 0xEE, sizeof idst);
  cv_store(dst + CV_W, cv_load(src + CV_W));
  cv_istore(idst + CV_W, cv_iload(isrc + CV_W));
  for (size_t i = 0; i < 4 * CV_W; i++) {
    int in = i >= CV_W && i < 2 * CV_W;
    assert_int_equal(fbits(dst[i]), in ? fbits(src[i]) : 0xEEEEEEEEu);
    assert_int_equal(idst[i], in ? isrc[i] : 0xEEEEEEEEu);
  }
  /* unaligned starts 1..W-1 (and 0): loadu/storeu touch exactly W lanes */
  for (size_t off = 0; off < CV_W; off++) {
    memset(dst, 0xEE, sizeof dst); memset(idst, 0xEE, sizeof idst);
    cv_storeu(dst + off + 1, cv_loadu(src + off));
    cv_istoreu(idst + off + 1, cv_iloadu(isrc + off));
    for (size_t i = 0; i < 4 * CV_W; i++) {
      int in = i >= off + 1 && i < off + 1 + CV_W;
      assert_int_equal(fbits(dst[i]), in ? fbits(src[i - 1]) : 0xEEEEEEEEu);
      assert_int_equal(idst[i], in ? isrc[i - 1] : 0xEEEEEEEEu);
    }
  }
}

static void test_constants(void **state) {
  (void)state;
  float f[CV_W];
  uint32_t u[CV_W];
  cv_storeu(f, cv_set1(-0.0f));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(f[j]), 0x80000000u);
  cv_storeu(f, cv_set1(bitsf(0x7FC12345u)));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(f[j]), 0x7FC12345u);
  cv_storeu(f, cv_zero());
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(f[j]), 0u);
  cv_istoreu(u, cv_iset1(0xFFFFFFFFu));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], 0xFFFFFFFFu);
  cv_istoreu(u, cv_iset1(0x80000000u));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], 0x80000000u);
  assert_true(cv_all(cv_mtrue()) && cv_any(cv_mtrue()));
  assert_true(!cv_all(cv_mfalse()) && !cv_any(cv_mfalse()));
  assert_true(cv_all(cv_mnot(cv_mfalse())) && !cv_any(cv_mnot(cv_mtrue())));
  STORE_M(u, cv_mtrue());
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], 0xFFFFFFFFu);
  STORE_M(u, cv_mfalse());
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], 0u);
  assert_string_equal(CV_TARGET_NAME, CV_W == 1 ? "scalar" : CV_W == 4 ? "sse2" : CV_W == 8 ? "avx2" : "avx512");
}

/* Every lane pattern (2^W, all 65536 for AVX-512) through any / all / mnot, and a second
 * pattern through the binary mask ops and both selects. */
static void test_mask_patterns(void **state) {
  (void)state;
  const uint32_t npat = 1u << CV_W;
  for (uint32_t p = 0; p < npat; p++) {
    uint32_t p2 = (p * 2654435761u >> 7) & (npat - 1);
    float fa[CV_W], fb[CV_W], o[CV_W];
    uint32_t u[CV_W];
    for (size_t j = 0; j < CV_W; j++) { fa[j] = (p >> j & 1) ? 1.0f : -1.0f; fb[j] = (p2 >> j & 1) ? 2.0f : -2.0f; }
    cv_m m = cv_gt(cv_loadu(fa), cv_zero()), m2 = cv_gt(cv_loadu(fb), cv_zero());
    assert_int_equal(cv_any(m), p != 0);
    assert_int_equal(cv_all(m), p == npat - 1);
    assert_int_equal(cv_any(cv_mnot(m)), p != npat - 1);
    assert_int_equal(cv_all(cv_mnot(m)), p == 0);
    STORE_M(u, cv_mand(m, m2));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], m_bits((p & p2) >> j & 1));
    STORE_M(u, cv_mor(m, m2));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], m_bits((p | p2) >> j & 1));
    STORE_M(u, cv_mxor(m, m2));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], m_bits((p ^ p2) >> j & 1));
    STORE_M(u, cv_mandnot(m, m2));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], m_bits((p & ~p2) >> j & 1));
    cv_storeu(o, cv_select(m, cv_loadu(fb), cv_set1(bitsf(0xFFC00001u))));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o[j]), (p >> j & 1) ? fbits(fb[j]) : 0xFFC00001u);
    cv_istoreu(u, cv_iselect(m2, cv_iset1(0x80000000u), cv_iset1(0x7FFFFFFFu)));
    for (size_t j = 0; j < CV_W; j++) assert_int_equal(u[j], (p2 >> j & 1) ? 0x80000000u : 0x7FFFFFFFu);
  }
}

/* ---------------------------------------------------------------- build-flag guards */
static volatile float g_one_eps = 0x1.001p+0f, g_minus = -0x1.002p+0f;
/* (1+2^-12)^2 - (1+2^-11) is 2^-24 exactly; unfused, the product rounds and the sum is 0. A
 * failure means the kernel was compiled without -ffp-contract=off and got fused. */
static void test_no_fma_contraction(void **state) {
  (void)state;
  float a1[CV_W], a2[CV_W], c1[CV_W], c2[CV_W], o1[CV_W], o2[CV_W];
  for (size_t j = 0; j < CV_W; j++) { a1[j] = g_one_eps; a2[j] = -g_one_eps; c1[j] = g_minus; c2[j] = -g_minus; }
  cv_f a = cv_loadu(a1), b = cv_loadu(a2);
  cv_storeu(o1, cv_add(cv_mul(a, a), cv_loadu(c1)));
  cv_storeu(o2, cv_sub(cv_mul(b, b), cv_loadu(c2)));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o1[j]), 0u);
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o2[j]), 0u);
}
/* Subnormals are kept (no FTZ/DAZ): min_subnormal + min_subnormal = 2 * min_subnormal. */
static void test_no_ftz(void **state) {
  (void)state;
  float o[CV_W];
  cv_f s = cv_set1(bitsf(1u));
  cv_storeu(o, cv_add(s, s));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o[j]), 2u);
  cv_storeu(o, cv_mul(cv_set1(bitsf(0x00800000u)), cv_set1(0.5f)));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o[j]), 0x00400000u);
  assert_true(cv_all(cv_gt(s, cv_zero())));
}
/* (x + 2^23) - 2^23 must not be folded to x (cv_round relies on it). */
static void test_round_not_folded(void **state) {
  (void)state;
  float o[CV_W];
  cv_storeu(o, cv_round(cv_set1(g_one_eps * 0.3f)));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o[j]), 0u);
  cv_storeu(o, cv_floor(cv_set1(-g_one_eps * 0.3f)));
  for (size_t j = 0; j < CV_W; j++) assert_int_equal(fbits(o[j]), 0xBF800000u);
}

/* cv_atan2 against double atan2 over (y, x) on a polar grid of radii 1e-6 .. 1e6 and on the
 * axes and zeros; the bound is cv_math.h's. Lanes go through the vector path (W at a time). */
static void test_atan2(void **state) {
  (void)state;
  enum { N = 4096 };
  static float ys[N + CV_W], xs[N + CV_W], out[N + CV_W];
  size_t n = 0;
  for (int i = 0; i < 1024 && n < N; i++) {
    double a = -3.14159265358979 + 6.28318530717959 * (i + 0.5) / 1024.0, r = pow(10.0, -6.0 + 12.0 * (i % 13) / 12.0);
    ys[n] = (float)(r * sin(a)); xs[n] = (float)(r * cos(a)); n++;
  }
  static const float axes[][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {0, 0}, {-0.0f, 0}, {-0.0f, -1}, {1, 1}, {-1, -1}, {1e-30f, 1}, {1, 1e-30f}};
  for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) { ys[n] = axes[i][0]; xs[n] = axes[i][1]; n++; }
  for (size_t i = 0; i < n; i += CV_W) cv_storeu(out + i, cv_atan2(cv_loadu(ys + i), cv_loadu(xs + i)));
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double want = atan2((double)ys[i], (double)xs[i]), e = fabs((double)out[i] - want);
    if (e > worst) worst = e;
    assert_true(signbit(out[i]) == signbit(ys[i]));
  }
  printf("cv_atan2 on %s: max abs error %.3g\n", CV_TARGET_NAME, worst);
  assert_true(worst <= 2.5e-7);
}

/* ---------------------------------------------------------------- cv_exp2 (cv_math.h) */
/* 2^x against double exp2: relative error <= 4e-7 over [-126, 127] (every 1/64, random x in
 * [-70, 0] where the limbs' ease uses it, the integers exactly), and the clamp outside. */
static void test_exp2(void **state) {
  (void)state;
  enum { N = 60000 };
  static float x[N + CV_W], y[N + CV_W];
  size_t n = 0;
  for (int k = -126 * 64; k <= 127 * 64; k++) x[n++] = (float)k / 64.0f;
  while (n < N) x[n++] = -70.0f * (float)(rnd() >> 8) * 0x1p-24f;
  for (size_t j = 0; j < CV_W; j++) x[n + j] = 0.0f;
  for (size_t i = 0; i < n; i += CV_W) cv_storeu(y + i, cv_exp2(cv_loadu(x + i)));
  for (size_t i = 0; i < n; i++) {
    const double want = exp2((double)x[i]), rel = fabs((double)y[i] - want) / want;
    if (!(rel <= 4e-7)) fail_msg("cv_exp2(%a) = %a, exp2 %a: relative error %.3g", (double)x[i], (double)y[i], want, rel);
    if (x[i] == floorf(x[i]) && (double)y[i] != want) fail_msg("cv_exp2(%g) = %a, not exact", (double)x[i], (double)y[i]);
  }
  float o[CV_W];
  cv_storeu(o, cv_exp2(cv_set1(-1000.0f)));
  for (size_t j = 0; j < CV_W; j++) assert_true(o[j] == 0x1p-126f);
  cv_storeu(o, cv_exp2(cv_set1(1000.0f)));
  for (size_t j = 0; j < CV_W; j++) assert_true(o[j] == 0x1p127f);
}

int crowd_test_cv_run(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_store), cmocka_unit_test(test_constants),
    cmocka_unit_test(test_mask_patterns), cmocka_unit_test(test_no_fma_contraction),
    cmocka_unit_test(test_no_ftz), cmocka_unit_test(test_round_not_folded),
    cmocka_unit_test(test_atan2),
    cmocka_unit_test(test_add), cmocka_unit_test(test_sub), cmocka_unit_test(test_mul),
    cmocka_unit_test(test_div), cmocka_unit_test(test_sqrt), cmocka_unit_test(test_min),
    cmocka_unit_test(test_max), cmocka_unit_test(test_abs), cmocka_unit_test(test_neg),
    cmocka_unit_test(test_round), cmocka_unit_test(test_floor), cmocka_unit_test(test_lt),
    cmocka_unit_test(test_le), cmocka_unit_test(test_gt), cmocka_unit_test(test_ge),
    cmocka_unit_test(test_eq), cmocka_unit_test(test_neq), cmocka_unit_test(test_mand),
    cmocka_unit_test(test_mor), cmocka_unit_test(test_mxor), cmocka_unit_test(test_mnot),
    cmocka_unit_test(test_mandnot), cmocka_unit_test(test_select),
    cmocka_unit_test(test_select_nan), cmocka_unit_test(test_iselect),
    cmocka_unit_test(test_as_i), cmocka_unit_test(test_as_f), cmocka_unit_test(test_f2i_trunc),
    cmocka_unit_test(test_i2f), cmocka_unit_test(test_i2f_small), cmocka_unit_test(test_iadd),
    cmocka_unit_test(test_isub), cmocka_unit_test(test_imul), cmocka_unit_test(test_iand),
    cmocka_unit_test(test_ior), cmocka_unit_test(test_ixor), cmocka_unit_test(test_ieq),
    cmocka_unit_test(test_igt_s), cmocka_unit_test(test_shifts), cmocka_unit_test(test_exp2),
  };
  return cmocka_run_group_tests_name("cv_" CV_TARGET_NAME, tests, setup, NULL);
}
