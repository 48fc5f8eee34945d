/* Run snapshots: `crowd run --snapshot-at K FILE` writes the run's state after frame K, and
 * `crowd run SCENE --resume FILE` continues it with frames K+1 .. F of the same scene. A file
 * is a small header (the frame, the scene's fingerprint, the rig and instance handles, its own
 * checksum) followed by the engine's snapshot (crowd_snapshot_save). tools/README.md has the
 * layout. */
#ifndef CROWD_TOOLS_RESUME_H
#define CROWD_TOOLS_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"
#include "world.h"

#define RESUME_MAGIC "CROWDRUN"
#define RESUME_VERSION 4u /* 2: the checksum covers header and payload; rig digests; 3: the first instance, the scene's parts;
                              4: a rig's part hashes every controller's settings by its table */
#define RESUME_FIXED 56u /* header bytes before the rig handles */

/* The scene's parts, each an FNV-1a 64 digest: every rig's settings (rigs[r]: each controller's
 * settings by its table, crowd_setting_info, and its entry lists), every group (instances, look
 * keys, phases, blink starts, pose clip rows and how they play, whether a face track plays and
 * its loop, and a hand track's frame count and how it plays), then every file the scene reader
 * read (scene.inputs_first..: pose clips, face tracks, hand tracks, .model3.json, .cdi3.json,
 * ...; files.h remembers each one read, so a new input is covered without being listed here).
 * Not the frame count. */
uint32_t scene_part_count(const scene *s);
uint64_t scene_part(const scene *s, uint32_t index);
/* FNV-1a 64 of the seed, dt, the rig and group counts and every part. */
uint64_t scene_fingerprint(const scene *s);
/* TOOL_OK when the saved parts (of a run with `rigs` rigs) are the scene's; else TOOL_BAD_INPUT
 * with a message naming path and the first part that changed (the rig, group or file). */
int scene_parts_differ(const char *path, const scene *s, uint32_t rigs, const uint64_t *saved, uint32_t count);

/* The fingerprint a run file stores: the scene's, then each rig's crowd_rig_settings_digest in
 * w's engine (the settings the payload's rigs must have). TOOL_FAILED on an engine error. */
int resume_fingerprint(const world *w, uint64_t *out);

/* Writes the world's state after `frame` frames to path (an exclusive temporary beside it,
 * renamed when complete: files.h). TOOL_FAILED when it cannot be written. */
int resume_save(const world *w, uint32_t frame, const char *path);

/* Replaces the state of w (just created from the same scene, seed and dt, over the same
 * instance range) with the one saved in path, and gives the frames that run had done.
 * TOOL_BAD_INPUT with a message naming the file when it cannot be read, is not a run snapshot,
 * is corrupt, holds another instance range, or was saved from another scene (naming the part
 * that changed), seed or dt. */
int resume_load(world *w, const char *path, uint32_t *out_frame);

/* The same from memory (path names it in messages). */
int resume_load_bytes(world *w, const char *path, const unsigned char *data, size_t size, uint32_t *out_frame);

#endif
