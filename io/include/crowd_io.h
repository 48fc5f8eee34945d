/* crowd_io.h — the io library of crowd: scenes, pose clips, the run world, traces and run
 * snapshots, as the crowd command reads and writes them (SPEC §7, README.md), for programs and
 * bindings that are not the command (python/, web/). Built on crowd.h alone.
 *
 * STEP BY STEP
 *   crowd_io_scene *scene;
 *   if (crowd_io_scene_load("scene.json", &scene) != CROWD_IO_OK) return 1;  // NULL: the default crowd
 *   crowd_io_world *world;
 *   if (crowd_io_world_create(scene, CROWD_SIMD_AUTO, 1, &world) == CROWD_IO_OK) {
 *       for (uint32_t k = 1; k <= crowd_io_scene_frames(scene); k++) {
 *           crowd_io_world_prepare_frame(world, k, crowd_io_scene_dt(scene)); // look keys, clip rows
 *           crowd_tick(crowd_io_world_engine(world), crowd_io_scene_dt(scene));
 *       }
 *       printf("%016llx\n", (unsigned long long)crowd_io_world_checksum(world)); // crowd run's checksum
 *       crowd_io_world_destroy(world);
 *   }
 *   crowd_io_scene_free(scene);
 *
 * Rules, for every function here:
 * - Results are a crowd_io_status: 0 success, 1 failure (out of memory, a failed write, an engine
 *   error), 2 bad input (a file that does not parse or breaks a rule). The message was printed
 *   to standard error, one line "crowd: FILE:LINE:COLUMN: ..." or "crowd: FILE: JSON.PATH: ...",
 *   exactly as the crowd command prints it; nothing the caller owns changed.
 * - Every object is opaque and owned by the caller once returned: free it with its _free,
 *   _destroy or _close function (each accepts NULL). A world borrows its scene: destroy the world
 *   first. Strings and arrays returned stay valid while their object lives.
 * - Objects are not shared between threads; different objects may be used on different threads.
 * - Input files are regular files (or standard input where said) of at most 1 GiB; outputs are
 *   written to an exclusive temporary beside the target and renamed into place when complete.
 */
#ifndef CROWD_IO_H
#define CROWD_IO_H

#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; crowd_io_version() is the library's, (major << 16) | (minor << 8)
 * | patch. The library and the header agree on the major version. */
#define CROWD_IO_VERSION_MAJOR 0
#define CROWD_IO_VERSION_MINOR 1
#define CROWD_IO_VERSION_PATCH 0
#define CROWD_IO_VERSION ((CROWD_IO_VERSION_MAJOR << 16) | (CROWD_IO_VERSION_MINOR << 8) | CROWD_IO_VERSION_PATCH)

#if defined(CROWD_IO_BUILD) && defined(__GNUC__)
#define CROWD_IO_API __attribute__((visibility("default")))
#else
#define CROWD_IO_API
#endif

typedef enum crowd_io_status {
    CROWD_IO_OK = 0,
    CROWD_IO_FAILED = 1,    /* out of memory, an engine error, a failed write, interrupted */
    CROWD_IO_BAD_INPUT = 2, /* a file that does not parse or breaks a rule; a bad argument */
} crowd_io_status;

/* The instances of the built-in default crowd (crowd_io_scene_load with no path). */
#define CROWD_IO_DEFAULT_CROWD_INSTANCES 10000u

/* The trace kinds of crowd_io_trace_open (crowd run --trace and --bones). */
typedef enum crowd_io_trace_kind {
    CROWD_IO_TRACE_PARAMETERS = 0, /* frame,instance,id,value */
    CROWD_IO_TRACE_BONES = 1,      /* frame,instance,bone,qx,qy,qz,qw (world rotations) */
} crowd_io_trace_kind;

typedef struct crowd_io_scene crowd_io_scene;
typedef struct crowd_io_world crowd_io_world;
typedef struct crowd_io_clip crowd_io_clip;
typedef struct crowd_io_trace crowd_io_trace;

/* ---- 1. The library ---- */

/* CROWD_IO_VERSION of the library that runs. */
CROWD_IO_API uint32_t crowd_io_version(void);
/* Prints "crowd: <message>" on standard error, as the library's own messages are, and returns
 * status (a caller's message joins them in one stream). */
CROWD_IO_API int crowd_io_error(int status, const char *message);

/* ---- 2. Scenes (SPEC §7: the scene JSON; rigs, groups, look keys, pose and face clips) ---- */

/* Reads the scene at path (its clips, face tracks and model3 files relative to its folder), or
 * with path NULL builds the built-in default crowd (CROWD_IO_DEFAULT_CROWD_INSTANCES avatars:
 * every controller and a built-in walk, 600 frames at dt 1/60), as `crowd run` without a
 * scene. *out is NULL on error. */
CROWD_IO_API crowd_io_status crowd_io_scene_load(const char *path, crowd_io_scene **out);
/* The built-in default crowd alone (crowd_io_scene_load(NULL, out); this one reads no file). */
CROWD_IO_API crowd_io_status crowd_io_default_crowd(crowd_io_scene **out);
CROWD_IO_API void crowd_io_scene_free(crowd_io_scene *scene);
/* The path it was read from ("(default crowd)" for the built-in one). */
CROWD_IO_API const char *crowd_io_scene_path(const crowd_io_scene *scene);
CROWD_IO_API uint32_t crowd_io_scene_frames(const crowd_io_scene *scene);
CROWD_IO_API float crowd_io_scene_dt(const crowd_io_scene *scene);
CROWD_IO_API uint64_t crowd_io_scene_seed(const crowd_io_scene *scene);
/* The command-line overrides of crowd run (--frames, --dt, --seed): each has_ flag nonzero
 * replaces that value. Call before creating a world. */
CROWD_IO_API void crowd_io_scene_override(crowd_io_scene *scene, int has_frames, uint32_t frames, int has_dt, float dt,
                                          int has_seed, uint64_t seed);
/* crowd run --bones writes world rotations: CROWD_IO_BAD_INPUT (printed, naming the rig) when a
 * rig with instances stores local ones only (its limbs "outputs"). */
CROWD_IO_API crowd_io_status crowd_io_scene_check_bones(const crowd_io_scene *scene);

/* ---- 3. The run world: a scene built in an engine, fed each frame as crowd run feeds it ---- */

/* Creates the engine (the scene's seed and dt, target simd, threads > 1: the engine's own pool
 * of that many threads), its rigs and instances with their draws. */
CROWD_IO_API crowd_io_status crowd_io_world_create(const crowd_io_scene *scene, crowd_simd simd, uint32_t threads,
                                                   crowd_io_world **out);
/* The same for scene instances first .. first + count - 1 only (a shard, or a few avatars of a
 * large crowd): they draw, move and sum exactly as in the whole world. */
CROWD_IO_API crowd_io_status crowd_io_world_create_range(const crowd_io_scene *scene, crowd_simd simd,
                                                         uint32_t threads, uint32_t first, uint32_t count,
                                                         crowd_io_world **out);
CROWD_IO_API void crowd_io_world_destroy(crowd_io_world *world);
/* The world's engine (owned by the world): tick it with crowd_tick. */
CROWD_IO_API crowd_engine *crowd_io_world_engine(const crowd_io_world *world);
CROWD_IO_API uint32_t crowd_io_world_instance_count(const crowd_io_world *world);
/* The engine rig of the scene's rig number index (< the scene's rig count). */
CROWD_IO_API crowd_rig crowd_io_world_rig(const crowd_io_world *world, uint32_t index);
/* Before tick k (1, 2, ...): writes the look keys and pose clip rows in effect at that time. */
CROWD_IO_API void crowd_io_world_prepare_frame(crowd_io_world *world, uint32_t k, float dt);
/* crowd run's 64-bit checksum of the outputs now. */
CROWD_IO_API uint64_t crowd_io_world_checksum(const crowd_io_world *world);
/* Run snapshots (crowd run --snapshot-at K FILE, --resume FILE): the world's state after frame
 * frames, and back into a world just created from the same scene, seed and dt (a changed scene
 * is refused, naming what changed); *out_frame is the frame the run continues after. */
CROWD_IO_API crowd_io_status crowd_io_world_save(const crowd_io_world *world, uint32_t frame, const char *path);
CROWD_IO_API crowd_io_status crowd_io_world_resume(crowd_io_world *world, const char *path, uint32_t *out_frame);

/* ---- 4. Traces (crowd run --trace FILE, --bones FILE) ---- */

/* Opens a trace of the kind at path and writes its header line. */
CROWD_IO_API crowd_io_status crowd_io_trace_open(crowd_io_trace_kind kind, const char *path, crowd_io_trace **out);
/* keep nonzero: completes the file (renamed into place) and returns the status of that; 0: removes
 * the unfinished file. Frees the trace either way. */
CROWD_IO_API crowd_io_status crowd_io_trace_close(crowd_io_trace *trace, int keep);
/* Frame k's lines of every instance, as crowd run writes them; either trace may be NULL. */
CROWD_IO_API void crowd_io_world_write_traces(const crowd_io_world *world, uint32_t k, crowd_io_trace *parameters,
                                              crowd_io_trace *bones);

/* ---- 5. Pose clips (SPEC §7: CSV, or landmark JSON of MediaPipe Tasks and TF.js) ---- */

/* Reads a pose clip; the format is told by the content. Rows are 33 landmarks of x, y, z,
 * visibility as read (the clip's own frame); a row with no detection repeats the previous one
 * at visibility 0 (rows before any: the rest pose, visibility 0). */
CROWD_IO_API crowd_io_status crowd_io_clip_load(const char *path, crowd_io_clip **out);
CROWD_IO_API void crowd_io_clip_free(crowd_io_clip *clip);
CROWD_IO_API const char *crowd_io_clip_path(const crowd_io_clip *clip);
CROWD_IO_API uint32_t crowd_io_clip_rows(const crowd_io_clip *clip);
/* [rows] each row's t_s, in seconds as read. */
CROWD_IO_API const double *crowd_io_clip_times(const crowd_io_clip *clip);
/* [rows * 4 * CROWD_LANDMARK_COUNT] the landmarks, row by row. */
CROWD_IO_API const float *crowd_io_clip_landmarks(const crowd_io_clip *clip);
/* [rows] the line of the file each row came from (0: a row of a one-document JSON file). */
CROWD_IO_API const uint32_t *crowd_io_clip_lines(const crowd_io_clip *clip);

#ifdef __cplusplus
}
#endif
#endif
