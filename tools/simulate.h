/* The frame loop shared by run and render: for k = 1..frames, feed the look keys and pose rows
 * of frame k, tick (timed), write the traces of frame k, show progress. */
#ifndef CROWD_TOOLS_SIMULATE_H
#define CROWD_TOOLS_SIMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"
#include "world.h"

typedef struct sim_options {
    uint32_t frames;
    float dt;
    uint32_t threads;
    trace_file *parameters; /* NULL: none */
    trace_file *bones;      /* NULL: none */
    bool quiet;             /* no progress line */
} sim_options;

/* Runs the frames; *tick_seconds receives the time spent inside the tick alone. Stops with
 * TOOL_FAILED on SIGINT/SIGTERM (see tool_catch_interrupts). */
int simulate(world *w, const sim_options *o, double *tick_seconds);

#endif
