/* What crosses the dispatch: a rig's column pointers and uniform settings, counts and dt.
 * Plain C types only: this header is shared by files built with different SIMD flags. */
#ifndef CROWDI_KERNEL_TABLE_H
#define CROWDI_KERNEL_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "face.h" /* face tracking's settings and columns (its plain C part) */

#include "skeleton.h"

/* Blend modes as the kernels see them (crowd_blend minus the DEFAULT choice). */
enum { CROWDI_BLEND_OVERRIDE = 1, CROWDI_BLEND_ADDITIVE = 2, CROWDI_BLEND_MULTIPLY = 3 };
enum { CROWDI_DIR_CENTRIC = 0, CROWDI_DIR_LEFT = 1, CROWDI_DIR_RIGHT = 2 };
enum { CROWDI_BLINK_SINE = 0, CROWDI_BLINK_TIMED = 1 };

/* Gaze columns, in this order. */
enum {
    CROWDI_LOOK_POS_X, CROWDI_LOOK_POS_Y, CROWDI_LOOK_POS_Z,
    CROWDI_LOOK_VEL_X, CROWDI_LOOK_VEL_Y, CROWDI_LOOK_VEL_Z,
    CROWDI_LOOK_TARGET_X, CROWDI_LOOK_TARGET_Y, CROWDI_LOOK_TARGET_Z,
    CROWDI_LOOK_CENTER_X, CROWDI_LOOK_CENTER_Y, CROWDI_LOOK_CENTER_Z,
    CROWDI_LOOK_ACTIVE, CROWDI_LOOK_DAMPING, CROWDI_LOOK_WEIGHT,
    CROWDI_LOOK_NCOLS
};
/* Blink columns. CLOCK: sine T; timed next_blink while idling, else u. PHASE as a float. */
enum {
    CROWDI_BLINK_CLOCK, CROWDI_BLINK_PHASE, CROWDI_BLINK_LAST, CROWDI_BLINK_OPENING,
    CROWDI_BLINK_MANUAL, CROWDI_BLINK_WEIGHT,
    CROWDI_BLINK_NCOLS
};

/* gaze state bounds: |target - centre| <= 2e15, so the squares below stay finite */
#define CROWDI_LOOK_MAX_POSITION 1e18f
#define CROWDI_LOOK_MAX_VELOCITY 1e24f
/* How a limb's side axis is chosen (crowd_limb_fallback as the kernels see it). */
enum { CROWDI_SIDE_STABLE = 0, CROWDI_SIDE_ROOT = 1, CROWDI_SIDE_PREVIOUS = 2 };

typedef struct crowdi_param {
    float min, max, size; /* size = max - min */
    uint32_t repeat;
} crowdi_param;

typedef struct crowdi_look_entry {
    uint32_t param, axis;
    float factor;
} crowdi_look_entry;

typedef struct crowdi_harm_entry {
    uint32_t param, channel, direction;
    float origin; /* NO */
    float duration;
} crowdi_harm_entry;

/* Setting columns (base values; gaze target, centre, active, damping and weight; harmonic and
 * blink weights, manual blink; the limbs' root) are NULL here while every row holds the same value, which is
 * then in the matching *_value: the kernels read one value instead of a column (cvk_col). */
typedef struct crowdi_rig_view {
    uint32_t param_count;
    const crowdi_param *params;
    float *const *base; /* [param_count] columns, NULL while uniform */
    const float *base_value; /* [param_count] */
    float *const *out;

    uint32_t look_enabled, look_blend, look_count;
    float look_max_speed;
    const crowdi_look_entry *look;
    float *look_col[CROWDI_LOOK_NCOLS];
    float look_value[CROWDI_LOOK_NCOLS];

    uint32_t harm_enabled, harm_blend, harm_count;
    const crowdi_harm_entry *harm;
    const float *timescales;
    float *const *harm_T;  /* [harm_count] columns */
    float *const *harm_NR; /* [harm_count] columns */
    float *harm_weight; /* NULL while uniform */
    float harm_weight_value;

    uint32_t blink_enabled, blink_blend, blink_model, blink_count;
    float blink_mean, blink_max_deviation, blink_timescale;
    const uint32_t *blink_param;
    float *blink_col[CROWDI_BLINK_NCOLS];
    float blink_value[CROWDI_BLINK_NCOLS];
    /* limbs: column groups of stride rows each. pose: 4 per landmark (x, y, z, visibility);
     * root, world, local: 4 per quaternion; side: 3 per limb (fallback previous: the last bent
     * side; stable: the side in the torso's frame); filter: 99 filtered coordinates, 99
     * derivatives, 99 last raw values, 1 "has a first sample" flag; track (when the threshold
     * is above 0): per bone the re-acquisition progress r, or -1 after an untrusted tick
     * (a re-acquired bone eases from its previous local rotation: the local columns) */
    uint32_t limbs_enabled, limb_flip_y, limb_side_mode, limb_smoothing;
    uint32_t limb_side_settle; /* stable, calibration only: the side a held pose settles at */
    float limb_sign[4], limb_visibility_threshold, limb_hold_half_life, limb_reacquire_half_life;
    float limb_bend_sin_min, limb_bend_sin_range; /* sin(bend_min), sin(bend_full) - sin(bend_min) */
    float limb_arm_image_sin; /* sin(arm_image_bend): an arm bent this much in the image plane keeps its sign */
    float limb_min_cutoff, limb_beta, limb_d_cutoff;
    float limb_fix[CROWDI_BONES][4], limb_rest_local[CROWDI_BONES][4], limb_rest_world[CROWDI_BONES][4];
    uint8_t limb_fix_kind[CROWDI_BONES]; /* crowdi_fix_kind of each limb_fix */
    size_t limb_stride;
    float *limb_pose, *limb_root, *limb_world, *limb_local, *limb_side, *limb_filter, *limb_track;
    float limb_root_value[4]; /* the root every row holds while limb_root is NULL */

    crowdi_face_view face; /* face tracking (kernels/face.h) */

    uint32_t *rkey;  /* per instance: the random key from seed and instance id */
    uint32_t *draws; /* per instance: draws used so far */
} crowdi_rig_view;

/* How a bone's axis fix multiplies: the tick normalises after the fix, so a fix need only be
 * known up to a positive factor, and the two presets' fixes take 0 and 4 additions instead of a
 * full product. */
enum { CROWDI_FIX_IDENTITY, CROWDI_FIX_X90, CROWDI_FIX_GENERAL };
static inline uint8_t crowdi_fix_kind(const float q[4]) {
    if (q[1] != 0.0f || q[2] != 0.0f || !(q[3] > 0.0f)) return CROWDI_FIX_GENERAL;
    if (q[0] == 0.0f) return CROWDI_FIX_IDENTITY; /* (0, 0, 0, w): identity up to the factor */
    return q[0] == q[3] ? CROWDI_FIX_X90 : CROWDI_FIX_GENERAL;
}

typedef struct crowdi_kernels {
    const char *name;
    uint32_t width;
    /* Rows [first, first + count) of one rig; count is a multiple of width. */
    void (*tick)(const crowdi_rig_view *view, float dt, uint32_t first, uint32_t count);
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
