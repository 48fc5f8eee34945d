/* The worker pool: the caller runs slice 0 of the work and threads - 1 workers the others
 * (crowd_tick gives each slice a contiguous part of every rig's running rows). One
 * mutex/condition handoff wakes the pool per run; the work itself shares nothing. */
#include <pthread.h>
#include <string.h>

#include "pool.h"

#define CROWDI_MAX_THREADS 256

typedef struct { crowdi_pool *pool; uint32_t slice; } worker_arg;

struct crowdi_pool {
    const crowd_engine *owner; /* whose allocator */
    uint32_t workers;
    pthread_t *threads;
    worker_arg *args;
    pthread_mutex_t mutex;
    pthread_cond_t wake, done;
    uint64_t generation;
    uint32_t pending;
    crowdi_pool_work *work;
    void *context;
    int stop;
};

static void *worker_main(void *p) {
    worker_arg *arg = p;
    crowdi_pool *pool = arg->pool;
    uint32_t slice = arg->slice;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->mutex);
        while (pool->generation == seen && !pool->stop) pthread_cond_wait(&pool->wake, &pool->mutex);
        if (pool->stop) {
            pthread_mutex_unlock(&pool->mutex);
            return NULL;
        }
        seen = pool->generation;
        crowdi_pool_work *work = pool->work;
        void *context = pool->context;
        pthread_mutex_unlock(&pool->mutex);

        work(context, slice, pool->workers + 1);

        pthread_mutex_lock(&pool->mutex);
        if (--pool->pending == 0) pthread_cond_signal(&pool->done);
        pthread_mutex_unlock(&pool->mutex);
    }
}

crowd_result crowdi_pool_start(const crowd_engine *e, uint32_t threads, crowdi_pool **out) {
    *out = NULL;
    if (threads <= 1) return CROWD_OK;
    if (threads > CROWDI_MAX_THREADS) return CROWD_ERR_RANGE;
    crowdi_pool *pool = crowdi_alloc(e, sizeof *pool);
    if (!pool) return CROWD_ERR_OUT_OF_MEMORY;
    memset(pool, 0, sizeof *pool);
    pool->owner = e;
    pool->threads = crowdi_alloc(e, sizeof *pool->threads * threads);
    pool->args = crowdi_alloc(e, sizeof *pool->args * threads);
    if (!pool->threads || !pool->args) {
        crowdi_free(e, pool->threads);
        crowdi_free(e, pool->args);
        crowdi_free(e, pool);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    for (uint32_t t = 1; t < threads; t++) {
        pool->args[t] = (worker_arg){pool, t};
        if (pthread_create(&pool->threads[t - 1], NULL, worker_main, &pool->args[t]) != 0) {
            crowdi_pool_stop(pool);
            return CROWD_ERR_THREAD;
        }
        pool->workers++;
    }
    *out = pool;
    return CROWD_OK;
}

void crowdi_pool_stop(crowdi_pool *pool) {
    if (!pool) return;
    const crowd_engine *e = pool->owner;
    pthread_mutex_lock(&pool->mutex);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (uint32_t t = 0; t < pool->workers; t++) pthread_join(pool->threads[t], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mutex);
    crowdi_free(e, pool->threads);
    crowdi_free(e, pool->args);
    crowdi_free(e, pool);
}

uint32_t crowdi_pool_threads(const crowdi_pool *pool) { return pool ? pool->workers + 1 : 1; }

void crowdi_pool_run(crowdi_pool *pool, crowdi_pool_work *work, void *context) {
    pthread_mutex_lock(&pool->mutex);
    pool->work = work;
    pool->context = context;
    pool->pending = pool->workers;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);

    work(context, 0, pool->workers + 1);

    pthread_mutex_lock(&pool->mutex);
    while (pool->pending) pthread_cond_wait(&pool->done, &pool->mutex);
    pthread_mutex_unlock(&pool->mutex);
}
