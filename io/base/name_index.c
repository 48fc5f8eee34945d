#include "name_index.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"

struct name_slot {
    const char *name; /* NULL: empty */
    uint32_t index;
};

static size_t hash(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 32));
}

static struct name_slot *probe(const name_index *x, const char *name) {
    for (size_t at = hash(name) & x->mask;; at = (at + 1) & x->mask)
        if (!x->slots[at].name || strcmp(x->slots[at].name, name) == 0) return &x->slots[at];
}

void name_index_free(name_index *x) {
    free(x->slots);
    memset(x, 0, sizeof *x);
}

long name_index_find(const name_index *x, const char *name) {
    if (!x->slots) return -1;
    const struct name_slot *s = probe(x, name);
    return s->name ? (long)s->index : -1;
}

long name_index_add(name_index *x, const char *name, uint32_t index) {
    if (2 * (x->count + 1) > (x->slots ? x->mask + 1 : 0)) { /* grow to keep it at most half full */
        size_t size = x->slots ? 2 * (x->mask + 1) : 64;
        name_index grown = {tool_calloc(size, sizeof *grown.slots), size - 1, x->count};
        if (!grown.slots) return -2;
        for (size_t k = 0; x->slots && k <= x->mask; k++)
            if (x->slots[k].name) *probe(&grown, x->slots[k].name) = x->slots[k];
        free(x->slots);
        *x = grown;
    }
    struct name_slot *s = probe(x, name);
    if (s->name) return (long)s->index;
    *s = (struct name_slot){name, index};
    x->count++;
    return -1;
}
