/* libcrowd_loaders: the crowd command's scene and clip readers and its run world (rigs,
 * instances, per-frame feeding, checksum), exported as a small flat C API for the Python
 * package's `python -m crowd`. The readers are the tools' own code: nothing is parsed twice.
 * Every struct stays opaque; errors are printed by the tools as "crowd: ..." on stderr and
 * returned as their exit statuses (0 ok, 1 failed, 2 bad input). */
#include <stdlib.h>

#include "checksum.h"
#include "clip.h"
#include "default_crowd.h"
#include "diag.h"
#include "scene.h"
#include "ticker.h"
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
