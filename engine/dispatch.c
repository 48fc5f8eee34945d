#include "dispatch.h"

#include <stdlib.h>
#include <string.h>

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
#ifdef CROWD_HAVE_WASM128
    case CROWD_SIMD_WASM128: return &crowdi_kernels_wasm128;
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
    case CROWD_SIMD_WASM128: return true; /* SIMDe emulates it with SSE2 */
    default: return false;
    }
#elif defined(__wasm__)
    /* A module built with -msimd128 does not load where SIMD128 is missing, so a built table runs. */
    return target == CROWD_SIMD_SCALAR || target == CROWD_SIMD_SSE2 || target == CROWD_SIMD_WASM128;
#else
    /* Off x86 only scalar and the SIMDe-emulated sse2 and wasm128 can be built. */
    return target == CROWD_SIMD_SCALAR || target == CROWD_SIMD_SSE2 || target == CROWD_SIMD_WASM128;
#endif
}

const crowdi_kernels *crowdi_kernels_for(int target) {
    const crowdi_kernels *k = built(target);
    if (k && cpu_has(target)) return k;
#ifdef CROWD_HAVE_AVX512_EMULATED
    /* A test hook: the AVX-512 code path, emulated by SIMDe on AVX2, on CPUs without it. */
    const char *emulate = getenv("CROWD_SIMD_EMULATE_AVX512");
    if (target == CROWD_SIMD_AVX512 && k && emulate && strcmp(emulate, "1") == 0 && cpu_has(CROWD_SIMD_AVX2))
        return &crowdi_kernels_avx512_emulated;
#endif
    return NULL;
}

int crowdi_best_target(void) {
#ifdef __wasm__
    if (crowdi_kernels_for(CROWD_SIMD_WASM128)) return CROWD_SIMD_WASM128;
#endif
    for (int t = CROWD_SIMD_AVX512; t > CROWD_SIMD_SCALAR; t--)
        if (crowdi_kernels_for(t)) return t;
    return CROWD_SIMD_SCALAR;
}
