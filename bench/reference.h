/* reference.h — the two yardsticks the benchmarks measure the engine against, in C so that
 * both the Google Benchmark program and `crowd bench` link them (library crowd_bench).
 *
 * 1. The per-object way (per_object_*): what a Cubism user writes. One record per avatar
 *    holding its parameters and its controller states, updated avatar by avatar: SmoothDamp
 *    gaze, harmonic sines with their clamps, the sine blink with random waits, blends with
 *    clamping, and for rigs with limbs the 15 bones from 33 landmarks with cglm (cross
 *    products, LookRotation through a cglm matrix and glm_mat3_quat, the axis fix, local
 *    rotations; One Euro on each landmark coordinate when the rig smooths). Built from the same crowd_rig_desc the engine takes and compiled with the
 *    project's release flags (-O3, no -march): float32 throughout, libm sinf, no allocation,
 *    no virtual calls, and each record holds only the sections its rig uses, so an avatar's
 *    update touches one contiguous record. It follows SPEC §1-§5 operation by operation
 *    (per_object_* outputs agree with the engine's to float rounding; bench_verify checks it).
 *    What it leaves out only makes it faster: the engine's guard against overflowing
 *    landmarks (a bone whose products overflow holds its last rotation).
 *
 * 2. The streaming limit (stream_*): STREAM's triad a = b + q*c and copy a = b over float
 *    arrays, counting 12 and 8 bytes per element (reads and writes, write-allocate not
 *    counted: the same convention as the tick's byte counts in workloads.h).
 */
#ifndef CROWD_BENCH_REFERENCE_H
#define CROWD_BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. the per-object way ---- */
typedef struct per_object_rig per_object_rig;
typedef struct per_object_crowd per_object_crowd;

/* The rig as the per-object code keeps it, from the desc the engine takes. NULL when the desc
 * asks for what the reference does not implement (the `previous` fallback or calibrated
 * axis fixes), names an unknown parameter, or on out of memory. */
per_object_rig *per_object_rig_create(const crowd_rig_desc *desc);
void per_object_rig_destroy(per_object_rig *rig);
/* Bytes of one avatar's record (a multiple of 16). */
size_t per_object_record_bytes(const per_object_rig *rig);
uint32_t per_object_parameter_count(const per_object_rig *rig);

/* count avatars in their start state, drawn as the engine draws them for instances with ids
 * first_id, first_id + 1, ... of an engine with this seed: the same first blink waits
 * (CROWD_BLINK_START_RANDOM) and harmonic phases (CROWD_HARMONIC_PHASE_RANDOM). */
per_object_crowd *per_object_crowd_create(const per_object_rig *rig, uint32_t count, uint64_t seed,
                                          uint64_t first_id, crowd_harmonic_phase phase);
void per_object_crowd_destroy(per_object_crowd *crowd);
uint32_t per_object_crowd_count(const per_object_crowd *crowd);

/* Inputs of avatar a: the gaze target and its active flag; 33 landmarks x, y, z, visibility
 * in the rig's frame. */
void per_object_set_look(per_object_crowd *crowd, uint32_t a, const float target[3], int active);
void per_object_set_pose(per_object_crowd *crowd, uint32_t a, const float landmarks[4 * CROWD_LANDMARK_COUNT]);
/* Outputs of avatar a: its parameters (rig order) and a bone's world rotation (x, y, z, w). */
const float *per_object_outputs(const per_object_crowd *crowd, uint32_t a);
void per_object_bone_world(const per_object_crowd *crowd, uint32_t a, uint32_t bone, float q[4]);

/* The update, avatar after avatar: avatars [first, first + count). Disjoint ranges may run
 * on different threads at once. */
void per_object_tick(per_object_crowd *crowd, float dt, uint32_t first, uint32_t count);

/* ---- 2. the streaming limit ---- */
#define STREAM_TRIAD_BYTES 12 /* per element: read b and c, write a */
#define STREAM_COPY_BYTES 8   /* read b, write a */

typedef struct stream_buffers {
    float *a, *b, *c;
    size_t n; /* elements per array */
} stream_buffers;

/* Three arrays of n floats, 64-byte aligned and written once (pages in place). 0 on success. */
int stream_buffers_create(stream_buffers *s, size_t n);
void stream_buffers_destroy(stream_buffers *s);
/* a[i] = b[i] + q*c[i] and a[i] = b[i], for i in [first, first + count). */
void stream_triad(const stream_buffers *s, float q, size_t first, size_t count);
void stream_copy(const stream_buffers *s, size_t first, size_t count);

#ifdef __cplusplus
}
#endif
#endif
