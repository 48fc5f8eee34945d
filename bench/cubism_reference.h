/* cubism_reference.h — the per-object reference for Live2D motions, expressions and pose: one
 * model at a time, written the way the Cubism Framework (5-r.4) plays a model, in plain C with
 * the framework's double arithmetic and its float32 parameter and part arrays. It is what the
 * engine's motion controller is checked against, next to the golden traces, and the per-object
 * yardstick the benchmarks measure it against.
 *
 * Pieces, named after the framework classes they follow:
 *   cubism_ref_model       CubismModel's parameter side: float32 values clamped to [min, max],
 *                          load/save of the saved state, the "not-exist" map (ids that are not
 *                          parameters, doubles, unclamped, untouched by load/save: where
 *                          PartOpacity curves and pose pseudo-parameters live), part opacities,
 *                          the model opacity.
 *   cubism_ref_motion      CubismMotion: a cubism_motion (shared, read-only) bound to a model's
 *                          indices, with its fades, loop flags and weight.
 *   cubism_ref_motion_manager  CubismMotionManager + CubismMotionQueueManager: the queue,
 *                          priorities, fade-out on start, events.
 *   cubism_ref_expression_manager  CubismExpressionMotionManager (R5): (overwrite + add) *
 *                          multiply with summed fade weights.
 *   cubism_ref_pose        CubismPose: fades, the back-opacity cap, links.
 *
 * One deliberate difference from the framework, which changes no number: ids are looked up
 * once, when a motion, expression or pose is bound to a model (the framework searches them each
 * frame). Queues hold at most CUBISM_REF_MAX_QUEUE entries (the framework's grow without bound):
 * starting one more is refused (-1).
 *
 * Framework behaviour the golden traces show that their README does not spell out (the
 * reference does all of it; tests/test_cubism_golden.c holds it to the traces):
 *   - An expression's Overwrite stops at once when a newer expression starts: every entry after
 *     the first re-seeds its overwrite accumulator with the parameter's current value before
 *     blending, so the older Overwrite is not cross-faded (Haru_syntheticBlend_then_F06_60fps:
 *     ParamAngleX 12 -> its base value in the frame F06 starts). Add and Multiply do cross-fade.
 *   - PartOpacity curves write their pseudo-parameter unfaded, at full value from the first frame
 *     (weight 0) on.
 *   - The fade-out on start moves the end of an entry that already has one (a non-looping motion)
 *     too: endTime = now + fadeOut after the next update (the queue states show it).
 *   - The three curve loops (Model, Parameter, PartOpacity) each stop at the first curve of
 *     another target: a curve out of that order never plays (the readers refuse such files).
 *   - Meta.CurveCount, TotalSegmentCount and TotalPointCount must match the curves (points
 *     counted as flattened: the first point, then 1 per linear/stepped/inverse-stepped segment,
 *     3 per bezier): loadMotion checks them and an inconsistent file loads nothing.
 *   - The Model EyeBlink/LipSync values reach the ids the motion does not animate with the
 *     entry's fade weight, never with per-curve fades.
 *   - Cardano's quadratic fallback tests sqrt(a) < 1e-5, so a negative cubic coefficient always
 *     takes the cubic path.
 *   - The pose's first update sets the pseudo-parameters of linked parts to 1 too.
 */
#ifndef CROWD_BENCH_CUBISM_REFERENCE_H
#define CROWD_BENCH_CUBISM_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cubism_data.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUBISM_REF_MAX_QUEUE 16

/* ---- the model ---- */
typedef struct cubism_ref_model cubism_ref_model;

/* parameter_count parameters (ids, ranges, defaults; values start at the defaults) and
 * part_count parts (opacity 1). The strings stay the caller's and must outlive the model.
 * NULL on out of memory. */
cubism_ref_model *cubism_ref_model_create(uint32_t parameter_count, const char *const *ids, const float *minimum,
                                          const float *maximum, const float *defaults, uint32_t part_count,
                                          const char *const *part_ids);
void cubism_ref_model_destroy(cubism_ref_model *model);

/* The parameter's index; an id that is no parameter gets a not-exist slot (created at the
 * first request, value 0; the model keeps a copy of the id), as CubismModel.getParameterIndex
 * does. -1 only on out of memory. */
int32_t cubism_ref_parameter_index(cubism_ref_model *model, const char *id);
/* Whether index is a not-exist slot; the id of any index. */
bool cubism_ref_parameter_is_pseudo(const cubism_ref_model *model, int32_t index);
/* -1 when the id names no slot yet (not created). */
int32_t cubism_ref_find_parameter(const cubism_ref_model *model, const char *id);
double cubism_ref_get(const cubism_ref_model *model, int32_t index);
/* setParameterValueByIndex(index, value, weight): clamp, blend with weight, store (float32). */
void cubism_ref_set(cubism_ref_model *model, int32_t index, double value, double weight);
void cubism_ref_add(cubism_ref_model *model, int32_t index, double value, double weight);
void cubism_ref_multiply(cubism_ref_model *model, int32_t index, double value, double weight);
void cubism_ref_load_parameters(cubism_ref_model *model);
void cubism_ref_save_parameters(cubism_ref_model *model);
/* A part's index (not-exist parts get a slot, as for parameters); its opacity (float32). */
int32_t cubism_ref_part_index(cubism_ref_model *model, const char *id);
double cubism_ref_part_opacity(const cubism_ref_model *model, int32_t index);
void cubism_ref_set_part_opacity(cubism_ref_model *model, int32_t index, double opacity);
/* What the motions' Model "Opacity" curve last set (1 before). */
double cubism_ref_model_opacity(const cubism_ref_model *model);
/* Heap bytes of the model's state (values, saved values, ranges, parts, not-exist slots). */
size_t cubism_ref_model_bytes(const cubism_ref_model *model);

/* ---- motions ---- */
typedef struct cubism_ref_motion cubism_ref_motion;

/* CubismUserModel.loadMotion: data's fades, replaced by fade_in / fade_out when >= 0 (the
 * model3 entry's; pass -1 for none), the model3's EyeBlink and LipSync ids, not looping, loop
 * fade-in on, weight 1. data and the ids stay the caller's. NULL on out of memory. */
cubism_ref_motion *cubism_ref_motion_create(const cubism_motion *data, cubism_ref_model *model, double fade_in,
                                            double fade_out, const char *const *eye_blink_ids,
                                            uint32_t eye_blink_count, const char *const *lip_sync_ids,
                                            uint32_t lip_sync_count);
void cubism_ref_motion_destroy(cubism_ref_motion *motion);
void cubism_ref_motion_set_loop(cubism_ref_motion *motion, bool loop);
void cubism_ref_motion_set_loop_fade_in(cubism_ref_motion *motion, bool loop_fade_in);
void cubism_ref_motion_set_weight(cubism_ref_motion *motion, double weight);
double cubism_ref_motion_fade_in(const cubism_ref_motion *motion);
double cubism_ref_motion_fade_out(const cubism_ref_motion *motion);
/* Bytes of one bound motion (the struct and its per-curve bindings; the curves are shared). */
size_t cubism_ref_motion_bytes(const cubism_ref_motion *motion);

/* A user-data event: the motion, the index of its event (cubism_motion.events), the manager
 * time of the update that fired it. */
typedef void (*cubism_ref_event_fn)(void *user, const cubism_ref_motion *motion, uint32_t event, double user_time);

typedef struct cubism_ref_queue_entry {
    cubism_ref_motion *motion;
    bool started, finished, fade_out_triggered;
    double start_time, fade_in_start_time, end_time, last_event_check_time;
    double fade_out_seconds, state_weight;
} cubism_ref_queue_entry;

typedef struct cubism_ref_motion_manager {
    double user_time;
    int current_priority, reserve_priority;
    uint32_t count;
    cubism_ref_queue_entry entries[CUBISM_REF_MAX_QUEUE];
    cubism_ref_event_fn on_event;
    void *event_user;
} cubism_ref_motion_manager;

void cubism_ref_motion_manager_init(cubism_ref_motion_manager *m);
/* startMotionPriority: the entries playing start fading out; the motion starts at the next
 * update. The entry's index, -1 when the queue is full. */
int cubism_ref_start_motion(cubism_ref_motion_manager *m, cubism_ref_motion *motion, int priority);
/* reserveMotion: false unless priority is above both the reserved and the current one. */
bool cubism_ref_reserve_motion(cubism_ref_motion_manager *m, int priority);
/* updateMotion: time += dt, every entry updates the model; whether any did. */
bool cubism_ref_update_motion(cubism_ref_motion_manager *m, cubism_ref_model *model, double dt);
bool cubism_ref_motions_finished(const cubism_ref_motion_manager *m);

/* ---- expressions ---- */
typedef struct cubism_ref_expression {
    const cubism_expression *data;
    int32_t *index; /* per parameter */
} cubism_ref_expression;

/* Binds data's ids to the model. false on out of memory. */
bool cubism_ref_expression_init(cubism_ref_expression *e, const cubism_expression *data, cubism_ref_model *model);
void cubism_ref_expression_fini(cubism_ref_expression *e);

typedef struct cubism_ref_expression_value {
    int32_t index;
    double add, multiply, overwrite;
} cubism_ref_expression_value;

typedef struct cubism_ref_expression_manager {
    double user_time;
    uint32_t count;
    cubism_ref_queue_entry entries[CUBISM_REF_MAX_QUEUE];
    const cubism_ref_expression *expressions[CUBISM_REF_MAX_QUEUE];
    double fade_weights[CUBISM_REF_MAX_QUEUE];
    uint32_t value_count, value_capacity;
    cubism_ref_expression_value *values;
} cubism_ref_expression_manager;

void cubism_ref_expression_manager_init(cubism_ref_expression_manager *m);
void cubism_ref_expression_manager_fini(cubism_ref_expression_manager *m);
/* startMotion: -1 when the queue is full. */
int cubism_ref_start_expression(cubism_ref_expression_manager *m, const cubism_ref_expression *e);
/* false on out of memory (the values list grows with new ids). */
bool cubism_ref_update_expressions(cubism_ref_expression_manager *m, cubism_ref_model *model, double dt);

/* ---- pose ---- */
typedef struct cubism_ref_pose cubism_ref_pose;
cubism_ref_pose *cubism_ref_pose_create(const cubism_pose *data, cubism_ref_model *model);
void cubism_ref_pose_destroy(cubism_ref_pose *pose);
/* updateParameters (the first call resets the groups). */
void cubism_ref_pose_update(cubism_ref_pose *pose, cubism_ref_model *model, double dt);

#ifdef __cplusplus
}
#endif

#endif
