/* crowd bench: a short run of the benchmarks (bench/bench_tick has the full grid). For the
 * 12-parameter face rig (gaze, harmonic, blink: the fused tick) at 1k, 10k, 16k, 256k and 1M
 * instances, the full body (face + 15 bones from the built-in walk clip) at 1k and 10k, and
 * the limbs alone at 100k, without and with One Euro smoothing (also as limb chains per
 * second: 4 per instance), and the full avatar (bench/avatar.h: every controller on one rig) at 10k,
 * on every SIMD target this CPU runs and on the per-object way (bench/reference.h): instance
 * updates per second, the speed-up over the per-object way, and the bytes per second of the
 * columns the tick reads and writes as a fraction of STREAM's triad over buffers as large as
 * the face tick's working set at 1M. Workloads, rings of copies (fresh data) and byte counts
 * are the benchmark's own (bench/workloads.h).
 *
 * Timing: each cell ticks until it has run --frames ticks and 0.15 s; ticks are timed in
 * blocks of at least 1 ms and the cell's rate is the median block's. With one thread the
 * clock is the thread's CPU time (the machine may be shared: a descheduled thread does not
 * count), with more the wall clock (CLOCK_MONOTONIC) from the start of a tick to the join. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "avatar.h"
#include "commands.h"
#include "default_crowd.h"
#include "diag.h"
#include "files.h"
#include "reference.h"
#include "workloads.h"

static const char bench_usage[] =
    "usage: crowd bench [--frames N] [--threads N] [--json FILE]\n"
    "Measures the tick's instance updates per second on the 12-parameter face rig (gaze,\n"
    "harmonic, blink) at 1k, 10k, 16k, 256k and 1M instances, on the full body (face + 15 bones\n"
    "from the built-in walk clip) at 1k and 10k, on the limbs alone at 100k (also as limb\n"
    "chains per second) and on the full avatar (every controller on one rig, bench/avatar.h) at\n"
    "10k, on each SIMD target this CPU runs and on the per-object way (one record\n"
    "per avatar, libm sinf and cglm). Prints the speed-up over the per-object way and the tick's\n"
    "bytes per second as a fraction of the STREAM triad bandwidth. Takes 10-20 s.\n"
    "  --frames N   at least N ticks per measurement (default 3)\n"
    "  --threads N  ticks each crowd on N threads, slices of a multiple of 16 rows (default 1)\n"
    "  --json FILE  also writes the results as JSON\n";

#define CELL_SECONDS 0.15
#define BLOCK_SECONDS 0.001
#define MAX_BLOCKS 4096
#define MAX_THREADS 64

/* ---- the clock ---- */
static double clock_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- N - 1 helper threads, joined after every job ---- */
typedef struct pool {
    uint32_t threads;
    pthread_t th[MAX_THREADS];
    atomic_uint_fast64_t posted;
    atomic_uint done;
    atomic_int stop;
    void (*fn)(void *arg, uint32_t t, uint32_t threads);
    void *arg;
} pool;

typedef struct pool_worker {
    pool *p;
    uint32_t t;
} pool_worker;
static pool_worker workers[MAX_THREADS];

static void relax(uint32_t spins) {
    if (spins > 2048) sched_yield(); /* a shared machine: let the other tenant run */
}

static void *pool_main(void *arg) {
    pool_worker *w = arg;
    pool *p = w->p;
    uint_fast64_t seen = 0;
    for (;;) {
        for (uint32_t s = 0; atomic_load_explicit(&p->posted, memory_order_acquire) == seen; s++) {
            if (atomic_load_explicit(&p->stop, memory_order_acquire)) return NULL;
            relax(s);
        }
        seen++;
        p->fn(p->arg, w->t, p->threads);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_acq_rel);
    }
}

static int pool_start(pool *p, uint32_t threads) {
    memset(p, 0, sizeof *p);
    p->threads = threads;
    atomic_init(&p->posted, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->stop, 0);
    for (uint32_t t = 1; t < threads; t++) {
        workers[t] = (pool_worker){p, t};
        if (pthread_create(&p->th[t], NULL, pool_main, &workers[t]) != 0) {
            p->threads = t; /* stop the ones started */
            return -1;
        }
    }
    return 0;
}

static void pool_stop(pool *p) {
    atomic_store_explicit(&p->stop, 1, memory_order_release);
    for (uint32_t t = 1; t < p->threads; t++) pthread_join(p->th[t], NULL);
}

/* Runs fn(arg, t, threads) on every thread t (the caller is thread 0) and joins. */
static void pool_run(pool *p, void (*fn)(void *, uint32_t, uint32_t), void *arg) {
    if (p->threads == 1) {
        fn(arg, 0, 1);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->posted, 1, memory_order_acq_rel);
    fn(arg, 0, p->threads);
    for (uint32_t s = 0; atomic_load_explicit(&p->done, memory_order_acquire) != p->threads - 1; s++) relax(s);
}

static void tick_slice(void *arg, uint32_t t, uint32_t threads) {
    bench_ring *r = arg;
    uint32_t first, count = bench_split(r->n, threads, t, &first);
    bench_ring_tick(r, BENCH_DT, first, count);
}

typedef struct avatar_job {
    bench_avatar *a;
} avatar_job;

static void avatar_slice(void *arg, uint32_t t, uint32_t threads) {
    bench_avatar *a = ((avatar_job *)arg)->a;
    uint32_t first, count = bench_split(bench_avatar_count(a), threads, t, &first);
    bench_avatar_tick_range(a, BENCH_DT, first, count);
}

typedef struct stream_job {
    const stream_buffers *s;
    int triad;
} stream_job;

static void stream_slice(void *arg, uint32_t t, uint32_t threads) {
    const stream_job *j = arg;
    size_t slice = j->s->n / threads / 16 * 16, first = slice * t;
    size_t count = t + 1 == threads ? j->s->n - first : slice;
    if (j->triad)
        stream_triad(j->s, 3.0f, first, count);
    else
        stream_copy(j->s, first, count);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, uint32_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Seconds per tick of the ring: the median of blocks of ticks. */
static double time_ring(bench_ring *r, pool *p, clockid_t clk, uint32_t min_ticks) {
    static double blocks[MAX_BLOCKS];
    uint32_t nblocks = 0, ticks = 0;
    double total = 0.0, block = 0.0;
    uint32_t in_block = 0;
    for (uint32_t k = 0; k < r->copies; k++) { /* one pass through the ring first */
        pool_run(p, tick_slice, r);
        bench_ring_advance(r);
    }
    while ((ticks < min_ticks || total < CELL_SECONDS || in_block) && nblocks < MAX_BLOCKS) {
        if (bench_ring_due(r)) bench_ring_refresh(r); /* not timed */
        double t0 = clock_of(clk);
        pool_run(p, tick_slice, r);
        double dt = clock_of(clk) - t0;
        bench_ring_advance(r);
        ticks++;
        total += dt;
        block += dt;
        in_block++;
        if (block >= BLOCK_SECONDS || (ticks >= min_ticks && total >= CELL_SECONDS)) {
            blocks[nblocks++] = block / in_block;
            block = 0.0;
            in_block = 0;
        }
    }
    return median(blocks, nblocks);
}

/* Seconds per tick of the full avatar: the median of blocks, as time_ring. */
static double time_avatar(bench_avatar *a, pool *p, clockid_t clk, uint32_t min_ticks) {
    static double blocks[MAX_BLOCKS];
    uint32_t nblocks = 0, ticks = 0, in_block = 0;
    double total = 0.0, block = 0.0;
    avatar_job j = {a};
    pool_run(p, avatar_slice, &j);
    while ((ticks < min_ticks || total < CELL_SECONDS || in_block) && nblocks < MAX_BLOCKS) {
        double t0 = clock_of(clk);
        pool_run(p, avatar_slice, &j);
        double dt = clock_of(clk) - t0;
        ticks++;
        total += dt;
        block += dt;
        in_block++;
        if (block >= BLOCK_SECONDS || (ticks >= min_ticks && total >= CELL_SECONDS)) {
            blocks[nblocks++] = block / in_block;
            block = 0.0;
            in_block = 0;
        }
    }
    return median(blocks, nblocks);
}

static double time_stream(const stream_buffers *s, pool *p, clockid_t clk, int triad) {
    double runs[7];
    stream_job j = {s, triad};
    pool_run(p, stream_slice, &j);
    for (int k = 0; k < 7; k++) {
        double t0 = clock_of(clk);
        pool_run(p, stream_slice, &j);
        runs[k] = clock_of(clk) - t0;
    }
    return (double)s->n * (triad ? STREAM_TRIAD_BYTES : STREAM_COPY_BYTES) / median(runs, 7);
}

/* ---- the grid ---- */
typedef struct cell {
    bench_workload w;
    uint32_t n;
} cell;
static const cell cells[] = {
    {BENCH_FACE, 1000},  {BENCH_FACE, 10000},  {BENCH_FACE, 16000},   {BENCH_FACE, 256000}, {BENCH_FACE, 1000000},
    {BENCH_BODY, 1000},  {BENCH_BODY, 10000},  {BENCH_LIMBS, 100000}, {BENCH_LIMBS_SMOOTHED, 100000},
};
#define CELLS (sizeof cells / sizeof cells[0])

static int json_set(json_t *obj, const char *key, json_t *value) {
    return value ? json_object_set_new(obj, key, value) : -1;
}

int cmd_bench(int argc, char **argv) {
    tool_args a = {argc, argv, 1, "bench"};
    uint32_t frames = 3, threads = 1;
    const char *json_path = NULL;
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = args_value(&a, "--frames", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--frames", v, 1, 1000000, &frames) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--threads", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--threads", v, 1, MAX_THREADS, &threads) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--json", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            json_path = v;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(bench_usage, stdout);
            return TOOL_OK;
        } else {
            return args_unexpected(&a);
        }
    }
    /* opened first: a path that cannot be written fails before the run; an exclusive
     * temporary beside it, renamed when complete (files.h) */
    tool_output json_out = {0};
    FILE *json_file = NULL;
    if (json_path) {
        int ost = tool_output_open(&json_out, json_path, "benchmark results");
        if (ost != TOOL_OK) return ost;
        json_file = json_out.f;
    }
    pose_clip walk;
    int st = default_walk_clip(&walk);
    if (st != TOOL_OK) {
        tool_output_abort(&json_out);
        return st;
    }
    const bench_clip clip = {walk.landmarks, walk.row_count};
    const clockid_t clk = threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    json_t *root = json_object(), *rows = json_array(), *skipped = json_array();
    pool p;
    if (!root || !rows || !skipped) {
        st = tool_error(TOOL_FAILED, "out of memory");
        goto done_json;
    }
    if (pool_start(&p, threads) != 0) {
        pool_stop(&p);
        st = tool_error(TOOL_FAILED, "bench: cannot start %u threads", threads);
        goto done_json;
    }

    /* implementations: the per-object way, then each target this CPU runs */
    int impls[CROWD_SIMD_COUNT + 1], nimpl = 0;
    impls[nimpl++] = BENCH_PER_OBJECT;
    printf("crowd bench: %u thread%s, %s; ", threads, threads == 1 ? "" : "s",
           threads == 1 ? "thread CPU time" : "wall-clock time");
    for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT; t++) {
        const char *why = bench_impl_skip_reason(t);
        if (why) {
            printf("%s skipped (%s); ", crowd_simd_name((crowd_simd)t), why);
            json_t *s = json_object();
            json_set(s, "simd", json_string(crowd_simd_name((crowd_simd)t)));
            json_set(s, "reason", json_string(why));
            json_array_append_new(skipped, s);
        } else {
            impls[nimpl++] = t;
        }
    }
    printf("\n");

    /* the streaming limit */
    stream_buffers sb;
    const size_t stream_n = (size_t)bench_workload_traffic(BENCH_FACE).columns * 1000000 / 3;
    if (stream_buffers_create(&sb, stream_n) != 0) {
        st = tool_error(TOOL_FAILED, "out of memory");
        goto done_pool;
    }
    const double triad = time_stream(&sb, &p, clk, 1), copy = time_stream(&sb, &p, clk, 0);
    stream_buffers_destroy(&sb);
    printf("streaming limit (STREAM over %.0f MB, the face tick's working set at 1M): triad %.1f GB/s, copy %.1f GB/s\n\n",
           3.0 * stream_n * sizeof(float) / 1e6, triad / 1e9, copy / 1e9);
    fflush(stdout);
    json_t *stream = json_object();
    json_set(stream, "buffer_bytes", json_integer((json_int_t)(3 * stream_n * sizeof(float))));
    json_set(stream, "triad_bytes_per_second", json_real(triad));
    json_set(stream, "copy_bytes_per_second", json_real(copy));

    printf("%-14s %9s  %-10s %14s %12s %9s %9s\n", "workload", "instances", "impl", "instances/s", "x per-object",
           "GB/s", "of triad");
    for (size_t c = 0; c < CELLS && st == TOOL_OK && !tool_interrupted; c++) {
        const bench_workload w = cells[c].w;
        const double bytes = bench_bytes_per_instance(w);
        double per_object = 0.0;
        for (int k = 0; k < nimpl && st == TOOL_OK; k++) {
            bench_ring r;
            char err[512];
            if (bench_ring_create(&r, w, impls[k], cells[c].n, &clip, err, sizeof err) != 0) {
                st = tool_error(TOOL_FAILED, "bench: %s on %s at %u: %s", bench_workload_name(w),
                                bench_impl_name(impls[k]), cells[c].n, err);
                break;
            }
            const double rate = cells[c].n / time_ring(&r, &p, clk, frames);
            bench_ring_destroy(&r);
            if (impls[k] == BENCH_PER_OBJECT) per_object = rate;
            const double speedup = per_object > 0 ? rate / per_object : 0.0, bw = rate * bytes;
            const double chains = rate * bench_chains_per_instance(w);
            printf("%-14s %9u  %-10s %14.4g %11.1fx %9.2f %8.0f%%", bench_workload_name(w), cells[c].n,
                   bench_impl_name(impls[k]), rate, speedup, bw / 1e9, 100.0 * bw / triad);
            if (chains > 0) printf("  %.4g limb chains/s", chains);
            printf("\n");
            fflush(stdout);
            json_t *row = json_object();
            json_set(row, "workload", json_string(bench_workload_name(w)));
            json_set(row, "instances", json_integer(cells[c].n));
            json_set(row, "implementation", json_string(bench_impl_name(impls[k])));
            json_set(row, "instances_per_second", json_real(rate));
            json_set(row, "bytes_per_instance", json_real(bytes));
            json_set(row, "bytes_per_second", json_real(bw));
            json_set(row, "speedup_vs_per_object", json_real(speedup));
            json_set(row, "triad_fraction", json_real(bw / triad));
            if (chains > 0) json_set(row, "limb_chains_per_second", json_real(chains));
            json_array_append_new(rows, row);
        }
    }
    /* the full avatar (bench/avatar.h): every controller on one rig */
    const uint32_t avatars = 10000;
    double avatar_per_object = 0.0;
    for (int k = 0; k < nimpl && st == TOOL_OK && !tool_interrupted; k++) {
        bench_avatar *av;
        char err[512];
        if (bench_avatar_create(&av, impls[k], avatars, 1, &clip, err, sizeof err) != 0) {
            st = tool_error(TOOL_FAILED, "bench: avatar on %s at %u: %s", bench_impl_name(impls[k]), avatars, err);
            break;
        }
        const double rate = avatars / time_avatar(av, &p, clk, frames), bytes = bench_avatar_bytes_per_instance(av);
        bench_avatar_destroy(av);
        if (impls[k] == BENCH_PER_OBJECT) avatar_per_object = rate;
        const double speedup = avatar_per_object > 0 ? rate / avatar_per_object : 0.0;
        printf("%-14s %9u  %-10s %14.4g %11.1fx %9s %9s  %.0f B per instance\n", "avatar", avatars,
               bench_impl_name(impls[k]), rate, speedup, "", "", bytes);
        fflush(stdout);
        json_t *row = json_object();
        json_set(row, "workload", json_string("avatar"));
        json_set(row, "instances", json_integer(avatars));
        json_set(row, "implementation", json_string(bench_impl_name(impls[k])));
        json_set(row, "instances_per_second", json_real(rate));
        json_set(row, "bytes_per_instance", json_real(bytes));
        json_set(row, "speedup_vs_per_object", json_real(speedup));
        json_array_append_new(rows, row);
    }
    if (st == TOOL_OK && tool_interrupted) st = TOOL_FAILED;
    if (st == TOOL_OK && json_file) {
        json_set(root, "threads", json_integer(threads));
        json_set(root, "clock", json_string(threads == 1 ? "thread_cpu" : "monotonic"));
        json_set(root, "stream", stream);
        stream = NULL;
        json_set(root, "skipped", skipped);
        skipped = NULL;
        json_set(root, "rows", rows);
        rows = NULL;
        if (json_dumpf(root, json_file, JSON_INDENT(2)) != 0 || fputc('\n', json_file) == EOF)
            st = tool_error(TOOL_FAILED, "bench: cannot write %s: %s", json_path, strerror(errno));
    }
    json_decref(stream);
done_pool:
    pool_stop(&p);
done_json:
    json_decref(root);
    json_decref(rows);
    json_decref(skipped);
    clip_free(&walk);
    if (json_file) { /* no partial results */
        if (st == TOOL_OK) st = tool_output_commit(&json_out, "benchmark results");
        else tool_output_abort(&json_out);
    }
    return st;
}
