/* The frame loop shared by run and render: for k = first+1 .. frames, feed the look keys and pose
 * rows of frame k, tick (timed), write the traces of frame k, show progress, and write a run
 * snapshot after frame snapshot_at when asked. */
#ifndef CROWD_TOOLS_SIMULATE_H
#define CROWD_TOOLS_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "bvh.h"
#include "trace.h"
#include "vmc.h"
#include "vrma.h"
#include "world.h"

typedef struct sim_options {
    uint32_t first;             /* frames already done (a resumed run): the loop starts at first + 1 */
    uint32_t frames;            /* the last frame */
    float dt;
    trace_file *parameters;     /* NULL: none */
    trace_file *bones;          /* NULL: none */
    bool bones_one;             /* bones holds instance bvh_instance alone (--instance K), not every one */
    bvh_file *bvh;              /* NULL: none; else instance bvh_instance's motion, a frame per tick */
    uint32_t bvh_instance;      /* < instance_count, of a rig with limbs */
    vrma_writer *vrma;          /* NULL: none; else instance bvh_instance's motion as VRM Animation */
    bool quiet;                 /* no progress line */
    vmc_sender *vmc;            /* NULL: none; else instance vmc_instance (of a rig with limbs) sent a frame per tick */
    uint32_t vmc_instance;
    /* the face of vmc_instance (and --vrma: of bvh_instance) goes too: its blink controller, its
     * ParamMouthOpenY, its ParamEyeBallX/Y (with a look controller or face tracking), face
     * tracking's scores */
    vmc_pacer *pacer;           /* NULL: as fast as possible; else frame k at (k-1)*dt (--realtime) */
    const char *snapshot_path;  /* NULL: none; else written after frame snapshot_at (resume.h) */
    uint32_t snapshot_at;       /* first <= snapshot_at <= frames; == first: before the loop */
} sim_options;

/* Runs the frames; *tick_seconds receives the time spent inside the tick alone. Threads are the
 * engine's (world_create). Stops with TOOL_FAILED on SIGINT/SIGTERM (see tool_catch_interrupts). */
int simulate(world *w, const sim_options *o, double *tick_seconds);

/* Frame k's trace lines of the world's instances (numbered w->first + i); NULL: not that trace. */
void simulate_write_traces(const world *w, trace_file *parameters, trace_file *bones, uint32_t k);

#endif
