/* One kernel source, compiled once per SIMD target (CV_TARGET_* and that target's flags);
 * each build defines that target's entry in the dispatch table. */
#include "stages.h"
#include "math_kernels.h"
#include "lod_tags.h"

#if defined(CV_TARGET_AVX512) && defined(CROWDI_EMULATED)
#define CROWDI_TABLE crowdi_kernels_avx512_emulated /* SIMDe's AVX-512 on AVX2, for tests */
#elif defined(CV_TARGET_AVX512)
#define CROWDI_TABLE crowdi_kernels_avx512
#elif defined(CV_TARGET_AVX2)
#define CROWDI_TABLE crowdi_kernels_avx2
#elif defined(CV_TARGET_WASM128)
#define CROWDI_TABLE crowdi_kernels_wasm128
#elif defined(CV_TARGET_SSE2)
#define CROWDI_TABLE crowdi_kernels_sse2
#else
#define CROWDI_TABLE crowdi_kernels_scalar
#endif

const crowdi_kernels CROWDI_TABLE = {
    .name = CV_TARGET_NAME,
    .width = CV_W,
    .tick = cvk_tick,
    .tick_some = cvk_tick_some,
    .lod_tags = cvk_lod_tags,
    .sin_array = cvk_sin_array,
    .cos_array = cvk_cos_array,
};
