/* engine_suite.h — what the engine suites share (test_engine_GROUP.c, one ctest suite
 * engine_GROUP per group): the engine against SPEC.md §0-§4 and §6, on the SIMD target named by
 * argv[1].
 *
 * Groups (files)
 *   reference    the SPEC's printed numbers (gaze, harmonic, blink sine / timed), blends
 *   determinism  every output and state byte equal to the scalar target, to any split into
 *                ranges and to a rerun; a counting allocator proves the tick allocates nothing
 *   validity     one check per bad field and per entry point: exact code, a message naming the
 *                field, and nothing stored changed
 *   handles      add / remove keep survivors bit-identical to a run without the removal
 *   long_runs    day 30 blinks and breathes exactly as day 1; random starts do not blink in unison
 *
 * Float expectations are exact (bits) except where the engine's sin is involved: there the SPEC
 * bounds sin's absolute error by 2^-22 (2.4e-7) for |x| <= 2^13, so a value origin + range*sin
 * is within 2.4e-7*|range| of the exact one, plus a few ulp of the result for the final
 * roundings (sin_tol below).
 *
 * The helpers are defined once in engine_suite.c (tests/support, the library
 * crowd_test_engine_suite, linked into each engine suite).
 */
#ifndef CROWD_ENGINE_SUITE_H
#define CROWD_ENGINE_SUITE_H
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"
#include "random.h"

/* ------------------------------------------------------------------------------------------
 * shared functions
 * ---------------------------------------------------------------------------------------- */
/* Exact float comparison (bits), with both values printed in a round-trip format. */
#define EXPECT_BITS(actual, expected, ...)                                                    \
    do {                                                                                      \
        float eb_a_ = (actual), eb_e_ = (expected);                                           \
        if (fbits(eb_a_) != fbits(eb_e_)) {                                                   \
            char eb_what_[256];                                                               \
            snprintf(eb_what_, sizeof eb_what_, __VA_ARGS__);                                 \
            FAILF("%s: got %.9g (0x%08x), want %.9g (0x%08x)", eb_what_, (double)eb_a_,       \
                  fbits(eb_a_), (double)eb_e_, fbits(eb_e_));                                 \
        }                                                                                     \
    } while (0)

#define EXPECT_NEAR(actual, expected, tol, ...)                                               \
    do {                                                                                      \
        double en_a_ = (actual), en_e_ = (expected), en_t_ = (tol);                           \
        if (!(fabs(en_a_ - en_e_) <= en_t_)) {                                                \
            char en_what_[256];                                                               \
            snprintf(en_what_, sizeof en_what_, __VA_ARGS__);                                 \
            FAILF("%s: got %.9g, want %.9g within %.3g (off by %.3g)", en_what_, en_a_,       \
                  en_e_, en_t_, fabs(en_a_ - en_e_));                                         \
        }                                                                                     \
    } while (0)

/* The tolerance for value = origin + range*sin(x): 2^-22*|range| for sin, and 4 ulp of the
 * value (and of range) for the roundings of the multiply and add. */
double sin_tol(double range, double value);

static const float DT60 = 1.0f / 60.0f;

/* The engine calls below assert success (OK), failing the test with the engine's message. */
crowd_rig make_rig(crowd_engine *e, const crowd_rig_desc *d);
void add_into(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_blink_start bs, crowd_harmonic_phase hp,
              crowd_instance *out);
/* The same into a new array (calloc: free() it). */
crowd_instance *add_n(crowd_engine *e, crowd_rig rig, uint32_t n, crowd_blink_start bs, crowd_harmonic_phase hp);
void tick(crowd_engine *e, float dt);
/* Component 0 of a field; set1 sets every component to v. */
float get1(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index);
void set1(crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, float v);
void set_all1(crowd_engine *e, const crowd_instance *h, uint32_t n, crowd_field f, uint32_t index, float v);
/* The instance's key for the engine's per-instance draws (random.h). */
uint32_t instance_key(const crowd_engine *e, uint64_t seed, crowd_instance h);

/* The SPEC §4 idle wait, in float, in the SPEC's order. */
float spec_wait(float mean, float dev, float u);

/* ---- snapshots: every field of every instance of a list of rigs, in sections ---- */
typedef struct section {
    uint32_t rig_no, field, index, count, width;
    size_t offset; /* in floats */
} section;

typedef struct snapshot {
    float *data;
    size_t size, cap;
    section *sec;
    size_t nsec, capsec;
} snapshot;

void snap_free(snapshot *s);
/* Room for n more floats at the end (the size grows by n). */
float *snap_reserve(snapshot *s, size_t n);
/* Fields read per index (parameters, harmonic entries, bones) rather than once. */
bool indexed_field(crowd_field f);

/* Appends every readable field of the given instances (all of one rig). */
void snap_rig(snapshot *s, const crowd_engine *e, uint32_t rig_no, const crowd_instance *h, uint32_t n);

/* Compares two snapshots; on a difference reports the first one precisely. */
void snap_expect_equal(const snapshot *a, const snapshot *b, const char *what);

/* ------------------------------------------------------------------------------------------
 * 1. SPEC reference values
 * ---------------------------------------------------------------------------------------- */
/* 37 instances: two full 16-lane blocks plus a tail, so both the target's kernel and the
 * width-1 tail path compute every reference. */
enum { NREF = 37 };

/* A one-parameter rig on [min, max] with one harmonic entry. */
crowd_rig harmonic_rig(crowd_engine *e, float min, float max, crowd_direction dir, float no, float nr, float d);

/* Blink rig: one parameter [0, 1] default 1, the given model, default blend (multiply). */
crowd_rig blink_rig(crowd_engine *e, crowd_blink_model model, crowd_blend blend, float min);

/* ------------------------------------------------------------------------------------------
 * 3. Determinism: a mixed world
 * ---------------------------------------------------------------------------------------- */
enum { WORLD_P = 8 };
extern const crowd_parameter_desc world_params[WORLD_P];

typedef struct world {
    crowd_engine *e;
    crowd_rig rig[2];
    crowd_instance *h[2];
    uint32_t n[2];
    rng r;       /* inputs and dt */
    rng split;   /* range splits only */
    uint64_t out_hash;
} world;

/* The world's two rigs: a mixed one (look, harmonic on two channels, sine blink) and an
 * override one (speed limit, timed blink). */
void world_rigs(world *w);
/* New random inputs for the instances of rig k that `pick` selects (fraction). */
void world_inputs(world *w, int k, double pick);

/* n instances per rig (half random starts, half Cubism / zero phase), random inputs. */
void world_init(world *w, crowd_engine *e, uint32_t n, uint64_t seed);
/* Frees the instance arrays and destroys the engine. */
void world_free(world *w);
/* A random dt: mostly 1/60, some 0, 1 and 0.5 s, the rest below 0.1 s. */
float world_dt(world *w);

/* One step: input changes on a schedule, then a tick (whole, or in ranges of odd sizes). */
void world_step(world *w, int step, bool ranges);
void world_snapshot(world *w, snapshot *s);

#endif
