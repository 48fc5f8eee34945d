/* Instances: handles, adding, removing and pausing rows. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "random.h"

#define GEN_MASK 0xffffu
#define MARKED 0xfffffffeu /* next_free of a live slot picked for removal */

/* ---- handles ---- */
static crowd_instance make_handle(const crowd_engine *e, uint32_t slot) {
    uint64_t gen = e->slots[slot].generation & GEN_MASK;
    return (crowd_instance){((uint64_t)e->tag << 48) | (gen << 32) | slot};
}

const crowdi_slot *crowdi_slot_get(const crowd_engine *e, crowd_instance h) {
    if ((h.id >> 48) != e->tag) return NULL;
    uint32_t slot = (uint32_t)h.id;
    if (slot >= e->slot_count) return NULL;
    const crowdi_slot *s = &e->slots[slot];
    if (s->rig == UINT32_MAX || (s->generation & GEN_MASK) != ((h.id >> 32) & GEN_MASK)) return NULL;
    return s;
}

crowd_result crowdi_check_handles(const crowd_engine *e, const char *fn, const crowd_instance *h,
                                  uint32_t count) {
    CROWDI_CHECK(e, count == 0 || h, CROWD_ERR_NULL, "%s: handles is NULL with count %u", fn, count);
    for (uint32_t i = 0; i < count; i++)
        CROWDI_CHECK(e, crowdi_slot_get(e, h[i]), CROWD_ERR_HANDLE,
                     "%s: handles[%u] (0x%llx) is zero, stale or from another engine", fn, i,
                     (unsigned long long)h[i].id);
    return CROWD_OK;
}

/* ---- moving rows (handles follow) ---- */
static void move_row(crowd_engine *e, crowdi_rig *r, uint32_t from, uint32_t to) {
    if (from == to) return;
    for (uint32_t c = 0; c < r->column_count; c++) r->columns[c][to] = r->columns[c][from];
    r->handles[to] = r->handles[from];
    e->slots[(uint32_t)r->handles[to].id].row = to;
}

static void swap_rows(crowd_engine *e, crowdi_rig *r, uint32_t a, uint32_t b) {
    if (a == b) return;
    for (uint32_t c = 0; c < r->column_count; c++) {
        float t = r->columns[c][a];
        r->columns[c][a] = r->columns[c][b];
        r->columns[c][b] = t;
    }
    crowd_instance t = r->handles[a];
    r->handles[a] = r->handles[b];
    r->handles[b] = t;
    e->slots[(uint32_t)r->handles[a].id].row = a;
    e->slots[(uint32_t)r->handles[b].id].row = b;
}

/* ---- adding ---- */
static crowd_result reserve_slots(crowd_engine *e, uint32_t extra) {
    uint64_t need = (uint64_t)e->slot_count + extra;
    if (need <= e->slot_capacity) return CROWD_OK;
    if (need > 0xffff0000u) return CROWD_ERR_CAPACITY;
    uint64_t cap = e->slot_capacity ? e->slot_capacity : 64;
    while (cap < need) cap *= 2;
    if (cap > 0xffff0000u) cap = 0xffff0000u;
    crowdi_slot *slots = crowdi_alloc(e, sizeof *slots * (size_t)cap);
    if (!slots) return CROWD_ERR_OUT_OF_MEMORY;
    if (e->slot_count) memcpy(slots, e->slots, sizeof *slots * e->slot_count);
    crowdi_free(e, e->slots);
    e->slots = slots;
    e->slot_capacity = (uint32_t)cap;
    return CROWD_OK;
}

/* The start state of a new row: column defaults, then what is drawn per instance, by the
 * controllers in tick order (the first blink wait, then one phase per harmonic entry). */
static void init_row(const crowd_engine *e, crowdi_rig *r, uint32_t row, uint64_t id,
                     const crowd_add_desc *d) {
    r->view.rkey[row] = crowdi_instance_key(e->seed, id);
    r->view.draws[row] = 0;
    ((uint32_t *)(void *)r->columns[r->col_lod_counter])[row] = crowdi_lod_phase(id);
    static const int order[CROWDI_CONTROLLER_COUNT] = CROWDI_TICK_ORDER;
    for (int k = 0; k < CROWDI_CONTROLLER_COUNT; k++) {
        const crowdi_controller *c = crowdi_controllers[order[k]];
        if (r->has[order[k]] && c->init_row) c->init_row(e, r, row, d);
    }
}

crowd_result crowd_instances_add(crowd_engine *e, const crowd_add_desc *d, crowd_instance *out_handles) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_instances_add";
    CROWDI_CHECK(e, d, CROWD_ERR_NULL, "%s: desc is NULL", fn);
    uint32_t rig_index = crowdi_rig_index(e, d->rig);
    CROWDI_CHECK(e, rig_index != UINT32_MAX, CROWD_ERR_HANDLE, "%s: desc->rig is not a rig of this engine", fn);
    CROWDI_CHECK(e, (unsigned)d->blink_start < CROWD_BLINK_START_COUNT, CROWD_ERR_BAD_ENUM,
                 "%s: desc->blink_start (%d) is not a crowd_blink_start", fn, (int)d->blink_start);
    CROWDI_CHECK(e, (unsigned)d->harmonic_phase < CROWD_HARMONIC_PHASE_COUNT, CROWD_ERR_BAD_ENUM,
                 "%s: desc->harmonic_phase (%d) is not a crowd_harmonic_phase", fn, (int)d->harmonic_phase);
    crowdi_rig *r = e->rigs[rig_index];
    CROWDI_CHECK(e, d->count <= CROWDI_MAX_ROWS - r->count, CROWD_ERR_CAPACITY,
                 "%s: desc->count (%u) would take rig \"%s\" past %u instances", fn, d->count, r->name, CROWDI_MAX_ROWS);
    if (d->count == 0) return CROWD_OK;

    crowd_result res = reserve_slots(e, d->count);
    CROWDI_CHECK(e, res == CROWD_OK, res, "%s: no room for %u more instance handles", fn, d->count);
    uint32_t need = r->count + d->count;
    if (need > r->capacity) {
        uint64_t cap = r->capacity * 2ull;
        if (cap < need) cap = need;
        if (cap > CROWDI_MAX_ROWS) cap = CROWDI_MAX_ROWS;
        res = crowdi_rig_grow(e, r, (uint32_t)cap);
        CROWDI_CHECK(e, res == CROWD_OK, res, "%s: cannot grow rig \"%s\" to %u instances", fn, r->name, need);
    }
    /* column defaults for all new rows at once, column by column */
    for (uint32_t c = 0; c < r->column_count; c++) {
        uint32_t *col = (uint32_t *)(void *)r->columns[c], bits = r->init_bits[c];
        for (uint32_t row = r->count; row < need; row++) col[row] = bits;
    }
    for (uint32_t k = 0; k < d->count; k++) {
        uint32_t slot;
        if (e->free_slot != UINT32_MAX) {
            slot = e->free_slot;
            e->free_slot = e->slots[slot].next_free;
        } else {
            slot = e->slot_count++;
            e->slots[slot].generation = 1;
        }
        uint32_t row = r->count++;
        crowdi_slot *s = &e->slots[slot];
        s->id = e->next_instance_id++;
        s->rig = rig_index;
        s->row = row;
        s->next_free = UINT32_MAX;
        r->handles[row] = make_handle(e, slot);
        init_row(e, r, row, s->id, d);
        swap_rows(e, r, r->running, row); /* new instances run: keep paused rows last */
        r->running++;
        if (out_handles) out_handles[k] = make_handle(e, slot);
    }
    return CROWD_OK;
}

crowd_result crowd_reserve(crowd_engine *e, crowd_rig rig, uint32_t capacity) {
    if (!e) return CROWD_ERR_NULL;
    crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_reserve: rig is not a rig of this engine");
    CROWDI_CHECK(e, capacity <= CROWDI_MAX_ROWS, CROWD_ERR_CAPACITY, "crowd_reserve: capacity (%u) exceeds %u",
                 capacity, CROWDI_MAX_ROWS);
    crowd_result res = crowdi_rig_grow(e, r, capacity);
    CROWDI_CHECK(e, res == CROWD_OK, res, "crowd_reserve: cannot reserve %u instances", capacity);
    return CROWD_OK;
}

crowd_result crowd_rig_bytes_per_instance(const crowd_engine *e, crowd_rig rig, size_t *out_bytes) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_bytes_per_instance: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_bytes, CROWD_ERR_NULL, "crowd_rig_bytes_per_instance: out_bytes is NULL");
    *out_bytes = (size_t)r->column_count * 4 + sizeof(crowd_instance) + sizeof(crowdi_slot);
    return CROWD_OK;
}

/* ---- removing ---- */
/* A slot whose generation would wrap is retired (generation 0, never on the free list): a
 * handle names one instance for the engine's whole life. */
static void release_slot(crowd_engine *e, uint32_t slot) {
    crowdi_slot *s = &e->slots[slot];
    s->rig = UINT32_MAX;
    if (s->generation >= GEN_MASK) {
        s->generation = 0;
        s->next_free = UINT32_MAX;
        return;
    }
    s->generation++;
    s->next_free = e->free_slot;
    e->free_slot = slot;
}

crowd_result crowd_instances_remove(crowd_engine *e, const crowd_instance *h, uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_instances_remove";
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        crowdi_slot *s = &e->slots[(uint32_t)h[i].id];
        if (s->next_free == MARKED) {
            for (uint32_t j = 0; j < i; j++) e->slots[(uint32_t)h[j].id].next_free = UINT32_MAX;
            return crowdi_fail(e, CROWD_ERR_REPEATED_HANDLE, "%s: handles[%u] repeats an earlier handle", fn, i);
        }
        s->next_free = MARKED;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t slot = (uint32_t)h[i].id;
        crowdi_rig *r = e->rigs[e->slots[slot].rig];
        uint32_t row = e->slots[slot].row;
        if (row < r->running) { /* fill from the last running row, then that from the last row */
            move_row(e, r, r->running - 1, row);
            move_row(e, r, r->count - 1, r->running - 1);
            r->running--;
        } else {
            move_row(e, r, r->count - 1, row);
        }
        r->count--;
        release_slot(e, slot);
    }
    return CROWD_OK;
}

crowd_result crowd_instances_pause(crowd_engine *e, const crowd_instance *h, uint32_t count, bool paused) {
    if (!e) return CROWD_ERR_NULL;
    crowd_result res = crowdi_check_handles(e, "crowd_instances_pause", h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        crowdi_rig *r = e->rigs[s->rig];
        uint32_t row = s->row;
        if (paused && row < r->running) swap_rows(e, r, row, --r->running);
        else if (!paused && row >= r->running) swap_rows(e, r, row, r->running++);
    }
    return CROWD_OK;
}

crowd_result crowd_instance_paused(const crowd_engine *e, crowd_instance h, bool *out_paused) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_paused: instance is zero, stale or from another engine");
    CROWDI_CHECK(e, out_paused, CROWD_ERR_NULL, "crowd_instance_paused: out_paused is NULL");
    *out_paused = s->row >= e->rigs[s->rig]->running;
    return CROWD_OK;
}

uint32_t crowd_rig_running_count(const crowd_engine *e, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    return r ? r->running : 0;
}

crowd_result crowd_instance_info(const crowd_engine *e, crowd_instance h, uint64_t *out_id,
                                 crowd_rig *out_rig, uint32_t *out_row) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_info: instance (0x%llx) is zero, stale or from another engine",
                 (unsigned long long)h.id);
    if (out_id) *out_id = s->id;
    if (out_rig) *out_rig = crowdi_rig_handle(e, s->rig);
    if (out_row) *out_row = s->row;
    return CROWD_OK;
}

crowd_result crowd_instance_random(crowd_engine *e, crowd_instance h, uint32_t count, float *out) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "crowd_instance_random: instance is zero, stale or from another engine");
    CROWDI_CHECK(e, count == 0 || out, CROWD_ERR_NULL, "crowd_instance_random: out_values is NULL");
    crowdi_rig *r = e->rigs[s->rig];
    uint32_t *host_draws = (uint32_t *)(void *)r->columns[r->col_host_draws];
    uint32_t key = crowdi_host_key(r->view.rkey[s->row]);
    for (uint32_t k = 0; k < count; k++) out[k] = crowdi_draw(key, host_draws[s->row]++);
    return CROWD_OK;
}
