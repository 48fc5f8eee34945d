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
#define RESUME_VERSION 2u /* 2: the checksum covers header and payload; rig digests */
#define RESUME_FIXED 48u /* header bytes before the rig handles */

/* FNV-1a 64 of everything in the scene that shapes a run: seed, dt, every rig setting, every
 * group (look keys, phases, blink starts, pose clips and their rows) — not the frame count. */
uint64_t scene_fingerprint(const scene *s);

/* The fingerprint a run file stores: the scene's, then each rig's crowd_rig_settings_digest in
 * w's engine (the settings the payload's rigs must have). TOOL_FAILED on an engine error. */
int resume_fingerprint(const world *w, uint64_t *out);

/* Writes the world's state after `frame` frames to path (through path.tmp, renamed when
 * complete). TOOL_FAILED when it cannot be written. */
int resume_save(const world *w, uint32_t frame, const char *path);

/* Replaces the state of w (just created from the same scene, seed and dt) with the one saved
 * in path, and gives the frames that run had done. TOOL_BAD_INPUT with a message naming the
 * file when it cannot be read, is not a run snapshot, is corrupt, or was saved from another
 * scene, seed or dt. */
int resume_load(world *w, const char *path, uint32_t *out_frame);

/* The same from memory (path names it in messages). */
int resume_load_bytes(world *w, const char *path, const unsigned char *data, size_t size, uint32_t *out_frame);

#endif
