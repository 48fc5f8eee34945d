#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

crowd_simd crowd_test_simd = CROWD_SIMD_SCALAR;

crowd_simd crowd_test_target(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s scalar|sse2|avx2|avx512\n", argv[0]);
        exit(2);
    }
    if (strcmp(argv[1], "avx512-emulated") == 0) {
        /* only where the CPU lacks AVX-512: there the real target runs as avx512 */
#if defined(__x86_64__) || defined(__i386__)
        const bool native = __builtin_cpu_supports("avx512f");
#else
        const bool native = false;
#endif
        if (native || !getenv("CROWD_SIMD_EMULATE_AVX512") || !crowd_simd_supported(CROWD_SIMD_AVX512)) {
            printf("skipped: the CPU runs AVX-512 itself, or the emulated build is absent\n");
            exit(77);
        }
        crowd_test_simd = CROWD_SIMD_AVX512;
        return crowd_test_simd;
    }
    for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT; t++) {
        if (strcmp(argv[1], crowd_simd_name((crowd_simd)t)) != 0) continue;
        if (!crowd_simd_supported((crowd_simd)t)) {
            printf("skipped: target %s is not built or the CPU lacks it\n", argv[1]);
            exit(77);
        }
        crowd_test_simd = (crowd_simd)t;
        return crowd_test_simd;
    }
    fprintf(stderr, "%s: unknown target '%s'\n", argv[0], argv[1]);
    exit(2);
}

crowd_engine *crowd_test_engine_on(uint64_t seed, crowd_simd simd) {
    crowd_engine_desc desc = {.seed = seed, .simd = simd};
    crowd_engine *engine = NULL;
    crowd_result res = crowd_engine_create(&desc, &engine);
    if (res != CROWD_OK) fail_msg("crowd_engine_create: %s", crowd_result_text(res));
    return engine;
}

crowd_engine *crowd_test_engine(uint64_t seed) { return crowd_test_engine_on(seed, crowd_test_simd); }

const char *crowd_test_data(const char *relative) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", CROWD_SHARED_DATA, relative);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("skipped: shared data %s is absent\n", path);
        return NULL;
    }
    fclose(f);
    return path;
}

static const char *const result_names[] = {
#define X(code, text) #code,
    CROWD_RESULT_LIST(X)
#undef X
};

const char *rname(crowd_result r) {
    return (unsigned)r < CROWD_RESULT_COUNT ? result_names[r] : "(not a crowd_result)";
}

double crowd_test_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int crowd_test_group(const char *name, const struct CMUnitTest *tests, size_t count) {
    double t0 = crowd_test_seconds();
    int failed = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
    printf("group %s on %s: %.2f s\n", name, crowd_simd_name(crowd_test_simd), crowd_test_seconds() - t0);
    fflush(stdout);
    return failed;
}

/* One lock for every counting allocator: the engine's pool threads may allocate. */
static pthread_mutex_t counting_lock = PTHREAD_MUTEX_INITIALIZER;

void *counting_alloc(size_t size, size_t align, void *user) {
    counting *c = user;
    if (align == 0 || (align & (align - 1)) != 0 || align > 64) FAILF("allocator: bad alignment %zu", align);
    pthread_mutex_lock(&counting_lock);
    bool fail = c->fail_at >= 0 && c->allocs == c->fail_at;
    c->allocs++;
    void *p = NULL;
    if (!fail) {
        size_t bytes = (size + align - 1) / align * align;
        p = aligned_alloc(align, bytes ? bytes : align);
        if (p) {
            memset(p, 0xA5, bytes);
            if (c->nblocks == c->capblocks) {
                c->capblocks = c->capblocks ? 2 * c->capblocks : 256;
                c->blocks = realloc(c->blocks, c->capblocks * sizeof *c->blocks);
                if (!c->blocks) abort();
            }
            c->blocks[c->nblocks++] = (counting_block){p, size};
            c->live++;
            c->live_bytes += size;
            if (c->live_bytes > c->peak_bytes) c->peak_bytes = c->live_bytes;
        }
    }
    pthread_mutex_unlock(&counting_lock);
    return p;
}

void counting_free(void *ptr, void *user) {
    counting *c = user;
    pthread_mutex_lock(&counting_lock);
    size_t k = c->nblocks;
    while (k-- > 0 && c->blocks[k].p != ptr) {}
    if (ptr && k != (size_t)-1) {
        c->live_bytes -= c->blocks[k].n;
        c->blocks[k] = c->blocks[--c->nblocks];
        c->frees++;
        c->live--;
        free(ptr);
    } else {
        c->bad_frees++; /* NULL, never ours, or freed twice: left alone and counted */
    }
    pthread_mutex_unlock(&counting_lock);
}

void counting_release(counting *c) {
    for (size_t k = 0; k < c->nblocks; k++) free(c->blocks[k].p);
    free(c->blocks);
    c->blocks = NULL;
    c->nblocks = c->capblocks = 0;
}
