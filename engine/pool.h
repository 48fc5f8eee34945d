/* The optional worker pool: threads - 1 workers, the caller's thread being the first. It
 * knows nothing of engines or rigs: crowdi_pool_run runs the work it is given on every
 * slice. A leaf above the core. */
#ifndef CROWDI_POOL_H
#define CROWDI_POOL_H

#include <stdint.h>

#include "core.h"

typedef struct crowdi_pool crowdi_pool;
/* One slice of the work: slice in [0, slices), each on its own thread. */
typedef void crowdi_pool_work(void *context, uint32_t slice, uint32_t slices);

/* threads <= 1: no pool (*out NULL). Memory through owner's allocator. CROWD_ERR_RANGE above
 * 256 threads, CROWD_ERR_OUT_OF_MEMORY, CROWD_ERR_THREAD. */
crowd_result crowdi_pool_start(const crowd_engine *owner, uint32_t threads, crowdi_pool **out);
void crowdi_pool_stop(crowdi_pool *pool); /* NULL: nothing */
uint32_t crowdi_pool_threads(const crowdi_pool *pool); /* workers + 1 */
/* work(context, t, threads) for every t, t = 0 on this thread; returns when all are done. */
void crowdi_pool_run(crowdi_pool *pool, crowdi_pool_work *work, void *context);

#endif
