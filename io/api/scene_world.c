/* crowd_io.h: the library, the built-in default crowd, a scene's values and the run world:
 * what needs no file reader (the WebAssembly module builds this file without the others). */
#include <stdlib.h>

#include "default_crowd.h"
#include "objects.h"

_Static_assert(CROWD_IO_DEFAULT_CROWD_INSTANCES == DEFAULT_CROWD_INSTANCES, "the default crowd's size");

uint32_t crowd_io_version(void) { return CROWD_IO_VERSION; }

int crowd_io_error(int status, const char *message) { return tool_error(status, "%s", message); }

crowd_io_status crowd_io_default_crowd(crowd_io_scene **out) {
    *out = NULL;
    crowd_io_scene *s = calloc(1, sizeof *s);
    if (!s) return tool_error(TOOL_FAILED, "out of memory");
    int st = default_crowd_scene(&s->scene);
    if (st != TOOL_OK) {
        crowd_io_scene_free(s);
        return st;
    }
    *out = s;
    return CROWD_IO_OK;
}

void crowd_io_scene_free(crowd_io_scene *s) {
    if (!s) return;
    scene_free(&s->scene);
    free(s);
}

const char *crowd_io_scene_path(const crowd_io_scene *s) { return s->scene.path; }
uint32_t crowd_io_scene_frames(const crowd_io_scene *s) { return s->scene.frames; }
float crowd_io_scene_dt(const crowd_io_scene *s) { return s->scene.dt; }
uint64_t crowd_io_scene_seed(const crowd_io_scene *s) { return s->scene.seed; }
uint32_t crowd_io_scene_rig_count(const crowd_io_scene *s) { return s->scene.rig_count; }
crowd_rig_desc *crowd_io_scene_rig_desc(crowd_io_scene *s, uint32_t index) {
    return index < s->scene.rig_count ? &s->scene.rigs[index].rig_desc : NULL;
}

void crowd_io_scene_override(crowd_io_scene *s, int has_frames, uint32_t frames, int has_dt, float dt, int has_seed,
                             uint64_t seed) {
    if (has_frames) s->scene.frames = frames;
    if (has_dt) s->scene.dt = dt;
    if (has_seed) s->scene.seed = seed;
}

crowd_io_status crowd_io_scene_check_bones(const crowd_io_scene *s) {
    int r = scene_rig_without(&s->scene, CROWD_FIELD_BONE_WORLD);
    return r < 0 ? TOOL_OK : scene_rig_lacks(&s->scene.rigs[r], CROWD_FIELD_BONE_WORLD, "run: --bones");
}

/* world_create and world_create_range in one: range false is the whole scene. */
static crowd_io_status create(const crowd_io_scene *s, crowd_simd simd, uint32_t threads, int range, uint32_t first,
                              uint32_t count, crowd_io_world **out) {
    *out = NULL;
    crowd_io_world *w = calloc(1, sizeof *w);
    if (!w) return tool_error(TOOL_FAILED, "out of memory");
    int st = range ? world_create_range(&w->world, &s->scene, simd, threads, first, count)
                   : world_create(&w->world, &s->scene, simd, threads);
    if (st != TOOL_OK) {
        crowd_io_world_destroy(w); /* frees what a failed create left */
        return st;
    }
    *out = w;
    return CROWD_IO_OK;
}

crowd_io_status crowd_io_world_create(const crowd_io_scene *s, crowd_simd simd, uint32_t threads,
                                      crowd_io_world **out) {
    return create(s, simd, threads, 0, 0, 0, out);
}

crowd_io_status crowd_io_world_create_range(const crowd_io_scene *s, crowd_simd simd, uint32_t threads,
                                            uint32_t first, uint32_t count, crowd_io_world **out) {
    return create(s, simd, threads, 1, first, count, out);
}

void crowd_io_world_destroy(crowd_io_world *w) {
    if (!w) return;
    world_destroy(&w->world);
    free(w);
}

crowd_engine *crowd_io_world_engine(const crowd_io_world *w) { return w->world.engine; }
uint32_t crowd_io_world_instance_count(const crowd_io_world *w) { return w->world.instance_count; }
crowd_rig crowd_io_world_rig(const crowd_io_world *w, uint32_t index) { return w->world.rigs[index].rig; }
void crowd_io_world_prepare_frame(crowd_io_world *w, uint32_t k, float dt) { world_prepare_frame(&w->world, k, dt); }
uint64_t crowd_io_world_checksum(const crowd_io_world *w) { return world_checksum(&w->world); }
