/* What crosses the dispatch: a rig's column pointers and uniform settings, counts and dt.
 * Plain C types only: this header is shared by files built with different SIMD flags. */
#ifndef CROWDI_KERNEL_TABLE_H
#define CROWDI_KERNEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "../controllers.h"

/* tick_some's bit for the stage that starts every output at its base */
#define CROWDI_STAGE_BASE (1u << CROWDI_CONTROLLER_COUNT)

/* Blend modes as the kernels see them (crowd_blend minus the DEFAULT choice). */
enum { CROWDI_BLEND_OVERRIDE = 1, CROWDI_BLEND_ADDITIVE = 2, CROWDI_BLEND_MULTIPLY = 3 };

typedef struct crowdi_param {
    float min, max, size; /* size = max - min */
    uint32_t repeat;
} crowdi_param;

/* A rig as the kernels see it: its parameters and the columns every rig has, and one slot
 * per controller (controllers.h): that controller's own view, declared in its kernel header
 * kernels/<name>.h, or NULL when the rig has no such controller. Base values are NULL here
 * while every row holds its default (base_value): the kernels read one value then. */
typedef struct crowdi_rig_view {
    uint32_t param_count;
    const crowdi_param *params;
    float *const *base; /* [param_count] columns, NULL while uniform */
    const float *base_value; /* [param_count] */
    float *const *out;
    uint32_t *rkey;  /* per instance: the random key from seed and instance id */
    uint32_t *draws; /* per instance: draws used so far */
    const void *controller[CROWDI_CONTROLLER_COUNT];
    /* The tick's dt in double (the motion clocks run on it; the stages take the float dt). The
     * tick sets it in its own copy of the view. */
    double dt_exact;
    /* Where the plain tick may build a chunk's outputs before streaming them to out (NULL:
     * straight into out): param_count columns of CROWDI_SCRATCH_ROWS floats, CROWDI_SCRATCH_STRIDE
     * apart (kernels/stages.h). */
    float *scratch;
} crowdi_rig_view;

/* The output scratch: rows per chunk (a multiple of 64), floats from one column to the next
 * (16 more: columns a multiple of 4 KiB apart alias), and the most parameters a rig may have to
 * use it (their chunk, 1 MiB at 4096 rows, stays in a core's cache). */
#define CROWDI_SCRATCH_ROWS 4096u
#define CROWDI_SCRATCH_STRIDE (CROWDI_SCRATCH_ROWS + 16u)
#define CROWDI_SCRATCH_PARAMS 64u

typedef struct crowdi_kernels {
    const char *name;
    uint32_t width;
    /* Rows [first, first + count) of one rig; count is a multiple of width. */
    void (*tick)(const crowdi_rig_view *view, float dt, uint32_t first, uint32_t count);
    /* The same with only the stages in `stages` (bit CROWDI_CTL_<NAME> for a controller,
     * CROWDI_STAGE_BASE for out = base), controller c's stage with dt[c] (level of detail). */
    void (*tick_some)(const crowdi_rig_view *view, const float *dt, uint32_t stages, uint32_t first, uint32_t count);
    /* Level of detail's bookkeeping of rows [first, first + count), count a multiple of
     * width (kernels/lod_tags.h). */
    void (*lod_tags)(const float *interval, uint32_t *counter, float *elapsed, float dt, uint32_t *tag, uint32_t first,
                     uint32_t count);
    void (*sin_array)(const float *in, float *out, size_t n);
    void (*cos_array)(const float *in, float *out, size_t n);
} crowdi_kernels;

extern const crowdi_kernels crowdi_kernels_scalar;
extern const crowdi_kernels crowdi_kernels_sse2;
extern const crowdi_kernels crowdi_kernels_avx2;
extern const crowdi_kernels crowdi_kernels_avx512;
extern const crowdi_kernels crowdi_kernels_avx512_emulated;
extern const crowdi_kernels crowdi_kernels_wasm128;

#endif
