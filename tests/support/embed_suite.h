/* embed_suite.h — what the embed suites share (test_embed_threads.c, test_embed_snapshots.c,
 * test_embed_churn.c: the ctest suites embed_threads, embed_snapshots, embed_churn): the engine
 * embedded in a server, on the SIMD target named by argv[1]: worker threads, host range ticks,
 * snapshots, live add/remove and paused instances.
 *
 * One mixed scene drives every test: a face rig (look, harmonic on two channels, sine blink), a
 * timed-blink rig, a limbs rig with One Euro smoothing, fallback `previous` and visibility holds,
 * a limbs rig with a custom axis fix (MediaPipe frame) and a calibrated one. Every input an
 * instance gets is a function of its number (creation order) and of its own tick count, so two
 * engines that tick an instance the same number of times must agree on it bit for bit.
 * "The hash" of an instance folds the bits of every field crowd_instances_get reads: inputs,
 * state, outputs, bone rotations.
 *
 * embed_threads
 *   threads_and_targets  per-tick hashes for threads 1, 2, 3, 4 on this target and on scalar,
 *                        with variable dt and pauses, equal the scalar one-thread run; 256 threads
 *   host_ranges          crowd_tick_range from three host threads on ragged ranges == crowd_tick
 *   thread_limits        threads 0 and 1 mean 1, 257 is rejected; pools start and stop cleanly;
 *                        a tick on a pool allocates nothing
 * embed_snapshots
 *   snapshot_round_trip  saves at many ticks (mid-blink, mid-filter, with paused rows and free
 *                        slots), loads into fresh engines (other target, other thread count),
 *                        into a used engine and back into the saver (rollback): identical
 *                        continuation, handles valid, save/load/save byte-identical
 *   snapshot_api         NULL arguments, short capacity, empty engines
 *   snapshot_rejects     truncated, every header byte flipped, payload bytes flipped, foreign
 *                        version, oversized: CROWD_ERR_BAD_SNAPSHOT, the target engine unchanged
 *   snapshot_structure   counts, rows, handles and slots corrupted with the checksum recomputed
 *   snapshot_value_rules values outside a field's rules (crowd_instances_set's checks) with the
 *                        checksum recomputed
 *   snapshot_state_reloads  from the largest values crowd_instances_set accepts, the tick stays
 *                        finite and every state it reaches saves and loads again
 * embed_churn
 *   churn                adds every tick, random removals, pauses of extras: every never-paused
 *                        instance equals a run where nothing is removed
 *   pause_shift          pausing for any number of ticks: a paused instance is frozen, and once
 *                        resumed it continues as if no time had passed for it
 *   pause_api            argument checks, row order invariants, remove/add/tick_range with
 *                        paused rows
 */
#ifndef CROWD_EMBED_SUITE_H
#define CROWD_EMBED_SUITE_H
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the limb tracking state, which no field exposes */
#include "kernels/limbs.h"
#include "test_support.h"
#include "snapshot_checksum.h"

/* ------------------------------------------------------------------------------------------
 * shared functions
 * ---------------------------------------------------------------------------------------- */
/* rname, FAILF and OK come from test_support.h. */
#ifndef EXPECT
#define EXPECT(e, expr, code)                                                                      \
    do {                                                                                           \
        crowd_result ex_r_ = (expr);                                                               \
        if (ex_r_ != (code))                                                                       \
            FAILF("%s -> %s, want %s (%s)", #expr, rname(ex_r_), rname(code), crowd_last_error(e)); \
    } while (0)
#endif

/* little-endian words of a snapshot's bytes */
uint32_t rd32(const unsigned char *p);
void wr32(unsigned char *p, uint32_t v);
uint64_t rd64(const unsigned char *p);
void wr64(unsigned char *p, uint64_t v);

/* Under a sanitizer the single-threaded sweeps take a sample: they gain nothing there. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Soft checks: a test lists every case that went wrong, then fails once. */
extern int soft_failures;
#define SOFT(...)                                   \
    do {                                            \
        soft_failures++;                            \
        printf("  FAILED CASE: " __VA_ARGS__);      \
        printf("\n");                               \
    } while (0)
void soft_begin(void);
/* fails the test when a SOFT case failed since soft_begin */
void soft_end(const char *what);

/* ------------------------------------------------------------------------------------------
 * The mixed scene
 * ---------------------------------------------------------------------------------------- */
enum { RIG_FACE, RIG_TIMED, RIG_BODY, RIG_CUSTOM, RIG_CALIB, RIGS };
extern const char *const rig_names[RIGS];

#define MAX_INSTANCES 4096
#define DT (1.0f / 60.0f)

typedef struct scene {
    crowd_engine *e;
    crowd_rig rig[RIGS];
    uint32_t n;                        /* instances added so far: numbers 0 .. n-1 */
    crowd_instance h[MAX_INSTANCES];   /* by number */
    uint8_t rig_of[MAX_INSTANCES];
    uint8_t live[MAX_INSTANCES];
    uint8_t paused[MAX_INSTANCES];
    uint32_t steps[MAX_INSTANCES];     /* ticks the instance has run: its own time */
} scene;

/* A plausible body (engine frame, metres) at the instance's step s; `num` varies the motion.
 * Every 13th step the left arm is straight (fallback), every 17th the right knee is hardly
 * visible (hold), every 29th the left leg is straight. */
void body_pose(uint32_t num, uint32_t s, float lm[132]);

/* The scene's five rigs (RIG_FACE .. RIG_CALIB) in s->e. */
void make_rigs(scene *s);
/* An engine (asserting its thread count) with the five rigs and no instances. */
void scene_open(scene *s, uint64_t seed, crowd_simd simd, uint32_t threads);
void scene_close(scene *s);

/* count instances of a rig, numbered from s->n, with their lifelong settings; returns the
 * first number */
uint32_t scene_add(scene *s, int rig, uint32_t count, crowd_blink_start start, crowd_harmonic_phase phase);

/* The standard population: POPULATION instances, no rig a multiple of 16. */
#define POPULATION 88
void scene_populate(scene *s);

/* Inputs of every live running instance before its next step: a function of its number and
 * that step only. */
void scene_drive(scene *s);
/* A tick; the running instances' steps count on. */
void scene_tick(scene *s, float dt);
void scene_pause(scene *s, uint32_t num, bool paused);
void scene_remove(scene *s, uint32_t num);

/* The dt of tick k in the variable-dt runs: mostly 1/60 with jitter, some 0, one long step. */
float dt_of(uint32_t k);

/* ---- the hash of an instance: every readable field ---- */
uint64_t hash_instance(const crowd_engine *e, crowd_instance h);

/* Every live instance, in number order. */
uint64_t hash_scene(const scene *s);

/* Every output is finite. */
void check_finite(const scene *s);

/* Rows [0, running) are exactly the running instances; every handle knows its row. */
void check_rows(const scene *s);

/* ---- snapshots as buffers ---- */
typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

/* The engine's snapshot (malloc: free() b.p). */
blob save(const crowd_engine *e);
bool blob_eq(blob a, blob b);
/* A copy with 8 KiB of room to grow. */
blob blob_copy(blob b);

/* The header after a change of the payload: its size and FNV-1a 64. */
void fix_header(blob *b);

#endif
