/* Names (parameter ids, rig names) hashed for lookups in constant time: readers check that ids
 * are unique and that entries name existing ones in time linear in the counts. The index
 * points at the caller's strings, which must outlive it. */
#ifndef CROWD_TOOLS_NAME_INDEX_H
#define CROWD_TOOLS_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct name_index {
    struct name_slot *slots; /* open addressing, at most half full */
    size_t mask, count;
} name_index;

void name_index_free(name_index *x);
/* Adds name as `index` unless it is there: returns its earlier index, -1 when added, or -2 when
 * out of memory (printed). */
long name_index_add(name_index *x, const char *name, uint32_t index);
/* The index of name, or -1. */
long name_index_find(const name_index *x, const char *name);

#endif
