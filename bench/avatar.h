/* avatar.h — the full avatar (issue 33): every controller on one rig, in the engine and in its
 * per-object reference, shared by bench_avatar (Google Benchmark) and `crowd bench`.
 *
 * The rig (built in, shaped like the Cubism sample Haru; no file is read): 24 parameters; a
 * motion library of one 4 s clip (7 Parameter curves: bezier, linear, stepped and inverse
 * stepped segments) every instance loops from its own offset; 3 expressions of 6 entries (Add,
 * Multiply, Overwrite), one playing per instance; a pose of one group of two parts; blink;
 * face tracking with the standard mapping (20 entries) on 52 scores, a head rotation and
 * presence 1; lip sync on ParamMouthOpenY; harmonic (5 entries) and look (6) as the bench face
 * rig; physics of 2 sub-rigs (8 inputs, 3 outputs, 5 particles, Haru's hair in small); limbs
 * (15 bones from the built-in walk clip, engine frame) and fingers (30 finger bones and two
 * hands from noisy rest hands, presence 0.95). Inputs are written once; every stage is
 * branch-free across lanes, so fixed inputs cost what fresh ones do (the motion runs its
 * clock on, the blink, harmonic, physics and gaze states move every tick).
 *
 * The per-object reference (impl BENCH_PER_OBJECT) is what a Cubism app with tracking writes,
 * avatar after avatar, composed of the project's per-object references: a cubism_ref_model
 * with its motion manager, expression manager and pose (cubism_reference.h, the framework's
 * double arithmetic), the per-object record of reference.h for blink, harmonic, look and the 15
 * limb bones, physics_f32 (physics_reference.h: the kernel's float math at one lane, the
 * faster of the two references), face tracking and lip sync as the framework's setParameter /
 * addParameter with libm atan2f, and the hand solve of bench_fingers (two hands, 16 bones each,
 * world and local). Each part is held to the engine elsewhere (cubism_golden, physics_golden,
 * bench_verify, bench_fingers); the composition is not: the blink, harmonic and look values
 * land on the motion's as additions (harmonic, look) and overrides (eyes), close to but not
 * bit for bit the engine's blend. It is the per-object cost of the same work, not an oracle.
 *
 * Working set: several KB per instance, so 2k instances already exceed BENCH_RING_BYTES: one
 * copy, no ring. */
#ifndef CROWD_BENCH_AVATAR_H
#define CROWD_BENCH_AVATAR_H

#include <stddef.h>
#include <stdint.h>

#include "crowd.h"
#include "workloads.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_avatar bench_avatar;

/* n avatars on impl (a crowd_simd target or BENCH_PER_OBJECT). threads: the engine's worker
 * count for bench_avatar_tick (1: none). clip: the limbs' pose clip (engine frame). 0 on
 * success, else -1 with a message in err. */
int bench_avatar_create(bench_avatar **out, int impl, uint32_t n, uint32_t threads, const bench_clip *clip,
                        char *err, size_t err_size);
void bench_avatar_destroy(bench_avatar *a);
/* One tick of every avatar (the engine's crowd_tick with its own workers). */
void bench_avatar_tick(bench_avatar *a, float dt);
/* Rows [first, first + count) only; disjoint ranges may run on different threads at once. */
void bench_avatar_tick_range(bench_avatar *a, float dt, uint32_t first, uint32_t count);
uint32_t bench_avatar_count(const bench_avatar *a);
/* The engine: crowd_rig_bytes_per_instance (every column of the rig); per-object: the bytes of
 * one avatar's records (model, queues, bound motion and expression, pose, physics, controllers,
 * hands). */
double bench_avatar_bytes_per_instance(const bench_avatar *a);
/* Engine only (NULL for per-object): the engine and rig, e.g. to read outputs. */
crowd_engine *bench_avatar_engine(const bench_avatar *a, crowd_rig *rig);

#ifdef __cplusplus
}
#endif
#endif
