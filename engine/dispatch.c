#include "dispatch.h"

#include "crowd.h"

/* Which tables this build holds (CMake defines CROWD_HAVE_<TARGET>). */
static const crowdi_kernels *built(int target) {
    switch (target) {
    case CROWD_SIMD_SCALAR: return &crowdi_kernels_scalar;
#ifdef CROWD_HAVE_SSE2
    case CROWD_SIMD_SSE2: return &crowdi_kernels_sse2;
#endif
#ifdef CROWD_HAVE_AVX2
    case CROWD_SIMD_AVX2: return &crowdi_kernels_avx2;
#endif
#ifdef CROWD_HAVE_AVX512
    case CROWD_SIMD_AVX512: return &crowdi_kernels_avx512;
#endif
    default: return NULL;
    }
}

static bool cpu_has(int target) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    switch (target) {
    case CROWD_SIMD_SCALAR: return true;
    case CROWD_SIMD_SSE2: return __builtin_cpu_supports("sse2");
    case CROWD_SIMD_AVX2: return __builtin_cpu_supports("avx2");
    case CROWD_SIMD_AVX512: return __builtin_cpu_supports("avx512f");
    default: return false;
    }
#else
    /* Off x86 only scalar and the SIMDe-emulated sse2 can be built. */
    return target == CROWD_SIMD_SCALAR || target == CROWD_SIMD_SSE2;
#endif
}

const crowdi_kernels *crowdi_kernels_for(int target) {
    const crowdi_kernels *k = built(target);
    return k && cpu_has(target) ? k : NULL;
}

int crowdi_best_target(void) {
    for (int t = CROWD_SIMD_AVX512; t > CROWD_SIMD_SCALAR; t--)
        if (crowdi_kernels_for(t)) return t;
    return CROWD_SIMD_SCALAR;
}
