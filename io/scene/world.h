/* A scene built in an engine: its rigs and instances, the per-instance draws (look jitter, pose
 * offsets), the columns the run loop feeds and reads, and the checksum of the outputs.
 *
 * Instance numbers (traces, the checksum): 0, 1, ... in group order, then order within the
 * group. Per instance, right after its group is added, in this order, from the instance's own
 * generator (crowd_instance_random): 3 draws u for the look jitter when the group's jitter r is
 * > 0, offset_c = (2u - 1) * r in float32 for c = x, y, z; then 1 draw u for a random pose
 * offset, offset = u * period of the clip (seconds, double; see clip.h), or for a group with a
 * hand track but no pose clip and "offset": "random", u * the track's period
 * (scene_hand_period); then, for a group's
 * Live2D motion (scene.h), 1 draw u for a random clip (clip k = floor(u * clips) of the
 * group's range) and 1 draw u for a jittered speed. */
#ifndef CROWD_TOOLS_WORLD_H
#define CROWD_TOOLS_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "checksum.h"
#include "crowd.h"
#include "scene.h"

typedef struct world_rig {
    crowd_rig rig;
    uint32_t rows;
    bool limbs;
    bool local_only;                          /* limbs "outputs": "local": no world rotations */
    float **out;                              /* [parameter_count] output columns */
    float *bone_world[CROWD_BONE_COUNT][4];   /* limbs only, but for local_only */
    float *bone_local[CROWD_BONE_COUNT][4];   /* local_only rigs only (for the checksum) */
    float *pose[CLIP_FLOATS];                 /* limbs only */
    float *look_target[3], *look_active;      /* look only */
    bool fingers;                             /* the scene rig has "fingers" (crowd.h section 9a) */
    float *hands[CROWD_HAND_COUNT][CROWD_HAND_FLOATS]; /* fingers only: CROWD_FIELD_HAND_LANDMARKS */
    float *finger_world[CROWD_FINGER_BONE_COUNT][4];   /* fingers only */
} world_rig;

typedef struct world {
    const scene *scene;
    uint32_t first;           /* scene number of instance 0 (0 but in a shard, world_create_range) */
    crowd_engine *engine;
    world_rig *rigs;          /* [scene->rig_count] */
    uint32_t instance_count;
    crowd_instance *handles;  /* [instance_count] in instance order */
    uint32_t *row;            /* [instance_count] the instance's row in its rig */
    uint32_t *rig_of;         /* [instance_count] the instance's scene rig */
    uint32_t *group_first;    /* [group_count + 1] first instance of each group */
    float *jitter;            /* [instance_count * 3] */
    double *pose_offset;      /* [instance_count] seconds (a group with hands but no pose: the hands') */
    int *key;                 /* [group_count] look key in effect, -1 before the first */
    uint32_t *clip_row;       /* [instance_count] clip row last written, UINT32_MAX none */
    uint32_t *hand_row;       /* [instance_count] hand frame + 1 last written (0: none yet), UINT32_MAX none */
    uint32_t *changed;        /* scratch [instance_count] */
} world;

/* Creates the engine (seed and dt from the scene, the given target; threads > 1 gives the
 * engine a pool of that many threads: crowd_engine_desc.threads), its rigs and instances.
 * TOOL_BAD_INPUT when the engine rejects the scene (the message names the rig and field). */
int world_create(world *w, const scene *s, crowd_simd simd, uint32_t threads);

/* Before anything per instance is allocated, world_create estimates the memory the scene's
 * instances take (the engine's crowd_rig_bytes_per_instance plus this program's own arrays)
 * and refuses a scene over this limit with TOOL_FAILED, naming the group that crosses it and
 * the bytes (0, the default: the machine's physical memory, or the cgroup's memory.max or the
 * process's RLIMIT_AS / RLIMIT_DATA when smaller). --max-memory-bytes sets it. */
extern uint64_t world_memory_limit;
/* The limit in effect (world_memory_limit, or the default it stands for). */
uint64_t world_memory_budget(void);
void world_destroy(world *w);

/* After the engine's state was replaced (crowd_snapshot_load) by that of a world of the same
 * scene: takes the rig and instance handles the saver had (rigs[r], handles[i] in scene and
 * instance order), checks that each names an instance of the right rig and that the rigs hold
 * the scene's instances and nothing else, and fetches rows and columns again. TOOL_BAD_INPUT
 * (with a message naming `what`) when the engine's state is not this scene's. */
int world_adopt(world *w, const crowd_rig *rigs, const crowd_instance *handles, const char *what);

/* Before tick k (k = 1, 2, ...): applies the look keys in effect at (k-1)*dt (double, from the
 * float32 dt), writes each posed instance's clip row in effect at (k-1)*dt + its offset and its
 * hand frame (scene.h: the one of its clip row, or on the track's own clock). */
void world_prepare_frame(world *w, uint32_t k, float dt);

/* The scene's instance count; UINT32_MAX above 2^30. */
uint32_t world_scene_instances(const scene *s);

/* A world of the scene's instances first .. first + count - 1 only (a shard of a run over
 * several processes): the same rigs, and for these instances the same ids (the engine's
 * first_instance_id is `first`), draws, keys and pose offsets as in the whole scene's world.
 * Instance i of the world is scene instance first + i. world_create is the whole range. */
int world_create_range(world *w, const scene *s, crowd_simd simd, uint32_t threads, uint32_t first, uint32_t count);

/* Removes every instance but scene instances first .. first + count - 1 (inside the world's
 * range) from the world and its engine, which keeps them with their state. */
int world_trim(world *w, uint32_t first, uint32_t count);

/* The checksum (tools/README.md, "The run checksum"): instance i's digest d_i is FNV-1a 64
 * over the bytes (little-endian IEEE binary32) of its output parameters (the rig's parameter
 * order), then for rigs with limbs its 15 bone world rotations (x, y, z, w in crowd_bone
 * order; local rotations for a rig whose limbs "outputs" is "local"), then for rigs with fingers
 * its 32 hand bone world rotations (CROWD_FIELD_FINGER_WORLD's order); the checksum of
 * instances 0 .. N-1 is the polynomial sum over i of
 * d_i * CHECKSUM_BASE^(N-1-i) mod 2^64 (checksum.h), which combines from the parts of
 * consecutive ranges in order. */
uint64_t world_instance_digest(const world *w, uint32_t i);
checksum_part world_checksum_part(const world *w);
uint64_t world_checksum(const world *w);

#endif
