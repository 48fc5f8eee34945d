/* The engine's small core: errors (the message and the logger), memory (the allocator hook)
 * and handle tags. A leaf: it needs only crowd.h, and every other engine file may use it. */
#ifndef CROWDI_CORE_H
#define CROWDI_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd.h"

#define CROWDI_ALIGN 64 /* every allocation, and so every column, starts on a cache line */

/* What errors and memory need of an engine: the first member of struct crowd_engine, so that
 * core.c reaches it from the engine pointer alone. */
typedef struct crowdi_core {
    crowd_allocator allocator;
    crowd_logger logger;
    char error[512];
    unsigned char error_busy; /* set while a crowd_tick_range call writes error (atomically) */
} crowdi_core;

/* errors: record the message (printf-style, starting with the function name) and log it */
crowd_result crowdi_fail(const crowd_engine *engine, crowd_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define CROWDI_CHECK(engine, cond, code, ...) \
    do { if (!(cond)) return crowdi_fail((engine), (code), __VA_ARGS__); } while (0)

/* The same for calls that may run concurrently (crowd_tick_range): of several failing at
 * once, one records and logs its message, the others only return the code. */
crowd_result crowdi_fail_concurrent(const crowd_engine *engine, crowd_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Handle tags: a process-wide table of the tags live engines hold, with a reference count
 * each (an engine that loaded a snapshot shares the saving engine's tag). New tags come from
 * a rotating process-wide counter that skips tags in use, so two live engines never get the
 * same one and a freed tag is reused as late as possible. 0: all 65535 tags are in use. */
#define CROWDI_TAG_COUNT 0x10000u /* tags 1 .. 0xffff; 0 is never a tag */
uint32_t crowdi_tag_new(void);
void crowdi_tag_ref(uint32_t tag);
void crowdi_tag_release(uint32_t tag);

/* memory through the engine's allocator (64-byte aligned) */
void *crowdi_alloc(const crowd_engine *engine, size_t size);
void crowdi_free(const crowd_engine *engine, void *ptr);
/* crowdi_alloc for a rig's column block: huge pages where the system has them (core.c) */
void *crowdi_alloc_large(const crowd_engine *engine, size_t size);
char *crowdi_strdup(const crowd_engine *engine, const char *s);
/* the same before an engine exists, or for the engine itself */
void *crowdi_alloc_with(const crowd_allocator *allocator, size_t size);
void crowdi_free_with(const crowd_allocator *allocator, void *ptr);

#endif
