/* The tick on one block of CV_W rows, compiled per target (kernels.c): every parameter's
 * output starts as its base, then each controller's stage (kernels/<name>.h, the stage part
 * this header asks for with CROWDI_STAGES) runs in the order of CROWDI_TICK_LIST
 * (controllers.h). Each formula follows SPEC §1-5 operation by operation: same float32
 * operations in the same order, no fusing, so every width gives the same bits. Per-lane
 * decisions are masks and selects; rig-level settings are plain branches (uniform across
 * lanes). */
#ifndef CROWDI_STAGES_H
#define CROWDI_STAGES_H

#define CROWDI_STAGES 1

#include "common.h"
#include "crowdi_stage_list.h" /* every controller's kernel header (generated from controllers.h) */

/* Every parameter's output starts as its base (SPEC §1), rows [i0, i1). */
static inline void cvk_base(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    (void)dt;
    for (uint32_t p = 0; p < v->param_count; p++) {
        const float *base = v->base[p];
        float *out = v->out[p];
        if (base) {
            for (size_t i = i0; i < i1; i += CV_W) cv_storeu(out + i, cv_loadu(base + i));
        } else { /* nobody wrote a base value of this parameter: it is the rig's default */
            const cv_f value = cv_set1(v->base_value[p]);
            for (size_t i = i0; i < i1; i += CV_W) cv_storeu(out + i, value);
        }
    }
}

/* ---- the fused pass over rows [first, first + count), count a multiple of CV_W ----
 * Rows go in chunks; within a chunk each stage and each entry runs as its own loop, so its
 * settings stay in registers. Chunks of 4096 rows stream each column in 16 KiB runs (1.17x
 * faster at 1M instances than 256, and no slower at 16k). Every lane still sees exactly
 * SPEC's sequence: out = base, then each controller's stage in CROWDI_TICK_LIST's order. */
#define CVK_CHUNK 4096

/* Rows [i0, i1) of the scratch's outputs to out, past the caches where out is aligned: out
 * is written whole every tick, so reading its old lines first (what a plain store does)
 * would be a fifth of the face's memory traffic for nothing. */
static inline void cvk_stream_out(const crowdi_rig_view *v, float *const *tmp, size_t i0, size_t i1) {
    for (uint32_t p = 0; p < v->param_count; p++) {
        const float *src = tmp[p];
        float *dst = v->out[p];
        size_t i = i0;
        for (; i < i1 && ((uintptr_t)(dst + i) % (CV_W * sizeof(float))) != 0; i++) dst[i] = src[i];
        for (; i + CV_W <= i1; i += CV_W) cv_stream(dst + i, cv_loadu(src + i));
        for (; i < i1; i++) dst[i] = src[i];
    }
}

static inline void cvk_tick(const crowdi_rig_view *v, float dt, uint32_t first, uint32_t count) {
    const size_t end = (size_t)first + count;
    if (v->scratch && v->param_count <= CROWDI_SCRATCH_PARAMS) {
        /* each chunk's outputs in the scratch (in cache), then streamed to out */
        float *tmp[CROWDI_SCRATCH_PARAMS];
        crowdi_rig_view sv = *v;
        sv.out = tmp;
        const size_t rows = CROWDI_SCRATCH_ROWS;
        for (size_t i0 = first; i0 < end; i0 += rows) {
            const size_t i1 = end - i0 < rows ? end : i0 + rows;
            /* tmp[p] + i is the scratch's row i - i0 (the stages index rows absolutely) */
            for (uint32_t p = 0; p < v->param_count; p++) tmp[p] = v->scratch + (size_t)p * CROWDI_SCRATCH_STRIDE - i0;
            cvk_base(&sv, dt, i0, i1);
#define CVK_STAGE(NAME, name) cvk_##name(&sv, dt, i0, i1);
            CROWDI_TICK_LIST(CVK_STAGE)
#undef CVK_STAGE
            cvk_stream_out(v, tmp, i0, i1);
        }
        cv_stream_fence();
        return;
    }
    for (size_t i0 = first; i0 < end; i0 += CVK_CHUNK) {
        const size_t i1 = end - i0 < CVK_CHUNK ? end : i0 + CVK_CHUNK;
        cvk_base(v, dt, i0, i1);
#define CVK_STAGE(NAME, name) cvk_##name(v, dt, i0, i1);
        CROWDI_TICK_LIST(CVK_STAGE)
#undef CVK_STAGE
    }
}

/* The same pass with only the stages in `stages` (kernel_table.h), controller c's with dt[c]:
 * level of detail's update ticks (every stage, those that follow the interval with the
 * elapsed time) and its other ticks (only the rig's every-tick stages, or none). */
static inline void cvk_tick_some(const crowdi_rig_view *v, const float *dt, uint32_t stages, uint32_t first,
                                 uint32_t count) {
    const size_t end = (size_t)first + count;
    for (size_t i0 = first; i0 < end; i0 += CVK_CHUNK) {
        const size_t i1 = end - i0 < CVK_CHUNK ? end : i0 + CVK_CHUNK;
        if (stages & CROWDI_STAGE_BASE) cvk_base(v, 0.0f, i0, i1);
#define CVK_STAGE_SOME(NAME, name) \
    if (stages >> CROWDI_CTL_##NAME & 1u) cvk_##name(v, dt[CROWDI_CTL_##NAME], i0, i1);
        CROWDI_TICK_LIST(CVK_STAGE_SOME)
#undef CVK_STAGE_SOME
    }
}

#endif
