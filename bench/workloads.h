/* workloads.h — what the benchmarks tick, shared by bench_tick (Google Benchmark) and
 * `crowd bench` (library crowd_bench).
 *
 * Workloads: the 12-parameter face rig (the fused tick: gaze, harmonic and blink), one rig per
 * stage that enables only that controller, and the full body (face + 15 bones).
 *
 * Bytes per instance per tick (bench_workload_traffic, part by part bench_workload_parts): the
 * columns the tick loads and stores, 4 bytes each; a column that is read and written counts
 * twice. bench/traffic.sh measures them (valgrind lackey's trace of one AVX2 tick, the words of
 * the column block loaded and stored) and a test holds this count to it. Loads of a word the
 * tick stored first (the blends' reloads of `out` after the copy: cache hits) and
 * write-allocate traffic are not counted, as STREAM does not count them either.
 * Settings no instance changed (base values, gaze centre, damping and weight, the harmonic and
 * blink weights, manual blink) are read once per rig, not per instance: 0 bytes. The workloads
 * write gaze targets and active per instance, as a crowd looking around does.
 *   all rigs   out P written (base values: the rig's)                            4P
 *   gaze       target 3, active read; pos 3 and vel 3 read and
 *              written                                                 4*(4 + 12) = 64
 *   harmonic   T of each of the H entries read and written, its NR read
 *              (written only when the range did not fit: the first tick) 4*3H
 *   blink      clock, phase, last, opening read and written            4*8 = 32
 *   limbs      23 used landmarks x, y, z, visibility and the 15 bones' tracking
 *              state (the steady check) read (the root: the rig's); the 4 limbs'
 *              side axes (3 each, the stable fallback) read and written; 15 bones x
 *              (world, local) x 4 written (outputs both)   4*(92 + 15 + 24 + 120) = 1004
 *              (outputs local: 764; a root per instance: 16 more)
 *   smoothing  One Euro's value, derivative and last raw value of the 69 used
 *              coordinates and its first-sample flag read and written  4*2*208 = 1664
 * face (P 12, H 5) 48 + 64 + 60 + 32 = 204 (304 when every setting is a column read row by
 * row and NR stored every tick); gaze (P 6) 88; harmonic (P 5, H 5) 80; blink (P 2) 40; blend
 * (P 12, no controller: out = the rig's base) 48; limbs (P 0) 1004; body 1208; limbs_smoothed
 * 2668.
 * The measured tick's conditions: every instance mid-blink, gaze targets fresh (every lane
 * moves), every landmark seen and every bone eased in (the crowd_limbs_defaults rig). What the
 * count leaves out depends on the data: the sine blink stores phase and last only in a block
 * where a lane blinks (in a steady crowd, 300 ticks on, about half the 8-lane blocks: face
 * 200 B rather than 204; none blinking: 196), the draw of a new wait when a blink ends (2 more
 * columns), and a bone that is unseen or easing in (its source rotation read and written, its
 * last local rotation read, its tracking state written: 13 more floats; limbs 1784 B when no
 * bone is eased in).
 *
 * Freshness. A tick's columns must not sit in L2 from the previous iteration: each row ticks
 * a ring of `copies` identical rigs (engine) or crowds (per-object) of n instances, one per
 * iteration, with copies chosen so that the ring's working set is at least
 * BENCH_RING_BYTES (8 MiB, 16x this machine's 512 KiB L2). So 1k and 16k rows run from L3,
 * 256k and 1M from DRAM, as a crowd ticked once a frame would. The state moves on every tick
 * (phases, blinks); gaze targets jump every BENCH_REFRESH_TICKS ticks of a copy (before the
 * SmoothDamp settles, about 65 ticks, so no lane freezes), rewritten by bench_ring_refresh
 * outside the timed region. Poses are written once, a different clip row per instance.
 */
#ifndef CROWD_BENCH_WORKLOADS_H
#define CROWD_BENCH_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd.h"
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bench_workload {
    BENCH_FACE = 0, /* 12 parameters: 6 look, 5 harmonic, blink on both eyes (the fused tick) */
    BENCH_GAZE,     /* the 6 look parameters and gaze only */
    BENCH_HARMONIC, /* the 5 harmonic parameters and harmonic only */
    BENCH_BLINK,    /* the 2 eyes and blink only */
    BENCH_BLEND,    /* the 12 parameters and no controller: out = base, the copy baseline */
    BENCH_LIMBS,    /* no parameter, limbs only (4 limb chains per instance) */
    BENCH_BODY,     /* face + limbs: 12 parameters and 15 bones from a pose clip */
    BENCH_LIMBS_SMOOTHED, /* limbs only, One Euro (MediaPipe's defaults) on every landmark */
    BENCH_WORKLOAD_COUNT
} bench_workload;

/* "face", "gaze", "harmonic", "blink", "blend", "limbs", "body", "limbs_smoothed"; NULL if
 * unknown. */
const char *bench_workload_name(bench_workload w);

typedef struct bench_traffic {
    uint32_t read_floats, write_floats; /* per instance per tick */
    uint32_t columns;                   /* distinct columns touched: the working set */
} bench_traffic;
bench_traffic bench_workload_traffic(bench_workload w);
/* The same, part by part: `count` columns of one field that the tick loads (read: before it
 * stores them) and stores (write) for every instance. Names are bench/traffic.c's ("look.pos",
 * "limbs.pose"), which measures them. */
typedef struct bench_traffic_part {
    const char *name;
    uint32_t count;
    bool read, write;
} bench_traffic_part;
#define BENCH_TRAFFIC_MAX_PARTS 32
/* Fills parts, returns how many. */
uint32_t bench_workload_parts(bench_workload w, bench_traffic_part parts[BENCH_TRAFFIC_MAX_PARTS]);
/* 4 * (read_floats + write_floats) */
double bench_bytes_per_instance(bench_workload w);
/* Does the workload solve limbs (and so need a pose clip)? */
bool bench_has_limbs(bench_workload w);
/* Limb chains (upper + lower bone) per instance: 4 with limbs, else 0. */
uint32_t bench_chains_per_instance(bench_workload w);

/* The rig of a workload, as a desc pointing into `tables`. */
typedef struct bench_rig_tables {
    crowd_rig_desc desc;
    crowd_look_desc look;
    crowd_harmonic_desc harmonic;
    crowd_blink_desc blink;
    crowd_limbs_desc limbs;
    crowd_parameter_desc params[12];
    crowd_look_parameter_desc look_params[6];
    crowd_harmonic_parameter_desc harm[5];
    const char *eyes[2];
} bench_rig_tables;
void bench_rig_tables_init(bench_rig_tables *t, bench_workload w);

/* A pose clip: row_count rows of 33 landmarks x, y, z, visibility, engine frame (+y up). */
typedef struct bench_clip {
    const float *rows;
    uint32_t row_count;
} bench_clip;

/* Implementations: a crowd_simd target (CROWD_SIMD_SCALAR .. CROWD_SIMD_AVX512) or the
 * per-object way. */
#define BENCH_PER_OBJECT ((int)CROWD_SIMD_COUNT)
/* "scalar", ..., "avx512", "per_object" */
const char *bench_impl_name(int impl);
/* NULL when impl runs here, else why not (e.g. "the CPU lacks AVX-512F"). */
const char *bench_impl_skip_reason(int impl);

#define BENCH_RING_BYTES ((size_t)8 << 20)
#define BENCH_MAX_COPIES 256
#define BENCH_REFRESH_TICKS 32
#define BENCH_DT (1.0f / 60.0f)

typedef struct bench_ring {
    bench_workload workload;
    int impl;
    uint32_t n, copies, current;
    uint32_t ticks[BENCH_MAX_COPIES];     /* ticks of each copy so far */
    crowd_engine *engine;                 /* engine: one rig per copy */
    crowd_rig rig[BENCH_MAX_COPIES];
    float *target[BENCH_MAX_COPIES][3];   /* each copy's look target columns */
    per_object_rig *po_rig;               /* per-object: one crowd per copy */
    per_object_crowd *po[BENCH_MAX_COPIES];
} bench_ring;

/* Builds the ring (seed 7). clip may be NULL for workloads without limbs. 0 on success, else
 * -1 with a message in err. */
int bench_ring_create(bench_ring *r, bench_workload w, int impl, uint32_t n, const bench_clip *clip,
                      char *err, size_t err_size);
/* The same with a given number of copies (1 .. BENCH_MAX_COPIES), e.g. 1 to count instructions. */
int bench_ring_create_copies(bench_ring *r, bench_workload w, int impl, uint32_t n, const bench_clip *clip,
                             uint32_t copies, char *err, size_t err_size);
void bench_ring_destroy(bench_ring *r);
/* Ticks rows [first, first + count) of the current copy by dt. Disjoint ranges may run on
 * different threads at once. */
void bench_ring_tick(const bench_ring *r, float dt, uint32_t first, uint32_t count);
/* Is the current copy due for new gaze targets? Then call bench_ring_refresh (not timed). */
bool bench_ring_due(const bench_ring *r);
void bench_ring_refresh(bench_ring *r);
/* Counts the current copy's tick and moves to the next copy. */
void bench_ring_advance(bench_ring *r);

/* Thread t of `threads` ticks rows [*first, *first + return value): slices of a multiple of
 * 16 rows, the last takes the rest. */
uint32_t bench_split(uint32_t n, uint32_t threads, uint32_t t, uint32_t *first);

/* Ticks an engine crowd (target simd) and a per-object crowd of the same workload side by side
 * for `ticks` ticks from the same start and compares every output parameter (within 1e-4 of
 * its range) and bone rotation (within 1e-4 per component). 0 when they agree, else -1 with the
 * first difference in msg. */
int bench_verify(bench_workload w, crowd_simd simd, uint32_t n, uint32_t ticks, const bench_clip *clip, char *msg,
                 size_t size);

/* Seconds on a monotonic clock. */
double bench_now(void);

#ifdef __cplusplus
}
#endif
#endif
