/* physics_reference.h — Cubism physics (CubismPhysics.evaluate) one model at a time, the
 * yardstick the physics controller is checked and measured against (issue 26).
 *
 * Two versions over the same crowd_physics_desc (crowd.h):
 *   physics_ref_*  double precision, written the way the framework (5-r.4) is: JS doubles
 *                  for the pendulum, float32 wherever the framework keeps a Float32Array
 *                  (the model's parameter values, the parameter and input caches).
 *   physics_f32_*  float32 throughout with crowd's own sin/cos/atan2 (cv_math.h): the calls of
 *                  engine/kernels/physics.h at one lane, i.e. the SIMD kernel's numbers.
 * Both follow evaluate(): dt <= 0 writes nothing; the remaining time grows by dt and resets to
 * 0 above 5 s; without Meta.Fps one step of dt per call, whose written result is the previous
 * step's (alpha = 0, one step of lag); with Fps fixed 1/Fps steps whose inputs interpolate
 * between the input caches and the current values (weight step / remaining) and whose outputs
 * are written interpolated between the last two steps (alpha = remaining * Fps); nothing is
 * written before the first step; inputs normalised around the range's midpoint; outputs
 * clamped and blended by weight / 100 over the current value; gravity and wind are the
 * framework's Options (default (0, -1) and (0, 0); physics_*_set_forces changes them).
 *
 * values[] are the model's parameters, in the order given at creation, read and written by
 * evaluate. A model is bound by its parameter ids and ranges; NULL when the desc names a
 * parameter the model lacks (the framework would read NaN) or on out of memory. Allocation
 * happens at creation only. */
#ifndef CROWD_BENCH_PHYSICS_REFERENCE_H
#define CROWD_BENCH_PHYSICS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct physics_ref physics_ref;
physics_ref *physics_ref_create(const crowd_physics_desc *desc, uint32_t parameter_count, const char *const *ids,
                                const float *minimum, const float *maximum);
void physics_ref_destroy(physics_ref *p);
void physics_ref_set_forces(physics_ref *p, double gravity_x, double gravity_y, double wind_x, double wind_y);
void physics_ref_evaluate(physics_ref *p, float *values, double dt);
double physics_ref_remain(const physics_ref *p);

typedef struct physics_f32 physics_f32;
physics_f32 *physics_f32_create(const crowd_physics_desc *desc, uint32_t parameter_count, const char *const *ids,
                                const float *minimum, const float *maximum);
void physics_f32_destroy(physics_f32 *p);
void physics_f32_set_forces(physics_f32 *p, float gravity_x, float gravity_y, float wind_x, float wind_y);
void physics_f32_evaluate(physics_f32 *p, float *values, float dt);
float physics_f32_remain(const physics_f32 *p);
/* The bytes of one instance's pendulum state as engine/kernels/physics.h lays it out. */
size_t physics_f32_state_bytes(const crowd_physics_desc *desc);

#ifdef __cplusplus
}
#endif

#endif
