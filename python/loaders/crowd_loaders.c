/* libcrowd_loaders: the crowd command's scene and clip readers and its run world (rigs,
 * instances, per-frame feeding, checksum), exported as a small flat C API for the Python
 * package's `python -m crowd`. The readers are the tools' own code: nothing is parsed twice.
 * Every struct stays opaque; errors are printed by the tools as "crowd: ..." on stderr and
 * returned as their exit statuses (0 ok, 1 failed, 2 bad input). */
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "clip.h"
#include "default_crowd.h"
#include "diag.h"
#include "resume.h"
#include "scene.h"
#include "simulate.h"
#include "ticker.h"
#include "trace.h"
#include "world.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int crowd_loaders_scene_load(const char *path, scene **out) {
    *out = NULL;
    scene *s = calloc(1, sizeof *s);
    if (!s) return tool_error(TOOL_FAILED, "out of memory");
    int st = path ? scene_load(path, s) : default_crowd_scene(s);
    if (st != TOOL_OK) {
        scene_free(s);
        free(s);
        return st;
    }
    /* the scene keeps the path it was given, and the caller's string may not outlive this call */
    if (path) {
        const char *own = scene_strdup(s, path);
        if (!own) {
            scene_free(s);
            free(s);
            return TOOL_FAILED;
        }
        s->path = own;
    }
    *out = s;
    return TOOL_OK;
}

EXPORT void crowd_loaders_scene_free(scene *s) {
    scene_free(s);
    free(s);
}

EXPORT const char *crowd_loaders_scene_path(const scene *s) { return s->path; }
EXPORT uint32_t crowd_loaders_scene_frames(const scene *s) { return s->frames; }
EXPORT float crowd_loaders_scene_dt(const scene *s) { return s->dt; }
EXPORT uint64_t crowd_loaders_scene_seed(const scene *s) { return s->seed; }
/* The command-line overrides (--frames, --dt, --seed), as `crowd run` applies them. */
EXPORT void crowd_loaders_scene_override(scene *s, int has_frames, uint32_t frames, int has_dt, float dt, int has_seed,
                                         uint64_t seed) {
    if (has_frames) s->frames = frames;
    if (has_dt) s->dt = dt;
    if (has_seed) s->seed = seed;
}

/* `crowd run --bones` writes world rotations: TOOL_BAD_INPUT, printed, when a rig with
 * instances stores local ones only (its limbs "outputs"). */
EXPORT int crowd_loaders_scene_check_bones(const scene *s) {
    int r = scene_rig_without(s, CROWD_FIELD_BONE_WORLD);
    return r < 0 ? TOOL_OK : scene_rig_lacks(&s->rigs[r], CROWD_FIELD_BONE_WORLD, "run: --bones");
}

/* The world borrows the scene: free the world first. */
EXPORT int crowd_loaders_world_create(const scene *s, int simd, uint32_t threads, world **out) {
    *out = NULL;
    world *w = calloc(1, sizeof *w);
    if (!w) return tool_error(TOOL_FAILED, "out of memory");
    int st = world_create(w, s, (crowd_simd)simd, threads);
    if (st != TOOL_OK) {
        world_destroy(w);
        free(w);
        return st;
    }
    *out = w;
    return TOOL_OK;
}

EXPORT void crowd_loaders_world_destroy(world *w) {
    world_destroy(w);
    free(w);
}

EXPORT crowd_engine *crowd_loaders_world_engine(const world *w) { return w->engine; }
EXPORT uint32_t crowd_loaders_world_instance_count(const world *w) { return w->instance_count; }
EXPORT void crowd_loaders_world_prepare_frame(world *w, uint32_t k, float dt) { world_prepare_frame(w, k, dt); }
EXPORT uint64_t crowd_loaders_world_checksum(const world *w) { return world_checksum(w); }

EXPORT int crowd_loaders_clip_load(const char *path, pose_clip **out) {
    *out = NULL;
    pose_clip *c = calloc(1, sizeof *c);
    if (!c) return tool_error(TOOL_FAILED, "out of memory");
    int st = clip_load(path, c);
    if (st != TOOL_OK) {
        free(c);
        return st;
    }
    *out = c;
    return TOOL_OK;
}

EXPORT void crowd_loaders_clip_free(pose_clip *c) {
    if (!c) return;
    clip_free(c);
    free(c);
}

EXPORT uint32_t crowd_loaders_clip_rows(const pose_clip *c) { return c->row_count; }
EXPORT const double *crowd_loaders_clip_times(const pose_clip *c) { return c->t_s; }
EXPORT const float *crowd_loaders_clip_landmarks(const pose_clip *c) { return c->landmarks; }
EXPORT const uint32_t *crowd_loaders_clip_lines(const pose_clip *c) { return c->line; }
EXPORT const char *crowd_loaders_clip_path(const pose_clip *c) { return c->path; }

/* Run snapshots (`crowd run --snapshot-at K FILE`, `--resume FILE`): resume.h. */
EXPORT int crowd_loaders_world_save(const world *w, uint32_t frame, const char *path) {
    return resume_save(w, frame, path);
}
EXPORT int crowd_loaders_world_resume(world *w, const char *path, uint32_t *out_frame) {
    return resume_load(w, path, out_frame);
}

/* Traces (`crowd run --trace FILE`, `--bones FILE`): trace.h; kind 0 parameters, 1 bones. */
EXPORT int crowd_loaders_trace_open(int kind, const char *path, trace_file **out) {
    *out = NULL;
    trace_file *t = calloc(1, sizeof *t);
    if (!t) return tool_error(TOOL_FAILED, "out of memory");
    int st = trace_open(t, path, kind ? TRACE_BONE_HEADER : TRACE_PARAMETER_HEADER);
    if (st != TOOL_OK) {
        trace_abort(t);
        free(t);
        return st;
    }
    *out = t;
    return TOOL_OK;
}
/* Finishes (kept) or aborts (removed) the trace and frees it; the status of finishing. */
EXPORT int crowd_loaders_trace_close(trace_file *t, int keep) {
    if (!t) return TOOL_OK;
    int st = keep ? trace_finish(t) : TOOL_OK;
    trace_abort(t);
    free(t);
    return st;
}
/* Frame k's lines of every instance, as `crowd run` writes them (the same code). */
EXPORT void crowd_loaders_world_write_traces(const world *w, uint32_t k, trace_file *parameters, trace_file *bones) {
    simulate_write_traces(w, parameters, bones, k);
}

/* Prints "crowd: <message>" on stderr as the tools do, and returns status. */
EXPORT int crowd_loaders_error(int status, const char *message) { return tool_error(status, "%s", message); }

/* For the binding's benchmark (python/bench): n crowd_tick calls in a C loop, their seconds on
 * CLOCK_MONOTONIC; a negative value if a tick failed. */
EXPORT double crowd_loaders_tick_loop(crowd_engine *engine, float dt, uint32_t n) {
    double t0 = tool_now();
    for (uint32_t k = 0; k < n; k++)
        if (crowd_tick(engine, dt) != CROWD_OK) return -1.0;
    return tool_now() - t0;
}

/* The size of each public struct of crowd.h by name (0 for an unknown name): the package's
 * ctypes mirrors are checked against them, so that a field added to the header cannot leave
 * the C side reading past a Python-made struct. */
EXPORT size_t crowd_loaders_sizeof(const char *name) {
    static const struct { const char *name; size_t size; } sizes[] = {
        {"crowd_allocator", sizeof(crowd_allocator)},
        {"crowd_logger", sizeof(crowd_logger)},
        {"crowd_engine_desc", sizeof(crowd_engine_desc)},
        {"crowd_rig", sizeof(crowd_rig)},
        {"crowd_instance", sizeof(crowd_instance)},
        {"crowd_parameter_desc", sizeof(crowd_parameter_desc)},
        {"crowd_look_parameter_desc", sizeof(crowd_look_parameter_desc)},
        {"crowd_look_desc", sizeof(crowd_look_desc)},
        {"crowd_harmonic_parameter_desc", sizeof(crowd_harmonic_parameter_desc)},
        {"crowd_harmonic_desc", sizeof(crowd_harmonic_desc)},
        {"crowd_blink_desc", sizeof(crowd_blink_desc)},
        {"crowd_quat", sizeof(crowd_quat)},
        {"crowd_limbs_desc", sizeof(crowd_limbs_desc)},
        {"crowd_rig_desc", sizeof(crowd_rig_desc)},
        {"crowd_add_desc", sizeof(crowd_add_desc)},
    };
    for (size_t k = 0; name && k < sizeof sizes / sizeof sizes[0]; k++)
        if (strcmp(sizes[k].name, name) == 0) return sizes[k].size;
    return 0;
}
