/*
 * crowd.h — a SIMD-batched crowd animation engine. This header is the manual.
 *
 * STEP BY STEP
 * ============
 * 1. Create an engine: crowd_engine_create() with a crowd_engine_desc (seed, SIMD target,
 *    threads, allocator, logger). Every entry point takes the engine; there is no global state.
 * 2. Describe a rig (a model type): its parameter table (crowd_parameter_desc) and, for each
 *    controller it has, that controller's settings: gaze (crowd_look_desc), harmonic sines
 *    (crowd_harmonic_desc), eye blink (crowd_blink_desc), limbs from pose landmarks
 *    (crowd_limbs_desc), face tracking (crowd_face_desc), Cubism physics (crowd_physics_desc)
 *    and lip sync (crowd_lipsync_desc). crowd_rig_create() checks all of it and copies what
 *    it keeps.
 * 3. Add instances of the rig: crowd_instances_add() gives one crowd_instance handle each.
 * 4. Set inputs between ticks: crowd_set_look_target(), crowd_set() / crowd_instances_set() for
 *    any writable field (section 6), or write a field's column in place (crowd_rig_column()).
 * 5. Tick once a frame: crowd_tick(engine, dt), or crowd_tick_range() from your own job
 *    system's threads.
 * 6. Read the outputs: crowd_rig_column() for CROWD_FIELD_OUTPUT (one column per parameter,
 *    zero-copy) or CROWD_FIELD_BONE_WORLD / BONE_LOCAL, crowd_get_outputs() for one instance.
 *    crowd_rig_handles() tells which row is whose.
 * 7. Save and restore the whole state as bytes: crowd_snapshot_size(), crowd_snapshot_save(),
 *    crowd_snapshot_load() (the loaded engine continues bit-identically).
 * 8. Destroy the engine: crowd_engine_destroy() frees everything.
 *
 * The same steps as a program (tests compile it with -Wall -Wextra -Werror and run it):
 *
 *   BEGIN EXAMPLE
 *   #include <stdio.h>
 *   #include <stdlib.h>
 *   #include "crowd.h"
 *
 *   // Every call returns a crowd_result; crowd_last_error() names the field that was wrong.
 *   static void check(const crowd_engine *engine, crowd_result result) {
 *       if (result == CROWD_OK) return;
 *       fprintf(stderr, "%s: %s\n", crowd_result_text(result), crowd_last_error(engine));
 *       exit(1);
 *   }
 *
 *   int main(void) {
 *       // 1. the engine
 *       crowd_engine_desc engine_desc = crowd_engine_defaults();
 *       engine_desc.seed = 42;
 *       crowd_engine *engine = NULL;
 *       check(NULL, crowd_engine_create(&engine_desc, &engine));
 *
 *       // 2. a rig: two parameters, gaze on one, blink on the other
 *       crowd_parameter_desc params[2] = {crowd_parameter_defaults("ParamAngleX"),
 *                                         crowd_parameter_defaults("ParamEyeLOpen")};
 *       params[0].min = -30, params[0].max = 30;
 *       params[1].default_value = 1;
 *       crowd_look_parameter_desc look_params[1] = {crowd_look_parameter_defaults("ParamAngleX")};
 *       look_params[0].factor = 30;
 *       crowd_look_desc look = crowd_look_defaults();
 *       look.parameters = look_params, look.parameter_count = 1;
 *       const char *eyes[] = {"ParamEyeLOpen"};
 *       crowd_blink_desc blink = crowd_blink_defaults();
 *       blink.parameters = eyes, blink.parameter_count = 1;
 *       crowd_rig_desc rig_desc = crowd_rig_defaults();
 *       rig_desc.name = "face", rig_desc.parameters = params, rig_desc.parameter_count = 2;
 *       rig_desc.look = &look, rig_desc.blink = &blink;
 *       crowd_rig rig;
 *       check(engine, crowd_rig_create(engine, &rig_desc, &rig));
 *
 *       // 3. instances
 *       crowd_instance avatars[100];
 *       crowd_add_desc add = crowd_add_defaults(rig, 100);
 *       check(engine, crowd_instances_add(engine, &add, avatars));
 *
 *       // 4. inputs, 5. ticks
 *       check(engine, crowd_set_look_target(engine, avatars[0], 1, 0, 0, true));
 *       for (int frame = 0; frame < 60; frame++) check(engine, crowd_tick(engine, 1.0f / 60));
 *
 *       // 6. outputs: the column of parameter 0, row i is crowd_rig_handles()'s i-th instance
 *       float *angle_x;
 *       uint32_t rows;
 *       check(engine, crowd_rig_column(engine, rig, CROWD_FIELD_OUTPUT, 0, 0, &angle_x, &rows));
 *       uint32_t row;
 *       check(engine, crowd_instance_info(engine, avatars[0], NULL, NULL, &row));
 *       printf("%u rows; avatar 0: ParamAngleX %.3f\n", rows, angle_x[row]);
 *
 *       // 7. a snapshot, loaded into a second engine that continues the same way
 *       size_t size;
 *       check(engine, crowd_snapshot_size(engine, &size));
 *       void *bytes = malloc(size);
 *       if (!bytes) return 1;
 *       check(engine, crowd_snapshot_save(engine, bytes, size, &size));
 *       crowd_engine *copy = NULL;
 *       check(NULL, crowd_engine_create(&engine_desc, &copy));
 *       check(copy, crowd_snapshot_load(copy, bytes, size));
 *       free(bytes);
 *
 *       // 8. destroy
 *       crowd_engine_destroy(copy);
 *       crowd_engine_destroy(engine);
 *       return 0;
 *   }
 *   END EXAMPLE
 *
 * Contents (in the header's order: the general sections, then one section per controller in
 * tick order; the numbers stay as the code and the README cite them)
 *   1. Conventions: handles, results, defaults, ownership, threads
 *   2. Results and errors
 *   3. Engine: create, destroy, SIMD target
 *   4. Rigs: the parameter table and the rig desc every controller's settings hang from
 *   5. Instances: add, remove, pause, ids
 *   6. Per-instance inputs and state (single and bulk)
 *   7. Outputs: zero-copy columns and copies
 *   8. The tick, and the order controllers write parameters in
 *   8a. Level of detail: update intervals of 1, 2, 4 or 8 ticks
 *  10. Snapshots: the whole state as bytes
 *  15. Motions: Live2D motion3 clips per rig, playback per instance (order 100)
 *  14. Live2D pose and expressions (orders 200, 300); blink (order 400)
 *  11. Face tracking: blend shapes and head pose onto parameters (order 500)
 *  13. Lip sync: a mouth level onto the LipSync parameters (order 500, after face); harmonic
 *      (order 600) and look (order 700)
 *  12. Physics: Cubism physics3 pendulums (order 800)
 *   9. Limbs: bone rotations from 33 pose landmarks
 *   9a. Fingers: 30 finger bones (and the hands) from MediaPipe hand landmarks
 *
 * 1. Conventions
 * - Every function returns a crowd_result (CROWD_OK = 0) unless it is a getter that cannot
 *   fail. On any error nothing already stored changes, and crowd_last_error() names the field.
 *   Each function's comment lists the codes it returns. CROWD_ERR_NULL for a NULL engine is
 *   returned without a message (there is no engine to hold it).
 * - Defaults: every desc struct has a `_defaults()` function that returns it filled with the
 *   defaults its field comments give: crowd_engine_defaults(), crowd_rig_defaults(),
 *   crowd_parameter_defaults(id), crowd_look_defaults(), crowd_look_parameter_defaults(id),
 *   crowd_harmonic_defaults(), crowd_harmonic_parameter_defaults(id), crowd_blink_defaults(),
 *   crowd_limbs_defaults(), crowd_add_defaults(rig, count). Start from it and set what you
 *   need. (For crowd_engine_desc, crowd_rig_desc and crowd_add_desc every default is zero, so
 *   a zero-initialised desc is the same; for the controller descs it is not: a zero blink
 *   timescale, for one, is refused.)
 * - Handles are small values; 0 is never valid. A handle from another engine or of a removed
 *   instance is rejected with CROWD_ERR_HANDLE. Handles stay unique for the engine's life: an
 *   instance slot is reused 65535 times at most, then retired (never reused). Each live engine
 *   holds a handle tag no other live engine holds (from a process-wide counter that skips tags
 *   in use; at most 65535 engines live at once), except that an engine that loaded a snapshot
 *   takes the saving engine's tag, so the saved handles name the same instances in both.
 * - Ownership: a `const T *` argument stays the caller's; the engine copies what it keeps
 *   (parameter ids included). Column pointers returned by the engine stay valid until the next
 *   call that adds or reserves instances of that rig, loads a snapshot, or destroys the engine.
 *   Adding, removing and pausing move rows: crowd_rig_handles() tells which row is whose.
 * - Threads: an engine is not thread-safe: call it from one thread at a time, except
 *   crowd_tick_range(), which may run concurrently from several threads on disjoint ranges of
 *   rows (see 8) while no other call runs. The engine starts no thread unless
 *   crowd_engine_desc.threads > 1; then crowd_tick (and nothing else) uses its own pool.
 * - Time: dt is in seconds, finite, 0 <= dt <= 1. The engine reads no clock.
 * - Memory: allocation happens only in crowd_engine_create, crowd_rig_create, crowd_reserve,
 *   crowd_instances_add and crowd_snapshot_load, through the desc's allocator. The tick
 *   allocates nothing and reads no clock; it takes no lock, except that with a pool one
 *   mutex/condition handoff per crowd_tick wakes the workers and waits for them. A tick uses
 *   up to about 32 KiB of the calling thread's stack (the limb solve's scratch), so a job
 *   system's fibers that run crowd_tick_range need at least that much to spare.
 * - Determinism: the same inputs, seed and dt sequence give bit-identical outputs on every SIMD
 *   target, for every split of instances into ranges and on every rerun.
 */
#ifndef CROWD_H
#define CROWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CROWD_VERSION_MAJOR 0
#define CROWD_VERSION_MINOR 1
#define CROWD_VERSION_PATCH 0

/* CROWD_API marks what libcrowd exports: the library is built with hidden visibility, so only
 * these functions are its ABI (a static build may define CROWD_API empty before including). */
#ifndef CROWD_API
#if defined(__GNUC__) || defined(__clang__)
#define CROWD_API __attribute__((visibility("default")))
#else
#define CROWD_API
#endif
#endif

/* ------------------------------------------------------------------------------------------
 * 2. Results and errors. One list gives each code and its meaning.
 * ---------------------------------------------------------------------------------------- */
#define CROWD_RESULT_LIST(X)                                                                  \
    X(CROWD_OK, "ok")                                                                         \
    X(CROWD_ERR_NULL, "a required pointer is NULL")                                           \
    X(CROWD_ERR_HANDLE, "the handle is zero, stale or from another engine")                   \
    X(CROWD_ERR_NOT_FINITE, "a number is NaN or infinite")                                    \
    X(CROWD_ERR_RANGE, "a value is outside its allowed range")                                \
    X(CROWD_ERR_UNKNOWN_ID, "no parameter or rig has that id")                                \
    X(CROWD_ERR_DUPLICATE_ID, "the id is already used")                                       \
    X(CROWD_ERR_BAD_ENUM, "an enum value is not one of its constants")                        \
    X(CROWD_ERR_CAPACITY, "the request exceeds the engine's capacity limits")                 \
    X(CROWD_ERR_OUT_OF_MEMORY, "the allocator returned NULL")                                 \
    X(CROWD_ERR_UNSUPPORTED, "the SIMD target is not built or the CPU lacks it")              \
    X(CROWD_ERR_WRONG_RIG, "the instance belongs to another rig than the one the call names") \
    X(CROWD_ERR_NO_CONTROLLER, "the rig has no such controller")                             \
    X(CROWD_ERR_BAD_SNAPSHOT, "the snapshot is truncated, corrupted, oversized or of another version") \
    X(CROWD_ERR_THREAD, "the system could not start a thread")                                \
    X(CROWD_ERR_READ_ONLY, "the field is read only")                                          \
    X(CROWD_ERR_REPEATED_HANDLE, "a handle appears more than once in the call")              \
    X(CROWD_ERR_NOT_STORED, "the rig does not store that field (its limbs outputs setting)")

typedef enum crowd_result {
#define CROWD_X_ENUM(code, text) code,
    CROWD_RESULT_LIST(CROWD_X_ENUM)
#undef CROWD_X_ENUM
    CROWD_RESULT_COUNT
} crowd_result;

/* The fixed text of a code ("ok", "a required pointer is NULL", ...). Never NULL. */
CROWD_API const char *crowd_result_text(crowd_result result);
/* The code's constant as text ("CROWD_ERR_NULL"), NULL out of range. */
CROWD_API const char *crowd_result_name(crowd_result result);

/* ------------------------------------------------------------------------------------------
 * 3. Engine
 * ---------------------------------------------------------------------------------------- */
typedef struct crowd_engine crowd_engine;

typedef enum crowd_simd {
    CROWD_SIMD_AUTO = 0, /* the widest target the CPU has (or the environment's CROWD_SIMD) */
    CROWD_SIMD_SCALAR,   /* width 1: the reference, and the path for range tails */
    CROWD_SIMD_SSE2,     /* width 4 */
    CROWD_SIMD_AVX2,     /* width 8, no FMA */
    CROWD_SIMD_AVX512,   /* width 16, AVX-512F */
    CROWD_SIMD_WASM128,  /* width 4, WebAssembly SIMD128 (the WebAssembly build: web/) */
    CROWD_SIMD_COUNT
} crowd_simd;

/* Hooks for memory: alloc returns memory aligned to `align` (a power of two, at most 64) or
 * NULL. Both NULL: the C library (aligned_alloc/free). */
typedef struct crowd_allocator {
    void *(*alloc)(size_t size, size_t align, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} crowd_allocator;

/* Called with every error an entry point returns, and its message (valid during the call). */
typedef struct crowd_logger {
    void (*log)(crowd_result result, const char *message, void *user);
    void *user;
} crowd_logger;

/* Start from crowd_engine_defaults() (every default here is 0), set what you need. */
typedef struct crowd_engine_desc {
    uint64_t seed;              /* keys every random draw (default 0) */
    uint32_t initial_capacity;  /* instances per rig reserved at rig creation (default 0) */
    crowd_simd simd;            /* default AUTO; CROWD_SIMD=scalar|sse2|avx2|avx512 (and
                                   wasm128 in the WebAssembly build) in the environment
                                   overrides AUTO (not an explicit choice). For
                                   testing, CROWD_SIMD_EMULATE_AVX512=1 lets a CPU without
                                   AVX-512 run the avx512 target as SIMDe emulates it on AVX2
                                   (the same bits, slowly) */
    uint32_t threads;           /* 0 or 1: crowd_tick runs on the caller's thread only. N > 1
                                   (at most 256): N - 1 POSIX threads are started here, and
                                   crowd_tick splits every rig's running rows into N contiguous
                                   16-row-aligned slices, the caller ticking the first. The
                                   bytes are the same for every N. */
    crowd_allocator allocator;  /* default: the C library */
    crowd_logger logger;        /* default: none */
    uint64_t first_instance_id; /* the id the first added instance gets (default 0), at most
                                   2^62. Ids key random draws: an engine that holds instances
                                   k .. k+n-1 of a crowd (a shard of a crowd run over several
                                   processes) starts at k and draws what the whole crowd's
                                   engine draws for them */
} crowd_engine_desc;
/* Every field at its default (seed 0, no reserve, SIMD auto, no pool, the C library, no logger,
 * first id 0): the same as a zero-initialised desc. Cannot fail. */
CROWD_API crowd_engine_desc crowd_engine_defaults(void);

/* Creates an engine. Errors: CROWD_ERR_NULL (desc, out_engine), CROWD_ERR_BAD_ENUM (simd),
 * CROWD_ERR_UNSUPPORTED (the requested target is not built or the CPU lacks it),
 * CROWD_ERR_RANGE (threads above 256, an unknown CROWD_SIMD value in the environment, only one
 * of alloc/free set, or first_instance_id above 2^62), CROWD_ERR_CAPACITY (65535 engines are
 * live), CROWD_ERR_THREAD (the pool's threads could not be started), CROWD_ERR_OUT_OF_MEMORY.
 * The message of a failed create goes to desc->logger (there is no engine to hold it). */
CROWD_API crowd_result crowd_engine_create(const crowd_engine_desc *desc, crowd_engine **out_engine);
/* NULL-safe. Frees everything the engine allocated. Cannot fail. */
CROWD_API void crowd_engine_destroy(crowd_engine *engine);
/* The message of the last error of this engine ("" if none), naming the field, e.g.
 * "crowd_rig_create: desc->parameters[2].min (5) > max (1)". Valid until the next call. */
CROWD_API const char *crowd_last_error(const crowd_engine *engine);

/* Getters: none of these can fail. Threads crowd_tick uses (1 without a pool). */
CROWD_API uint32_t crowd_engine_threads(const crowd_engine *engine);
/* The target the engine's tick runs on. */
CROWD_API crowd_simd crowd_simd_target(const crowd_engine *engine);
/* "auto", "scalar", "sse2", "avx2", "avx512", "wasm128"; NULL for an unknown value. */
CROWD_API const char *crowd_simd_name(crowd_simd simd);
/* The target named `name` (crowd_simd_name's); CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_simd_parse(const char *name, crowd_simd *out);
/* Its lane count (1, 4, 8, 16, 4); 0 for AUTO or an unknown value. */
CROWD_API uint32_t crowd_simd_width(crowd_simd simd);
/* True when the target is built into the library and the CPU can run it. */
CROWD_API bool crowd_simd_supported(crowd_simd simd);

/* ------------------------------------------------------------------------------------------
 * 4. Rigs. A rig is a model type: its parameter table and controller settings. Instances of
 *    one rig are stored together, one column per field. Rigs live as long as the engine.
 * ---------------------------------------------------------------------------------------- */
typedef struct crowd_rig { uint32_t id; } crowd_rig;

/* Entry maxima: a desc beyond them is refused with CROWD_ERR_CAPACITY before anything is
 * allocated, and checking ids (unique parameter ids, entries naming parameters) takes time
 * linear in the counts (a hash of the ids). Also the limits of a snapshot's rigs. */
#define CROWD_MAX_RIGS 65535u        /* rigs per engine */
#define CROWD_MAX_PARAMETERS 65536u  /* desc->parameter_count */
#define CROWD_MAX_ENTRIES 65536u     /* look, harmonic and blink parameter_count, each */

typedef enum crowd_blend {
    CROWD_BLEND_DEFAULT = 0, /* the controller's default: look and harmonic additive, blink multiply */
    CROWD_BLEND_OVERRIDE,    /* P = C(P*(1 - w) + v*w) */
    CROWD_BLEND_ADDITIVE,    /* P = C(P + v*w) */
    CROWD_BLEND_MULTIPLY,    /* P = C(P*(1 + (v - 1)*w)) */
    CROWD_BLEND_COUNT
} crowd_blend;
/* "default", "override", "additive", "multiply"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_blend_name(crowd_blend value);
CROWD_API crowd_result crowd_blend_parse(const char *name, crowd_blend *out);

/* One parameter: min <= max, all finite, default in any place: each tick out = base, and only a
 * controller's blend clamps (or wraps) it into [min, max], so a parameter no controller drives
 * outputs its base as it is (SPEC 1). repeat: the value wraps (a full-turn angle); needs
 * max > min. */
typedef struct crowd_parameter_desc {
    const char *id; /* unique within the rig, non-empty */
    float min, max, default_value; /* min and max within +-1e18 */
    bool repeat;
} crowd_parameter_desc;
/* id, min 0, max 1, default 0, no repeat. */
CROWD_API crowd_parameter_desc crowd_parameter_defaults(const char *id);

/* A unit quaternion (x, y, z, w), Hamilton product, A*B applies B first. */
typedef struct crowd_quat { float x, y, z, w; } crowd_quat;

/* An instance's update interval (level of detail, section 8a): it is updated on one tick of
 * every 1, 2, 4 or 8. CROWD_FIELD_LOD_INTERVAL holds it as the number of ticks. */
typedef enum crowd_lod_interval {
    CROWD_LOD_INTERVAL_1 = 0, /* every tick (the default) */
    CROWD_LOD_INTERVAL_2,
    CROWD_LOD_INTERVAL_4,
    CROWD_LOD_INTERVAL_8,
    CROWD_LOD_INTERVAL_COUNT
} crowd_lod_interval;
/* "1", "2", "4", "8"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_lod_interval_name(crowd_lod_interval value);
CROWD_API crowd_result crowd_lod_interval_parse(const char *name, crowd_lod_interval *out);
/* The controllers' descs, each in its controller's section. */
typedef struct crowd_look_desc crowd_look_desc;
typedef struct crowd_harmonic_desc crowd_harmonic_desc;
typedef struct crowd_blink_desc crowd_blink_desc;
typedef struct crowd_limbs_desc crowd_limbs_desc;
typedef struct crowd_face_desc crowd_face_desc;
typedef struct crowd_physics_desc crowd_physics_desc;
typedef struct crowd_lipsync_desc crowd_lipsync_desc;
typedef struct crowd_pose_desc crowd_pose_desc;
typedef struct crowd_expression_desc crowd_expression_desc;
typedef struct crowd_fingers_desc crowd_fingers_desc;
typedef struct crowd_motion_desc crowd_motion_desc;

typedef struct crowd_rig_desc {
    const char *name; /* optional, for messages; copied */
    const crowd_parameter_desc *parameters;
    uint32_t parameter_count;
    const crowd_look_desc *look;         /* NULL: no gaze controller */
    const crowd_harmonic_desc *harmonic; /* NULL: no harmonic controller */
    const crowd_blink_desc *blink;       /* NULL: no blink controller */
    const crowd_limbs_desc *limbs;       /* NULL: no limbs */
    const crowd_face_desc *face;         /* NULL: no face tracking (section 11) */
    const crowd_physics_desc *physics;   /* NULL: no physics (section 12) */
    const crowd_lipsync_desc *lipsync;   /* NULL: no lip sync (section 13) */
    const crowd_pose_desc *pose;         /* NULL: no Live2D pose (section 14) */
    const crowd_expression_desc *expression; /* NULL: no Live2D expressions (section 14) */
    const crowd_fingers_desc *fingers;   /* NULL: no fingers (section 9a) */
    const crowd_motion_desc *motion;     /* NULL: no motions (section 15) */
    /* Level of detail (section 8a): the update interval a new instance starts with (the
     * default, 0, is every tick), and the controllers that run every tick whatever an
     * instance's interval (bit crowd_controller; default none: every controller follows the
     * interval). The controllers that blend into parameters run in one order on one out
     * (section 8): the rig's are all in lod_every_tick or none is. */
    crowd_lod_interval lod_interval;
    uint64_t lod_every_tick;
} crowd_rig_desc;
/* No name, no parameters, no controllers: the same as a zero-initialised desc. */
CROWD_API crowd_rig_desc crowd_rig_defaults(void);

/* Validates everything (see the field comments) and creates the rig. Errors: CROWD_ERR_NULL
 * (desc, out_rig, a parameter or entry id, an array with a nonzero count, custom_fix,
 * bind_landmarks or bind_rotations its axis_fix needs), CROWD_ERR_CAPACITY (CROWD_MAX_RIGS
 * rigs exist, a count above CROWD_MAX_PARAMETERS, CROWD_MAX_ENTRIES or CROWD_MAX_CHANNELS,
 * physics counts above the CROWD_PHYSICS_MAX_* limits), CROWD_ERR_BAD_ENUM (a blend, axis,
 * direction, blink model, frame, axis_fix, fallback, outputs or physics type),
 * CROWD_ERR_NOT_FINITE (any number), CROWD_ERR_RANGE (a number outside its field's rule, an
 * empty id, a channel index beyond channel_count, a non-unit quaternion, a degenerate bind
 * pose, physics sub-rigs not taking the inputs, outputs and particles in order, a vertex
 * outside its sub-rig, a reflect other than 0 or 1), CROWD_ERR_DUPLICATE_ID (two parameters
 * share an id), CROWD_ERR_UNKNOWN_ID (a look, harmonic, blink, face, physics or lip sync entry
 * names no parameter of the rig), CROWD_ERR_OUT_OF_MEMORY. Each message names the field, e.g.
 * "desc->physics->particles[3].radius (0) must be in (0, 1e+06]". */
CROWD_API crowd_result crowd_rig_create(crowd_engine *engine, const crowd_rig_desc *desc, crowd_rig *out_rig);
/* The index of a parameter id in the rig's table (the order of desc->parameters). Errors:
 * CROWD_ERR_NULL (engine, id, out_index), CROWD_ERR_HANDLE (rig), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_rig_parameter_index(const crowd_engine *engine, crowd_rig rig,
                                       const char *id, uint32_t *out_index);
/* Parameter count, instance count. 0 for an invalid rig; cannot fail. */
CROWD_API uint32_t crowd_rig_parameter_count(const crowd_engine *engine, crowd_rig rig);
CROWD_API uint32_t crowd_rig_instance_count(const crowd_engine *engine, crowd_rig rig);
/* Makes room for `capacity` instances of the rig (rounded up to 16). Errors: CROWD_ERR_NULL
 * (engine), CROWD_ERR_HANDLE (rig), CROWD_ERR_CAPACITY (above 2^30 rows, or more bytes than
 * size_t holds), CROWD_ERR_OUT_OF_MEMORY. */
CROWD_API crowd_result crowd_reserve(crowd_engine *engine, crowd_rig rig, uint32_t capacity);
/* The bytes one instance of the rig takes in the engine: its columns (4 bytes each), its row's
 * handle and its slot. For planning before anything is allocated: N instances reserved with
 * crowd_reserve take N times this (N rounded up to 16 rows, and up to 16 rows more of padding
 * that keeps columns from lying a multiple of 4 KiB apart); crowd_instances_add alone grows the
 * capacity by doubling and holds the old and the new columns while it copies them. Errors:
 * CROWD_ERR_NULL (engine, out_bytes), CROWD_ERR_HANDLE (rig). */
CROWD_API crowd_result crowd_rig_bytes_per_instance(const crowd_engine *engine, crowd_rig rig, size_t *out_bytes);

/* The controllers a rig can have, in the order of crowd_rig_desc's pointers, and each one's
 * settings described once: the table crowd_rig_create validates the desc's plain settings by,
 * snapshots store them by and the tools and bindings derive their readers from. Entry lists
 * (parameters, mapping) and arrays tied to another setting (channel_timescales, custom_fix,
 * bind_*) are not settings here: the controller's desc documents them. */
typedef enum crowd_controller {
    CROWD_CONTROLLER_LOOK = 0, CROWD_CONTROLLER_HARMONIC, CROWD_CONTROLLER_BLINK, CROWD_CONTROLLER_LIMBS,
    CROWD_CONTROLLER_FACE, CROWD_CONTROLLER_PHYSICS, CROWD_CONTROLLER_LIPSYNC, CROWD_CONTROLLER_POSE,
    CROWD_CONTROLLER_EXPRESSION, CROWD_CONTROLLER_FINGERS, CROWD_CONTROLLER_MOTION,
    CROWD_CONTROLLER_COUNT
} crowd_controller;
/* "look", "harmonic", "blink", "limbs", "face", "physics", "lipsync", "pose",
 * "expression", "fingers", "motion" (crowd_rig_desc's member), or NULL. */
CROWD_API const char *crowd_controller_name(crowd_controller controller);
/* The controller whose name is `name`; CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_controller_parse(const char *name, crowd_controller *out);

typedef enum crowd_setting_type {
    CROWD_SETTING_FLOAT = 0, /* float (count of them: fallback_sign has 4) */
    CROWD_SETTING_ENUM,      /* one of the crowd_* enums (int-sized): values min..max */
    CROWD_SETTING_BOOL,      /* bool */
    CROWD_SETTING_BITS64,    /* uint64_t bit set: bits below max + 1 */
    CROWD_SETTING_TYPE_COUNT
} crowd_setting_type;
/* "float", "enum", "bool", "bits64"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_setting_type_name(crowd_setting_type value);
CROWD_API crowd_result crowd_setting_type_parse(const char *name, crowd_setting_type *out);

/* One setting of a controller's desc (crowd_look_desc ... crowd_face_desc). A float lies in
 * [min, max], an end excluded when min_open / max_open; max is +INFINITY where +inf is allowed
 * (look's max_speed). A rule that ties two settings (bend_min < bend_full) is the desc's. */
typedef struct crowd_setting {
    const char *name;        /* the desc's member: "max_deviation" */
    crowd_setting_type type;
    size_t offset;           /* offsetof(the controller's desc, member) */
    uint32_t count;          /* values (floats) in the member: 1 but for arrays */
    double default_value;    /* what crowd_<controller>_defaults() sets (fallback_sign: the first) */
    double min, max;
    bool min_open, max_open;
    const char *unit;        /* "s", "Hz", "degrees", "" */
    const char *doc;         /* one line */
    const char *const *value_names; /* ENUM: the names of values 0..max ("default", "override", ...) */
} crowd_setting;
/* How many settings the controller has (0 for an invalid controller); cannot fail. */
CROWD_API uint32_t crowd_setting_count(crowd_controller controller);
/* Setting `index` of the controller. Errors: CROWD_ERR_NULL (out), CROWD_ERR_BAD_ENUM
 * (controller), CROWD_ERR_RANGE (index >= crowd_setting_count). */
CROWD_API crowd_result crowd_setting_info(crowd_controller controller, uint32_t index, crowd_setting *out);

/* ------------------------------------------------------------------------------------------
 * 5. Instances
 * ---------------------------------------------------------------------------------------- */
typedef struct crowd_instance { uint64_t id; } crowd_instance;

typedef enum crowd_blink_start {
    CROWD_BLINK_START_RANDOM = 0, /* the first idle wait is drawn: no crowd-wide unison */
    CROWD_BLINK_START_CUBISM,     /* sine: T = 0, the first blink starts on tick 1 (as Cubism);
                                     timed: a drawn wait (as Unity) */
    CROWD_BLINK_START_COUNT
} crowd_blink_start;
/* "random", "cubism"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_blink_start_name(crowd_blink_start value);
CROWD_API crowd_result crowd_blink_start_parse(const char *name, crowd_blink_start *out);

typedef enum crowd_harmonic_phase {
    CROWD_HARMONIC_PHASE_ZERO = 0, /* T = 0 (as Cubism) */
    CROWD_HARMONIC_PHASE_RANDOM,   /* T uniform in [0, duration) */
    CROWD_HARMONIC_PHASE_COUNT
} crowd_harmonic_phase;
/* "zero", "random"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_harmonic_phase_name(crowd_harmonic_phase value);
CROWD_API crowd_result crowd_harmonic_phase_parse(const char *name, crowd_harmonic_phase *out);

typedef struct crowd_add_desc {
    crowd_rig rig;
    uint32_t count;
    crowd_blink_start blink_start;
    crowd_harmonic_phase harmonic_phase;
} crowd_add_desc;
/* count instances of rig, blink start random, harmonic phase zero (the enums' 0). */
CROWD_API crowd_add_desc crowd_add_defaults(crowd_rig rig, uint32_t count);

/* Adds count instances (all state at its start values, base = default). out_handles (may be
 * NULL) receives count handles. Each instance gets a 64-bit id, never reused in the engine's
 * life, that keys its random draws. Errors: CROWD_ERR_NULL (engine, desc), CROWD_ERR_HANDLE
 * (desc->rig), CROWD_ERR_BAD_ENUM (blink_start, harmonic_phase), CROWD_ERR_CAPACITY (more
 * than 2^30 instances in the rig, or no handle slot left), CROWD_ERR_OUT_OF_MEMORY. */
CROWD_API crowd_result crowd_instances_add(crowd_engine *engine, const crowd_add_desc *desc,
                                 crowd_instance *out_handles);
/* Removes instances; the last rows move into the holes (handles stay valid). All handles are
 * checked (and must be distinct) before anything is removed. Errors: CROWD_ERR_NULL (engine,
 * handles with a nonzero count), CROWD_ERR_HANDLE (a handle), CROWD_ERR_REPEATED_HANDLE (a
 * handle repeats). */
CROWD_API crowd_result crowd_instances_remove(crowd_engine *engine, const crowd_instance *handles,
                                    uint32_t count);
/* Pauses (paused = true) or resumes instances. A paused instance keeps its state and outputs
 * exactly as they are; the tick does not touch it, and once resumed it continues as if no time
 * had passed for it. Paused instances are kept in the last rows of their rig, so the tick
 * skips them at no cost: rows [0, crowd_rig_running_count()) run. Pausing moves rows (handles
 * stay valid; crowd_rig_handles() tells the new order). A handle may repeat. Errors:
 * CROWD_ERR_NULL (engine, handles with a nonzero count), CROWD_ERR_HANDLE (a handle). */
CROWD_API crowd_result crowd_instances_pause(crowd_engine *engine, const crowd_instance *handles,
                                   uint32_t count, bool paused);
/* Errors: CROWD_ERR_NULL (engine, out_paused), CROWD_ERR_HANDLE. */
CROWD_API crowd_result crowd_instance_paused(const crowd_engine *engine, crowd_instance instance, bool *out_paused);
/* Rows of the rig that are not paused (they come first). 0 for an invalid rig. */
CROWD_API uint32_t crowd_rig_running_count(const crowd_engine *engine, crowd_rig rig);
/* The instance's stable id, rig and current row in the rig's columns (each out pointer may be
 * NULL). Errors: CROWD_ERR_NULL (engine), CROWD_ERR_HANDLE. */
CROWD_API crowd_result crowd_instance_info(const crowd_engine *engine, crowd_instance instance,
                                 uint64_t *out_id, crowd_rig *out_rig, uint32_t *out_row);
/* Draws count numbers uniform in [0, 1) (24 bits) from the instance's own host stream (keyed
 * by seed, instance id and draw index), advancing it: for a host's per-instance randomness that
 * must stay deterministic (e.g. target jitter). The host stream is separate from the engine's
 * own draws (blink waits, phases), so drawing here changes no blink. Errors: CROWD_ERR_NULL
 * (engine, out_values with a nonzero count), CROWD_ERR_HANDLE. */
CROWD_API crowd_result crowd_instance_random(crowd_engine *engine, crowd_instance instance,
                                   uint32_t count, float *out_values);

/* ------------------------------------------------------------------------------------------
 * 6. Per-instance inputs and state. A field has a width (floats per instance) and, for
 *    indexed fields, an index (parameter index or harmonic entry index).
 *    Writable fields validate each value; readable ones are every field.
 * ---------------------------------------------------------------------------------------- */
typedef enum crowd_field {
    /* inputs (read and write) */
    CROWD_FIELD_BASE = 0,          /* [1] base value of parameter `index`, finite */
    CROWD_FIELD_LOOK_TARGET,       /* [3] target in model-local coordinates, within +-1e15 */
    CROWD_FIELD_LOOK_ACTIVE,       /* [1] 0 or 1 (default 0) */
    CROWD_FIELD_LOOK_CENTER,       /* [3] within +-1e15 (default 0,0,0) */
    CROWD_FIELD_LOOK_DAMPING,      /* [1] in [0, 1e6] (default: the rig's) */
    CROWD_FIELD_LOOK_WEIGHT,       /* [1] in [0, 1] (default 1) */
    CROWD_FIELD_HARMONIC_WEIGHT,   /* [1] in [0, 1] (default 1) */
    CROWD_FIELD_BLINK_WEIGHT,      /* [1] in [0, 1] (default 1) */
    CROWD_FIELD_BLINK_MANUAL,      /* [1] eye opening in [0, 1] (pauses the auto blink), or -1:
                                      automatic again (default -1) */
    CROWD_FIELD_HARMONIC_PHASE,    /* [1] T of harmonic entry `index`, finite, >= 0 */
    CROWD_FIELD_HARMONIC_RANGE,    /* [1] the instance's NR of entry `index`, within +-1000 (the
                                      clamps can store a negative NR when origin lies outside
                                      [0, 1]) */
    /* state (read; writable to restore or stage a state) */
    CROWD_FIELD_LOOK_POSITION,     /* [3] smoothed position, within +-1e18 (the tick keeps it so) */
    CROWD_FIELD_LOOK_VELOCITY,     /* [3] within +-1e24 (the tick keeps it so) */
    CROWD_FIELD_BLINK_OPENING,     /* [1] the controller's eye_opening, finite, <= 1 (the timed
                                      model's closing frame may dip below 0: the blend clamps) */
    CROWD_FIELD_BLINK_PHASE,       /* [1] sine: 0 idling, 1 closing, 2 opening;
                                      timed: 0 idling, 1 closing, 2 closed, 3 opening */
    CROWD_FIELD_BLINK_CLOCK,       /* [1] sine: T; timed: idle -> next_blink, else u (a negative u
                                      counts as 0). finite */
    CROWD_FIELD_BLINK_LAST,        /* [1] sine: last |sin| value, finite */
    /* limbs (section 9) */
    CROWD_FIELD_POSE,              /* [132] 33 landmarks x, y, z, visibility in the rig's frame;
                                      coordinates within +-1e9, visibility in [0, 1] */
    CROWD_FIELD_ROOT,              /* [4] root rotation, unit quaternion (default identity) */
    /* outputs (read only) */
    CROWD_FIELD_OUTPUT,            /* [1] output value of parameter `index` after the tick */
    CROWD_FIELD_BONE_WORLD,        /* [4] world rotation of bone `index` (crowd_bone), w >= 0
                                      (not stored with limbs outputs local) */
    CROWD_FIELD_BONE_LOCAL,        /* [4] rotation of bone `index` relative to its parent (not
                                      stored with limbs outputs world) */
    /* face tracking (section 11; after the others, so earlier values stay) */
    CROWD_FIELD_FACE_SCORES,       /* [52] blend-shape scores in MediaPipe's order, each in [0, 1]
                                      (default 0) */
    CROWD_FIELD_FACE_ROTATION,     /* [4] head rotation, unit quaternion (default identity):
                                      crowd_face_rotation_from_matrix of the tracker's matrix */
    CROWD_FIELD_FACE_PRESENCE,     /* [1] in [0, 1]: how surely a face is tracked (default 0) */
    CROWD_FIELD_FACE_WEIGHT,       /* [1] in [0, 1] (default 1) */
    CROWD_FIELD_FACE_CONTROL,      /* [1] state in [0, 1]: how far the face has taken over (0 at
                                      first) */
    /* physics (section 12) and lip sync (section 13) */
    CROWD_FIELD_PHYSICS_STRENGTH,  /* [1] in [0, 100]: the instance's output multiplier (default 1) */
    CROWD_FIELD_PHYSICS_WIND,      /* [1] in [0, 100]: the instance's wind multiplier (default 1) */
    CROWD_FIELD_PHYSICS_WIND_PHASE, /* [1] state in [0, 1]: the gust's phase in cycles (drawn when
                                      the instance is added) */
    CROWD_FIELD_PHYSICS_REMAIN,    /* [1] state in [0, 1e6] s: the framework's _currentRemainTime
                                      (0 at first; always 0 without fps) */
    CROWD_FIELD_LIPSYNC_LEVEL,     /* [1] in [0, 1]: the mouth level the host writes each tick
                                      (default 0) */
    /* Live2D pose and expressions (section 14) */
    CROWD_FIELD_PART_PARAMETER,    /* [1] the pseudo-parameter of pose part `index`, finite: the
                                      first part of a group above 0.001 shows. What motions'
                                      PartOpacity curves write (section 14) */
    CROWD_FIELD_PART_OPACITY,      /* [1] state: the opacity of pose part `index`, finite (the
                                      pose's output) */
    CROWD_FIELD_POSE_RESET,        /* [1] state, 0 or 1: 1 until the instance's first tick, which
                                      resets the pose as the framework's first update does */
    CROWD_FIELD_EXPRESSION_WEIGHT, /* [1] in [0, 1] (default 1) */
    CROWD_FIELD_EXPRESSION_SLOT,   /* [3] state of queue slot `index` (< CROWD_EXPRESSION_SLOTS):
                                      expression (-1: empty, else an index into the library),
                                      age (s since its fade-in began; -1: starts at the next
                                      tick), fade (s left of its fade-out; -1: none; -2: begins
                                      after the next tick) */
    /* level of detail (section 8a) */
    CROWD_FIELD_LOD_INTERVAL,      /* [1] update interval in ticks: 1, 2, 4 or 8 (default: the
                                      rig's lod_interval); writable at any time */
    CROWD_FIELD_LOD_ELAPSED,       /* [1] state: seconds ticked since the instance's last update,
                                      in [0, 16] (0 after an update) */
    /* fingers (section 9a) */
    CROWD_FIELD_HAND_LANDMARKS,    /* [64] per hand (index crowd_hand): 21 landmarks x, y, z in
                                      the rig's frame, each within +-1e9, then the presence
                                      score in [0, 1] (default all 0: no hand) */
    CROWD_FIELD_FINGER_WORLD,      /* [4] world rotation of bone `index` (hand * 16 +
                                      crowd_hand_bone), w >= 0 */
    CROWD_FIELD_FINGER_LOCAL,      /* [4] rotation of that bone relative to its parent */
    /* motions (section 15) */
    CROWD_FIELD_MOTION_SPEED,      /* [1] in [0, 1e6]: the instance's motion clock runs at dt*speed
                                      (default 1) */
    CROWD_FIELD_MOTION_WEIGHT,     /* [1] in [0, 1]: the framework's motion weight (default 1) */
    CROWD_FIELD_MOTION_OPACITY,    /* [1] output: what a Model "Opacity" curve last set (1 at
                                      first) */
    CROWD_FIELD_MOTION_UPDATED,    /* [1] output: 1 when a motion updated the instance this tick
                                      (Cubism's motionUpdated), else 0 */
    CROWD_FIELD_MOTION_PSEUDO,     /* [1] pseudo-parameter `index` (crowd_rig_motion_pseudo_index),
                                      finite: what PartOpacity curves, and curves of ids that are
                                      no parameter of the rig, write (0 at first) */
    CROWD_FIELD_COUNT
} crowd_field;

/* Floats per instance of the field (1, 3, 4 or 132); 0 for an unknown field. Cannot fail. */
CROWD_API uint32_t crowd_field_width(crowd_field field);
/* "base", "look_target", ... (the enum's name in lower case without the prefix); NULL for an
 * unknown field. */
CROWD_API const char *crowd_field_name(crowd_field field);
/* The field named `name`; CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_field_parse(const char *name, crowd_field *out);

/* Writes values[i*width .. i*width+width) to handles[i]. All handles and values are checked
 * before anything is written. A handle may repeat; the last value wins. Errors: CROWD_ERR_NULL
 * (engine, handles or values with a nonzero count), CROWD_ERR_BAD_ENUM (field), CROWD_ERR_HANDLE
 * (a handle), CROWD_ERR_NO_CONTROLLER (a handle's rig lacks the field's controller),
 * CROWD_ERR_READ_ONLY (an output or other read-only field), CROWD_ERR_RANGE (index beyond the
 * rig's parameters or entries, a value outside the field's rule), CROWD_ERR_NOT_FINITE (a
 * value). */
CROWD_API crowd_result crowd_instances_set(crowd_engine *engine, crowd_field field, uint32_t index,
                                 const crowd_instance *handles, uint32_t count,
                                 const float *values);
/* Reads the field of each handle into values (count*width floats); nothing is written on
 * error. Errors: CROWD_ERR_NULL (engine, handles or values with a nonzero count),
 * CROWD_ERR_BAD_ENUM (field), CROWD_ERR_HANDLE, CROWD_ERR_NO_CONTROLLER, CROWD_ERR_NOT_STORED
 * (a bone rotation its rig's limbs outputs leave out), CROWD_ERR_RANGE (index). */
CROWD_API crowd_result crowd_instances_get(const crowd_engine *engine, crowd_field field, uint32_t index,
                                 const crowd_instance *handles, uint32_t count, float *values);

/* Single-instance forms of the above, with the same errors. crowd_set_look_target writes
 * CROWD_FIELD_LOOK_TARGET and CROWD_FIELD_LOOK_ACTIVE. */
CROWD_API crowd_result crowd_set(crowd_engine *engine, crowd_instance instance, crowd_field field,
                       uint32_t index, const float *values);
CROWD_API crowd_result crowd_get(const crowd_engine *engine, crowd_instance instance, crowd_field field,
                       uint32_t index, float *values);
CROWD_API crowd_result crowd_set_look_target(crowd_engine *engine, crowd_instance instance,
                                   float x, float y, float z, bool active);
/* Starts a blink on the next tick for idling instances (sets the idle wait to 0). Errors:
 * CROWD_ERR_NULL (engine, handles with a nonzero count), CROWD_ERR_HANDLE,
 * CROWD_ERR_NO_CONTROLLER (a handle's rig has no blink). */
CROWD_API crowd_result crowd_blink_now(crowd_engine *engine, const crowd_instance *handles, uint32_t count);

/* ------------------------------------------------------------------------------------------
 * 7. Outputs. Rows are the rig's storage order: crowd_rig_handles() gives the handle of each
 *    row. Columns hold crowd_rig_instance_count() values (capacity padded beyond).
 * ---------------------------------------------------------------------------------------- */
/* The column of one component of a field: rows 0..count-1 in storage order. Reading any field
 * and writing a writable one between ticks is zero-copy (e.g. CROWD_FIELD_BASE from the host's
 * own animation, CROWD_FIELD_POSE from a pose tracker). What is written here is not checked:
 * keep it within the field's rules. component < crowd_field_width(field).
 * Settings the tick only reads (base values, look target, centre, active, damping and weight,
 * harmonic weight, blink manual and weight, the limbs' root) cost the tick nothing while every instance of the
 * rig still holds its start value: it reads the one value, not the column. A setting column is
 * read row by row from the first crowd_instances_set of another value on, and from the moment
 * it is handed out here (the caller may write through it): fetch setting columns only to write
 * them, read them with crowd_instances_get. Results are the same bits either way. Errors:
 * CROWD_ERR_NULL (engine, out_values, out_count), CROWD_ERR_HANDLE (rig), CROWD_ERR_BAD_ENUM
 * (field), CROWD_ERR_NO_CONTROLLER (the rig lacks the field's controller), CROWD_ERR_NOT_STORED
 * (a bone rotation the rig's limbs outputs leave out), CROWD_ERR_RANGE (index or component). */
CROWD_API crowd_result crowd_rig_column(crowd_engine *engine, crowd_rig rig, crowd_field field, uint32_t index,
                              uint32_t component, float **out_values, uint32_t *out_count);
/* Every component's column at once: out_columns receives crowd_field_width(field) pointers
 * (e.g. 132 for CROWD_FIELD_POSE: landmark k's x, y, z, visibility at 4k .. 4k+3). The errors
 * of crowd_rig_column (out_columns for out_values). */
CROWD_API crowd_result crowd_rig_columns(crowd_engine *engine, crowd_rig rig, crowd_field field, uint32_t index,
                               float **out_columns, uint32_t *out_count);
/* The handle of each row. Errors: CROWD_ERR_NULL (engine, out_handles, out_count),
 * CROWD_ERR_HANDLE (rig). */
CROWD_API crowd_result crowd_rig_handles(const crowd_engine *engine, crowd_rig rig,
                               const crowd_instance **out_handles, uint32_t *out_count);
/* Copies every output parameter of one instance (the rig's parameter order). Errors:
 * CROWD_ERR_NULL (engine, out_values for a rig with parameters), CROWD_ERR_HANDLE,
 * CROWD_ERR_RANGE (capacity below the rig's parameter count). */
CROWD_API crowd_result crowd_get_outputs(const crowd_engine *engine, crowd_instance instance,
                               float *out_values, uint32_t capacity);

/* ------------------------------------------------------------------------------------------
 * 8. The tick. For every instance: out = base, then motion (100, section 15: it replaces the
 *    base of the parameters its library animates and writes the pose's part parameters),
 *    pose (200, part opacities, section 14), expression (300, section 14), blink (400),
 *    face (500, section 11), lip sync (500, after face; section 13), harmonic (600), look
 *    (700) and physics (800, section 12) blend into out in that order. The numbers are each
 *    controller's order, as Cubism's update order numbers: a controller with a smaller
 *    number writes its parameters first, and a later one blends onto what it wrote (physics
 *    reads the angles look and face wrote). They leave room between them for controllers to
 *    come. Limbs (section 9) and fingers (section 9a) write bones, not parameters, and run
 *    after all of them.
 * ---------------------------------------------------------------------------------------- */
/* Advances every running instance of every rig by dt (0 <= dt <= 1, finite). With a pool
 * (threads > 1) it wakes the workers and returns when all slices are done. Errors:
 * CROWD_ERR_NULL (engine), CROWD_ERR_NOT_FINITE (dt), CROWD_ERR_RANGE (dt outside [0, 1]). */
CROWD_API crowd_result crowd_tick(crowd_engine *engine, float dt);
/* Advances rows [first, first + count) of one rig. Calls on disjoint ranges may run at the
 * same time from different threads, with no other call on the engine in between; such calls
 * only read the engine and write their own rows. A split into ranges gives the same bytes as
 * one call (ranges starting at a multiple of crowd_simd_width() run fastest). On error the
 * message is recorded and logged by at most one call at a time: of calls failing at once, the
 * first records it and the others only return their code (no data race, no concurrent
 * logger call from this function). Errors: CROWD_ERR_NULL (engine), CROWD_ERR_NOT_FINITE (dt),
 * CROWD_ERR_RANGE (dt outside [0, 1], or rows beyond the rig's instance count),
 * CROWD_ERR_HANDLE (rig). */
CROWD_API crowd_result crowd_tick_range(crowd_engine *engine, float dt, crowd_rig rig, uint32_t first,
                              uint32_t count);

/* ------------------------------------------------------------------------------------------
 * 8a. Level of detail. Each instance has an update interval k of 1, 2, 4 or 8 ticks
 *    (CROWD_FIELD_LOD_INTERVAL; a new instance takes its rig's lod_interval). Each tick adds dt
 *    to the instance's elapsed time (CROWD_FIELD_LOD_ELAPSED); on one tick of every k, its
 *    update tick, the instance is ticked once with that elapsed time (the float sum of the
 *    ticks' dt in order: for k = 2, or a dt such as 1/64 whose multiples are exact, it is
 *    exactly k*dt) and the elapsed time returns to 0. Instances of one interval are staggered
 *    by instance id (512 consecutive ids share a phase, so runs of rows update together), so
 *    in a crowd of some thousands every tick updates about 1/k of them. Speed: runs of rows of
 *    one interval and phase go through the widest kernels and rows between updates cost 20
 *    bytes (interval, elapsed time and counter); rows of different intervals interleaved row
 *    by row update one at a time at width 1, slower than updating them all (keep instances of
 *    one distance band together, e.g. added in one batch). Changing the interval at any time
 *    neither skips nor repeats time: the elapsed time is kept, and the next update tick under
 *    the new interval comes within k ticks. Paused instances gain no time (section 5).
 *    Interval 1 is the plain tick: a rig whose instances all stay at 1 ticks exactly as
 *    without level of detail and reads none of these columns.
 *
 *    Outputs: an instance's outputs (CROWD_FIELD_OUTPUT, the bones) and every state of a
 *    controller that follows the interval change only on its update ticks; between them they
 *    hold. Controllers in the rig's lod_every_tick run every tick with the tick's dt (e.g.
 *    blink and look every tick, limbs every 4th: lod_every_tick = the blink and look bits, the
 *    other parameter controllers with them, since parameters blend in one order). A renderer
 *    that wants motion between update ticks keeps each instance's previous and current
 *    update (e.g. copies the outputs on the ticks where LOD_ELAPSED reads 0 after the tick) and
 *    interpolates: at tick j of k after an update, lerp (or nlerp / slerp for the bone
 *    quaternions) by j/k, one update behind; or extrapolates forward at the same rate.
 *
 *    Rate: by construction an instance at interval k after k*n ticks of dt holds bit for bit
 *    what the same instance holds after n ticks of the elapsed time (the controllers in
 *    lod_every_tick aside: they see every tick's dt). How near that is to k*n
 *    ticks of dt at interval 1 is each controller's: harmonic's phase, blink's clocks, look's
 *    SmoothDamp (Unity's, made for variable frame rates), face's filter and the limbs' trust
 *    eases and filters (half-lives in seconds) follow seconds, up to the coarser step. Not
 *    rate-independent: the stable side's blend u (SPEC 5.1), applied once per update, so
 *    between bend_min and bend_full the side reaches the bend plane k times slower in seconds
 *    at interval k; and phase changes (a blink's close, open, idle; a bone's trust) are seen
 *    once per update, so an event shorter than an update is seen coarsely.
 *    Deterministic: the same bytes on every SIMD target, split, thread count and after a
 *    snapshot (interval, elapsed time and the phase counter are part of it), taken on any tick.
 * ---------------------------------------------------------------------------------------- */

/* ------------------------------------------------------------------------------------------
 * 10. Snapshots. The whole engine state — rigs with their settings, instances with their ids,
 *     handles and pause state, every controller state, random counters and pose filter state —
 *     as bytes the caller stores or sends. Loading a snapshot into an engine (fresh or not)
 *     replaces its state, and the engine then continues bit-identically to the one that saved
 *     (handles saved with it stay valid in it). The engine's own settings stay: SIMD target,
 *     threads, allocator, logger. A truncated, corrupted, foreign-version or oversized blob is
 *     rejected with CROWD_ERR_BAD_SNAPSHOT and the engine is left unchanged.
 *
 *     Format (version 6), every number little-endian:
 *       header  "CROWDSNP", u32 version, u32 flags (0), u64 payload bytes, u64 checksum:
 *               FNV-1a 64 over the payload's little-endian u64 words in four lanes (word i
 *               into lane i mod 4, lane k starting from the FNV basis xor k, a last partial
 *               word zero-padded), then the four lanes folded in order by the same step
 *       payload u64 seed, u64 next instance id, u32 handle tag, u32 rig count, the rigs
 *               (name, parameters, controller settings as created, u32 rows, u32 running rows,
 *               u32 columns, every column's rows as 4-byte values, u64 handle of each row),
 *               u32 slot count, u32 first free slot, then per slot u64 instance id,
 *               u32 generation (0: a retired slot, free and never reused), u32 rig
 *               (0xffffffff: free), u32 row, u32 next free slot.
 *     Version 2 (before crowd_limbs_desc.outputs) loads too, its limbs rigs with outputs both:
 *     the limbs settings' word that holds smoothing (bit 0) holds outputs in bits 1-2 since
 *     version 3. Version 4 (limb tracking SPEC 5.1 revision 2) appends arm_image_bend to the
 *     limbs settings and drops the tracked rigs' per-bone ease source (4 columns a bone).
 *     Version 5 adds the motion controller (flag bit 5: its library in the rig's settings, its
 *     playback state in columns); a version 4 snapshot reads unchanged.
 *     Versions 2 and 3 load with arm_image_bend 15 when no limbs rig tracks (threshold 0: the
 *     side state means the same and continues under revision 2's rules); a snapshot with a
 *     tracked limbs rig (threshold above 0) is refused with CROWD_ERR_BAD_SNAPSHOT and a
 *     message naming the rig and the format version. Version 5 adds the physics, lip sync,
 *     pose, expression and fingers controllers (sections 12 to 14 and 9a: their settings,
 *     rigs, libraries and columns; fingers: custom_fix or bind_landmarks and
 *     bind_rotations), and appends each rig's lod_interval (u32) and lod_every_tick (u64)
 *     to its settings and three columns to its rows (interval, elapsed time, phase counter;
 *     section 8a); versions 2 to 4 hold none of these (one that claims such a rig is
 *     refused) and load with every instance at interval 1. Version 6 appends the fingers'
 *     joint limits (joint_limits, mcp/pip/dip_min/max) to the fingers' settings; a version 5
 *     rig with fingers loads with joint_limits off, as it was solved when saved.
 *     A snapshot is loaded in a scratch engine and checked whole; an allocation failure on
 *     the way returns CROWD_ERR_OUT_OF_MEMORY (never CROWD_ERR_BAD_SNAPSHOT) and frees what
 *     the load allocated. The engine takes the saved handle tag (see 1).
 * ---------------------------------------------------------------------------------------- */
/* Bytes crowd_snapshot_save will write now. Errors: CROWD_ERR_NULL (engine, out_size). */
CROWD_API crowd_result crowd_snapshot_size(const crowd_engine *engine, size_t *out_size);
/* Writes the snapshot (out_written may be NULL). Errors: CROWD_ERR_NULL (engine, buffer),
 * CROWD_ERR_CAPACITY (capacity is short: nothing written). */
CROWD_API crowd_result crowd_snapshot_save(const crowd_engine *engine, void *buffer, size_t capacity,
                                 size_t *out_written);
/* Replaces the engine's state with the snapshot's, or changes nothing on error. Allocates.
 * Errors: CROWD_ERR_NULL (engine, data), CROWD_ERR_BAD_SNAPSHOT (anything wrong with the
 * bytes, a rig's settings or a value included), CROWD_ERR_CAPACITY (65535 engines are live,
 * so the scratch engine cannot be made), CROWD_ERR_OUT_OF_MEMORY. */
CROWD_API crowd_result crowd_snapshot_load(crowd_engine *engine, const void *data, size_t size);
/* FNV-1a 64 of the rig's settings as a snapshot stores them (name, parameters, controller
 * settings; not its instances): rigs created from equal descs have equal digests, in any
 * engine. A host checks with it that a loaded snapshot holds the rigs it expects. Errors:
 * CROWD_ERR_NULL (engine, out_digest), CROWD_ERR_HANDLE (rig). */
CROWD_API crowd_result crowd_rig_settings_digest(const crowd_engine *engine, crowd_rig rig, uint64_t *out_digest);


/* ------------------------------------------------------------------------------------------
 * 15. Motions (Live2D motion3; order 100: the first stage of the tick, before every other
 *     controller, as the Cubism SDK for Unity orders it: motion 100, pose 200, expression 300,
 *     blink 400, face tracking and lip sync 500, harmonic 600, look 700, physics 800).
 *
 *     A rig with a motion controller holds a motion library (crowd_motion_desc): every clip's
 *     curves stored once, in the rig, shared by all its instances; an instance holds only its
 *     playback state. Each instance plays the way the Cubism Framework (5-r.4) plays one model
 *     (CubismMotionManager and CubismMotion, MotionBehavior_V2), which golden traces of the
 *     real framework check (tests/test_motion_engine.c):
 *     - Clock. Each instance has its own manager time in double: every tick adds dt*speed
 *       (CROWD_FIELD_MOTION_SPEED). crowd_tick's float dt is widened exactly; crowd_tick_exact
 *       takes the double a host's frame clock has (the framework's accumulated 1/30 often lands
 *       a few ulps below a key, which moves a stepped jump by one frame: only a double dt
 *       reproduces that).
 *     - Start (crowd_motion_start). The reserve rule: a start with priority idle or normal
 *       plays only when its priority is above the instance's reserved and current priorities
 *       (CubismMotionManager.reserveMotion); force always plays. Starting makes every entry
 *       already playing fade out (over its own fade-out time, from the next tick); the new one
 *       starts at the instance's next tick, with weight 0 on that tick (time starts there).
 *       An instance holds at most CROWD_MOTION_QUEUE entries (the framework's queue grows
 *       without bound): a start into a full queue drops the oldest, still fading, entry.
 *     - Per tick, each entry in start order: fade weight w = weight * ease((now - fade start) /
 *       fade_in) * ease((end - now) / fade_out) (ease(x) = 0.5 - 0.5 cos(pi x), x clamped to
 *       [0, 1]; a fade time of 0 gives 1; the fade-out factor is 1 while no end is set), every
 *       Parameter curve: v = source + (curve(t) - source) * w, clamped to the parameter's
 *       range, where source is the motion result the instance kept from the last tick (not the
 *       base: for the parameters any clip of the library animates, the motion result replaces
 *       the base value, and it stays after a motion ends). A curve with its own FadeInTime or
 *       FadeOutTime uses weight * fin * fout with those times instead (< 0: the clip's).
 *     - Curves: the first segment whose end is after t; linear, bezier (de Casteljau at linear
 *       time when the clip's beziers are restricted, else the time curve solved for t with the
 *       framework's choice among the cubic's roots), stepped, inverse stepped (the end value).
 *       crowd_rig_create turns each varying curve into pieces of cubics in time, found from a
 *       grid of the clip's time: linear, stepped and restricted bezier segments exactly (the
 *       same formula, rearranged), unrestricted ones cut until every piece is within 1e-7 of
 *       the larger of 1 and the segment's largest |value| of the framework's solved curve
 *       (about the float32 result's own rounding; a segment shorter than 1e-9 s holds its first
 *       value). So a tick evaluates no cubic root, and the segment found is the framework's.
 *       When an instance plays one entry of a clip without EyeBlink or LipSync curves, whose
 *       Parameter curves have no fades of their own and animate distinct parameters, its
 *       blends are done eight instances at a time: the same operations, the same results.
 *       Loops last duration + 1/fps and return linearly from the last point to the first in
 *       that last 1/fps; each loop restarts the fade-in when loop_fade_in is set.
 *     - Model curves. EyeBlink multiplies the motion's curves of the library's eye_blink_ids
 *       and sets the others (blended with w); LipSync adds likewise to lip_sync_ids; Opacity
 *       sets CROWD_FIELD_MOTION_OPACITY.
 *     - PartOpacity curves write the pseudo-parameter of their part id, unblended (as the
 *       framework writes a not-exist parameter); the pose controller (order 200) reads them
 *       there to pick each group's visible part. Parameter curves whose id is no parameter of
 *       the rig write their blended value to a pseudo-parameter too (unclamped). Pseudo-
 *       parameters are CROWD_FIELD_MOTION_PSEUDO, one index per distinct id
 *       (crowd_rig_motion_pseudo_index), in float32. When the rig has a pose (section 14), the
 *       pseudo-parameter of a pose part's id is that part's CROWD_FIELD_PART_PARAMETER: one
 *       value, which the motion writes and the pose reads in the same tick.
 *     - End. A non-looping entry ends at start + duration and then plays no more; the values
 *       it left stay. When nothing plays and the library has an idle group, the tick starts one
 *       of its clips (chosen by the instance's own seeded draw, the sample app's random idle)
 *       with priority idle, no loop, and, as the sample app, runs no update in that tick (the
 *       clock stands still too).
 *     - Events (user data) fire when before < time <= now in motion time, again every loop;
 *       crowd_motion_events collects them.
 *     - Blink: CROWD_FIELD_MOTION_UPDATED is 1 on a tick where any entry updated the
 *       instance; the Cubism samples run auto-blink only when it is 0 (see the blink
 *       controller).
 *     Every value is computed in double per instance (time, curve, fades), rounded to float32
 *     once when stored, as the framework's Float32Array does: parameters within 1e-5 of their
 *     range of the framework on every golden case (in fact within 1.2e-7). The stage runs
 *     instance by instance (each lane's own control flow, never another lane's), allocates
 *     nothing, uses only +, -, * and / (its cosine is its own), so it gives the same bits on
 *     every SIMD target, split and thread count. The playback state is part of the snapshot.
 * ---------------------------------------------------------------------------------------- */
/* ---- motions (section 15): a rig's library of Live2D motion3 clips ---- */
#define CROWD_MOTION_QUEUE 2u             /* entries an instance plays at once */
#define CROWD_MOTION_EVENTS_PER_TICK 4u   /* events an instance keeps per tick */
#define CROWD_MAX_MOTIONS 65536u          /* clips in a library */
#define CROWD_MAX_MOTION_CURVES 65536u    /* curves of one clip */
#define CROWD_MAX_MOTION_SEGMENTS (1u << 22) /* segments of one clip */
#define CROWD_MAX_MOTION_POINTS (1u << 24)   /* points of one clip */
#define CROWD_MAX_MOTION_EVENTS 65536u    /* events of one clip */
#define CROWD_MAX_MOTION_SECONDS 1e6      /* duration, fades, times */

typedef enum crowd_motion_segment {
    CROWD_MOTION_SEGMENT_LINEAR = 0,  /* points p, p+1 */
    CROWD_MOTION_SEGMENT_BEZIER,      /* points p .. p+3 */
    CROWD_MOTION_SEGMENT_STEPPED,     /* points p, p+1: the start value */
    CROWD_MOTION_SEGMENT_INVERSE_STEPPED, /* points p, p+1: the end value */
    CROWD_MOTION_SEGMENT_COUNT
} crowd_motion_segment;

typedef enum crowd_motion_target {
    CROWD_MOTION_TARGET_MODEL = 0,    /* id "EyeBlink", "LipSync" or "Opacity" (others are kept
                                         and ignored, as the framework does) */
    CROWD_MOTION_TARGET_PARAMETER,    /* a parameter id (a pseudo-parameter when the rig has none) */
    CROWD_MOTION_TARGET_PART_OPACITY, /* a part id: its pseudo-parameter */
    CROWD_MOTION_TARGET_COUNT
} crowd_motion_target;

typedef struct crowd_motion_point { double time, value; } crowd_motion_point;

typedef struct crowd_motion_curve {
    const char *id;                /* copied */
    crowd_motion_target target;
    double fade_in, fade_out;      /* the curve's own FadeInTime/FadeOutTime; < 0: the clip's */
    uint32_t first_segment, segment_count; /* segment_count >= 1 */
} crowd_motion_curve;

/* One motion3 file as the Cubism Framework reads it (the same layout as the file's flattened
 * CubismMotionData): curves index runs of segments, segments their first point; consecutive
 * segments of a curve share their joining point (a segment's first point is the previous one's
 * last). Curves come in target order Model, Parameter, PartOpacity (the framework's update
 * loops stop at the first curve out of that order). Point times within a curve must not
 * decrease from segment to segment (a segment's end is after its start or at it). */
typedef struct crowd_motion_clip {
    double duration;           /* Meta.Duration, > 0 */
    double fps;                /* Meta.Fps, > 0: a loop lasts duration + 1/fps */
    bool beziers_restricted;   /* Meta.AreBeziersRestricted */
    double fade_in, fade_out;  /* the fades to play with, >= 0 (the model3 entry's FadeInTime and
                                  FadeOutTime when set, else Meta's, else 1) */
    uint32_t curve_count, segment_count, point_count, event_count;
    const crowd_motion_curve *curves;
    const uint8_t *segment_types;   /* crowd_motion_segment per segment */
    const uint32_t *segment_points; /* each segment's first point */
    const crowd_motion_point *points;
    const double *event_times;      /* UserData times, file order (the host keeps the values) */
} crowd_motion_clip;

/* A rig's motion library. Everything is copied by crowd_rig_create. */
typedef struct crowd_motion_desc {
    const crowd_motion_clip *clips;
    uint32_t clip_count;                /* at most CROWD_MAX_MOTIONS */
    const char *const *eye_blink_ids;   /* model3 Groups "EyeBlink": parameters of the rig */
    uint32_t eye_blink_count;           /* at most 64 (the framework's flag bits) */
    const char *const *lip_sync_ids;    /* model3 Groups "LipSync": parameters of the rig */
    uint32_t lip_sync_count;            /* at most 64 */
    const uint32_t *idle_clips;         /* the idle group: clip indices; none: an instance whose
                                           motions ended keeps their last values */
    uint32_t idle_count;
    bool loop_idle;                     /* an idle clip started by the tick loops (default false:
                                           the sample app plays it once, then draws the next) */
} crowd_motion_desc;
/* No clips, no ids, no idle group, idle clips not looping. */
CROWD_API crowd_motion_desc crowd_motion_defaults(void);


typedef enum crowd_motion_priority {
    CROWD_MOTION_PRIORITY_NONE = 0, CROWD_MOTION_PRIORITY_IDLE, CROWD_MOTION_PRIORITY_NORMAL,
    CROWD_MOTION_PRIORITY_FORCE, CROWD_MOTION_PRIORITY_COUNT
} crowd_motion_priority;
/* "none", "idle", "normal", "force"; NULL out of range. Parse: CROWD_ERR_NULL, CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_motion_priority_name(crowd_motion_priority value);
CROWD_API crowd_result crowd_motion_priority_parse(const char *name, crowd_motion_priority *out);

typedef struct crowd_motion_start_desc {
    uint32_t clip;                  /* index in the rig's library */
    crowd_motion_priority priority; /* idle, normal or force (default normal) */
    bool loop;                      /* play forever (default false) */
    bool loop_fade_in;              /* each loop fades in again (default true, the framework's) */
    double fade_in, fade_out;       /* < 0 (default -1): the clip's; else at most 1e6 s */
    double offset;                  /* seconds into the clip at its first tick, >= 0 (default 0) */
} crowd_motion_start_desc;
CROWD_API crowd_motion_start_desc crowd_motion_start_defaults(uint32_t clip);

/* Starts desc's clip on each instance (all of one rig with a motion controller) where the
 * reserve rule lets it (above). out_started (may be NULL) receives whether it did, per handle.
 * Everything is checked before anything changes. Errors: CROWD_ERR_NULL (engine, desc, handles
 * with a nonzero count), CROWD_ERR_HANDLE, CROWD_ERR_NO_CONTROLLER (a rig without motions),
 * CROWD_ERR_BAD_ENUM (priority none or unknown), CROWD_ERR_RANGE (clip beyond the library,
 * a fade above 1e6, an offset outside [0, 1e6]), CROWD_ERR_NOT_FINITE (fade, offset). */
CROWD_API crowd_result crowd_motion_start(crowd_engine *engine, const crowd_instance *handles, uint32_t count,
                                          const crowd_motion_start_desc *desc, bool *out_started);
/* CubismMotionManager.reserveMotion on each instance: reserves `priority` when it is above the
 * reserved and the current priority (out_reserved, may be NULL, says where). The errors of
 * crowd_motion_start (priority idle, normal or force). */
CROWD_API crowd_result crowd_motion_reserve(crowd_engine *engine, const crowd_instance *handles, uint32_t count,
                                            crowd_motion_priority priority, bool *out_reserved);

typedef struct crowd_motion_status {
    uint32_t playing;          /* entries in the queue (0: finished, as CubismMotionManager.isFinished) */
    int32_t clip;              /* the newest entry's clip, -1 when none */
    double time;               /* the newest entry's time in its clip (loop time when looping;
                                  0 before its first tick) */
    double clock;              /* the instance's manager time */
    crowd_motion_priority current, reserved;
} crowd_motion_status;
/* Errors: CROWD_ERR_NULL (engine, out), CROWD_ERR_HANDLE, CROWD_ERR_NO_CONTROLLER. */
CROWD_API crowd_result crowd_motion_status_get(const crowd_engine *engine, crowd_instance instance,
                                               crowd_motion_status *out);

/* The pseudo-parameter index of an id (a PartOpacity curve's part id, or a Parameter curve's id
 * that is no parameter of the rig) for CROWD_FIELD_MOTION_PSEUDO. Errors: CROWD_ERR_NULL
 * (engine, id, out_index), CROWD_ERR_HANDLE (rig), CROWD_ERR_NO_CONTROLLER,
 * CROWD_ERR_UNKNOWN_ID (no curve of the library writes that id). */
CROWD_API crowd_result crowd_rig_motion_pseudo_index(const crowd_engine *engine, crowd_rig rig, const char *id,
                                                     uint32_t *out_index);
/* Pseudo-parameters of the rig (0 for an invalid rig or one without motions). */
CROWD_API uint32_t crowd_rig_motion_pseudo_count(const crowd_engine *engine, crowd_rig rig);

/* One fired event: the instance, its clip, the index in the clip's event_times, and the
 * instance's manager time of the tick that fired it. */
typedef struct crowd_motion_event {
    crowd_instance instance;
    uint32_t clip, event;
    double time;
} crowd_motion_event;
/* The events of every running instance's last tick, rig by rig and row by row (each
 * instance's in firing order), into the caller's buffer: *out_count of them. Call it after
 * each crowd_tick (a tick clears each instance's events; crowd_tick_range only those of its
 * rows). Nothing is allocated. What is not reported is counted in *out_lost (may be NULL):
 * events beyond CROWD_MOTION_EVENTS_PER_TICK in one instance's tick, and events beyond
 * `capacity`. Errors: CROWD_ERR_NULL (engine, out_count, buffer with a nonzero capacity). */
CROWD_API crowd_result crowd_motion_events(const crowd_engine *engine, crowd_motion_event *buffer, uint32_t capacity,
                                           uint32_t *out_count, uint64_t *out_lost);

/* crowd_tick and crowd_tick_range with dt in double: the motion clocks advance by exactly dt
 * (times speed); every other controller takes dt rounded to float. Same errors. */
CROWD_API crowd_result crowd_tick_exact(crowd_engine *engine, double dt);
CROWD_API crowd_result crowd_tick_range_exact(crowd_engine *engine, double dt, crowd_rig rig, uint32_t first,
                                              uint32_t count);

/* ------------------------------------------------------------------------------------------
 * 14. Live2D pose (order 200) and expressions (order 300), as the Cubism Framework (5-r.4)
 *     plays them (its CubismPose and R5 CubismExpressionMotionManager; checked against the
 *     real framework's golden traces: tests/test_cubism_engine.c). The tick order is Cubism's:
 *     motion 100, pose 200, expression 300, blink 400, face 500, harmonic 600, look 700, then
 *     limbs. Every formula below is float32, unfused, branch-free across instances and the same
 *     bits on every target, split and thread count; the state is part of the snapshot.
 *
 *     Pose. Per instance and pose part k: a pseudo-parameter (CROWD_FIELD_PART_PARAMETER, an
 *     input: a motion's PartOpacity curve of part id X writes the pseudo-parameter of the
 *     pose part whose id is X, as the framework's curves write the not-exist parameter of
 *     that id; a host may write it too) and an opacity (CROWD_FIELD_PART_OPACITY, the output).
 *     An instance's first tick resets (CROWD_FIELD_POSE_RESET 1 -> 0): each part's
 *     pseudo-parameter and opacity become 1 for the first part of its group and 0 for the
 *     others, every link's pseudo-parameter 1. Then, each tick, per group:
 *       the visible part is the group's first whose pseudo-parameter is > 0.001;
 *         new = min(its opacity + dt/fade_in, 1);
 *       none: the framework's fallback, pose part 0 (of group 0 only) with new = 1, so in
 *         every other group all parts fade to 0;
 *       every other part of the group: a = new < 0.5 ? (new*(0.5 - 1))/0.5 + 1
 *                                                  : ((1 - new)*0.5)/(1 - 0.5);
 *         if (1 - a)*(1 - new) > 0.15: a = 1 - 0.15/(1 - new)   (the back-opacity cap);
 *         opacity = opacity > a ? a : opacity;
 *     then every link takes its part's opacity. Before an instance's first tick the opacities
 *     and pseudo-parameters hold the reset values.
 *
 *     Expressions. Starting an expression (crowd_expressions_start) asks every expression the
 *     instance plays to fade out and puts the new one in the next free slot of its queue
 *     (CROWD_EXPRESSION_SLOTS; when all are taken the oldest is dropped first: the framework's
 *     queue has no bound, four cover any change faster than the fade-in). Each tick, with
 *     ease(x) = 0.5 - 0.5*cos(pi*x) (0 for x <= 0, 1 for x >= 1) and, per filled slot in
 *     queue order (oldest first), its expression's fade times fi, fo:
 *       age = age < 0 ? 0 : age + dt;          fin = fi == 0 ? 1 : ease(age/fi)
 *       fade >= 0: fade = max(fade - dt, 0);   fout = fo == 0 || fade < 0 ? 1 : ease(fade/fo)
 *       w = fin*fout;  then a requested fade-out (-2) begins: fade = fo
 *       total = total + fin
 *     Per parameter the library names, with c its value when the stage begins (the output of
 *     the stages before) and the slot's a (its Add value, else 0), m (Multiply, else 1) and
 *     o (Overwrite value, else c): the first filled slot sets add = a, mul = m, over = o;
 *     each later one blends add = add*(1 - w) + a*w, mul = mul*(1 - w) + m*w and
 *     over = c*(1 - w) + o*w (the framework re-seeds its overwrite with c at every entry, so
 *     an older Overwrite stops at once when a newer expression starts). With
 *     W = min(total, 1)*CROWD_FIELD_EXPRESSION_WEIGHT and t = C((over + add)*mul) (section
 *     1's clamp or wrap), out = W == 1 ? t : c + (t - c)*W. Then, when more than one slot is
 *     filled and the newest one's w >= 1, the newest moves to slot 0 and the others empty.
 *     An instance with no filled slot is left alone. Differences from the framework, none
 *     visible in its traces: it computes in double; it touches only parameters of
 *     expressions played so far (the engine, every parameter of the library once one plays:
 *     t = c there, so only a base outside [min, max] comes out clamped); its weight blend is
 *     c*(1 - W) + t*W (the same value, here exact when t = c). An expression never ends by
 *     itself; to return to neutral, start one with no parameters. The expression playing is
 *     the last filled slot's.
 * ---------------------------------------------------------------------------------------- */
/* Live2D pose (Cubism pose3, order 200; section 14). Groups of parts of which one shows at a
 * time; each part may carry links, parts whose opacity copies its own. The pose's parts,
 * numbered for the fields CROWD_FIELD_PART_PARAMETER and CROWD_FIELD_PART_OPACITY: every
 * group's parts in order (group 0's first), then every part's links in the same order. Ids
 * (parts and links) are unique within the pose. */
typedef struct crowd_pose_part_desc {
    const char *id;               /* the part's id, non-empty */
    const char *const *links;     /* the pose3 Link ids */
    uint32_t link_count;
} crowd_pose_part_desc;
typedef struct crowd_pose_group_desc {
    const crowd_pose_part_desc *parts;
    uint32_t part_count;          /* at least 1 */
} crowd_pose_group_desc;
typedef struct crowd_pose_desc {
    const crowd_pose_group_desc *groups;
    uint32_t group_count;         /* the parts and links of all groups: at most CROWD_MAX_ENTRIES */
    float fade_in;                /* pose3 FadeInTime, s, in (0, 1e6]. Default 0.5 (the framework's
                                     when the file has none or <= 0) */
} crowd_pose_desc;
/* fade_in 0.5, no groups. */
CROWD_API crowd_pose_desc crowd_pose_defaults(void);

/* Live2D expressions (Cubism exp3, order 300; section 14 has the tick's rules). A rig holds a
 * library of expressions, stored once for all its instances; each instance plays one of them
 * and cross-fades into the next as the Cubism Framework's R5 expression manager does. */
typedef enum crowd_expression_blend {
    CROWD_EXPRESSION_ADD = 0,   /* exp3 "Add" (also when Blend is absent) */
    CROWD_EXPRESSION_MULTIPLY,  /* exp3 "Multiply" */
    CROWD_EXPRESSION_OVERWRITE, /* exp3 "Overwrite" */
    CROWD_EXPRESSION_BLEND_COUNT
} crowd_expression_blend;
/* "add", "multiply", "overwrite"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_expression_blend_name(crowd_expression_blend value);
CROWD_API crowd_result crowd_expression_blend_parse(const char *name, crowd_expression_blend *out);

/* One exp3 Parameters entry. An id that names no parameter of the rig is ignored, as the
 * framework ignores it (it lands in the not-exist map nothing reads); when an expression
 * names a parameter twice, the first entry counts (the framework's search stops there). */
typedef struct crowd_expression_parameter_desc {
    const char *id;               /* non-NULL */
    float value;                  /* within +-1e18 */
    crowd_expression_blend blend;
} crowd_expression_parameter_desc;

/* One exp3 file. */
typedef struct crowd_expression_item_desc {
    const crowd_expression_parameter_desc *parameters;
    uint32_t parameter_count;     /* at most CROWD_MAX_ENTRIES */
    float fade_in, fade_out;      /* FadeInTime/FadeOutTime, s, in [0, 1e6] (0: no fade); a negative
                                     value takes the desc's (the framework's 1 when exp3 has none) */
} crowd_expression_item_desc;

#define CROWD_EXPRESSION_SLOTS 4 /* expressions one instance plays (fades) at once: section 14 */
typedef struct crowd_expression_desc {
    const crowd_expression_item_desc *expressions; /* the library: expression k is index k */
    uint32_t expression_count;    /* at most CROWD_MAX_ENTRIES, and expression_count times the
                                     number of distinct parameters they name at most 2^22 */
    float fade_in, fade_out;      /* s, in [0, 1e6]: for items whose own are negative. Default 1, 1 */
} crowd_expression_desc;
/* fade_in 1, fade_out 1, no expressions. */
CROWD_API crowd_expression_desc crowd_expression_defaults(void);

/* Starts library expression `expression` on each instance (as above; it begins at the next
 * tick). All handles are checked before any changes. Errors: CROWD_ERR_NULL (engine, handles
 * with a nonzero count), CROWD_ERR_HANDLE, CROWD_ERR_NO_CONTROLLER (a handle's rig has no
 * expression controller), CROWD_ERR_RANGE (expression beyond a handle's rig's library). */
CROWD_API crowd_result crowd_expressions_start(crowd_engine *engine, const crowd_instance *handles, uint32_t count,
                                               uint32_t expression);

/* ---- blink (order 400) ---- */
typedef enum crowd_blink_model {
    CROWD_BLINK_SINE = 0, /* |sin| closing and opening (Cubism's EyeBlink) */
    CROWD_BLINK_TIMED,    /* linear phases 1.0/0.5/1.5 scaled time (Unity R5 auto blink) */
    CROWD_BLINK_MODEL_COUNT
} crowd_blink_model;
/* "sine", "timed"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_blink_model_name(crowd_blink_model value);
CROWD_API crowd_result crowd_blink_model_parse(const char *name, crowd_blink_model *out);

/* Automatic eye blink. eye_opening is blended into every blink parameter every tick. */
typedef struct crowd_blink_desc {
    const char *const *parameters; /* parameter ids, e.g. ParamEyeLOpen, ParamEyeROpen */
    uint32_t parameter_count;
    crowd_blink_model model;
    crowd_blend blend;   /* default multiply */
    float mean;          /* mean idle wait, s, in [0, 1e6]. Default 2.5 */
    float max_deviation; /* s, in [0, 1e6]. Default 2 */
    float timescale;     /* in (0, 1e6]. Default 10 */
} crowd_blink_desc;
/* sine, blend multiply, mean 2.5, max_deviation 2, timescale 10, no parameters. */
CROWD_API crowd_blink_desc crowd_blink_defaults(void);

/* ------------------------------------------------------------------------------------------
 * 11. Face tracking (order 500: after blink, before harmonic and look; the numbers are
 *     Cubism's update order, so a face drives what auto-blink wrote and breathing and gaze
 *     still add on top). Per instance: the 52 scores (CROWD_FIELD_FACE_SCORES), the head
 *     rotation (CROWD_FIELD_FACE_ROTATION), a presence (CROWD_FIELD_FACE_PRESENCE), written
 *     in bulk with crowd_instances_set (checked) or zero-copy through crowd_rig_columns (not
 *     checked: keep to the rules). Each tick, all float32, unfused, the same on every target:
 *
 *     Hand-off. k = exp2f(-(dt/handoff_half_life)) once a tick; per instance
 *       goal = presence > presence_threshold ? 1 : 0
 *       control = goal + (control - goal)*k, and control = goal once |control - goal| < 2^-10
 *     The face blends with weight w = FACE_WEIGHT*control. So while a face is present control
 *     rises to 1 and the face takes over; when presence drops it eases back to the automatic
 *     controllers, halfway per half-life. A parameter that is also a blink parameter blends
 *     with override whatever `blend` says, so at control 1 the face alone opens and closes the
 *     eyes (a tracked face never blinks twice), and between, every eye value lies between the
 *     blink's and the face's: out = B*(1 - w) + F*w, clamped.
 *
 *     Head pose. From the unit rotation q = (x, y, z, w), the matrix entries
 *       R02 = 2(xz + wy), R22 = 1 - 2(xx + yy), R12 = 2(yz - wx), R10 = 2(xy + wz),
 *       R11 = 1 - 2(xx + zz), R00 = 1 - 2(yy + zz), R20 = 2(xz - wy)
 *     (each sum left to right) give R = Ry(yaw)*Rx(pitch)*Rz(roll) (roll applied first, as
 *     Unity's Euler angles), camera space of MediaPipe's face geometry (+x image right, +y up,
 *     +z toward the camera):
 *       c = sqrt(R02*R02 + R22*R22);  pitch = atan2(-R12, c)
 *       c >= 2^-10:  yaw = atan2(R02, R22),  roll = atan2(R10, R11)
 *       c <  2^-10 (within 0.06 degrees of straight up or down, gimbal lock): roll = 0,
 *                    yaw = atan2(-R20, R00) (the angles then rebuild the rotation within
 *                    2c radians, at most 0.12 degrees)
 *     in degrees (times 57.2957802f). Positive yaw turns the nose toward +x, positive pitch
 *     tilts it down (toward -y), positive roll turns the top of the head toward -x. atan2 is
 *     the engine's own (Cephes atanf's odd polynomial on [0, tan(pi/8)] after one reduction,
 *     mul, add and div only). Against these formulas in double on the same quaternion, pitch
 *     is within 1e-6 radians and yaw and roll within 1e-6 + 1e-6/c (tests/test_face.c checks
 *     it on random and gimbal-near rotations; measured max 1e-6 rad where c > 0.1).
 *
 *     Smoothing. Each source in smoothed_sources goes through the One Euro filter of section 9
 *     (MediaPipe's: derivative from the last raw value; dt = 0 keeps the filtered value; the
 *     first tick passes the sample). Head angles are filtered as angles.
 *
 *     Mapping. Per entry v = offset + gain*c(source) (smoothed where asked); per parameter the
 *     sum of its entries, blended with weight w by `blend` (override for blink parameters).
 *
 *     Branch-free across lanes, bit-identical on every target, split and thread count, part of
 *     the snapshot (scores, rotation, presence, weight, control and the filter state).
 * ---------------------------------------------------------------------------------------- */

/* Face tracking (section 11 has the whole story): MediaPipe face landmarker results — 52
 * blend-shape scores and the head rotation — mapped onto parameters, order 500. */
#define CROWD_FACE_SCORE_COUNT 52 /* blend shapes, in MediaPipe's order */
typedef enum crowd_face_source {
    /* the 52 blend-shape scores, in [0, 1], numbered as MediaPipe's face landmarker lists them */
    CROWD_FACE_NEUTRAL = 0, CROWD_FACE_BROW_DOWN_LEFT, CROWD_FACE_BROW_DOWN_RIGHT, CROWD_FACE_BROW_INNER_UP,
    CROWD_FACE_BROW_OUTER_UP_LEFT, CROWD_FACE_BROW_OUTER_UP_RIGHT, CROWD_FACE_CHEEK_PUFF,
    CROWD_FACE_CHEEK_SQUINT_LEFT, CROWD_FACE_CHEEK_SQUINT_RIGHT, CROWD_FACE_EYE_BLINK_LEFT,
    CROWD_FACE_EYE_BLINK_RIGHT, CROWD_FACE_EYE_LOOK_DOWN_LEFT, CROWD_FACE_EYE_LOOK_DOWN_RIGHT,
    CROWD_FACE_EYE_LOOK_IN_LEFT, CROWD_FACE_EYE_LOOK_IN_RIGHT, CROWD_FACE_EYE_LOOK_OUT_LEFT,
    CROWD_FACE_EYE_LOOK_OUT_RIGHT, CROWD_FACE_EYE_LOOK_UP_LEFT, CROWD_FACE_EYE_LOOK_UP_RIGHT,
    CROWD_FACE_EYE_SQUINT_LEFT, CROWD_FACE_EYE_SQUINT_RIGHT, CROWD_FACE_EYE_WIDE_LEFT, CROWD_FACE_EYE_WIDE_RIGHT,
    CROWD_FACE_JAW_FORWARD, CROWD_FACE_JAW_LEFT, CROWD_FACE_JAW_OPEN, CROWD_FACE_JAW_RIGHT, CROWD_FACE_MOUTH_CLOSE,
    CROWD_FACE_MOUTH_DIMPLE_LEFT, CROWD_FACE_MOUTH_DIMPLE_RIGHT, CROWD_FACE_MOUTH_FROWN_LEFT,
    CROWD_FACE_MOUTH_FROWN_RIGHT, CROWD_FACE_MOUTH_FUNNEL, CROWD_FACE_MOUTH_LEFT, CROWD_FACE_MOUTH_LOWER_DOWN_LEFT,
    CROWD_FACE_MOUTH_LOWER_DOWN_RIGHT, CROWD_FACE_MOUTH_PRESS_LEFT, CROWD_FACE_MOUTH_PRESS_RIGHT,
    CROWD_FACE_MOUTH_PUCKER, CROWD_FACE_MOUTH_RIGHT, CROWD_FACE_MOUTH_ROLL_LOWER, CROWD_FACE_MOUTH_ROLL_UPPER,
    CROWD_FACE_MOUTH_SHRUG_LOWER, CROWD_FACE_MOUTH_SHRUG_UPPER, CROWD_FACE_MOUTH_SMILE_LEFT,
    CROWD_FACE_MOUTH_SMILE_RIGHT, CROWD_FACE_MOUTH_STRETCH_LEFT, CROWD_FACE_MOUTH_STRETCH_RIGHT,
    CROWD_FACE_MOUTH_UPPER_UP_LEFT, CROWD_FACE_MOUTH_UPPER_UP_RIGHT, CROWD_FACE_NOSE_SNEER_LEFT,
    CROWD_FACE_NOSE_SNEER_RIGHT,
    /* the head's Euler angles in degrees, from CROWD_FIELD_FACE_ROTATION (section 11) */
    CROWD_FACE_HEAD_YAW = CROWD_FACE_SCORE_COUNT, CROWD_FACE_HEAD_PITCH, CROWD_FACE_HEAD_ROLL,
    CROWD_FACE_SOURCE_COUNT
} crowd_face_source;
/* The bit of a source in crowd_face_desc.smoothed_sources. */
#define CROWD_FACE_SOURCE_BIT(source) (1ull << (unsigned)(source))

typedef enum crowd_face_curve {
    CROWD_FACE_CURVE_LINEAR = 0, /* c(s) = s */
    CROWD_FACE_CURVE_SMOOTHSTEP, /* t = clamp(s, 0, 1); c(s) = (t*t)*(3 - 2*t): eases a score's ends */
    CROWD_FACE_CURVE_COUNT
} crowd_face_curve;
/* "linear", "smoothstep"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_face_curve_name(crowd_face_curve value);
CROWD_API crowd_result crowd_face_curve_parse(const char *name, crowd_face_curve *out);

/* One mapping entry: source -> parameter. Its value is offset + gain*c(source); the entries
 * naming one parameter add up (in the order given, from the first entry's value), and the sum
 * blends into the parameter once. */
typedef struct crowd_face_mapping_desc {
    crowd_face_source source;
    const char *id;         /* a parameter of the rig */
    float gain, offset;     /* within +-1e6 each */
    crowd_face_curve curve; /* default linear */
} crowd_face_mapping_desc;
/* source -> id with gain 1, offset 0, linear. */
CROWD_API crowd_face_mapping_desc crowd_face_mapping_defaults(crowd_face_source source, const char *id);

#define CROWD_FACE_STANDARD_MAPPING_COUNT 20
typedef struct crowd_face_desc {
    const crowd_face_mapping_desc *mapping; /* at most CROWD_MAX_ENTRIES entries */
    uint32_t mapping_count;
    crowd_blend blend;          /* default override; a parameter that is also a blink parameter
                                   always blends with override (the take-over, section 11) */
    float presence_threshold;   /* in [0, 1]: the face drives while presence > this. Default 0.5 */
    float handoff_half_life;    /* s, in (0, 3600]: control eases halfway between the face and the
                                   automatic controllers in this time. Default 0.1 */
    uint64_t smoothed_sources;  /* CROWD_FACE_SOURCE_BIT(s) for each source the One Euro filter
                                   smooths (bits beyond CROWD_FACE_SOURCE_COUNT refused). Default 0 */
    float min_cutoff, beta, d_cutoff; /* One Euro as the limbs run it (section 9): Hz in (0, 1e6];
                                   [0, 1e6]; Hz in (0, 1e6]. Default 1, 0, 1 (a 1 Hz low pass on
                                   each smoothed source until beta is tuned) */
} crowd_face_desc;
/* The standard mapping (CROWD_FACE_STANDARD_MAPPING_COUNT entries, for the standard Cubism
 * parameter set; all linear):
 *   headYaw -> ParamAngleX gain 1, headPitch -> ParamAngleY gain 1, headRoll -> ParamAngleZ
 *     gain 1 (degrees; the Cubism angles span [-30, 30], the blend clamps);
 *   eyeBlinkLeft -> ParamEyeLOpen, eyeBlinkRight -> ParamEyeROpen, gain -1 offset 1 (1 - score);
 *   ParamEyeBallX = 0.5*eyeLookOutLeft - 0.5*eyeLookInLeft + 0.5*eyeLookInRight
 *     - 0.5*eyeLookOutRight (+1: the eyes look toward the subject's left);
 *   ParamEyeBallY = 0.5*eyeLookUpLeft + 0.5*eyeLookUpRight - 0.5*eyeLookDownLeft
 *     - 0.5*eyeLookDownRight (+1: up);
 *   jawOpen -> ParamMouthOpenY gain 1;
 *   ParamMouthForm = 0.5*mouthSmileLeft + 0.5*mouthSmileRight;
 *   ParamBrowLY = browInnerUp - browDownLeft, ParamBrowRY = browInnerUp - browDownRight.
 * MediaPipe's Left/Right are the subject's; L/R parameters are the model's own left/right, so a
 * model faces the viewer as a mirror image would not: swap the entries for a mirror view. */
CROWD_API const crowd_face_mapping_desc *crowd_face_standard_mapping(void);
/* The standard mapping, blend override, threshold 0.5, half-life 0.1 s, no smoothing, One Euro
 * 1 / 0 / 1. A rig that lacks a standard parameter needs its own mapping (the tools bind the
 * standard entries a model has: crowd's Live2D import). */
CROWD_API crowd_face_desc crowd_face_defaults(void);
/* MediaPipe's categoryName of a score ("_neutral", "browDownLeft", ... "noseSneerRight"), then
 * "headYaw", "headPitch", "headRoll"; NULL for an unknown source. */
CROWD_API const char *crowd_face_source_name(crowd_face_source source);
/* The source named `name`; CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_face_source_parse(const char *name, crowd_face_source *out);
/* The rotation of a facial transformation matrix (MediaPipe's facialTransformationMatrixes:
 * 16 floats, column-major, the upper 3x3 a rotation times a uniform scale) as a unit
 * quaternion with w >= 0, computed in double and rounded once. CROWD_ERR_NULL, CROWD_ERR_NOT_FINITE,
 * CROWD_ERR_RANGE (columns of zero or unequal length beyond 1e-3 relative, not orthogonal
 * beyond 1e-3, or a reflection). */
CROWD_API crowd_result crowd_face_rotation_from_matrix(const float matrix[16], crowd_quat *out_rotation);

/* ------------------------------------------------------------------------------------------
 * 13. Lip sync (order 500, after face tracking, before harmonic). Per instance the mouth level
 *     CROWD_FIELD_LIPSYNC_LEVEL (0..1) the host writes each tick (crowd_lipsync_rms of its
 *     audio block, for one), added to each of the rig's LipSync parameters as the framework's
 *     addParameterValueById(id, level, weight): P = C(P + level*weight), weight 0.8 by default
 *     (crowd_lipsync_desc). The level is a setting column: while every instance holds 0 the
 *     tick reads no column.
 * ---------------------------------------------------------------------------------------- */

/* Lip sync (order 500, after face tracking; section 13): each instance's mouth level
 * (CROWD_FIELD_LIPSYNC_LEVEL, 0..1, e.g. crowd_lipsync_rms of the instance's audio) added to the
 * rig's LipSync parameters as the framework's addParameterValueById(id, level, weight):
 * P = C(P + level*weight). */
typedef struct crowd_lipsync_desc {
    const char *const *parameters; /* parameter ids (model3's LipSync group, e.g. ParamMouthOpenY) */
    uint32_t parameter_count;
    float weight;                  /* in [0, 1000]. Default 0.8 (the Cubism samples') */
} crowd_lipsync_desc;
/* weight 0.8, no parameters. */
CROWD_API crowd_lipsync_desc crowd_lipsync_defaults(void);

/* ------------------------------------------------------------------------------------------
 * Lip sync level. The level a host feeds a mouth from its audio, computed as the Cubism
 * samples' WAV handler (LAppWavFileHandler.update) does over one frame's block of samples:
 *   rms = sqrt(sum of sample^2 over every channel and frame / (channels * frames))
 * samples: `frames` frames of `channels` interleaved float samples, in the handler's scale
 * (a 16-bit sample s is (s * 65536) / 2147483647 rounded to float, 8-bit (u - 128) * 2^24 /
 * 2147483647, 24-bit s * 256 / 2147483647). The squares are summed in double (each is exact
 * there) in a fixed order of eight partial sums, so the result, rounded to float once, is the
 * same on every target and equals the handler's double result rounded to float (checked
 * against the framework's traces: tests/test_lipsync_golden.c). The framework then adds
 * rms * 0.8 to each LipSync parameter. Allocates nothing, reads only the block.
 * An empty block (frames or channels 0, or samples NULL) gives 0 (the handler divides 0 by 0
 * there); a non-finite sum gives 0, never NaN. */
CROWD_API float crowd_lipsync_rms(const float *samples, size_t frames, uint32_t channels);

/* ---- harmonic (order 600) ---- */
typedef enum crowd_direction {
    CROWD_DIRECTION_CENTRIC = 0, CROWD_DIRECTION_LEFT, CROWD_DIRECTION_RIGHT, CROWD_DIRECTION_COUNT
} crowd_direction;
/* "centric", "left", "right"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_direction_name(crowd_direction value);
CROWD_API crowd_result crowd_direction_parse(const char *name, crowd_direction *out);

/* Harmonic sine (Cubism HarmonicMotion): value = origin + range*sin(2*pi*T/duration). */
typedef struct crowd_harmonic_parameter_desc {
    const char *id;
    uint32_t channel;          /* index into channel_timescales */
    crowd_direction direction; /* default centric */
    float origin;              /* NO, fraction of [min, max], within +-1000, default 0.5 */
    float range;               /* NR, fraction of max - min, within +-1000, default 0.5 */
    float duration;            /* D, seconds, > 0, default 3 */
} crowd_harmonic_parameter_desc;
/* channel 0, centric, origin 0.5, range 0.5, duration 3, with the given id. */
CROWD_API crowd_harmonic_parameter_desc crowd_harmonic_parameter_defaults(const char *id);

#define CROWD_MAX_CHANNELS 16
typedef struct crowd_harmonic_desc {
    const crowd_harmonic_parameter_desc *parameters;
    uint32_t parameter_count;
    const float *channel_timescales; /* finite, >= 0, and at most 65536 * the duration of every
                                        entry on the channel; NULL with count 0 means [1].
                                        T wraps by SPEC §3's `while T > D: T = T - D`, bounded
                                        by construction: at most 4 rounds (all a tick covering
                                        up to 4 periods needs), then, if T is still above D,
                                        one step T - floor(T/D)*D clamped into [0, D], every
                                        operation IEEE single and unfused: the same bits on
                                        every target, at most 5 steps per row and tick */
    uint32_t channel_count;          /* at most CROWD_MAX_CHANNELS */
    crowd_blend blend;
} crowd_harmonic_desc;
/* blend additive, no entries, no channel_timescales (one channel at timescale 1). */
CROWD_API crowd_harmonic_desc crowd_harmonic_defaults(void);

/* ---- look (order 700) ---- */
typedef enum crowd_axis { CROWD_AXIS_X = 0, CROWD_AXIS_Y, CROWD_AXIS_Z, CROWD_AXIS_COUNT } crowd_axis;
/* "x", "y", "z"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_axis_name(crowd_axis value);
CROWD_API crowd_result crowd_axis_parse(const char *name, crowd_axis *out);

/* Gaze (Cubism LookAt with Unity's Vector3.SmoothDamp). Parameter k receives pos[axis]*factor. */
typedef struct crowd_look_parameter_desc {
    const char *id;
    crowd_axis axis;
    float factor; /* within +-1e6. Default 1 */
} crowd_look_parameter_desc;
/* id, axis x, factor 1. */
CROWD_API crowd_look_parameter_desc crowd_look_parameter_defaults(const char *id);

typedef struct crowd_look_desc {
    const crowd_look_parameter_desc *parameters;
    uint32_t parameter_count;
    float damping;    /* smoothTime in seconds, in [0, 1e6] (0 acts as 0.0001). Default 0.15 */
    float max_speed;  /* > 0; +INFINITY for no limit (the default) */
    crowd_blend blend;
} crowd_look_desc;
/* damping 0.15, max_speed +inf, blend additive, no parameters. */
CROWD_API crowd_look_desc crowd_look_defaults(void);

/* ------------------------------------------------------------------------------------------
 * 12. Physics (order 800: after look, as in Cubism's update order, so the pendulums swing
 *     with the angles the other controllers wrote). A rig's crowd_physics_desc (section 4) is
 *     Cubism's physics3 rig; each instance keeps its own pendulums and steps them as the Cubism
 *     Framework's CubismPhysics.evaluate (5-r.4) does, every operation in float32, unfused,
 *     with the engine's own sin, cos and atan2 (the same bits on every target):
 *     - dt = 0 changes and writes nothing (the outputs keep what the earlier controllers
 *       wrote). Otherwise, with fps > 0: remain += dt; remain > 5 s resets it to 0; while
 *       remain >= 1/fps one step of 1/fps whose inputs are the input caches interpolated
 *       toward the current values by w = (1/fps)/remain (the caches then hold them; the first
 *       evaluation starts them at the current values), remain -= 1/fps; the written result is
 *       the last two steps' results interpolated by alpha = remain*fps. Without fps: one step
 *       of dt per tick on the current values, the written result the previous step's (one
 *       step of lag, alpha 0), remain always 0. Nothing is written before the first step.
 *     - A step, per sub-rig in order: each input's parameter value clamped to its range,
 *       normalised around the range's midpoint into Normalization.Position (X, Y) or .Angle,
 *       times weight/100 (negated unless reflect), summed per type; the translation rotated by
 *       -angle degrees (the new x used for y); particle 0 moved there and each later particle
 *       swung as the framework's updateParticles (its direction turned by the change of the
 *       gravity angle / 5, plus velocity*delay and (gravity direction*acceleration +
 *       wind)*delay^2 with delay = Delay*step*30, normalised to its radius, an x within
 *       0.001*Normalization.Position.Maximum snapped to 0, velocity = movement/delay*mobility).
 *       The chain is kept as particle 0's position and each particle's offset from its parent
 *       (the same arithmetic, and float32 keeps a segment's direction better so). An output
 *       reads its vertex: Angle = the turn from the parent segment (from -gravity for vertex
 *       1) to its segment in radians (X and Y read 0: the framework scales them by 0), then
 *       value*scale*strength*physics_strength clamped to the parameter's range and blended by
 *       weight/100 over the current value (into the caches within a step, into the outputs at
 *       the end).
 *     - Wind: the rig's wind times the instance's physics_wind times (1 + wind_gust*
 *       sin(2*pi*phase)); the phase (physics_wind_phase, drawn per instance when it is added)
 *       advances by dt/gust_period each tick with dt > 0, wrapping at 1.
 *     Against the framework's traces (Hiyori, Haru, Mao at 1/60, 1/30 and an irregular dt;
 *     tests/test_cubism_controllers.c on every target) Haru and Mao agree within 8e-7 of each
 *     output's range; Hiyori's 10-particle chains with an angle scale of 30 within 1e-5 over the
 *     first 60 frames and 4e-5 mostly, with excursions to 1.6e-4 where the movement threshold
 *     snaps a particle in float32 and double alike. The state per instance: 4 floats per
 *     particle after a sub-rig's first, 3 per sub-rig, 1 per output (2 with fps), 1 per input
 *     parameter with fps, and 5 (multipliers, phase, remaining time, stage): crowd_rig_bytes_per_instance
 *     has them. Branch-free across lanes (the fixed-step loop runs while any lane has a step
 *     to take, the others masked), allocation-free, part of the snapshot.
 * ---------------------------------------------------------------------------------------- */

/* Cubism physics (section 12 has the whole story): a .physics3.json rig as plain data, read once
 * per rig (the tools fill it from the file, io/live2d/physics3.c), with the controller's settings.
 * The rig's numbers are the file's, as double (the framework keeps JS doubles; the engine rounds
 * each to float once, at rig creation); ids are parameter ids of the rig. crowd_rig_create
 * copies all of it. */
#define CROWD_PHYSICS_MAX_SUBRIGS 1024u   /* subrig_count */
#define CROWD_PHYSICS_MAX_INPUTS 64u      /* inputs per sub-rig */
#define CROWD_PHYSICS_MAX_OUTPUTS 64u     /* outputs per sub-rig */
#define CROWD_PHYSICS_MAX_PARTICLES 64u   /* particles per sub-rig */
#define CROWD_PHYSICS_MAX_INPUT_PARAMETERS 64u /* distinct parameters a rig's inputs read */
#define CROWD_PHYSICS_MAX_FPS 1000.0
#define CROWD_PHYSICS_MAX_NUMBER 1e6      /* every number of the rig is within +-this */

/* An input's or output's kind: the physics3 "Type" "X", "Y" or "Angle". */
typedef enum crowd_physics_type {
    CROWD_PHYSICS_X = 0,
    CROWD_PHYSICS_Y = 1,
    CROWD_PHYSICS_ANGLE = 2,
    CROWD_PHYSICS_TYPE_COUNT
} crowd_physics_type;

typedef struct crowd_physics_input {
    const char *parameter;   /* Source.Id: a parameter of the rig */
    double weight;           /* Weight, in percent, [0, 100] */
    crowd_physics_type type;
    int reflect;             /* Reflect: 1 keeps the normalised value's sign, 0 negates it (as the
                                framework) */
} crowd_physics_input;

typedef struct crowd_physics_output {
    const char *parameter; /* Destination.Id: a parameter of the rig */
    uint32_t vertex;       /* VertexIndex: 1 .. the sub-rig's particle_count - 1 */
    double scale;          /* Scale (the angle scale; the framework scales X and Y outputs by 0) */
    double weight;         /* Weight, in percent, [0, 100] */
    crowd_physics_type type;
    int reflect;
} crowd_physics_output;

typedef struct crowd_physics_particle {
    double mobility, delay, acceleration, radius; /* mobility, delay >= 0; radius > 0 after a
                                                     sub-rig's first particle */
    double position[2]; /* Position (x, y): read, unused by the framework's stepping */
} crowd_physics_particle;

typedef struct crowd_physics_range {
    double minimum, default_value, maximum; /* minimum <= maximum */
} crowd_physics_range;

/* One "PhysicsSettings" entry: its inputs, outputs and particles are the ranges
 * [first, first + count) of the desc's arrays; the sub-rigs take them in order (each first is
 * the previous sub-rig's first + count, from 0), and the counts add up to the desc's. */
typedef struct crowd_physics_subrig {
    uint32_t input_first, input_count;
    uint32_t output_first, output_count;
    uint32_t particle_first, particle_count; /* >= 1; >= 2 when it has outputs */
    crowd_physics_range position, angle;     /* Normalization.Position / .Angle */
} crowd_physics_subrig;

typedef struct crowd_physics_desc {
    uint32_t subrig_count, input_count, output_count, particle_count;
    const crowd_physics_subrig *subrigs;
    const crowd_physics_input *inputs;
    const crowd_physics_output *outputs;
    const crowd_physics_particle *particles;
    float fps;           /* Meta.Fps in [0, 1000]: fixed steps of 1/fps with interpolation; 0 (the
                            file has none): one step per tick. Default 0 */
    float gravity_x, gravity_y; /* the framework's Options.gravity (not the file's
                            EffectiveForces, which the framework reads and leaves unused): the
                            direction the first segment's angle output is measured from, within
                            +-1e6 each. Default (0, -1) */
    float wind_x, wind_y; /* Options.wind: a force on every particle, within +-1e6 each. Default
                            (0, 0) */
    float strength;      /* every output's value (after its scale, before the clamp) times this
                            and the instance's physics_strength (VTube Studio's physics
                            multiplier), in [0, 100]. Default 1 (the framework's numbers) */
    float wind_gust;     /* in [0, 1]: each instance's wind is the rig's times its physics_wind
                            times (1 + wind_gust*sin(2*pi*physics_wind_phase)), the phase drawn per
                            instance, so a crowd in one wind sways out of unison. Default 0 */
    float gust_period;   /* s, in (0, 3600]: the phase advances by dt/gust_period each tick.
                            Default 4 */
} crowd_physics_desc;
/* No rig (every count 0), fps 0, gravity (0, -1), wind (0, 0), strength 1, gust 0, period 4. */
CROWD_API crowd_physics_desc crowd_physics_defaults(void);

/* ------------------------------------------------------------------------------------------
 * 9. Limbs. For a rig with limbs, each tick (after the parameter controllers) solves 15 bones
 *    from the instance's 33 landmarks (CROWD_FIELD_POSE) and root (CROWD_FIELD_ROOT):
 *    limbs by cross products and LookRotation, torso and head from hips, shoulders, ears and
 *    nose, then the axis fix; world and local rotations are written to CROWD_FIELD_BONE_WORLD
 *    and CROWD_FIELD_BONE_LOCAL (or only the kind crowd_limbs_desc.outputs asks for). Names
 *    of bones for files: crowd_bone_name().
 *
 *    Real tracker input (SPEC 5.1). Every rig has a rest pose: calibrated rigs their bind
 *    rotations, the others the solve of the canonical rest landmarks below with the rig's fix.
 *    A bone is trusted when every landmark it reads has visibility >= visibility_threshold:
 *    hips and chest 11, 12, 23, 24; head 0, 7, 8; an upper or lower arm or leg its limb's
 *    three joints (not the torso landmarks the stable side reads); a hand its wrist, index and
 *    pinky; a foot its ankle, heel and foot index. Bones are solved from the hips outward
 *    against the parent's output world rotation P (the root for the hips; the hips' rest local
 *    rotation is relative to the root, so unseen hips ease to the rest pose in the tracker's
 *    frame, as tracked hips are in it).
 *    With k_in = 0.5^(dt/reacquire_half_life) and k_out = 0.5^(dt/hold_half_life), each bone
 *    keeps a progress r (1 at first) and its previous local rotation prev (SPEC 5.1
 *    revision 2):
 *    - trusted after an untrusted tick: r = 1 - k_in; trusted after a trusted tick:
 *      r = 1 - (1 - r)*k_in;
 *    - trusted with r >= 1 - 2^-10: r = 1 and world is the plain solve, bit for bit (so
 *      steady tracking has no lag and exact directions); local = inverse(P) * world;
 *    - trusted with r below that (r as updated): with x = (dt/reacquire_half_life)/(1 - r)
 *      and a = 1 - 0.5^min(x, 64), local = nlerp(prev, inverse(P) * plain world, a): a limb
 *      seen again eases in from what was shown by the fraction a of the remaining way, never
 *      across the far hemisphere, at a rate that grows as r nears 1 (no lag left when r
 *      snaps to 1); dt = 0 moves nothing;
 *    - untrusted: local = nlerp(rest local, previous local, k_out): the shown pose eases
 *      toward rest while moving with its parent, so unseen legs hang down under the torso;
 *    - otherwise world = P * local. nlerp(a, b, t) = normalise(a*(1 - t) + b'*t), b' = -b
 *      when dot(a, b) < 0. A new instance shows the rest pose until its first tick.
 *    k_in and k_out are computed once a tick as exp2f(-(dt/half_life)); 0.5^min(x, 64) per
 *    lane by the engine's own exp2 (the same bits on every target).
 *
 *    The straight-limb fallback of root and previous: right is the root's right root * +x
 *    turned to the subject's side, negated where it points against the x column T_x of the
 *    limb's torso rotation T (below; dot 0 keeps it), so a subject facing the camera (-z, as
 *    a webcam's does with the default root) or turning around does not pop half a turn as a
 *    limb straightens.
 *
 *    The stable side axis (fallback stable) of a limb, with T the torso rotation it hangs
 *    from (the hips' LookRotation for legs, the chest's for arms, this tick's landmarks, no
 *    axis fix), T_x, T_y its columns and d the upper bone's unit direction: the reference
 *    side is the rest hinge h (T_x for legs, -T_x for arms) carried by the shortest arc from
 *    -T_y to d, ref = normalise(h*c + cross(k, h) + k*(dot(k, h)/(1 + c))) with c = dot(-T_y,
 *    d), k = cross(-T_y, d) (if 1 + c < 1e-6 or that vector is shorter than 1e-3:
 *    normalise(cross(d, (0,0,1))) when |d.z| < 0.9, else normalise(cross(d, (1,0,0)))); the
 *    previous side p is the limb's last side, kept in T's frame (ref at first), projected off
 *    d (ref if shorter than 1e-3), normalised; the bend side is cross(upperDir, lowerDir),
 *    b = |bend side|, counted straight for a leg when dot(bend side, ref) < 0 (a knee bent
 *    backward, which depth noise fakes), then turned toward ref (legs, and arms with
 *    1 + c >= 0.25) or toward p (an arm raised toward overhead), except that an arm whose
 *    bend side has |z| >= sin(arm_image_bend) (its bend seen in the image plane; z reads only
 *    the landmarks' x and y) keeps its own sign; u = clamp((b - sin(bend_min))
 *    / (sin(bend_full) - sin(bend_min)), 0, 1) (sin in double, rounded to float once per rig);
 *    side = p when u = 0, else normalise(bend side*(u/b) + p*(1 - u)). The side is stored in
 *    T's frame on ticks where the limb's upper bone is trusted (an untrusted limb reads it
 *    and keeps it: landmarks the tracker does not see do not steer the roll it resumes with).
 *
 *    All of this is per lane masks and selects (branch-free across lanes), bit-identical on
 *    every target, split and thread count, and part of the snapshot.
 * ---------------------------------------------------------------------------------------- */
/* Limb bases from pose landmarks: section 9 describes the solve, section 6 has its fields
 * (CROWD_FIELD_POSE, CROWD_FIELD_ROOT, CROWD_FIELD_BONE_WORLD, CROWD_FIELD_BONE_LOCAL). */
typedef enum crowd_pose_frame {
    CROWD_FRAME_MEDIAPIPE_WORLD = 0, /* metres, +y down, -z toward the camera: y is negated on input */
    CROWD_FRAME_ENGINE,              /* already +y up */
    CROWD_FRAME_COUNT
} crowd_pose_frame;
/* "mediapipe_world", "engine"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_pose_frame_name(crowd_pose_frame value);
CROWD_API crowd_result crowd_pose_frame_parse(const char *name, crowd_pose_frame *out);

typedef enum crowd_axis_fix {
    CROWD_AXIS_FIX_Y_ALONG_BONE = 0, /* AngleAxis(90 deg, +x) on arm and leg bones: local +y on the bone */
    CROWD_AXIS_FIX_Z_ALONG_BONE,     /* identity everywhere: local +z on the bone */
    CROWD_AXIS_FIX_CUSTOM,           /* custom_fix[bone] */
    CROWD_AXIS_FIX_CALIBRATED,       /* from bind_landmarks + bind_rotations */
    CROWD_AXIS_FIX_COUNT
} crowd_axis_fix;
/* "y_along_bone", "z_along_bone", "custom", "calibrated"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_axis_fix_name(crowd_axis_fix value);
CROWD_API crowd_result crowd_axis_fix_parse(const char *name, crowd_axis_fix *out);

typedef enum crowd_limb_fallback {
    CROWD_FALLBACK_STABLE = 0, /* the default (SPEC 5.1): the side axis kept in the torso's frame,
                                  referred to the rest hinge carried along the limb and blended
                                  with the bend plane by how much the limb bends (bend_min ..
                                  bend_full); knees bend one way. A straight or nearly straight
                                  limb keeps its roll, a clearly bent one follows its bend */
    CROWD_FALLBACK_ROOT,     /* a straight limb's side axis is fallback_sign * right, right the
                                root's right (root * +x) turned to the subject's side: negated
                                where it points against the x column of the limb's torso
                                rotation (section 9). A subject turned by t from the root's
                                facing has its straight limbs' roll off by about t */
    CROWD_FALLBACK_PREVIOUS, /* the side axis of the last frame the limb was bent (root before),
                                and a bent limb's side keeps its sign from frame to frame: an
                                elbow or knee straightening, or bending past straight, never
                                flips half a turn */
    CROWD_FALLBACK_COUNT
} crowd_limb_fallback;
/* "stable", "root", "previous"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_limb_fallback_name(crowd_limb_fallback value);
CROWD_API crowd_result crowd_limb_fallback_parse(const char *name, crowd_limb_fallback *out);

typedef enum crowd_limb {
    CROWD_LIMB_LEFT_ARM = 0, CROWD_LIMB_RIGHT_ARM, CROWD_LIMB_LEFT_LEG, CROWD_LIMB_RIGHT_LEG,
    CROWD_LIMB_COUNT
} crowd_limb;
/* "left_arm", "right_arm", "left_leg", "right_leg"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_limb_name(crowd_limb value);
CROWD_API crowd_result crowd_limb_parse(const char *name, crowd_limb *out);

typedef enum crowd_bone {
    CROWD_BONE_HIPS = 0, CROWD_BONE_CHEST, CROWD_BONE_HEAD,
    CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_LEFT_LOWER_ARM, CROWD_BONE_LEFT_HAND,
    CROWD_BONE_RIGHT_UPPER_ARM, CROWD_BONE_RIGHT_LOWER_ARM, CROWD_BONE_RIGHT_HAND,
    CROWD_BONE_LEFT_UPPER_LEG, CROWD_BONE_LEFT_LOWER_LEG, CROWD_BONE_LEFT_FOOT,
    CROWD_BONE_RIGHT_UPPER_LEG, CROWD_BONE_RIGHT_LOWER_LEG, CROWD_BONE_RIGHT_FOOT,
    CROWD_BONE_COUNT
} crowd_bone;

/* Which bone rotations a limbs rig stores each tick (crowd_limbs_desc.outputs). A rig that asks
 * for one kind does not store the other kind's 15 x 4 columns, nor write them each tick: up to
 * 240 bytes per instance and tick less to move through memory (crowd_rig_bytes_per_instance
 * shows the storage). What is stored is bit for bit what a rig with both stores from the same
 * input (within the field rules; see local), on every target, split and thread count. */
typedef enum crowd_limb_outputs {
    CROWD_LIMB_OUTPUTS_BOTH = 0, /* the default: world and local (CROWD_FIELD_BONE_WORLD, _LOCAL) */
    CROWD_LIMB_OUTPUTS_WORLD,    /* world rotations only (renderers that place bones in model
                                    space). The local rotations are also the state an untrusted
                                    bone eases from (section 9), so with visibility_threshold > 0
                                    the rig still keeps them, unreadable, and saves nothing; at
                                    threshold 0 it keeps no local column */
    CROWD_LIMB_OUTPUTS_LOCAL,    /* local rotations only (BVH export, joint-by-joint
                                    retargeting), at any threshold: the world rotations are
                                    only the tick's own intermediate values. Except that where the unchecked
                                    columns hold values outside the field rules (a non-unit
                                    root, landmarks beyond +-1e9 or NaN written through
                                    crowd_rig_column), a bone that cannot be solved holds its
                                    last local rotation, as with both, and its children hang
                                    from parent * that local (the hips' children from it alone
                                    when the root is not unit; with both: from its last world,
                                    which this rig does not keep), so they can differ there. Never
                                    a NaN either way */
    CROWD_LIMB_OUTPUTS_COUNT
} crowd_limb_outputs;
/* "both", "world", "local"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_limb_outputs_name(crowd_limb_outputs value);
CROWD_API crowd_result crowd_limb_outputs_parse(const char *name, crowd_limb_outputs *out);

#define CROWD_LANDMARK_COUNT 33

typedef struct crowd_limbs_desc {
    crowd_pose_frame frame;
    crowd_axis_fix axis_fix;
    const crowd_quat *custom_fix;     /* [CROWD_BONE_COUNT], unit, for CUSTOM */
    const float *bind_landmarks;      /* [33*4] x, y, z, visibility in `frame`, for CALIBRATED */
    const crowd_quat *bind_rotations; /* [CROWD_BONE_COUNT] unit world rotations, for CALIBRATED */
    crowd_limb_fallback fallback;
    float fallback_sign[CROWD_LIMB_COUNT]; /* +1 or -1 each. Default +1 legs, -1 arms */
    float visibility_threshold;  /* in [0, 1]. Default 0.5. A bone is trusted on a tick when
                                    every landmark it is computed from has visibility >= this
                                    (0: always trusted); see section 9 for what an untrusted
                                    bone does */
    float hold_half_life;        /* s, in (0, 3600]: an untrusted bone's shown rotation eases
                                    halfway to its rest local rotation in this time. Default 0.3 */
    float reacquire_half_life;   /* s, in (0, 3600]: a bone trusted again eases from where it was
                                    shown to its tracked rotation at a rate that starts at
                                    halfway in this time and grows as the ease nears its end
                                    (section 9). Default 0.4 */
    float bend_min, bend_full;   /* degrees, 0 <= bend_min < bend_full <= 90 (fallback stable): a
                                    limb bent less than bend_min keeps its roll, one bent more
                                    than bend_full follows its bend plane. Their sines in float
                                    must differ (near 90 degrees two close values are refused).
                                    Default 10, 45 */
    bool smoothing;              /* One Euro filter (MediaPipe's: the derivative from the last
                                    raw value) on every coordinate of the landmarks the bones
                                    read. dt = 0 keeps the filtered values. Default off */
    float min_cutoff, beta, d_cutoff; /* One Euro: Hz in (0, 1e6]; in [0, 1e6]; Hz in (0, 1e6];
                                    checked whether smoothing is on or not. Default 0.1, 40, 1
                                    (MediaPipe's world landmarks) */
    crowd_limb_outputs outputs;  /* which bone rotations are stored: both (the default, and what
                                    a zero value means), world or local only. The kind not stored
                                    is refused by crowd_get, crowd_instances_get, crowd_rig_column
                                    and crowd_rig_columns with CROWD_ERR_NOT_STORED and a message
                                    naming the field and the rig (crowd_get: field bone_local:
                                    rig "x" stores world rotations only (limbs outputs)).
                                    crowd_rig_rest_pose gives both whatever this is */
    float arm_image_bend;        /* degrees, in [0, 90] (fallback stable): an arm whose bend side
                                    has |z| >= sin(arm_image_bend) (its bend seen in the image
                                    plane: z reads no depth) keeps the cross product's own sign;
                                    90 gives SPEC 5.1 revision 1 (every arm turned toward its
                                    reference side), 0 keeps every arm's own sign. Default 15 */
} crowd_limbs_desc;
/* frame mediapipe_world, y_along_bone, fallback stable (signs -1 arms / +1 legs for root),
 * threshold 0.5, hold half-life 0.3 s, reacquire half-life 0.4 s, bend 10 / 45 degrees,
 * smoothing off with 0.1 / 40 / 1, outputs both, arm_image_bend 15 degrees. */
CROWD_API crowd_limbs_desc crowd_limbs_defaults(void);

/* "hips", "chest", "head", "left_upper_arm", ... "right_foot"; NULL for an unknown bone. */
CROWD_API const char *crowd_bone_name(crowd_bone bone);
/* The bone named `name` (crowd_bone_name's); CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API crowd_result crowd_bone_parse(const char *name, crowd_bone *out);

/* The canonical rest pose: 33 landmarks (x, y, z, visibility 1) in `frame` (in the engine frame,
 * metres, +y up, origin between the hips): an upright subject facing -z, +x toward the
 * subject's left, legs straight down with the knees 3 cm forward (each leg segment about 4
 * degrees off down), feet forward, arms hanging at the sides with the elbows bent 15 degrees
 * forward, palms toward the thighs, head level. In the engine frame (left side; the right
 * side mirrors x):
 *   nose (0, 0.66, -0.10); eye inner (0.03, 0.69, -0.075), eye (0.04, 0.69, -0.075), eye outer
 *   (0.05, 0.69, -0.07); ear (0.075, 0.66, 0); mouth (0.02, 0.62, -0.085); shoulder
 *   (0.18, 0.50, 0); elbow (0.20, 0.22, 0); wrist (0.21, -0.02, -0.06); pinky (0.215, -0.10,
 *   -0.045); index (0.215, -0.105, -0.09); thumb (0.20, -0.06, -0.10); hip (0.10, 0, 0); knee
 *   (0.10, -0.45, -0.03); ankle (0.10, -0.88, 0); heel (0.10, -0.93, 0.04); foot index
 *   (0.10, -0.95, -0.13).
 * An unknown frame gives the engine frame. */
CROWD_API void crowd_rest_landmarks(crowd_pose_frame frame, float out[CROWD_LANDMARK_COUNT * 4]);
/* A limbs rig's rest rotations per bone with root identity: world and local (either may be
 * NULL): the canonical rest pose solved with the rig's fix, or a calibrated rig's bind rotations
 * (which its bind landmarks, held, reproduce; with fallback stable once the side has settled).
 * Errors: CROWD_ERR_NULL (engine), CROWD_ERR_HANDLE (an unknown rig), CROWD_ERR_NO_CONTROLLER
 * (a rig without limbs). */
CROWD_API crowd_result crowd_rig_rest_pose(crowd_engine *engine, crowd_rig rig, crowd_quat world[CROWD_BONE_COUNT],
                                 crowd_quat local[CROWD_BONE_COUNT]);

/* ------------------------------------------------------------------------------------------
 * 9a. Fingers. For a rig with fingers, each tick (after the limbs) solves per hand the hand
 *    bone and the 15 VRM 1.0 finger bones from MediaPipe's 21 hand landmarks (0 wrist; 1-4
 *    thumb CMC, MCP, IP, tip; 5-8 index MCP, PIP, DIP, tip; 9-12 middle; 13-16 ring; 17-20
 *    little) in CROWD_FIELD_HAND_LANDMARKS, and writes world and local rotations to
 *    CROWD_FIELD_FINGER_WORLD and CROWD_FIELD_FINGER_LOCAL (index hand * 16 + crowd_hand_bone).
 *    Names for files: crowd_hand_bone_name().
 *
 *    Which hand. MediaPipe labels each hand "Left" or "Right"; its golden results label the
 *    hand whose landmarks, as given, have that hand's shape. Seen by a camera that does not
 *    mirror, that is the subject's own hand; a mirrored (selfie) image shows a right hand
 *    with a left hand's shape:
 *
 *        camera (not mirrored)            selfie view (mirrored)
 *        +------------------+             +------------------+
 *        |  R  (o_o)  L     |             |  L  (o_o)  R     |   the subject's hands
 *        | "Right"  "Left"  |             | "Left"  "Right"  |   MediaPipe's labels
 *        +------------------+             +------------------+
 *        mirrored = false                 mirrored = true: x negated on input, so the
 *        slot = the label                 shapes are the subject's again; slot = the
 *                                         other label
 *    crowd_hand_from_handedness() gives the slot. The limbs' pose landmarks from the same
 *    camera share the frame: the body's right hand is CROWD_HAND_RIGHT.
 *
 *    Bones, from the landmarks p (after frame and mirroring), dir(a, b) = normalised(p_b - p_a)
 *    (zero when |p_b - p_a| <= 1e-5), and the palm's side axis a = p17 - p5 (index to little):
 *    - hand: as the limbs' hand (section 9): f = dir(0, midpoint of 5 and 17),
 *      LookRotation(f, cross(f, a)) * fix;
 *    - index, middle, ring, little (MCP m = 5, 9, 13, 17): proximal dir(m, m+1), intermediate
 *      dir(m+1, m+2), distal dir(m+2, m+3), each LookRotation(d, cross(d, a)) * fix: a finger
 *      bends about the palm's side axis, so its roll never follows the bend plane (which depth
 *      noise turns when a finger is nearly straight, and which a finger bent backward by noise
 *      would reverse): straight, bent or bent backward, its roll is the palm's;
 *    - thumb: metacarpal dir(1, 2), proximal dir(2, 3), distal dir(3, 4), each
 *      LookRotation(d, cross(d, side)) * fix with the thumb's own side axis: reference
 *      ref = normalised(cross(f, a)) (the axis a thumb flexes about lying in the palm's
 *      plane); bend side c = cross(dir(1, 2), dir(3, 4)), b = |c|; a thumb bent backward
 *      (dot(c, ref) < 0) counts as straight; u = clamp((b - sin(bend_min)) / (sin(bend_full) -
 *      sin(bend_min)), 0, 1), 0 when straight; side = ref when u = 0, else normalised(c*(u/b)
 *      + ref*(1 - u)). So a nearly straight thumb keeps its reference roll and a bent one
 *      follows its bend plane, continuously.
 *    - joint limits (joint_limits, on by default): each joint of the index, middle, ring and
 *      little fingers flexes only within its limits (MCP: hand to proximal, mcp_min..mcp_max;
 *      PIP: proximal to intermediate; DIP: intermediate to distal). Its flexion is the turn
 *      from the parent's direction p (the hand's f for the MCP) to the bone's d about the
 *      flexion axis h = normalised(a) for a right hand, -normalised(a) for a left (fingers
 *      flex toward the palm about both), both projected off h: atan2(h . (p x d), p . d -
 *      (p . h)(d . h)). A bone beyond a limit turns about h to the nearer limit (its sideways
 *      part stays), and the finger's bones after it turn with it, so their own flexion stays;
 *      a direction along h has no flexion and is kept. Tracker noise (depth several times x and
 *      y on 2-3 cm phalanges) bends a nearly straight finger backward, or a fist beyond its
 *      range, by tens of degrees; a finger bends one way. The defaults are the normal ranges
 *      of motion (AAOS: MCP 45 backward to 90, PIP 0 to 100, DIP 10 backward to 90), their
 *      flexion widened by 10 degrees: the palm's side axis is not a splayed finger's own
 *      hinge. So the hand must be in its own slot
 *      (crowd_hand_from_handedness): a mirrored one flexes backward and is held at the limits;
 *      with the handedness in doubt, turn joint_limits off. The thumb has no limits.
 *    The hand's parent is the limbs' lower arm (its output world rotation) when the rig has
 *    limbs, else the identity; each finger's first bone hangs from the hand, the others from
 *    the bone before. Local = inverse(parent world) * world. Bone directions are exact on
 *    every trusted, eased-in tick where every finger joint is within its limits (always with
 *    joint_limits off).
 *
 *    Tracking, as the limbs' (section 9) with one trust per hand: a hand is trusted when its
 *    presence is >= presence_threshold; it keeps a progress r and each of its bones its previous
 *    local rotation; k_in, k_out, the ease-in by a = 1 - 0.5^min(x, 64) and the hold
 *    nlerp(rest local, previous local, k_out) are section 9's, solved from the hand outward
 *    against each parent's output. The rest local rotation of a lost hand bone is the limbs'
 *    hand's this tick (relative to the lower arm) when the rig has limbs, so a lost hand eases
 *    to the body's; else, and for the fingers, the rest pose: calibrated rigs their bind
 *    rotations, the others the solve of the relaxed rest hand (crowd_rest_hand_landmarks). With
 *    smoothing, One Euro runs on each coordinate of a trusted hand; an untrusted hand's filter
 *    restarts, so a hand seen again starts from its first landmarks. A new instance shows the
 *    rest pose.
 *
 *    Branch-free across lanes, bit-identical on every target, split and thread count, and part
 *    of the snapshot.
 * ---------------------------------------------------------------------------------------- */
/* Fingers from hand landmarks: section 9a describes the solve, section 6 has its fields
 * (CROWD_FIELD_HAND_LANDMARKS, CROWD_FIELD_FINGER_WORLD, CROWD_FIELD_FINGER_LOCAL). */
#define CROWD_HAND_LANDMARK_COUNT 21 /* MediaPipe's hand landmarks per hand */
/* per hand in CROWD_FIELD_HAND_LANDMARKS: 21 landmarks x, y, z, then the presence score */
#define CROWD_HAND_FLOATS (3 * CROWD_HAND_LANDMARK_COUNT + 1)
/* The subject's hands (the index of CROWD_FIELD_HAND_LANDMARKS). */
typedef enum crowd_hand { CROWD_HAND_LEFT = 0, CROWD_HAND_RIGHT, CROWD_HAND_COUNT } crowd_hand;
/* "left", "right"; NULL out of range. Parse: CROWD_ERR_NULL (name, out), CROWD_ERR_UNKNOWN_ID. */
CROWD_API const char *crowd_hand_name(crowd_hand value);
CROWD_API crowd_result crowd_hand_parse(const char *name, crowd_hand *out);

/* The bones a fingers rig solves per hand: the hand itself (refined from the palm), then the 15
 * VRM 1.0 finger bones. The index of CROWD_FIELD_FINGER_WORLD / _LOCAL is hand *
 * CROWD_HAND_BONE_COUNT + bone: the left hand's 16 bones, then the right hand's. */
typedef enum crowd_hand_bone {
    CROWD_HAND_BONE_HAND = 0,
    CROWD_HAND_BONE_THUMB_METACARPAL, CROWD_HAND_BONE_THUMB_PROXIMAL, CROWD_HAND_BONE_THUMB_DISTAL,
    CROWD_HAND_BONE_INDEX_PROXIMAL, CROWD_HAND_BONE_INDEX_INTERMEDIATE, CROWD_HAND_BONE_INDEX_DISTAL,
    CROWD_HAND_BONE_MIDDLE_PROXIMAL, CROWD_HAND_BONE_MIDDLE_INTERMEDIATE, CROWD_HAND_BONE_MIDDLE_DISTAL,
    CROWD_HAND_BONE_RING_PROXIMAL, CROWD_HAND_BONE_RING_INTERMEDIATE, CROWD_HAND_BONE_RING_DISTAL,
    CROWD_HAND_BONE_LITTLE_PROXIMAL, CROWD_HAND_BONE_LITTLE_INTERMEDIATE, CROWD_HAND_BONE_LITTLE_DISTAL,
    CROWD_HAND_BONE_COUNT
} crowd_hand_bone;
#define CROWD_FINGER_BONE_COUNT (CROWD_HAND_COUNT * CROWD_HAND_BONE_COUNT) /* 32: both hands */

typedef struct crowd_fingers_desc {
    crowd_pose_frame frame;  /* the landmarks' frame: mediapipe_world (the Hand Landmarker's
                                world landmarks: metres, origin at the hand's centre, +y down:
                                y is negated on input) or engine. Image landmarks with relative
                                z work too, written as (x * width/height, y, z * width/height):
                                only directions matter. Default mediapipe_world */
    bool mirrored;           /* the landmarks come from a mirrored (selfie) image: x is negated on
                                input, after frame. Which hand is which is the host's: see
                                crowd_hand_from_handedness. Default false */
    crowd_axis_fix axis_fix; /* as the limbs': y_along_bone turns every finger bone by
                                AngleAxis(90 deg, +x) (local +y on the bone), the hand by
                                identity, as the limbs' hand; z_along_bone identity everywhere;
                                custom custom_fix; calibrated from bind_landmarks and
                                bind_rotations. Default y_along_bone */
    const crowd_quat *custom_fix;     /* [CROWD_FINGER_BONE_COUNT], unit, for CUSTOM */
    const float *bind_landmarks;      /* [2 * CROWD_HAND_FLOATS] both hands as in the field (the
                                         presence ignored), in `frame`, for CALIBRATED */
    const crowd_quat *bind_rotations; /* [CROWD_FINGER_BONE_COUNT] unit world rotations, for
                                         CALIBRATED: fix = inverse(solve of the bind landmarks
                                         without fix) * bind rotation */
    float presence_threshold;    /* in [0, 1]. Default 0.5. A hand is trusted on a tick when its
                                    presence score is >= this (0: always) */
    float hold_half_life;        /* s, in (0, 3600]: a lost hand's shown rotations ease halfway
                                    to the rest pose in this time. Default 0.3 */
    float reacquire_half_life;   /* s, in (0, 3600]: a hand seen again eases in (as the limbs'
                                    bones, section 9). Default 0.4 */
    float bend_min, bend_full;   /* degrees, 0 <= bend_min < bend_full <= 90: a thumb bent less
                                    than bend_min keeps its reference roll, one bent more than
                                    bend_full follows its bend plane (section 9a). Default 10, 45 */
    bool smoothing;              /* One Euro on every landmark coordinate of a tracked hand (the
                                    filter restarts when a hand is seen again). Default off */
    float min_cutoff, beta, d_cutoff; /* One Euro: Hz in (0, 1e6]; in [0, 1e6]; Hz in (0, 1e6].
                                    Default 0.1, 40, 1 (as the limbs') */
    bool joint_limits;           /* the index, middle, ring and little fingers' joints flex only
                                    within the limits below (section 9a). Default on */
    float mcp_min, mcp_max;      /* degrees, flexion limits of the first joint (knuckle, from the
                                    hand's direction to the proximal bone); negative bends
                                    backward. Default -45, 100 */
    float pip_min, pip_max;      /* degrees, of the middle joint (proximal to intermediate).
                                    Default 0, 110 */
    float dip_min, dip_max;      /* degrees, of the last joint (intermediate to distal). Default
                                    -10, 100. Each limit in [-180, 180], min < max < min + 180 */
} crowd_fingers_desc;
/* frame mediapipe_world, not mirrored, y_along_bone, presence threshold 0.5, hold half-life
 * 0.3 s, reacquire half-life 0.4 s, bend 10 / 45 degrees, smoothing off with 0.1 / 40 / 1,
 * joint limits on: MCP -45..100, PIP 0..110, DIP -10..100 degrees. */
CROWD_API crowd_fingers_desc crowd_fingers_defaults(void);

/* "hand", "thumb_metacarpal", ... "little_distal" (VRM 1.0's names in snake case without the
 * side); NULL out of range. */
CROWD_API const char *crowd_hand_bone_name(crowd_hand_bone bone);
CROWD_API crowd_result crowd_hand_bone_parse(const char *name, crowd_hand_bone *out);
/* The slot of a hand MediaPipe labels "Right" (label_right true) or "Left", for input mirrored
 * or not (crowd_fingers_desc.mirrored; the picture above). */
CROWD_API crowd_hand crowd_hand_from_handedness(bool label_right, bool mirrored);
/* The relaxed rest hand of `hand`: 21 landmarks (x, y, z) and presence 1 (CROWD_HAND_FLOATS) in
 * `frame`, metres, wrist at the origin; in the engine frame the left hand hangs at the
 * subject's left side as in crowd_rest_landmarks: fingers down (-y), palm toward the body
 * (-x), thumb forward (-z), every finger joint bent about 15 degrees, the thumb along the
 * index. The right hand mirrors x. An unknown frame gives the engine frame. */
CROWD_API void crowd_rest_hand_landmarks(crowd_pose_frame frame, crowd_hand hand, float out[CROWD_HAND_FLOATS]);
/* A fingers rig's rest rotations per bone (index as the fields'): world and local (either may
 * be NULL), the hand's parent taken as the limbs' rest lower arm (identity without limbs).
 * Errors: CROWD_ERR_NULL (engine), CROWD_ERR_HANDLE, CROWD_ERR_NO_CONTROLLER (no fingers). */
CROWD_API crowd_result crowd_rig_rest_hands(crowd_engine *engine, crowd_rig rig, crowd_quat world[CROWD_FINGER_BONE_COUNT],
                                            crowd_quat local[CROWD_FINGER_BONE_COUNT]);

#ifdef __cplusplus
}
#endif
#endif /* CROWD_H */
