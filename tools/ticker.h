/* The tick, on one thread (crowd_tick) or on N POSIX threads, each calling crowd_tick_range on
 * its own contiguous slice of every rig: slices are multiples of 16 rows (lane-aligned on every
 * target), and all threads are joined at the end of each tick. Any N gives the same bytes
 * (crowd.h §8). The engine starts no thread itself. */
#ifndef CROWD_TOOLS_TICKER_H
#define CROWD_TOOLS_TICKER_H

#include <stdint.h>

#include "world.h"

typedef struct ticker ticker;

/* threads >= 1. The world's rigs must not gain or lose instances while the ticker lives. */
int ticker_create(ticker **out, world *w, uint32_t threads);
/* One tick of dt; adds the time spent in it (CLOCK_MONOTONIC) to *seconds. */
int ticker_tick(ticker *t, float dt, double *seconds);
void ticker_destroy(ticker *t);

/* Seconds on CLOCK_MONOTONIC. */
double tool_now(void);

#endif
