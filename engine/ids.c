/* A rig desc's parameter ids, hashed (FNV-1a 32) into an open-addressed table of index + 1,
 * at most half full: checking ids takes time linear in the counts. crowd_rig_create builds it;
 * the controllers' validation and build look their entries' ids up in it. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static uint32_t hash_id(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The index of id, or -1; with insert, a missing id is added as parameter `insert_as`. */
static int probe(crowdi_ids *x, const char *id, bool insert, uint32_t insert_as) {
    for (uint32_t at = hash_id(id) & x->mask;; at = (at + 1) & x->mask) {
        uint32_t v = x->slots[at];
        if (v == 0) {
            if (insert) x->slots[at] = insert_as + 1;
            return -1;
        }
        if (strcmp(x->desc->parameters[v - 1].id, id) == 0) return (int)(v - 1);
    }
}

crowd_result crowdi_ids_create(crowd_engine *engine, const crowd_rig_desc *d, crowdi_ids *x) {
    uint32_t size = 16;
    while (size < 2 * d->parameter_count) size *= 2;
    x->desc = d;
    x->mask = size - 1;
    x->slots = crowdi_alloc(engine, sizeof *x->slots * size);
    if (!x->slots) return CROWD_ERR_OUT_OF_MEMORY;
    memset(x->slots, 0, sizeof *x->slots * size);
    return CROWD_OK;
}

int crowdi_ids_insert(crowdi_ids *x, const char *id, uint32_t index) { return probe(x, id, true, index); }

int crowdi_ids_find(const crowdi_ids *x, const char *id) { return probe((crowdi_ids *)x, id, false, 0); }

crowd_result crowdi_rig_param_id(crowd_engine *engine, const crowdi_ids *ids, const char *field_fmt, uint32_t k,
                                 const char *id, uint32_t *out_index) {
    char field[96];
    snprintf(field, sizeof field, field_fmt, k);
    CROWDI_RIG_CHECK(id != NULL, CROWD_ERR_NULL, "%s is NULL", field);
    int found = crowdi_ids_find(ids, id);
    CROWDI_RIG_CHECK(found >= 0, CROWD_ERR_UNKNOWN_ID, "%s \"%s\" is not a parameter of the rig", field, id);
    if (out_index) *out_index = (uint32_t)found;
    return CROWD_OK;
}
