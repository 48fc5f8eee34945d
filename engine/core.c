/* The core: result texts, error messages, handle tags and memory. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

/* struct crowd_engine starts with its crowdi_core (internal.h), so the engine pointer is a
 * pointer to it (C11 6.7.2.1: a pointer to a structure converts to one to its first member). */
static crowdi_core *core_of(const crowd_engine *engine) { return (crowdi_core *)(void *)engine; }

/* ---- results and errors ---- */
const char *crowd_result_text(crowd_result result) {
    switch (result) {
#define CROWD_X_TEXT(code, text) case code: return text;
        CROWD_RESULT_LIST(CROWD_X_TEXT)
#undef CROWD_X_TEXT
    default: return "unknown result code";
    }
}

crowd_result crowdi_fail(const crowd_engine *engine, crowd_result code, const char *fmt, ...) {
    char buf[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    if (engine) {
        /* The message is the one piece of engine state an error writes: it is not "stored
         * state" in the sense of SPEC §6, and const callers still need it. */
        crowdi_core *c = core_of(engine);
        memcpy(c->error, buf, sizeof buf);
        if (c->logger.log) c->logger.log(code, c->error, c->logger.user);
    }
    return code;
}

crowd_result crowdi_fail_concurrent(const crowd_engine *engine, crowd_result code, const char *fmt, ...) {
    crowdi_core *e = core_of(engine);
    /* the first of concurrently failing calls takes the message; the others leave it alone
     * rather than race on it (and on the logger) */
    if (__atomic_test_and_set(&e->error_busy, __ATOMIC_ACQUIRE)) return code;
    va_list args;
    va_start(args, fmt);
    vsnprintf(e->error, sizeof e->error, fmt, args);
    va_end(args);
    if (e->logger.log) e->logger.log(code, e->error, e->logger.user);
    __atomic_clear(&e->error_busy, __ATOMIC_RELEASE);
    return code;
}

/* ---- handle tags ---- */
static pthread_mutex_t tag_mutex = PTHREAD_MUTEX_INITIALIZER;
static uint32_t tag_refs[CROWDI_TAG_COUNT];
static uint32_t tag_cursor; /* the last tag handed out */

uint32_t crowdi_tag_new(void) {
    uint32_t tag = 0;
    pthread_mutex_lock(&tag_mutex);
    for (uint32_t k = 1; k < CROWDI_TAG_COUNT && !tag; k++) {
        uint32_t t = (tag_cursor + k) % CROWDI_TAG_COUNT;
        if (t != 0 && tag_refs[t] == 0) tag = t;
    }
    if (tag) {
        tag_refs[tag] = 1;
        tag_cursor = tag;
    }
    pthread_mutex_unlock(&tag_mutex);
    return tag;
}

void crowdi_tag_ref(uint32_t tag) {
    pthread_mutex_lock(&tag_mutex);
    tag_refs[tag & 0xffffu]++;
    pthread_mutex_unlock(&tag_mutex);
}

void crowdi_tag_release(uint32_t tag) {
    pthread_mutex_lock(&tag_mutex);
    if (tag_refs[tag & 0xffffu]) tag_refs[tag & 0xffffu]--;
    pthread_mutex_unlock(&tag_mutex);
}

const char *crowd_last_error(const crowd_engine *engine) { return engine ? core_of(engine)->error : ""; }

/* ---- memory ---- */
void *crowdi_alloc_with(const crowd_allocator *al, size_t size) {
    if (size == 0) size = CROWDI_ALIGN;
    if (al->alloc) return al->alloc(size, CROWDI_ALIGN, al->user);
    size = (size + CROWDI_ALIGN - 1) / CROWDI_ALIGN * CROWDI_ALIGN;
    return aligned_alloc(CROWDI_ALIGN, size);
}

void crowdi_free_with(const crowd_allocator *al, void *ptr) {
    if (!ptr) return;
    if (al->free) al->free(ptr, al->user);
    else free(ptr);
}

void *crowdi_alloc(const crowd_engine *engine, size_t size) { return crowdi_alloc_with(&core_of(engine)->allocator, size); }

void *crowdi_alloc_large(const crowd_engine *engine, size_t size) {
    void *p = crowdi_alloc(engine, size);
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
    /* Transparent huge pages over the whole 2 MiB pages inside the block, where the memory is
     * the C library's (a caller's allocator decides for its own): the tick walks dozens of
     * columns side by side, and with 4 KiB pages a 4M-row face tick ran 15-20% slower (its
     * CPU time; the page walks of a virtual machine are dear). Advice only: a kernel that
     * has them off, or refuses, changes nothing. */
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p && !core_of(engine)->allocator.alloc && size >= 2 * huge) {
        uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1), to = ((uintptr_t)p + size) & ~(huge - 1);
        if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
    }
#endif
    return p;
}
void crowdi_free(const crowd_engine *engine, void *ptr) { crowdi_free_with(&core_of(engine)->allocator, ptr); }

char *crowdi_strdup(const crowd_engine *engine, const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = crowdi_alloc(engine, n);
    if (copy) memcpy(copy, s, n);
    return copy;
}

