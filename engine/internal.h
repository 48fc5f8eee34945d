/* Engine internals shared by the engine sources (and tests that look inside). */
#ifndef CROWDI_INTERNAL_H
#define CROWDI_INTERNAL_H

#include <stdarg.h>

#include "crowd.h"
#include "dispatch.h"
#include "kernels/kernel_table.h"

#define CROWDI_LANES 16          /* capacity is padded to this many rows */
#define CROWDI_ALIGN 64          /* every column starts on a cache line */
#define CROWDI_MAX_ROWS (1u << 30)
#define CROWDI_MAX_RIGS CROWD_MAX_RIGS
/* Magnitudes the formulas square or multiply without overflowing float32: accepted input can
 * then never make an Inf or NaN. */
#define CROWDI_MAX_COORD 1e15f     /* gaze targets, centres, positions, velocities */
#define CROWDI_MAX_LANDMARK 1e9f   /* pose coordinates */
#define CROWDI_MAX_FRACTION 1e3f   /* harmonic origin and range, fractions of [min, max] */
#define CROWDI_MAX_FACTOR 1e6f     /* look factors */
#define CROWDI_MAX_VALUE 1e18f     /* parameter min and max */
#define CROWDI_MAX_SECONDS 1e6f    /* blink mean, deviation and timescale, look damping */

/* Face tracking settings (face.c) as built from a crowd_face_desc. */
typedef struct crowdi_face_mapping {
    uint32_t source, param;
    float gain, offset;
    uint32_t curve;
} crowdi_face_mapping;
typedef struct crowdi_face {
    uint32_t blend, mapping_count, target_count, used_count, smoothed_count, need_head;
    float threshold, half_life, min_cutoff, beta, d_cutoff;
    uint64_t smoothed_mask;
    crowdi_face_mapping *mapping; /* as given, parameters as indices (snapshots) */
    crowdi_face_entry *entries;   /* grouped by target */
    crowdi_face_target *targets;
    uint32_t used[CROWDI_FACE_SOURCES], smoothed[CROWDI_FACE_SOURCES];
} crowdi_face;

/* A rig: its settings (uniform across instances) and its table of columns. */
typedef struct crowdi_rig {
    char *name;
    uint32_t param_count;
    crowdi_param *params;
    char **param_ids;
    float *param_default;

    /* controller settings; entries as the kernels read them */
    bool has_look, has_harm, has_blink;
    uint32_t look_blend, look_count;
    float look_damping, look_max_speed;
    crowdi_look_entry *look;
    uint32_t harm_blend, harm_count, channel_count;
    crowdi_harm_entry *harm;
    float *harm_range; /* NR each instance starts with */
    float timescales[CROWD_MAX_CHANNELS];
    uint32_t blink_blend, blink_model, blink_count;
    float blink_mean, blink_max_deviation, blink_timescale;
    uint32_t *blink_param;
    bool has_limbs;
    crowdi_rig_view limbs; /* the limb settings, filled by crowdi_limbs_build (columns unset) */
    crowd_limbs_desc limbs_desc; /* as given, its arrays owned by the rig (for snapshots) */
    bool has_face;
    crowdi_face face;
    uint32_t col_face; /* the first of crowdi_face_columns() columns */

    /* storage: column_count columns of `capacity` 4-byte values in one block. Rows
     * [0, active) run; rows [active, count) are paused and never touched by the tick. */
    uint32_t count, active, capacity, column_count;
    void *block;
    uint32_t *init_bits;     /* [column_count] value a new row starts with */
    float **columns;         /* [column_count] */
    crowd_instance *handles; /* [capacity] the handle of each row */
    uint32_t col_base, col_out, col_look, col_harm_T, col_harm_NR, col_harm_weight, col_blink,
        col_rkey, col_draws, col_host_draws, col_pose, col_root, col_world, col_local, col_side, col_filter, col_track, col_src;

    float **base_ptrs, **out_ptrs, **harm_T_ptrs, **harm_NR_ptrs; /* arrays the view points at */
    crowdi_rig_view view;
} crowdi_rig;

typedef struct crowdi_slot {
    uint64_t id;       /* the stable instance id */
    uint32_t generation;
    uint32_t rig;      /* index into engine->rigs; UINT32_MAX when free */
    uint32_t row;
    uint32_t next_free;
} crowdi_slot;

/* The optional worker pool: threads - 1 workers, the caller's thread being the first. */
typedef struct crowdi_pool crowdi_pool;

struct crowd_engine {
    crowd_allocator allocator;
    crowd_logger logger;
    uint64_t seed;
    uint32_t initial_capacity;
    uint32_t tag; /* 16 bits in every handle, unique among live engines (crowdi_tag_*) */
    crowd_simd simd;
    const crowdi_kernels *kernels, *tail_kernels;
    uint32_t threads;
    crowdi_pool *pool;

    crowdi_rig **rigs;
    uint32_t rig_count, rig_capacity;

    crowdi_slot *slots;
    uint32_t slot_count, slot_capacity, free_slot;
    uint64_t next_instance_id;

    char error[512];
    unsigned char error_busy; /* set while a crowd_tick_range call writes error (atomically) */
};

/* errors: record the message (printf-style, starting with the function name) and log it */
crowd_result crowdi_fail(const crowd_engine *engine, crowd_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define CROWDI_CHECK(engine, cond, code, ...) \
    do { if (!(cond)) return crowdi_fail((engine), (code), __VA_ARGS__); } while (0)

/* The same for calls that may run concurrently (crowd_tick_range): of several failing at
 * once, one records and logs its message, the others only return the code. */
crowd_result crowdi_fail_concurrent(const crowd_engine *engine, crowd_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Handle tags: a process-wide table of the tags live engines hold, with a reference count
 * each (an engine that loaded a snapshot shares the saving engine's tag). New tags come from
 * a rotating process-wide counter that skips tags in use, so two live engines never get the
 * same one and a freed tag is reused as late as possible. 0: all 65535 tags are in use. */
uint32_t crowdi_tag_new(void);
void crowdi_tag_ref(uint32_t tag);
void crowdi_tag_release(uint32_t tag);

void *crowdi_alloc(const crowd_engine *engine, size_t size);
void crowdi_free(const crowd_engine *engine, void *ptr);
char *crowdi_strdup(const crowd_engine *engine, const char *s);

static inline bool crowdi_finite(float x) { return x - x == 0.0f; }

/* handles */
crowdi_rig *crowdi_rig_get(const crowd_engine *engine, crowd_rig rig);
uint32_t crowdi_rig_index(const crowd_engine *engine, crowd_rig rig); /* UINT32_MAX if invalid */
crowd_rig crowdi_rig_handle(const crowd_engine *engine, uint32_t index);
const crowdi_slot *crowdi_slot_get(const crowd_engine *engine, crowd_instance h);

/* limbs (limbs.c) */
/* Which limb state columns a rig has: the side per limb (fallbacks previous and stable), and
 * the trust and re-acquisition state per bone (only where a bone can be untrusted). */
static inline bool crowdi_limbs_have_side(const crowdi_rig_view *l) { return l->limb_side_mode != CROWDI_SIDE_ROOT; }
static inline bool crowdi_limbs_track(const crowdi_rig_view *l) { return l->limb_visibility_threshold > 0.0f; }
crowd_result crowdi_limbs_validate(crowd_engine *engine, const crowd_limbs_desc *desc);
crowd_result crowdi_limbs_build(crowd_engine *engine, const crowd_limbs_desc *desc, crowdi_rig *rig);

/* face tracking (face.c). find gives a parameter id's index, or -1. */
typedef int (*crowdi_find_param)(const void *ids, const char *id);
crowd_result crowdi_face_validate(crowd_engine *engine, const crowd_face_desc *desc, crowdi_find_param find,
                                  const void *ids);
crowd_result crowdi_face_build(crowd_engine *engine, const crowd_face_desc *desc, crowdi_find_param find, const void *ids,
                               const uint32_t *blink_params, uint32_t blink_count, uint32_t param_count, crowdi_face *face);
void crowdi_face_free(crowd_engine *engine, crowdi_face *face);
uint32_t crowdi_face_columns(const crowdi_face *face);
float crowdi_face_initial(const crowdi_face *face, uint32_t column);
void crowdi_face_view_fill(const crowdi_face *face, float *first_column, size_t stride, crowdi_face_view *view);

/* threads (pool.c) */
crowd_result crowdi_pool_start(crowd_engine *engine, uint32_t threads);
void crowdi_pool_stop(crowd_engine *engine);
/* Runs crowdi_tick_slice(engine, dt, t, threads) for t = 0..threads-1, t = 0 on this thread. */
void crowdi_pool_run(crowd_engine *engine, float dt);
void crowdi_tick_slice(const crowd_engine *engine, float dt, uint32_t slice, uint32_t slices);

/* snapshot loading: every row of the rig obeys crowd_instances_set's rules */
crowd_result crowdi_check_rows(const crowd_engine *engine, const char *fn, const crowdi_rig *rig);

/* storage */
crowd_result crowdi_rig_layout(crowd_engine *engine, crowdi_rig *rig);
crowd_result crowdi_rig_grow(crowd_engine *engine, crowdi_rig *rig, uint32_t capacity);
void crowdi_rig_free(crowd_engine *engine, crowdi_rig *rig);

#endif
