/* The timed tick. Threads belong to the engine: a world created with threads > 1 has an engine
 * with its own pool (crowd_engine_desc.threads), and crowd_tick splits every rig's running rows
 * into contiguous 16-row-aligned slices, one per thread, the caller ticking the first. Any
 * thread count gives the same bytes (crowd.h §1, §8). */
#ifndef CROWD_TOOLS_TICKER_H
#define CROWD_TOOLS_TICKER_H

#include "world.h"

/* One crowd_tick of dt; adds the time spent in it (CLOCK_MONOTONIC) to *seconds. */
int ticker_tick(world *w, float dt, double *seconds);

/* Seconds on CLOCK_MONOTONIC. */
double tool_now(void);

#endif
