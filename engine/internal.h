/* Engine internals shared by the engine sources (and tests that look inside). */
#ifndef CROWDI_INTERNAL_H
#define CROWDI_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "crowd.h"
#include "controllers.h"
#include "fields.h"
#include "core.h"
#include "dispatch.h"
#include "pool.h"
#include "kernels/kernel_table.h"
#include "random.h"

#define CROWDI_LANES 16          /* capacity is padded to this many rows */
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

/* A rig's level of detail settings as crowd_rig_create took them (the settings table in lod.c). */
typedef struct crowdi_lod {
    uint32_t interval;      /* crowd_lod_interval */
    uint64_t every_tick;    /* bit crowd_controller: runs every tick */
} crowdi_lod;

/* A rig: its settings (uniform across instances) and its table of columns. */
typedef struct crowdi_rig {
    char *name;
    uint32_t param_count;
    crowdi_param *params;
    char **param_ids;
    float *param_default;

    bool has[CROWDI_CONTROLLER_COUNT]; /* which controllers the rig has (controllers.h) */
    /* Each controller's part of the rig: its module's struct (crowdi_controller.size bytes,
     * zeroed; NULL when the rig lacks the controller), whose first member is the controller's
     * kernel view (kernels/<name>.h) that view.controller[c] points at. col[c]: its first
     * column. */
    void *controller[CROWDI_CONTROLLER_COUNT];
    uint32_t col[CROWDI_CONTROLLER_COUNT];

    /* storage: column_count columns of `capacity` 4-byte values in one block. Rows
     * [0, running) run; rows [running, count) are paused and never touched by the tick. */
    uint32_t count, running, capacity, column_count;
    void *block;
    uint32_t *init_bits;     /* [column_count] value a new row starts with */
    float **columns;         /* [column_count] */
    /* [column_count] a setting column (one the tick only reads) in which every row still holds
     * its start value: the tick takes that one value from the view instead of reading the
     * column, so settings nobody wrote cost no memory traffic. Cleared for good by the first
     * write of another value and by handing the column out (crowdi_column_varies). */
    bool *uniform;
    crowd_instance *handles; /* [capacity] the handle of each row */
    /* A rig whose columns are far larger than the caches: crowd_tick builds each chunk's
     * outputs here (one part of param_count * CROWDI_SCRATCH_STRIDE floats per thread) and streams them
     * to the out columns, which then never cross the memory bus twice (storage.c). NULL:
     * outputs written in place. */
    float *scratch;
    uint32_t scratch_parts; /* parts: the threads of the engine that allocated it (a
                                             loaded snapshot's rigs come from a one-thread engine) */
    uint32_t col_base, col_out, col_rkey, col_draws, col_host_draws;
    /* level of detail (crowd.h 8a, lod.c): the rig's settings and its three columns, after
     * every controller's: interval (float 1, 2, 4, 8), elapsed seconds, phase counter (uint32) */
    crowdi_lod lod;
    uint32_t col_lod_interval, col_lod_elapsed, col_lod_counter;

    float **base_ptrs, **out_ptrs; /* arrays the view points at */
    crowdi_rig_view view;
} crowdi_rig;

/* The row's next per-instance draw (in [0, 1)). */
static inline float crowdi_next_draw(crowdi_rig *r, uint32_t row) {
    return crowdi_draw(r->view.rkey[row], r->view.draws[row]++);
}

typedef struct crowdi_slot {
    uint64_t id;       /* the stable instance id */
    uint32_t generation;
    uint32_t rig;      /* index into engine->rigs; UINT32_MAX when free */
    uint32_t row;
    uint32_t next_free;
} crowdi_slot;

struct crowd_engine {
    crowdi_core core; /* first: core.c reaches it through the engine pointer */
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
};

static inline bool crowdi_finite(float x) { return x - x == 0.0f; }

/* handles: a rig's is the engine's tag and index + 1 */
static inline crowd_rig crowdi_rig_handle(const crowd_engine *engine, uint32_t index) {
    return (crowd_rig){(engine->tag << 16) | (index + 1)};
}
static inline uint32_t crowdi_rig_index(const crowd_engine *engine, crowd_rig rig) { /* UINT32_MAX if invalid */
    if (!engine || (rig.id >> 16) != engine->tag) return UINT32_MAX;
    uint32_t index = (rig.id & 0xffffu) - 1;
    return index < engine->rig_count ? index : UINT32_MAX;
}
static inline crowdi_rig *crowdi_rig_get(const crowd_engine *engine, crowd_rig rig) {
    uint32_t index = crowdi_rig_index(engine, rig);
    return index == UINT32_MAX ? NULL : engine->rigs[index];
}
const crowdi_slot *crowdi_slot_get(const crowd_engine *engine, crowd_instance h);
/* every handle live and of this engine (fn names the calling function in messages) */
crowd_result crowdi_check_handles(const crowd_engine *engine, const char *fn, const crowd_instance *h, uint32_t count);

/* the tick (tick.c): slice `slice` of `slices` of every rig's running rows */
void crowdi_tick_slice(const crowd_engine *engine, double dt, uint32_t slice, uint32_t slices);

/* ---- controllers (controllers.h lists them) ---- */
/* a rig desc's parameter ids, hashed (ids.c) */
typedef struct crowdi_ids {
    const crowd_rig_desc *desc;
    uint32_t *slots; /* crowdi_free it when done */
    uint32_t mask;
} crowdi_ids;
crowd_result crowdi_ids_create(crowd_engine *engine, const crowd_rig_desc *desc, crowdi_ids *ids);
int crowdi_ids_insert(crowdi_ids *ids, const char *id, uint32_t index); /* -1 when new, else the earlier index */
int crowdi_ids_find(const crowdi_ids *ids, const char *id); /* the parameter's index, or -1 */
/* An id field of a rig desc: non-NULL and a parameter of the rig (field_fmt has one %u, k). */
crowd_result crowdi_rig_param_id(crowd_engine *engine, const crowdi_ids *ids, const char *field_fmt, uint32_t k,
                                 const char *id, uint32_t *out_index);
#define CROWDI_RIG_CHECK(cond, code, ...) \
    do { if (!(cond)) return crowdi_fail(engine, (code), "crowd_rig_create: " __VA_ARGS__); } while (0)

static inline uint32_t crowdi_blend_or(crowd_blend b, uint32_t fallback) {
    return b == CROWD_BLEND_DEFAULT ? fallback : (uint32_t)b;
}
static inline uint32_t crowdi_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* What a controller's snapshot reader knows of the rig being loaded. */
typedef struct crowdi_loading {
    uint32_t rig;            /* its index in the snapshot, for messages */
    uint32_t param_count;
    const char *const *ids;  /* its parameter ids */
    uint32_t version;        /* the snapshot's format version (2 to 5) */
} crowdi_loading;
static inline const char *crowdi_loading_id(const crowdi_loading *ld, uint32_t p) {
    return p < ld->param_count ? ld->ids[p] : ""; /* an index out of range fails validation */
}

typedef struct crowdi_writer crowdi_writer;
typedef struct crowdi_reader crowdi_reader;

/* One controller: everything the engine does with it outside the tick. Optional hooks are NULL. */
typedef struct crowdi_controller {
    const char *name; /* "look controller", for "rig ... has no look controller" */
    size_t size;      /* its part of a rig (crowdi_rig.controller), its kernel view first */
    bool (*present)(const crowd_rig_desc *desc);
    /* crowd_rig_create's checks, in two passes: ids NULL (entry counts, before the parameters
     * are checked), then everything with the parameters indexed */
    crowd_result (*validate)(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids);
    /* the settings into the rig (those the kernel reads into r->view) */
    crowd_result (*build)(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r);
    void (*free)(crowd_engine *engine, crowdi_rig *r); /* what build allocated (not the part itself) */
    /* storage: its columns from `first` on (returns how many), the bits a new row starts
     * with, and the view's pointers into them */
    uint32_t (*layout)(crowdi_rig *r, uint32_t first);
    void (*init_bits)(const crowdi_rig *r, uint32_t *bits);
    /* which of its columns are settings the tick only reads and no row starts with a draw
     * (marked uniform[c] = true: the tick reads them only once some row differs) */
    void (*settings)(const crowdi_rig *r, bool *uniform);
    void (*point)(crowdi_rig *r);
    /* a new row's per-instance start (draws in controller order), after init_bits */
    void (*init_row)(const crowd_engine *e, crowdi_rig *r, uint32_t row, const crowd_add_desc *d);
    /* snapshots: the settings as crowd_rig_create took them, and back into a desc part whose
     * memory (one block from tmp) *scratch receives; check_rows: what loaded rows must obey
     * beyond the field rules (messages as crowd_snapshot_load's) */
    void (*write)(crowdi_writer *w, const crowdi_rig *r);
    crowd_result (*read)(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                         crowd_rig_desc *desc, void **scratch);
    crowd_result (*check_rows)(crowd_engine *e, const crowdi_rig *r, uint32_t k);
    /* fields (its kernel header's CROWDI_<NAME>_FIELDS): component comp of index `index` of one of its fields (stored);
     * field_stored (optional, else all are): does the rig store the field; entry_count: how
     * many indices a CROWDI_INDEX_ENTRY field has */
    float *(*field_column)(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp);
    bool (*field_stored)(const crowdi_rig *r, crowd_field f);
    uint32_t (*entry_count)(const crowdi_rig *r);
    const char *entry_name; /* "harmonic", for "index (9) is not a harmonic entry" */
    /* the rule of its CROWDI_RULE_OWN fields: may component comp of index `index` be v (finite),
     * with what is allowed in *want ("0, 1 or 2") for the message */
    bool (*field_value)(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp, float v, const char **want);
    /* its settings table (settings.h), in snapshot order */
    const struct crowdi_setting *setting_rows;
    uint32_t setting_count;
    /* it blends into no parameter (limbs): level of detail may run it apart from the
     * parameter controllers, which blend in one order into one out (crowd.h 8a) */
    bool leaves_parameters;
} crowdi_controller;

/* A controller's part of rig r, as its module's struct type (NULL when r lacks it). */
#define CROWDI_PART(r, NAME, type) ((type *)(r)->controller[CROWDI_CTL_##NAME])
/* Column k of a controller's columns. */
static inline float *crowdi_ctl_column(const crowdi_rig *r, int controller, uint32_t k) {
    return r->columns[r->col[controller] + k];
}

#define CROWDI_X_DECL(NAME, name) extern const crowdi_controller crowdi_controller_##name;
CROWDI_CONTROLLER_LIST(CROWDI_X_DECL)
#undef CROWDI_X_DECL
static const crowdi_controller *const crowdi_controllers[CROWDI_CONTROLLER_COUNT] = {
#define CROWDI_X_ENTRY(NAME, name) [CROWDI_CTL_##NAME] = &crowdi_controller_##name,
    CROWDI_CONTROLLER_LIST(CROWDI_X_ENTRY)
#undef CROWDI_X_ENTRY
};

/* The pose part (crowd.h's numbering: groups' parts, then links) whose id is `id`, or -1
 * (engine/pose.c): where a motion's PartOpacity curve of that id writes (the PARAMETER
 * column of kernels/pose.h). The desc form serves a controller's build, before the rig has
 * its pose part. */
int32_t crowdi_pose_part_find(const crowdi_rig *r, const char *id);
int32_t crowdi_pose_desc_part_find(const crowd_pose_desc *pose, const char *id);

/* level of detail (lod.c): crowd_rig_create's checks and build of desc->lod_*, the phase a
 * new row's counter starts at, snapshots of the settings (version 5 on), and the tick */
crowd_result crowdi_lod_validate(crowd_engine *engine, const crowd_rig_desc *desc);
void crowdi_lod_build(crowdi_rig *r, const crowd_rig_desc *desc);
/* 512 consecutive ids share a phase: runs of rows update together, through the widest kernels,
 * and each column is read in runs of 2 KiB the prefetchers follow */
static inline uint32_t crowdi_lod_phase(uint64_t id) { return (uint32_t)(id >> 9) & 7u; }
void crowdi_lod_write(crowdi_writer *w, const crowdi_rig *r);
void crowdi_lod_read(crowdi_reader *rd, crowd_rig_desc *desc);
/* Rows [first, first + count) of the rig through level of detail; false (nothing done) when
 * every row is at interval 1 with no elapsed time, where the plain tick is the same. */
bool crowdi_lod_tick(const crowd_engine *engine, const crowdi_rig *r, float dt, uint32_t first, uint32_t count);

/* snapshot loading: every row of the rig obeys crowd_instances_set's rules */
crowd_result crowdi_check_rows(const crowd_engine *engine, const char *fn, const crowdi_rig *rig);

/* storage */
/* A column as the tick reads it: NULL while it is uniform (the view then holds its value,
 * crowdi_start_value). Controllers' point hooks set their view pointers through this. */
static inline float *crowdi_tick_column(const crowdi_rig *r, uint32_t c) { return r->uniform[c] ? NULL : r->columns[c]; }
static inline float crowdi_start_value(const crowdi_rig *r, uint32_t c) {
    float f;
    memcpy(&f, &r->init_bits[c], sizeof f);
    return f;
}
/* Is the column (a pointer into the rig's block) uniform now? */
bool crowdi_column_uniform(const crowdi_rig *rig, const float *column);
/* The column may hold other values than its start value from now on: the tick reads it. */
void crowdi_column_varies(crowdi_rig *rig, const float *column);
/* The same, unless the value written has the column's start bits. */
void crowdi_column_written(crowdi_rig *rig, const float *column, float value);
/* After rows were loaded: columns whose rows all hold the start value are uniform again. */
void crowdi_rig_find_uniform(crowdi_rig *rig);
crowd_result crowdi_rig_layout(crowd_engine *engine, crowdi_rig *rig);
crowd_result crowdi_rig_grow(crowd_engine *engine, crowdi_rig *rig, uint32_t capacity);
/* Whether the rig's outputs go through the scratch (crowdi_rig.scratch; its sizes:
 * kernels/kernel_table.h's CROWDI_SCRATCH_*) */
bool crowdi_streams_outputs(const crowdi_rig *rig);
void crowdi_rig_free(crowd_engine *engine, crowdi_rig *rig);

#endif
