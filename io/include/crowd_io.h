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
typedef struct crowd_io_live2d crowd_io_live2d;
typedef struct crowd_io_wav crowd_io_wav;
typedef struct crowd_io_hands crowd_io_hands;

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
/* The number of rigs the scene describes, and rig number index's description (NULL past the
 * count): a host may extend it before creating a world (add a controller, more parameters). What
 * it then points to is the host's and must outlive every world created from the scene; the
 * scene frees only what it allocated itself. */
CROWD_IO_API uint32_t crowd_io_scene_rig_count(const crowd_io_scene *scene);
CROWD_IO_API crowd_rig_desc *crowd_io_scene_rig_desc(crowd_io_scene *scene, uint32_t index);
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

/* ---- 6. Live2D files as crowd.h's descs (motion3, exp3, pose3, physics3 and the model3 that
 * names them). A crowd_io_live2d holds what a rig desc points to: pass its descs to
 * crowd_rig_desc (.motion, .expression, .pose, .physics, .lipsync) as they are; they stay valid
 * while the object lives. The parameters are the host's: a model3 names none (they live in the
 * .moc3), and crowd_rig_create refuses an id of these descs that names no parameter of the rig
 * (CROWD_ERR_UNKNOWN_ID), so a host gives the rig the model's parameters, or filters the ids.
 * Every file read is checked as the readers check it; an error names the file and the JSON path
 * ("haru_g_m09.motion3.json: Curves[3].Segments[17]: ..."). ---- */

/* A .model3.json and every file it names, relative to its folder as the framework resolves
 * them: FileReferences.Motions group by group in file order (group g's clips are consecutive,
 * crowd_io_live2d_motion_group), each with the entry's FadeInTime/FadeOutTime when given (else
 * the motion3's Meta, else 1); the group "Idle" (the Cubism samples') as the motion library's
 * idle group, not looping; Groups EyeBlink and LipSync as the library's eye_blink_ids and
 * lip_sync_ids and the lip sync desc's parameters (weight 0.8); FileReferences.Expressions in
 * file order (expression k is library index k); Pose; Physics. */
CROWD_IO_API crowd_io_status crowd_io_model3_load(const char *path, crowd_io_live2d **out);
/* One .motion3.json: a motion library of one clip (index 0), with these fades (< 0: the file's
 * Meta.FadeInTime / FadeOutTime, else 1), no EyeBlink or LipSync ids, no idle group. */
CROWD_IO_API crowd_io_status crowd_io_motion3_load(const char *path, double fade_in, double fade_out,
                                                   crowd_io_live2d **out);
/* One .exp3.json: an expression library of one expression (index 0). */
CROWD_IO_API crowd_io_status crowd_io_exp3_load(const char *path, crowd_io_live2d **out);
/* One .pose3.json. */
CROWD_IO_API crowd_io_status crowd_io_pose3_load(const char *path, crowd_io_live2d **out);
/* One .physics3.json (fps from Meta.Fps; gravity, wind and strength the framework's defaults). */
CROWD_IO_API crowd_io_status crowd_io_physics3_load(const char *path, crowd_io_live2d **out);
CROWD_IO_API void crowd_io_live2d_free(crowd_io_live2d *live2d);
CROWD_IO_API const char *crowd_io_live2d_path(const crowd_io_live2d *live2d);
/* The descs; NULL where the files have none (no motions, expressions, pose, physics or LipSync
 * group). */
CROWD_IO_API const crowd_motion_desc *crowd_io_live2d_motion(const crowd_io_live2d *live2d);
CROWD_IO_API const crowd_expression_desc *crowd_io_live2d_expression(const crowd_io_live2d *live2d);
CROWD_IO_API const crowd_pose_desc *crowd_io_live2d_pose(const crowd_io_live2d *live2d);
CROWD_IO_API const crowd_physics_desc *crowd_io_live2d_physics(const crowd_io_live2d *live2d);
CROWD_IO_API const crowd_lipsync_desc *crowd_io_live2d_lipsync(const crowd_io_live2d *live2d);
/* A model3's Groups EyeBlink and LipSync (0 and NULL for the single files and out of range). */
CROWD_IO_API uint32_t crowd_io_live2d_eye_blink_count(const crowd_io_live2d *live2d);
CROWD_IO_API const char *crowd_io_live2d_eye_blink_id(const crowd_io_live2d *live2d, uint32_t index);
CROWD_IO_API uint32_t crowd_io_live2d_lip_sync_count(const crowd_io_live2d *live2d);
CROWD_IO_API const char *crowd_io_live2d_lip_sync_id(const crowd_io_live2d *live2d, uint32_t index);
/* A model3's motion groups: group g's name (NULL out of range) and its clips, library indices
 * *out_first .. *out_first + *out_count - 1 (either pointer may be NULL). */
CROWD_IO_API uint32_t crowd_io_live2d_motion_group_count(const crowd_io_live2d *live2d);
CROWD_IO_API const char *crowd_io_live2d_motion_group(const crowd_io_live2d *live2d, uint32_t group,
                                                      uint32_t *out_first, uint32_t *out_count);
/* A clip's motion3 path as read, its model3 entry's Sound as written (NULL when none), and the
 * value of its event k (UserData, the order of the clip's event_times); NULL out of range. */
CROWD_IO_API const char *crowd_io_live2d_motion_file(const crowd_io_live2d *live2d, uint32_t clip);
CROWD_IO_API const char *crowd_io_live2d_motion_sound(const crowd_io_live2d *live2d, uint32_t clip);
CROWD_IO_API const char *crowd_io_live2d_motion_event(const crowd_io_live2d *live2d, uint32_t clip, uint32_t event);
/* A model3's expression k's Name (NULL out of range, and for an exp3 read alone). */
CROWD_IO_API const char *crowd_io_live2d_expression_name(const crowd_io_live2d *live2d, uint32_t expression);

/* ---- 7. WAV audio for lip sync (CROWD_FIELD_LIPSYNC_LEVEL, crowd.h section 13) ---- */

/* Reads a RIFF/WAVE file of 8-bit unsigned, 16-bit or 24-bit PCM, any channel count and rate
 * (what the Cubism samples' WAV handler reads), decoded into that handler's float samples
 * (crowd_lipsync_rms's scale). Anything else is refused naming the file and the value. */
CROWD_IO_API crowd_io_status crowd_io_wav_load(const char *path, crowd_io_wav **out);
CROWD_IO_API void crowd_io_wav_free(crowd_io_wav *wav);
CROWD_IO_API const char *crowd_io_wav_path(const crowd_io_wav *wav);
CROWD_IO_API uint64_t crowd_io_wav_frames(const crowd_io_wav *wav);
CROWD_IO_API uint32_t crowd_io_wav_channels(const crowd_io_wav *wav);
CROWD_IO_API uint32_t crowd_io_wav_rate(const crowd_io_wav *wav);
CROWD_IO_API uint32_t crowd_io_wav_bits(const crowd_io_wav *wav);
/* [frames * channels] the samples, interleaved. */
CROWD_IO_API const float *crowd_io_wav_samples(const crowd_io_wav *wav);
/* The mouth level of `count` frames played from the start with these dt (s, each in [0, 1e6]),
 * as the samples' handler computes it (LAppWavFileHandler.update): frame k's block is the
 * samples after the previous frame's up to floor(time * rate), time the sum of dt so far in
 * double; its level is crowd_lipsync_rms of the block; once every sample is used the level is 0
 * (and time stops). out_levels[count]. CROWD_IO_BAD_INPUT for a dt outside the range. */
CROWD_IO_API crowd_io_status crowd_io_wav_levels(const crowd_io_wav *wav, const double *dt, uint32_t count,
                                                 float *out_levels);

/* ---- 8. Hand tracks (MediaPipe Hand Landmarker and Holistic results as NDJSON, one result a
 * line; the fingers controller's input, crowd.h section 9a) ---- */

/* Reads a hand track: per line the timestamp, and both hands as CROWD_FIELD_HAND_LANDMARKS
 * holds them (21 x, y, z then the presence: the handedness score, Holistic 1; a hand absent
 * from a line has presence 0 and keeps its previous landmarks, zeros before any). World
 * landmarks where a hand has them, else its image landmarks with x and z times aspect (the
 * image's width/height; 0 means 1). A Hand Landmarker hand goes to the slot
 * crowd_hand_from_handedness(its label is "Right", mirrored) names; a Holistic hand to its
 * key's the same way. Two hands in one slot, a landmark list that is not 21 finite points, a
 * label but Left or Right, a score outside [0, 1], a missing or decreasing timestamp: refused,
 * naming the file, the line and the JSON path. */
CROWD_IO_API crowd_io_status crowd_io_hands_load(const char *path, bool mirrored, float aspect, crowd_io_hands **out);
CROWD_IO_API void crowd_io_hands_free(crowd_io_hands *hands);
CROWD_IO_API const char *crowd_io_hands_path(const crowd_io_hands *hands);
CROWD_IO_API uint32_t crowd_io_hands_frames(const crowd_io_hands *hands);
/* [frames] each line's timestamp in seconds. */
CROWD_IO_API const double *crowd_io_hands_times(const crowd_io_hands *hands);
/* [frames * CROWD_HAND_COUNT * CROWD_HAND_FLOATS]: frame by frame, the left hand's then the
 * right's. */
CROWD_IO_API const float *crowd_io_hands_landmarks(const crowd_io_hands *hands);
/* [frames] the line of the file each frame came from. */
CROWD_IO_API const uint32_t *crowd_io_hands_lines(const crowd_io_hands *hands);

#ifdef __cplusplus
}
#endif
#endif
