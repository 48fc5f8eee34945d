/* Flags more than one command takes: the scene and how to tick it (run, render, run --mpi), and
 * what goes over VMC (run, pose, stream). Each parser looks at argv[a->i]: 1, taken (the value
 * read); 0, not one of its flags; -1, a bad value (printed). */
#ifndef CROWD_TOOLS_OPTIONS_H
#define CROWD_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "args.h"
#include "crowd.h"
#include "scene.h"
#include "vmc.h"

/* Options shared by run and render: the scene, its overrides and how to tick it. */
typedef struct scene_options {
    const char *scene_path; /* NULL: the built-in default crowd */
    bool has_frames, has_dt, has_seed;
    uint32_t frames;
    float dt;
    uint64_t seed;
    uint32_t threads;
    crowd_simd simd;
    bool quiet;
    const char *motion;     /* --motion GROUP[:INDEX|:random]: every group of a rig with motions plays it */
    const char *expression; /* --expression NAME: every group of a rig with expressions starts it */
} scene_options;

/* Parses one of the options shared by run and render (--frames --dt --seed --threads --simd
 * --quiet --motion --expression) at a->i. 1: taken; 0: not one of them; -1: a bad value (printed). */
int scene_option(tool_args *a, scene_options *o);
/* Loads the scene (or builds the default crowd) and applies the overrides. */
int scene_options_load(const scene_options *o, scene *s);

/* --vmc-send LIST or --vmc-blend NAMES at argv[i]: 1 (read into *s), 0 (another argument), -1
 * (bad, printed). */
int vmc_option(tool_args *a, vmc_settings *s);

#endif
