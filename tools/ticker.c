#include "ticker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"

#define SLICE_ALIGN 16u

typedef struct worker {
    ticker *t;
    uint32_t index;
    crowd_result res;
    pthread_t thread;
    int started;
} worker;

/* A start gate and a done count under one mutex: a tick bumps the generation and wakes the
 * workers, then waits until each has run its slices. */
struct ticker {
    world *w;
    uint32_t threads;
    worker *workers;
    pthread_mutex_t mutex;
    pthread_cond_t wake, done;
    int sync_ready;
    uint64_t generation;
    uint32_t remaining;
    int quit;
    float dt;
};

double tool_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rows [first, first + count) of rig r for worker k of n. */
static void slice(uint32_t rows, uint32_t n, uint32_t k, uint32_t *first, uint32_t *count) {
    uint32_t per = (rows + n - 1) / n;
    per = (per + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
    uint64_t a = (uint64_t)per * k, b = a + per;
    if (a > rows) a = rows;
    if (b > rows) b = rows;
    *first = (uint32_t)a;
    *count = (uint32_t)(b - a);
}

static void run_slices(worker *wk) {
    ticker *t = wk->t;
    const world *w = t->w;
    for (uint32_t r = 0; r < w->scene->rig_count; r++) {
        uint32_t first, count;
        slice(w->rigs[r].rows, t->threads, wk->index, &first, &count);
        if (!count) continue;
        crowd_result res = crowd_tick_range(w->engine, t->dt, w->rigs[r].rig, first, count);
        if (res != CROWD_OK && wk->res == CROWD_OK) wk->res = res;
    }
}

static void *worker_main(void *arg) {
    worker *wk = arg;
    ticker *t = wk->t;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&t->mutex);
        while (t->generation == seen && !t->quit) pthread_cond_wait(&t->wake, &t->mutex);
        seen = t->generation;
        int quit = t->quit;
        pthread_mutex_unlock(&t->mutex);
        if (quit) break;
        run_slices(wk);
        pthread_mutex_lock(&t->mutex);
        if (--t->remaining == 0) pthread_cond_signal(&t->done);
        pthread_mutex_unlock(&t->mutex);
    }
    return NULL;
}

int ticker_create(ticker **out, world *w, uint32_t threads) {
    *out = NULL;
    ticker *t = tool_calloc(1, sizeof *t);
    if (!t) return TOOL_FAILED;
    t->w = w;
    t->threads = threads ? threads : 1;
    *out = t;
    if (t->threads == 1) return TOOL_OK;
    t->workers = tool_calloc(t->threads, sizeof *t->workers);
    if (!t->workers) return TOOL_FAILED;
    if (pthread_mutex_init(&t->mutex, NULL) != 0) return tool_error(TOOL_FAILED, "pthread_mutex_init failed");
    if (pthread_cond_init(&t->wake, NULL) != 0) {
        pthread_mutex_destroy(&t->mutex);
        return tool_error(TOOL_FAILED, "pthread_cond_init failed");
    }
    if (pthread_cond_init(&t->done, NULL) != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mutex);
        return tool_error(TOOL_FAILED, "pthread_cond_init failed");
    }
    t->sync_ready = 1;
    for (uint32_t k = 0; k < t->threads; k++) {
        t->workers[k].t = t;
        t->workers[k].index = k;
    }
    /* worker 0 is the calling thread */
    for (uint32_t k = 1; k < t->threads; k++) {
        if (pthread_create(&t->workers[k].thread, NULL, worker_main, &t->workers[k]) != 0)
            return tool_error(TOOL_FAILED, "cannot start thread %u of %u", k + 1, t->threads);
        t->workers[k].started = 1;
    }
    return TOOL_OK;
}

int ticker_tick(ticker *t, float dt, double *seconds) {
    double t0 = tool_now();
    if (t->threads == 1) {
        crowd_result res = crowd_tick(t->w->engine, dt);
        *seconds += tool_now() - t0;
        return res == CROWD_OK ? TOOL_OK : tool_engine_error(TOOL_FAILED, t->w->engine, res, "crowd_tick");
    }
    for (uint32_t k = 0; k < t->threads; k++) t->workers[k].res = CROWD_OK;
    pthread_mutex_lock(&t->mutex);
    t->dt = dt;
    t->remaining = t->threads - 1;
    t->generation++;
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mutex);
    run_slices(&t->workers[0]);
    pthread_mutex_lock(&t->mutex);
    while (t->remaining) pthread_cond_wait(&t->done, &t->mutex);
    pthread_mutex_unlock(&t->mutex);
    *seconds += tool_now() - t0;
    for (uint32_t k = 0; k < t->threads; k++)
        if (t->workers[k].res != CROWD_OK)
            return tool_error(TOOL_FAILED, "crowd_tick_range (thread %u): %s", k, crowd_result_text(t->workers[k].res));
    return TOOL_OK;
}

void ticker_destroy(ticker *t) {
    if (!t) return;
    if (t->workers && t->sync_ready) {
        pthread_mutex_lock(&t->mutex);
        t->quit = 1;
        pthread_cond_broadcast(&t->wake);
        pthread_mutex_unlock(&t->mutex);
        for (uint32_t k = 1; k < t->threads; k++)
            if (t->workers[k].started) pthread_join(t->workers[k].thread, NULL);
        pthread_cond_destroy(&t->done);
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mutex);
    }
    free(t->workers);
    free(t);
}
